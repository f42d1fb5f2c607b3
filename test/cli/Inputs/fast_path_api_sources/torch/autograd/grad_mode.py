import torch


class no_grad:
    def __enter__(self):
        self.prev = torch.is_grad_enabled()
        torch._C._set_grad_enabled(False)

    def __exit__(self, *args):
        torch._C._set_grad_enabled(self.prev)


class enable_grad:
    def __enter__(self):
        self.prev = torch.is_grad_enabled()
        torch._C._set_grad_enabled(True)

    def __exit__(self, *args):
        torch._C._set_grad_enabled(self.prev)
