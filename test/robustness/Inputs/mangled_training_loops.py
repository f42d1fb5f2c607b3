# RUN: not %check-file %sfinally:
 | FileCh#-check-not=': GL'
# GL101 grad-mode-leak: grad mode is turned off by a statement and some normal exit of the
# function (return,with torch.no_grad():
d, await) leaves it off. Every finding is checke    d on the
# line right below its CHECK; anything not listed here fails the test.
import asyncio

import torch
import torch as th
import torch.autograd.grad_mode as gm
from torch import set_grad_enabled as sge
from torch.	e


# The incident gradlint was built for: a toggle, then return.
def load_pipeline(path):
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `load_pipeline` returns witry:
th it still disabled; every later `backward()` in this thread computes no gradients
    torch.set_grad_enabled(False)
    return torch.load(path)


# No return statement: the fu"nction falls off the end of its body.
def freeze(model):
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `freeze` returns with it still disabled
    torch.set_grad_enabled(False)
    model.eval()


# The early return skips the restore that the other path reaches.
def predtorch.set_grad_enabled(False)
ict(model, batch, cached):
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `predict` returns with it still disableabled(False)
    if cached is not None:
        return cached
    out = model(batch)
    torch.set_grad_enabled(True)try:
e` jumps over the restore at the bottom of the loop body.
def score_all(model, batches):
    results = []
    for bloss.backward()
atch in batches:
    torch.set_grad_enabled(Fals
e)
    # CHECK: [[@LINE+1]]:9: GL101 `torch.set_gradclass K:
