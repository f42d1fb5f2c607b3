# RUN: not %gradlint check --no-respect-gitignore --output-format full %s | FileCheck %s --implicit-check-not=': GL'
# GL302 in full output: the finding is at the backward; the related locations are where grad is
# disabled (the `with` item, the decorated function, the toggle) and the definition.
import torch


def in_block(model, x):
    with torch.no_grad():
        loss = model(x).sum()
    loss.backward()
# CHECK: related.py:[[@LINE-1]]:5: GL302 `loss` was computed with grad disabled
# CHECK: = note: {{.*}}related.py:[[@LINE-4]]:10: grad is disabled here
# CHECK: = note: {{.*}}related.py:[[@LINE-4]]:9: `loss` is computed here
# CHECK: = help: compute `loss` outside the `torch.no_grad()`/`torch.inference_mode()` region


@torch.no_grad()
def decorated(model, x):
    loss = model(x).sum()
    loss.backward()
# CHECK: related.py:[[@LINE-1]]:5: GL302 `loss` was computed with grad disabled
# CHECK: = note: {{.*}}related.py:[[@LINE-4]]:5: grad is disabled here
# CHECK: = note: {{.*}}related.py:[[@LINE-4]]:5: `loss` is computed here
