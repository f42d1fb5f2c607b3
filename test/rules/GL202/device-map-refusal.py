# RUN: not %check-file --select GL202 %s | FileCheck %s --implicit-check-not=': GL'
# A check of `hf_device_map` for "cpu"/"disk" makes training safe only when the code refuses to
# go on (raise, return, sys.exit) on the branch where the map offloads. Code that only logs
# there trains the offloaded model anyway: GL202 at the training, after the check.
import logging
import os
import sys
import warnings

import torch
from transformers import AutoModelForCausalLM, Trainer

logger = logging.getLogger(__name__)


# ---- refuses: silent --------------------------------------------------------------------------


def raises_when_offloaded(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    if any(d in ("cpu", "disk") for d in model.hf_device_map.values()):
        raise ValueError("the model does not fit on the GPU")
    model.train()


def returns_when_offloaded(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    if "cpu" in model.hf_device_map.values():
        return None
    model.train()
    return model


def exits_when_offloaded(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    if "disk" in model.hf_device_map.values() or "cpu" in model.hf_device_map.values():
        print("the model does not fit on the GPU")
        sys.exit(1)
    model.train()


def builtin_exit_when_offloaded(name, args, data):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    if "cpu" in model.hf_device_map.values():
        exit("offloaded")
    Trainer(model=model, args=args, train_dataset=data).train()


def os_exit_when_offloaded(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    offloaded = [k for k, v in model.hf_device_map.items() if v in {"cpu", "disk"}]
    if offloaded:
        logger.error("offloaded: %s", offloaded)
        os._exit(2)
    return torch.optim.AdamW(model.parameters())


# The test written the other way round: train on the branch where nothing is offloaded.
def trains_only_when_on_device(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    if "cpu" not in model.hf_device_map.values():
        model.train()
    else:
        raise RuntimeError("offloaded")


def flag_then_refuses(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    on_gpu = not any(d in ("cpu", "disk") for d in model.hf_device_map.values())
    if not on_gpu:
        raise SystemExit("offloaded")
    model.train()


# A loop over the map that stops at the first entry on cpu/disk.
def loop_raises(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    for module, device in model.hf_device_map.items():
        if device in ("cpu", "disk"):
            raise RuntimeError(f"{module} is offloaded to {device}")
    model.train()


class RefusingTuner:
    def __init__(self, name):
        self.model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
        if len(set(self.model.hf_device_map.values()) & {"cpu", "disk"}) > 0:
            raise ValueError("offloaded")

    def fit(self):
        self.model.train()


# ---- only logs: GL202 at the training ---------------------------------------------------------


def logs_when_offloaded(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    if "cpu" in model.hf_device_map.values():
        logger.warning("some layers are on the cpu")
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


def warns_when_offloaded(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    if any(d in ("cpu", "disk") for d in model.hf_device_map.values()):
        warnings.warn("offloaded: training will be slow")
    # CHECK: [[@LINE+1]]:12: GL202 `model` is loaded with an automatic device map and trained here (an optimizer over its parameters)
    return torch.optim.AdamW(model.parameters())


# Printing on the good branch leaves the offloaded one going on.
def prints_when_on_device(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    if "cpu" not in model.hf_device_map.values():
        print("everything on the GPU")
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


def flag_then_logs(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    offloaded = [k for k, v in model.hf_device_map.items() if v in {"cpu", "disk"}]
    if offloaded:
        logger.info("offloaded modules: %s", offloaded)
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


def loop_prints(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    for module, device in model.hf_device_map.items():
        if device in ("cpu", "disk"):
            print(f"{module} is offloaded to {device}")
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


# Skipping the entry is no refusal either.
def loop_skips(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    for device in model.hf_device_map.values():
        if device == "disk":
            continue
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


class LoggingTuner:
    def __init__(self, name):
        self.model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
        if len(set(self.model.hf_device_map.values()) & {"cpu", "disk"}) > 0:
            logger.warning("offloaded")

    def fit(self):
        # CHECK: [[@LINE+1]]:9: GL202 `self.model` is loaded with an automatic device map and trained here (`self.model.train()`)
        self.model.train()
