# RUN: not %check-file --select GL101,GL104 %s | FileCheck %s --implicit-check-not=': GL'
# A helper that takes the mode as a parameter (`torch.set_grad_enabled(train)`) is fine on its
# own: its caller decides. A caller is a toggle where it passes False (positionally, by keyword,
# or by leaving out a parameter whose default is False) and returns with that mode still in
# force; one that passes True last, or saves and restores the mode around it, is clean.
import torch


def run_epoch(model, loader, opt=None, train=True):
    torch.set_grad_enabled(train)
    for batch in loader:
        loss = model(batch)
        if train:
            opt.zero_grad()
            loss.backward()
            opt.step()


def evaluate_by_keyword(model, loader):
    # CHECK: [[@LINE+1]]:5: GL101 `run_epoch()` sets grad mode from its `train` argument, False here, and `evaluate_by_keyword` returns with it still disabled
    run_epoch(model, loader, train=False)
    return len(loader)


def evaluate_by_position(model, loader):
    # CHECK: [[@LINE+1]]:5: GL101 `run_epoch()` sets grad mode from its `train` argument, False here, and `evaluate_by_position` returns with it still disabled
    run_epoch(model, loader, None, False)


def infer(model, loader, train=False):
    torch.set_grad_enabled(train)
    return [model(batch) for batch in loader]


def infer_with_default(model, loader):
    # CHECK: [[@LINE+1]]:5: GL101 `infer()` sets grad mode from its `train` argument, False here (its default), and `infer_with_default` returns with it still disabled
    infer(model, loader)


# A parameter handed on: the caller's summary sets the mode from its own parameter, and its
# caller substitutes in turn.
def one_epoch(model, loader, opt, training):
    run_epoch(model, loader, opt, train=training)


def validate(model, loader):
    # CHECK: [[@LINE+1]]:5: GL101 `one_epoch()` sets grad mode from its `training` argument, False here, and `validate` returns with it still disabled
    one_epoch(model, loader, None, False)


# A keyword-only parameter is not filled by position.
def step_mode(*args, enabled=True):
    torch.set_grad_enabled(enabled)


def keyword_only(model):
    # CHECK: [[@LINE+1]]:5: GL101 `step_mode()` sets grad mode from its `enabled` argument, False here, and `keyword_only` returns with it still disabled
    step_mode(model, enabled=False)


def keyword_only_positional_is_args(model):
    step_mode(model, False)  # a *args value: `enabled` keeps its default, True


# The twins: clean.
def train_last(model, loader, opt):
    run_epoch(model, loader, train=False)
    run_epoch(model, loader, opt, train=True)


def evaluate_then_default(model, loader, opt):
    run_epoch(model, loader, train=False)
    run_epoch(model, loader, opt)  # the default, True


def save_and_restore(model, loader):
    prev = torch.is_grad_enabled()
    try:
        run_epoch(model, loader, train=False)
    finally:
        torch.set_grad_enabled(prev)


def save_and_restore_by_hand(model, loader):
    prev = torch.is_grad_enabled()
    # CHECK: [[@LINE+1]]:5: GL104 `run_epoch()` disables grad mode and `save_and_restore_by_hand` restores it only on the normal path
    run_epoch(model, loader, train=False)
    print(len(loader))  # may raise: the restore below is skipped then
    torch.set_grad_enabled(prev)


def restores_through_the_helper(model, loader, saved):
    prev = torch.is_grad_enabled()
    try:
        run_epoch(model, loader, train=False)
    finally:
        run_epoch(model, loader, train=prev)


def unknown_argument(model, loader, cfg):
    run_epoch(model, loader, train=cfg.train)  # not known here: not reported


def passes_its_own_parameter(model, loader, opt, train):
    run_epoch(model, loader, opt, train=train)  # its callers decide


def splat_arguments(model, loader, **options):
    infer(model, loader, **options)  # may pass `train`: not known


def in_no_grad_block(model, loader):
    with torch.no_grad():
        run_epoch(model, loader, train=False)


# A helper that sets the mode from its parameter and puts the caller's back before it returns.
def scoped_epoch(model, loader, train=True):
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(train)
    try:
        return [model(batch) for batch in loader]
    finally:
        torch.set_grad_enabled(prev)


def evaluate_scoped(model, loader):
    return scoped_epoch(model, loader, train=False)


# The common script: train, then evaluate, each epoch; `main()` is a function like any other
# (another entry point or a test may call it), and it returns with grad mode off. The
# `if __name__ == "__main__":` block is not checked by GL101 (its top level ends the program).
def main(model, loader, opt, epochs):
    for _ in range(epochs):
        run_epoch(model, loader, opt, train=True)
        # CHECK: [[@LINE+1]]:9: GL101 `run_epoch()` sets grad mode from its `train` argument, False here, and `main` returns with it still disabled
        run_epoch(model, loader, train=False)


def main_restores(model, loader, opt, epochs):
    for _ in range(epochs):
        run_epoch(model, loader, opt, train=True)
        run_epoch(model, loader, train=False)
    torch.set_grad_enabled(True)


if __name__ == "__main__":
    main(None, [], None, 3)
    run_epoch(None, [], train=False)
