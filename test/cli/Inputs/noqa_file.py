# gradlint: noqa
"""A file-level `# gradlint: noqa` comment hides every finding in the file."""
import torch


def load(path):
    torch.set_grad_enabled(False)
    return torch.load(path)


def forgot_with(model, batch):
    torch.no_grad()
    return model(batch)
