def broken(:
    torch.set_grad_enabled(False)
