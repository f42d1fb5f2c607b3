"""Only runs as a script (`python -m quiet_pkg.main_guard`), never on import."""
import torch


def evaluate(model):
    with torch.no_grad():
        return model()


if __name__ == "__main__":
    torch.set_grad_enabled(False)
    evaluate(print)
