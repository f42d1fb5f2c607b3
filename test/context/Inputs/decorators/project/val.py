import evaltools
from evaltools import inference_only, passthrough
from utils.torch_utils import no_grad_wrapper, smart_inference_mode, timed


@smart_inference_mode()
def run(model, loader):
    model.eval()
    for x in loader:
        model(x)


@no_grad_wrapper
def run_wrapped(model, loader):
    model.eval()
    for x in loader:
        model(x)


@timed
def run_timed(model, loader):
    model.eval()
    for x in loader:
        model(x)


@inference_only
def run_installed(model, loader):
    model.eval()
    for x in loader:
        model(x)


@evaltools.inference_only
def run_installed_attribute(model, loader):
    model.eval()
    for x in loader:
        model(x)


@passthrough
def run_installed_passthrough(model, loader):
    model.eval()
    for x in loader:
        model(x)
