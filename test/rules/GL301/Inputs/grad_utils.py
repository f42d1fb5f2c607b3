# A helper module for helper-module.py: resetting the gradients in another file.


def reset_gradients(optimizer):
    optimizer.zero_grad(set_to_none=True)
