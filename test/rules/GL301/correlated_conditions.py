# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL301 and branches on the same condition. A step taken only when `did_step` holds, followed by
# a reset taken only when it holds, leaves nothing pending: the path that steps and then skips
# the reset does not exist (pytorch/rl's GRPO trainer skips the update on a non-finite gradient
# norm and resets on both branches).
import torch


def skip_non_finite(model, loader, optimizer, accumulation_steps):
    for step, batch in enumerate(loader):
        loss = model(batch)
        loss.backward()
        if (step + 1) % accumulation_steps == 0:
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            did_step = bool(torch.isfinite(grad_norm))
            if not did_step:
                optimizer.zero_grad(set_to_none=True)
            else:
                optimizer.step()
            if did_step:
                optimizer.zero_grad(set_to_none=True)


# The reset tests another condition: the step is pending when it fails.
def reset_on_another_flag(model, loader, optimizer, log_now):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        did_step = bool(torch.isfinite(grad_norm))
        if did_step:
            # CHECK: correlated_conditions.py:[[@LINE+1]]:13: GL301
            optimizer.step()
        if log_now:
            optimizer.zero_grad()


# The condition is computed again between the step and the reset: no longer the same outcome.
def condition_reassigned(model, loader, optimizer, check):
    for batch in loader:
        loss = model(batch)
        loss.backward()
        did_step = check(model)
        if did_step:
            # CHECK: correlated_conditions.py:[[@LINE+1]]:13: GL301
            optimizer.step()
        did_step = check(model)
        if did_step:
            optimizer.zero_grad()
