# RUN: %check-file %s %S/Inputs/grad_utils.py | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL301 follows a reset into a helper defined in another file of the run (Inputs/grad_utils.py).
# Without that file in the run, the helper is unknown and the loop is reported at the step.
# RUN: not %check-file %s | FileCheck %s --check-prefix=ALONE --implicit-check-not=': GL'
import grad_utils
from grad_utils import reset_gradients


def fit(model, loader, opt):
    for x in loader:
        reset_gradients(opt)
        loss = model(x)
        loss.backward()
        # ALONE: [[@LINE+1]]:9: GL301 `opt.step()` applies the gradients, but nothing resets them
        opt.step()


def fit_module_attribute(model, loader, opt):
    for x in loader:
        loss = model(x)
        loss.backward()
        # ALONE: [[@LINE+1]]:9: GL301 `opt.step()` applies the gradients, but nothing resets them
        opt.step()
        grad_utils.reset_gradients(opt)
