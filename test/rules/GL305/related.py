# RUN: not %gradlint check --no-respect-gitignore --output-format full %s | FileCheck %s --implicit-check-not=': GL'
# GL305 in full output: the finding is at the reset, and the related location is the step that
# applies the zeroed gradients.


def train(model, loader, opt):
    for x in loader:
        loss = model(x)
        loss.backward()
        opt.zero_grad()
        opt.step()
# CHECK: related.py:[[@LINE-2]]:9: GL305 `opt.zero_grad()` runs after `backward()` and before `step()`
# CHECK: = note: {{.*}}related.py:[[@LINE-2]]:9: the step that gets the zeroed gradients
# CHECK: = help: move `zero_grad()` before the forward pass or after `step()`
