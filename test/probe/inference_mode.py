# Inference mode (c10::InferenceMode, which does not go through GradMode::set_enabled): a guard
# entered and kept past its function is a leak, reported like a grad-mode leak; GL105's
# `inference_mode().__enter__()` form and GL304 get runtime verdicts, and made-up claims on
# correct code are refuted.
# REQUIRES: probe
# RUN: %expect-exit 1 %gradlint check --no-respect-gitignore --output-format json %s > %t.json
# RUN: %python %S/Inputs/claim.py %t.json %s > %t.claims.json
# RUN: %expect-exit 1 %gradlint probe run --findings %t.claims.json -- %torch-python %s > %t.out 2>&1
# RUN: FileCheck %s < %t.out
# RUN: FileCheck %s --check-prefix=VERDICT < %t.out
# RUN: FileCheck %s --check-prefix=OUTPUT < %t.out
import torch

_serving = None


def start_serving():
    # A guard kept in a global: inference mode stays on after this function returns.
    global _serving
    _serving = torch.inference_mode()
    # CHECK: inference_mode.py:[[@LINE+1]]: `start_serving` entered inference mode and returned with it still on (pid {{[0-9]+}}, main thread)
    _serving.__enter__()


def quick_eval(model, batch):
    # VERDICT-DAG: inference_mode.py:[[@LINE+1]]: GL105 confirmed
    torch.inference_mode().__enter__()
    return model(batch)


def train_on_frozen_features(model, batch):
    # VERDICT-DAG: inference_mode.py:[[@LINE+3]]: GL304 confirmed
    with torch.inference_mode():
        feats = batch * 2
    loss = model(feats).sum()
    loss.backward()


def train_on_cloned_features(model, batch):
    # VERDICT-DAG: inference_mode.py:[[@LINE+2]]: GL304 refuted
    with torch.inference_mode():  # probe-claim GL304
        feats = batch * 2
    feats = feats.clone()
    model(feats).sum().backward()


def scoped(model, batch):
    # VERDICT-DAG: inference_mode.py:[[@LINE+1]]: GL105 refuted
    with torch.inference_mode():  # probe-claim GL105
        return model(batch)


def never_called():
    # VERDICT-DAG: inference_mode.py:[[@LINE+1]]: GL105 not-reached
    with torch.inference_mode():  # probe-claim GL105
        pass


if __name__ == "__main__":
    model = torch.nn.Linear(4, 1)
    # OUTPUT: quick_eval left inference mode on: False
    print("quick_eval left inference mode on:", quick_eval(model, torch.randn(2, 4)).is_inference())
    # OUTPUT: cloned features train: True
    scoped(model, torch.randn(2, 4))
    train_on_cloned_features(model, torch.randn(8, 4))
    print("cloned features train:", model.weight.grad is not None)
    try:
        train_on_frozen_features(model, torch.randn(8, 4))
    except RuntimeError as error:
        # OUTPUT: training failed: Inference tensors cannot be saved for backward
        print("training failed:", str(error).splitlines()[0])
    start_serving()
    try:
        # CHECK-NEXT: = backward() ran with grad disabled at {{.*}}inference_mode.py:[[@LINE+1]] in `<module>`
        model(torch.randn(8, 4)).sum().backward()
    except RuntimeError as error:
        print("training failed:", str(error).splitlines()[0])
# CHECK: autograd refused an inference tensor ("Inference tensors cannot be saved for backward") (pid {{[0-9]+}})
# CHECK-NEXT: = after the inference-mode block at {{.*}}inference_mode.py:{{[0-9]+}}: `train_on_frozen_features`
# CHECK: inference mode entered at:
# CHECK: inference_mode.py:{{[0-9]+}}: `start_serving`: entered 1, restored 0, leaked 1
# CHECK: gradlint probe: 0 grad-mode leaks, 1 inference-mode leak
