# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
# GL201 alone: its markers name no training, so `fit` and `tune` are parsed only as the rest of
# their classes.
# RUN: not %check-file --select GL201 %s | FileCheck %s --implicit-check-not=': GL'
# RUN: not %check-file --select GL201 --no-prefilter %s | FileCheck %s --implicit-check-not=': GL'
# A class's methods share `self`: what one method offloads, another may train. A member naming an
# offload marker is parsed first on its own; once it turns out to place a model (an offload, or a
# call of a helper whose summary offloads), the whole class is parsed. A class that only names
# offload settings (FSDP's `cpu_offload=`) is never parsed whole (test/cli/fast_path_classes.test
# counts its bytes), and trains with nothing to report.
import torch
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


class ShardedWrapper:
    """Names offload settings in every method, places nothing: no member is worth the rest."""

    def __init__(self, module, cpu_offload=None, offload_params=False):
        self.module = module
        self.cpu_offload = cpu_offload
        self.offload_params = offload_params

    def _offload_to_cpu(self):
        return self.offload_params and self.cpu_offload is not None

    def train_step(self, batch, optimizer):
        self.module.train()
        loss = self.module(batch).sum()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        return loss

    def evaluate(self, batch):
        self.module.eval()
        with torch.no_grad():
            return self.module(batch)

    def state(self):
        return {"module": self.module.state_dict(), "step": 0, "lr": 0.1, "momentum": 0.9}

    def describe(self):
        return f"ShardedWrapper({self.module!r}, step={self.state()['step']})"

    def reset(self):
        self.module = None
        self.cpu_offload = None
        self.offload_params = False
        return self
