# RUN: not %check-file --select GL202 %s | FileCheck %s --implicit-check-not=': GL'
# GL202 (selected here): a model loaded with an automatic device map and handed to a trainer
# is trained; the code that checks `hf_device_map` for "cpu"/"disk" first (and raises or takes
# another branch) is not reported.
import accelerate
import torch
from peft import get_peft_model
from transformers import AutoModelForCausalLM, Trainer
from trl import SFTTrainer


def qlora_with_trainer(name, config, args, dataset):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    model = get_peft_model(model, config)
    trainer = Trainer(model=model, args=args, train_dataset=dataset)
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`trainer.train()` (transformers `Trainer`))
    trainer.train()


def sft_with_wrapped_model(name, config, dataset):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    trainer = SFTTrainer(model=get_peft_model(model, config), train_dataset=dataset)
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`trainer.train()` (TRL `SFTTrainer`))
    trainer.train()


# A check that names another model does not cover this one.
def checks_another_model(name, other):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    if "cpu" in other.hf_device_map.values():
        raise ValueError("offloaded")
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


# A look at the map that does not ask about cpu/disk is no check.
def prints_the_map(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    print(model.hf_device_map)
    # CHECK: [[@LINE+1]]:11: GL202 `model` is loaded with an automatic device map and trained here (an optimizer over its parameters)
    opt = torch.optim.AdamW(model.parameters())
    return opt


# ---- silent: the code checks ---------------------------------------------------------------


def raises_when_offloaded(name, args):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    if any(device in ("cpu", "disk") for device in model.hf_device_map.values()):
        raise ValueError("not enough GPU memory to train this model")
    trainer = Trainer(model=model, args=args)
    trainer.train()


def branches_when_offloaded(name, args):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    offloaded = [k for k, v in model.hf_device_map.items() if v in {"cpu", "disk"}]
    if offloaded:
        model = AutoModelForCausalLM.from_pretrained(name, device_map={"": 0})
    model.train()


def asserts_on_device(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    assert "disk" not in model.hf_device_map.values()
    model.train()


# The checked map, edited and dispatched again: still the checked placement.
def redispatch_checked_map(name, dispatch_model):
    model = AutoModelForCausalLM.from_pretrained(name)
    if len(set(model.hf_device_map.values()).intersection({"cpu", "disk"})) > 0:
        raise ValueError("Training on CPU or disk is not supported.")
    device_map = model.hf_device_map.copy()
    device_map["lm_head"] = 0
    accelerate.dispatch_model(model, device_map=device_map)
    model.train()


# Checked on one branch only: the other path is still reported.
def checked_on_one_branch(name, careful):
    model = AutoModelForCausalLM.from_pretrained(name)
    if careful:
        assert "cpu" not in model.hf_device_map.values()
    accelerate.dispatch_model(model, device_map="auto")
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()
