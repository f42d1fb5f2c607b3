import torch


class SetGradLike:
    def __init__(self, mode):
        self.prev = torch.is_grad_enabled()
        torch.set_grad_enabled(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        torch.set_grad_enabled(self.prev)


class SwitchesOnly:
    def __init__(self, mode):
        torch.set_grad_enabled(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class EntersOff:
    def __enter__(self):
        torch.set_grad_enabled(False)
        return self

    def __exit__(self, *exc):
        return False
