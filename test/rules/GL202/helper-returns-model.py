# RUN: not %check-file --select GL202 %s | FileCheck %s --implicit-check-not=': GL'
# A helper that returns a model loaded with an automatic device map: its summary says so, and
# the caller's name for the result is that model (through helpers that return another's result
# too). A helper loading onto one device returns a model without hooks.
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, Trainer


def load_direct(name):
    return AutoModelForCausalLM.from_pretrained(name, device_map="auto")


def load_named(name, cache):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto", cache_dir=cache)
    model.config.use_cache = False
    return model


def load_through(name):
    return load_direct(name)


def load_wrapped(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    return get_peft_model(model, LoraConfig(r=8))


def load_single(name):
    return AutoModelForCausalLM.from_pretrained(name, device_map={"": 0})


def train_direct(name):
    model = load_direct(name)
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


def train_named(name, args):
    model = load_named(name, "/tmp")
    model = get_peft_model(model, LoraConfig(r=8))
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`Trainer.train()` (transformers `Trainer`))
    Trainer(model=model, args=args).train()


def train_through(name):
    model = load_through(name)
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


def train_wrapped(name):
    model = load_wrapped(name)
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


def train_single(name):
    model = load_single(name)
    model.train()
