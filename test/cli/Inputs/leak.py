"""One finding of each of three rules, for the CLI tests (line numbers matter)."""
import torch


def load(path):
    torch.set_grad_enabled(False)
    return torch.load(path)


def evaluate(model, batch):
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    out = model(batch)
    torch.set_grad_enabled(prev)
    return out


def forgot_with(model, batch):
    torch.no_grad()
    return model(batch)
