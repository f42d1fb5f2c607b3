# RUN: not %gradlint check --no-respect-gitignore --output-format full %s | FileCheck %s --implicit-check-not=': GL'
# GL301 in full output: the finding is at the step, and the related location is the backward
# that adds to the gradients the step already applied.


def train(model, loader, opt):
    for x in loader:
        loss = model(x)
        loss.backward()
        opt.step()
# CHECK: related.py:[[@LINE-1]]:9: GL301 `opt.step()` applies the gradients
# CHECK: = note: {{.*}}related.py:[[@LINE-3]]:9: this `backward()` adds to the gradients the step already used
# CHECK: = help: call `optimizer.zero_grad()` (or `model.zero_grad()`) once per step
