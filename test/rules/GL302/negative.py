# RUN: %check-file %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL302 backward-through-no-grad must stay silent below: in each function, the value passed to
# backward() has (or may have) an autograd graph.
import torch
import torch.nn.functional as F


# A frozen backbone under no_grad feeding a trainable head outside it: the head's parameters
# give the loss a graph.
def frozen_backbone(backbone, head, x, y, opt):
    opt.zero_grad()
    with torch.no_grad():
        feats = backbone(x)
    loss = F.cross_entropy(head(feats), y)
    loss.backward()
    opt.step()


# Redefined outside the region before the backward.
def redefined(model, x):
    with torch.no_grad():
        loss = model(x).sum()
    print(loss.item())
    loss = model(x).sum()
    loss.backward()


# Defined inside the region on one branch only.
def one_branch(model, x, cached):
    if cached:
        with torch.no_grad():
            loss = model(x).sum()
    else:
        loss = model(x).sum()
    loss.backward()


# `torch.enable_grad()` inside the no_grad block turns grad back on.
def enable_grad_inside(model, x):
    with torch.no_grad():
        with torch.enable_grad():
            loss = model(x).sum()
    loss.backward()


# `set_grad_enabled(True)` and `set_grad_enabled(flag)` do not certainly disable grad.
def set_grad_enabled_true(model, x):
    with torch.set_grad_enabled(True):
        loss = model(x).sum()
    loss.backward()


def set_grad_enabled_flag(model, x, training):
    with torch.set_grad_enabled(training):
        loss = model(x).sum()
    loss.backward()


# A toggle that is restored before the definition.
def restored_before(model, x):
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        baseline = model(x).sum()
    finally:
        torch.set_grad_enabled(prev)
    loss = model(x).sum() - baseline
    loss.backward()


# A toggle on one path only.
def toggled_on_one_path(model, x, frozen):
    prev = torch.is_grad_enabled()
    if frozen:
        torch.set_grad_enabled(False)
    try:
        loss = model(x).sum()
        loss.backward()
    finally:
        torch.set_grad_enabled(prev)


# A parameter: its definition is the caller's.
def backward_param(loss):
    with torch.no_grad():
        print(loss)
    loss.backward()


# Computed under no_grad and only logged; the backward is on another value.
def logged_only(model, x, log):
    with torch.no_grad():
        accuracy = model(x).argmax(-1).float().mean()
    log(accuracy)
    loss = model(x).sum()
    loss.backward()


# Grad turned back on inside a no_grad region: the loss is computed with grad on (classifier
# guidance in a sampler under `@torch.no_grad()` or `with torch.no_grad():`).
@torch.no_grad()
def guidance(model, classifier, x):
    torch.set_grad_enabled(True)
    x_in = x.detach().requires_grad_()
    loss = classifier(x_in).sum()
    loss.backward()
    torch.set_grad_enabled(False)
    return model(x) - x_in.grad


def guidance_with(classifier, x):
    with torch.no_grad():
        torch.set_grad_enabled(True)
        loss = classifier(x).sum()
        loss.backward()
        torch.set_grad_enabled(False)
    return x


def inner_enable_grad(classifier, x):
    with torch.no_grad():
        with torch.enable_grad():
            loss = classifier(x).sum()
            loss.backward()