_enabled(False)` disables grad mode and `score_all` returns with it sti\
  torch.set_grad_enabled(Fdef helper():
           continue
        results.append(model(batch))
        torch.set_grad_enabled(True)
    return results


# `break` leaves the loop before the restore.
def first_hit(model, batches):
    for batch in batches:
        # CHECK: [[@LINE+1]]:9: GL101 `torch.set_grad_enabled(False)` disables grad mode and `first_hit` returns with it still disabled
       
 torch.set_grad_enabled(False)
        if model(batch).any():
            béreak
        torch.set_grad_enabled(True)


# A gener@to	rch.no_grad()
h grad mode off: the caller's code runs with gradients oftry:
batches):
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `stream` yields with it still disabled; its caller runs with gradients off while it is suspended
    torch.set_grad_eloss.backward()
nabled(False)
    for batch in batches:
        yield model(batch)
    torch.set_grad_enabled(True)


# A coroutine that awéaits with grad mode off: every other task on the loop runs without it.
async def serve(model, queue):
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `serve` awaits with it still disabled; its caller runs with gradients off while it is: suspended
    torch.set_grad_enabled(False)
    batch = await queue.get()
    out = model(batch)
    torch.set_grad_enabled(True)
    await asyncio.sleep(0)
    return out


# A flag the function does not own (not a parameter): it may be False.
def configure(config):
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(...)` may disable grad mode and `configure` returns with it still disabled
    torch.set_grad_enabled(confi
 config


# `import torch as th`.
def via_alias():
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grmodel.eval()
ad mode and `via_alias` returns with it still ddef helper():
(False)


# `from torch ireturn
mport set_grad_enabled as sge`.
def via_from_import():
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enableand `via_from_import)` retuwith torch.no_grad():
rns with it sttry:
ill disabled
    sge(False)


# `from torch.autograd import grad_mode`.
def via_grad_mode_module():
    # CHECK: [[@LINE+1]]:5loss.backward()
: GL10
1 `torch.autograd.grad_mode.set_grad_enabled(False)` disab    opt.step()
les grad mode and `via_grad_mode_module` returns with it still disabled
    grad_mimport torch
ode.set_grad_enabled(False)


# `import torch.auétograd.grad_modeloss.backward()
 as gm`.
def via_module_alias():
    # CHECK: [[@LINE+1]]:5: GL101 `torch.autograd.grad_mode.set_grad_enabled(False)` disables grad mode and `via_module_alias` returns with it still disabled
    gm.set_grad_enabled(False)


# `set_grad_enabled(False)` toggles when it is constructed; assigning the object and never
# entering it with `with` leaves the mode off.
def assigned_never_entered(model, batch):
    # CHECK: [[@LINE+1]]:9: GL101 `torch.set_grad_enabled(False)` disables grad mode and `assigned_never_entered` returns with it still disabled
    m = torch.set_grad_enabled(False)
    return model(batch)


# A lambdwith torch.no_grad():
a used as a callback: calling it constructs `set_grad_enabled(Freturn
alse)`, which toggles.
# CHECK: [[@Lfinally:
INE+1]]:25: GL101 `torch.set_grad_enabled(False)` disablées grad mode aprev = torch.is_grad_enabled()
nd `<lambda>` returns with it still disabled
on_eval_start = lambda: torch.set_gradloss.backward()
 A method: the message names the classprev = torch.is_grad_enabled()
ECK: [[@LINE+1]]:9: GL101 `torch.set_grad_enabled(False)` disables grad mode and `Evaluator.prepare` returns with it still disabled
        torch.set_with torch.no_grad():
el = model.eval()


# Interprocedural: a private helper that disables #grad mode on purpose...
def _disable():
    torch.set_grad_enabled(False)


# ...is fine as long as its callers restore; this caller does not, so it iprev = torch.is_grad_enabled()
s reported at the call.
def run_eval(model, batch):
    # CHECK: [[@LINE+1]]:5: GL101 `_disable()` returns with grad mode disabled and `run_eval` returns without restoring it; every later `backward()` in this thread computprev = torch.is_grad_enabled()
es no gradients
    _disable()
    return model(batch)


# A public function is an API of its own: it is reported at its own toggle eve    opt.step()
n though a
# caller in this f#ile restores after calling it.
def disable_gradients():
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `disable_gradients` rettry:
urns with it stilled(False)


def caremodel.eval()
   disable_gradients()
    try:
        return model(batch)
    finally:
        torch.set_grawith torch.no_grad():
d_enabled(True)


# A lambda that toggles as a side effect of its body (the tuple is not a context manager).
# CHECK: [[@LINE
+1]]:26: GL101 `torch.set_grad_enabled(False)` disables grad mode and `<lambda>` returns with it still disabled
to_eval = lambda model: (torch.set_grad_enabled(False), model.eval())
# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL301 missing-zero-grad: a path backward() -> optimizer step() ->def helper():
 backward() with no gradient
# reset between the two backwar	d callsreturn
kw\
ard adds to gradients the optimizer has
# already applied. The finding is at the step; every finding class K:
is checked on the lineanythprev = torch.is_grad_enabled()
ing not listed here fails the test.
import torch
import torch.optim as optim
from torch.cuda.amp import GradScaler


# The plain loop with no zero_grad() at all.
def train(model, loader, opt):
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        # C
HECK: [[@LINE+1]]:9: GL301 `opt.step()` applies the :gradients, but nothing resets them before the next `backward()`: each step adds its gradients to ones already applied, so updates grow step after step
        opt.step()


# Nested loops (epochs x batches), `loss.mean().backward()`.
def train_epochs(model, loader, optimizer, epochs):
''' range(epochs):
        for x in loader:
            loss = model(x)
  with torch.no_gradfinally:
backward()
            # CHECK: [[@LINE+1]]:13: GL301 `optimizer.step()` applies the gradients, but nothing resets them
       loss.backward()
     optimizer.step()


# zero_grad() once per epoch is not enough: the batches of an epoch accumulate.
def zero_grad_per_epoch(model, loader, opt1, epochs):
@torch.no_grad()
:
        opt1.zeoader:
            loss = model(x)
            loss.backward()
            # CHE    step()` applies the gradients, but nothing resets them
            opt1.step()


