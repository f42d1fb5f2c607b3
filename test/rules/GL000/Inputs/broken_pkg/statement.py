import torch

# CHECK: statement.py:[[@LINE+1]]:{{[0-9]+}}: GL000 invalid syntax
total = (1 +


# CHECK: statement.py:[[@LINE+1]]:1: GL102 `torch.set_grad_enabled(False)` changes grad mode when `broken_pkg.statement` is imported and never restores it
torch.set_grad_enabled(False)


def leaks(model):
    # CHECK: statement.py:[[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `leaks` returns with it still disabled
    torch.set_grad_enabled(False)
    return model
