# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL201 alone: its markers name no training, so `fit` and `tune` are parsed only as the rest of
# their classes.
# RUN: not %check-file --select GL201 %s | FileCheck %s --implicit-check-not=': GL'
# RUN: not %check-file --select GL201 --no-prefilter %s | FileCheck %s --implicit-check-not=': GL'
# A class's methods share `self`: what one method offloads, another may train. A member naming an
# offload marker is parsed first on its own; once it turns out to place a model (an offload, or a
# call of a helper whose summary offloads), the whole class is parsed. A class that only names
# offload settings (FSDP's `cpu_offload=`) is never parsed whole and trains with nothing to
# report: test/cli/Inputs/fast_path_classes/offload_settings.py, whose findings
# test/cli/fast_path_classes.test compares with the full parse's and whose bytes it counts.
from accelerate import cpu_offload


class Tuner:
    def __init__(self, pipe):
        self.pipe = pipe
        self.pipe.enable_model_cpu_offload()

    # No offload marker here: parsed because `__init__` offloads `self.pipe`.
    def fit(self, batches, opt):
        # CHECK: [[@LINE+1]]:9: GL201 `self.pipe` has offload hooks from `enable_model_cpu_offload()` and is trained here (`self.pipe.unet.train()`)
        self.pipe.unet.train()
        for batch in batches:
            loss = self.pipe.unet(batch).mean()
            loss.backward()
            opt.step()
            opt.zero_grad()


def offloaded(model):
    cpu_offload(model)
    return model


class TunerThroughHelper:
    def setup(self, model):
        # Names the marker only in the helper's name; the helper's summary returns hooks.
        self.model = offloaded(model)

    def tune(self):
        # CHECK: [[@LINE+1]]:9: GL201 `self.model` has offload hooks from `{{offload[e]d}}()` and is trained here (`self.model.train()`)
        self.model.train()
