# RUN: not %gradlint check --no-respect-gitignore --output-format full %s | FileCheck %s --implicit-check-not=': GL'
# GL302 in full output, for a `torch.set_grad_enabled(False)` toggle: the related location
# "grad is disabled here" is the toggle, not the definition.
import torch


def toggled_off(model, x):
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        loss = model(x).sum()
        loss.backward()
    finally:
        torch.set_grad_enabled(prev)
# CHECK: related-toggle.py:[[@LINE-3]]:9: GL302 `loss` was computed with grad disabled
# CHECK: = note: {{.*}}related-toggle.py:[[@LINE-7]]:5: grad is disabled here
# CHECK: = note: {{.*}}related-toggle.py:[[@LINE-6]]:9: `loss` is computed here
