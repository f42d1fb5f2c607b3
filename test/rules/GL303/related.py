# RUN: not %gradlint check --no-respect-gitignore --output-format full %s | FileCheck %s --implicit-check-not=': GL'
# GL303 in full output: the finding is at the first model call in the loop, and the related
# location is the eval() call.


def evaluate(model, loader):
    model.eval()
    for x in loader:
        model(x)
# CHECK: related.py:[[@LINE-1]]:9: GL303 `model` runs in evaluation mode but with grad enabled
# CHECK: = note: {{.*}}related.py:[[@LINE-4]]:5: evaluation mode is set here
# CHECK: = help: wrap the evaluation loop in `with torch.no_grad():`
