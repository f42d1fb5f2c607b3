# RUN: not %check-file --select GL202 %s | FileCheck %s --implicit-check-not=': GL'
# A wrapper of a model is the same modules under a new name: peft's `get_peft_model(m, config)`
# and `PeftModel.from_pretrained(m, path)` wrap `m`, hooks and all. Training the wrapper trains
# the model loaded with an automatic device map. A copy (`copy.deepcopy`) is a new model, a map
# naming one device attaches no hooks, and preparing is not training.
import copy

from peft import LoraConfig, PeftModel, get_peft_model, prepare_model_for_kbit_training
from transformers import AutoModelForCausalLM, Trainer
from trl import SFTTrainer


def wrapped_then_trained(name, args, data):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    peft_model = get_peft_model(model, LoraConfig(r=8))
    trainer = SFTTrainer(model=peft_model, args=args, train_dataset=data)
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`trainer.train()` (TRL `SFTTrainer`))
    trainer.train()


def wrapped_on_one_device(name, args, data):
    model = AutoModelForCausalLM.from_pretrained(name, device_map={"": 0})
    peft_model = get_peft_model(model, LoraConfig(r=8))
    trainer = SFTTrainer(model=peft_model, args=args, train_dataset=data)
    trainer.train()


def adapter_loaded_then_trained(name, adapter, args):
    base = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    tuned = PeftModel.from_pretrained(base, adapter, is_trainable=True)
    # CHECK: [[@LINE+1]]:5: GL202 `base` is loaded with an automatic device map and trained here (`Trainer.train()` (transformers `Trainer`))
    Trainer(model=tuned, args=args).train()


def adapter_on_a_copy(name, adapter, args):
    base = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    tuned = PeftModel.from_pretrained(copy.deepcopy(base), adapter, is_trainable=True)
    Trainer(model=tuned, args=args).train()


def prepared_and_wrapped_chain(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="balanced")
    ready = get_peft_model(prepare_model_for_kbit_training(model), LoraConfig(r=8))
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`ready.train()`)
    ready.train()


def prepared_only(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    ready = prepare_model_for_kbit_training(model)
    return ready
