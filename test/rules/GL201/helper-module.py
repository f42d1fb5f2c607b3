# RUN: not %check-file %s %S/Inputs/pipeline_setup.py | FileCheck %s --implicit-check-not=': GL'
# GL201 follows the hooks into a helper defined in another file of the run
# (Inputs/pipeline_setup.py). This file never names a hook API itself, so the prefilter skips
# it at first; it is still checked because it calls a helper of the run that attaches hooks to
# its argument. Without the helper's file in the run, the helper is unknown and nothing is
# reported.
# RUN: %check-file %s | FileCheck %s --check-prefix=ALONE --allow-empty --implicit-check-not=': GL'
# ALONE-NOT: GL201
import pipeline_setup
from pipeline_setup import prepare_for_inference, save_memory


def train_after_helper(pipe):
    prepare_for_inference(pipe)
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has {{[a-z]+}} hooks from `prepare_for_inference()` and is trained here (`pipe.unet.train()`)
    pipe.unet.train()


def train_after_module_attribute(pipe):
    pipeline_setup.save_memory(pipe, sequential=True)
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has {{[a-z]+}} hooks from `pipeline_setup.save_memory()` and is trained here (`pipe.unet.requires_grad_()`)
    pipe.unet.requires_grad_(True)


def train_after_returned(pipe):
    pipe = pipeline_setup.prepare_for_inference(pipe)
    # CHECK: [[@LINE+1]]:5: GL201 `pipe` has {{[a-z]+}} hooks from `pipeline_setup.prepare_for_inference()` and is trained here (`pipe.unet.train()`)
    pipe.unet.train()


# The helper hooks one pipeline; another one is trained.
def train_other(pipe, other):
    prepare_for_inference(pipe)
    other.unet.train()