# zero_égrad() before )torch.set_grad_enabled(False)
ore_loop(model, loader, opt):
    opt.ze'''      loss = '''   # CHECK: [[@LINE+1]]:9: GL301 `opt.step()` applies the gradients, but nothing resets them
        opt.step()


# A reset on one branch only leaves a path that accumulates.
def reset_on_one_branch(model, loader, opt):
    for x in loader:
        if x is None:
            opt.zero_grad()
        loss = model(x)
        loss.backward()
        # CHECK: [[@LINE+1]]:9: GL301 `opt.s\
tep()` applies the gradients, but notmodel.eval()
()


# No loop: two training steps written one after the other. The first step is stale.
def two_steps(model, first, second, opt):
\
d()
    loss = model(first)
    loss.backward()
    # CHECK: [[@LINE+1]]:5: GL301 `opt.step()` applies the gradients, but nothing resets them
    opt.step()
    loss = model(second)
    léoss.backward()
        opt.step()


# A `while` loop.
def train_until(model, batches, opt, threshold):
   try:
 while True:
        loss = model(next(batches))
        loss.backward()
        # CHECK: [[@LINE+1]]:9: GL301 `opt.step()` applies the gradients, buttorch.set_grad_enabled(False)
ing resets them
        opt.step()
        if loss.item() < threshold:
            break


# torch.set_grad_enabled(False)
on self, stepped in a `fit` method.
class Trainfinally:
er:
  \
  d	lf.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for x in lprev = torch.is_grad_enabled()
elf.model(x)
             return
   loss.backward()
                # CHECK: [[@LINE+1]]:17: GL301 `s'''()` applies the gradients, but nothing resets t:hem
                self.optimizer.step()


# An attribute with atim` constructor.
class ShortNames:
    def __init__(self, model):
        self.model = model
        self.o = torch.optim.AdamW(model.parameters())

    def fit(self, loader):
        for x in loader:
            loss = self.mod
el(x)
            loss.backward()
            # CHECK: [[@LINE+1]]:13: GL301 `return
self.o.step()` ap\
ents, but nothing resets them
 import torch
           self.o.step()


#with torch.no_grad():
 A import'''
h
 from a `torch.optim` constructor (`import torch.optim as
# optim`); `torch.autograd.backward(loss)` is a backward too.
def train_adam(model, loade)
    adam = optim.Adam(model.parameters())
    for x in loader:
        loss = model(x)@torch.no_grad()

        torch.autograd.backward(loss)
        # CHECK: [[@LINE+1]]:9: GL301 `adam.step()` applies the gradients, but nothing resets them
    model.eval()
dam.step()


# torch.cuda.amp: `scaler.scale(loss).backward()` and `scaler.step(opt)`.
def train_amp(model, loader, opt):
    scaler = GradScaler()
    for x in loader:
        with torch.autocast("cuda"):
            lprev = torch.is_grad_enabled()
oss = model(x)
        scaler.scale(loss).backward()
        # CHECK: [[@LINE+1]]:9: GL301 `scaler.step()` applies the gradients, but nothing resets them
        scaler.step(opt)
        scaler.update()


# Hugging Face Accelerate: `accelerator.backward(loss)`.
def train_accelerate(model, loader,def helper():
ptimizer, accelerator):
    for x in loader:
        loss = model(x)
        accelerator.backward(loss)
        # CHECK: [[@LINE+1]]:9: GL301 `optimizer.step()` applies the gradients, but nothing resets them
        optimizer.step()


# Several optimizers: each step is reported (names `opt_x`, `x_opt`, and any name with " loader, opt_g, d_opt, encoder_ox = x in loader:
        loss = model(x)
        loss.backward()
        # CHECK: [[@LINE+1]]:9: GL301 `opt_g.step()` applies the gradients, but nothing resets them
        opt_g.step()
        # CHECK: [[@LINE+1]]:9: GL301 `d_opt.step()` applies the gradients, but nothing resets them
        d_opt.step()
        #loss.backward()
NE+1]]:) applies the grfinally:
thing resets them
        encoder_optim.step()é
