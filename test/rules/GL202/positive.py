# RUN: not %check-file --select GL202 %s | FileCheck %s --implicit-check-not=': GL'
# GL202 device-map-may-offload (preview, so selected here): a model is loaded or dispatched
# with an automatic device map ("auto", "balanced", "balanced_low_0", "sequential") or a map
# gradlint cannot read, and then trained. When the GPU is short of memory accelerate puts
# layers on CPU or disk behind offload hooks, and training then fails like GL201. The finding
# is at the first training action. Every finding is checked on the line right below its CHECK;
# anything not listed here fails the test.
import torch
from accelerate import dispatch_model, infer_auto_device_map, load_checkpoint_and_dispatch
from peft import get_peft_model, prepare_model_for_kbit_training
from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM, BitsAndBytesConfig


# The usual fine-tuning script.
def finetune(name, loader):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`): when GPU memory is short, layers go to CPU or disk behind offload hooks and training fails with tensors on different devices
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
    for batch in loader:
        loss = model(**batch).loss
        loss.backward()
        opt.step()
        opt.zero_grad()


def balanced(name):
    model = AutoModelForSeq2SeqLM.from_pretrained(name, device_map="balanced")
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


def balanced_low_0(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="balanced_low_0")
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.requires_grad_()`)
    model.requires_grad_(True)


def sequential(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="sequential")
    for p in model.parameters():
        # CHECK: [[@LINE+1]]:9: GL202 `model` is loaded with an automatic device map and trained here (`requires_grad = True` on its parameters)
        p.requires_grad = True


# A map computed from the machine's memory.
def map_inferred(name, config):
    model = AutoModelForCausalLM.from_pretrained(name)
    device_map = infer_auto_device_map(model, max_memory={0: "10GiB"})
    model = AutoModelForCausalLM.from_pretrained(name, device_map=device_map)
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


# QLoRA that allows cpu offload: the model is wrapped twice; each wrapper returns the same
# (hooked) model. (Without the option a quantized load refuses to offload: device-map-local.py.)
def qlora(name, lora_config):
    quantization = BitsAndBytesConfig(load_in_4bit=True, llm_int8_enable_fp32_cpu_offload=True)
    model = AutoModelForCausalLM.from_pretrained(
        name, device_map="auto", quantization_config=quantization
    )
    model = prepare_model_for_kbit_training(model)
    model = get_peft_model(model, lora_config)
    # CHECK: [[@LINE+1]]:11: GL202 `model` is loaded with an automatic device map and trained here (an optimizer over its parameters)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-4)
    return opt


def with_accelerator(name, accelerator, opt):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    # CHECK: [[@LINE+1]]:38: GL202 `model` is loaded with an automatic device map and trained here (`accelerator.prepare()` for training)
    model, opt = accelerator.prepare(model, opt)
    return model, opt


def backward_through_it(name, batch):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    loss = model(**batch).loss
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`backward()` through it)
    loss.backward()


# accelerate's own loaders.
def dispatch_auto(model):
    dispatch_model(model, device_map=infer_auto_device_map(model))
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


def load_and_dispatch_auto(model, checkpoint):
    load_checkpoint_and_dispatch(model, checkpoint, device_map="auto")
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()


# self.attr across methods.
class Finetuner:
    def __init__(self, name):
        self.model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")

    def fit(self):
        # CHECK: [[@LINE+1]]:9: GL202 `self.model` is loaded with an automatic device map and trained here (`self.model.train()`)
        self.model.train()


# One finding per model and function, at the first training action.
def many_actions(name, batch):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    # CHECK: [[@LINE+1]]:5: GL202 `model` is loaded with an automatic device map and trained here (`model.train()`)
    model.train()
    model.requires_grad_(True)
    loss = model(**batch).loss
    loss.backward()
