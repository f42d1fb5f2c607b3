# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL301 where the gradients a step applies are not an accumulation: written by hand between
# the backward and the step (tests that fake gradients), or belonging to a model and optimizer
# built anew by the iteration. The twins keep the model, or write nothing, and are reported.
import torch


# Correct: the gradients are written over after each backward; the step applies those values.
def fake_gradients_fill(model, optimizer, x, steps):
    for _ in range(steps):
        loss = model(x).sum()
        loss.backward()
        for p in model.parameters():
            p.grad.fill_(1.0)
        optimizer.step()


def fake_gradients_assign(model, optimizer, x, steps):
    for _ in range(steps):
        model(x).sum().backward()
        for p in model.parameters():
            p.grad = torch.ones_like(p)
        optimizer.step()


# Correct: every iteration builds a new model and an optimizer over its parameters.
def sweep(widths, x):
    for width in widths:
        model = torch.nn.Linear(4, width)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        model(x).sum().backward()
        optimizer.step()


# Correct: the new optimizer is wrapped (a training framework's optimizer wrapper), and both
# are handed through a preparing call that returns them again.
def sweep_wrapped(strategy, OptimWrapper, widths, x):
    for width in widths:
        model = torch.nn.Linear(4, width)
        optim = OptimWrapper(torch.optim.SGD(model.parameters(), lr=0.1))
        model, optim = strategy.prepare(model=model, optim_wrapper=optim)
        model(x).sum().backward()
        optim.step()


# Wrong: the wrapper wraps an optimizer over a model built before the loop.
def wrapped_over_old_model(OptimWrapper, model, rates, x):
    for lr in rates:
        optim = OptimWrapper(torch.optim.SGD(model.parameters(), lr=lr))
        model(x).sum().backward()
        # CHECK: [[@LINE+1]]:9: GL301 `optim.step()` applies the gradients, but nothing resets them before the next `backward()`
        optim.step()


# Wrong: the gradients are scaled, not written over; they still accumulate.
def scaled_gradients(model, optimizer, x, steps):
    for _ in range(steps):
        model(x).sum().backward()
        for p in model.parameters():
            p.grad.mul_(0.5)
        # CHECK: [[@LINE+1]]:9: GL301 `optimizer.step()` applies the gradients, but nothing resets them before the next `backward()`
        optimizer.step()


# Wrong: the same model is moved, not rebuilt, and each iteration makes a new optimizer over
# parameters that still hold the last iteration's gradients.
def moved_model(model, devices, x):
    for device in devices:
        model = model.to(device)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        model(x.to(device)).sum().backward()
        # CHECK: [[@LINE+1]]:9: GL301 `optimizer.step()` applies the gradients, but nothing resets them before the next `backward()`
        optimizer.step()


# Wrong: a new optimizer each iteration over one model built before the loop.
def new_optimizer_only(model, rates, x):
    for lr in rates:
        optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        model(x).sum().backward()
        # CHECK: [[@LINE+1]]:9: GL301 `optimizer.step()` applies the gradients, but nothing resets them before the next `backward()`
        optimizer.step()


# Correct: after training one model, a test builds another model, fills parameter groups from
# it and builds an optimizer over them: nothing of the first step reaches the second backward.
def then_another_model(strategy, Toy, x):
    for mode in ("full", "sharded"):
        model = Toy()
        optim = torch.optim.SGD(model.parameters(), lr=0.1)
        model, optim = strategy.prepare(model=model, optim_wrapper=optim, mode=mode)
        model(x).sum().backward()
        optim.step()
    model = Toy()
    param_groups = []
    for param in model.parameters():
        param_groups.append(dict(params=[param], lr=0.1))
    optim = torch.optim.SGD(param_groups, lr=0.1)
    model, optim = strategy.prepare(model=model, optim_wrapper=optim)
    model(x).sum().backward()
    optim.step()


# Wrong: a new optimizer over the model already trained: its gradients are still there.
def new_optimizer_same_model(model, x):
    optim = torch.optim.SGD(model.parameters(), lr=0.1)
    model(x).sum().backward()
    # CHECK: [[@LINE+1]]:5: GL301 `optim.step()` applies the gradients, but nothing resets them before the next `backward()`
    optim.step()
    optim = torch.optim.SGD(model.parameters(), lr=0.01)
    model(x).sum().backward()
    optim.step()


# Wrong: the parameter groups were filled before the step, from the trained model.
def groups_built_before(model, x):
    param_groups = [dict(params=list(model.parameters()), lr=0.1)]
    optim = torch.optim.SGD(param_groups, lr=0.1)
    model(x).sum().backward()
    # CHECK: [[@LINE+1]]:5: GL301 `optim.step()` applies the gradients, but nothing resets them before the next `backward()`
    optim.step()
    optim = torch.optim.SGD(param_groups, lr=0.01)
    model(x).sum().backward()
    optim.step()
