# RUN: not %check-file --select GL202 %s | FileCheck %s --implicit-check-not=': GL'
# A loss with no name of its own, a module's output differentiated at once
# (`model(**batch).loss.backward()`, `model(x)["loss"].backward()`): the backward reaches the
# module called, as it does through `loss = model(**batch).loss`.
import torch
from transformers import AutoModelForCausalLM


def train_unnamed(loader, optimizer):
    model = AutoModelForCausalLM.from_pretrained("m", device_map="auto")
    for batch in loader:
        # CHECK: [[@LINE+1]]:9: GL202 `model` is loaded with an automatic device map and trained here (`backward()` through it)
        model(**batch).loss.backward()
        optimizer.step()
        optimizer.zero_grad()


def train_subscript(loader, optimizer):
    model = AutoModelForCausalLM.from_pretrained("m", device_map="auto")
    for batch in loader:
        # CHECK: [[@LINE+1]]:9: GL202 `model` is loaded with an automatic device map and trained here (`backward()` through it)
        model(batch["input_ids"])["loss"].mean().backward()
        optimizer.step()
        optimizer.zero_grad()


# Correct: the module called is on one device.
def train_on_one_device(loader, optimizer):
    model = AutoModelForCausalLM.from_pretrained("m", device_map={"": 0})
    for batch in loader:
        model(**batch).loss.backward()
        optimizer.step()
        optimizer.zero_grad()


# Correct: the offloaded model only computes targets; the student is trained.
def distil(student, loader, optimizer):
    teacher = AutoModelForCausalLM.from_pretrained("m", device_map="auto")
    for batch in loader:
        with torch.no_grad():
            targets = teacher(**batch).logits
        student(batch["input_ids"], labels=targets).loss.backward()
        optimizer.step()
        optimizer.zero_grad()


# A helper computes the loss from the model: the backward reaches its arguments.
def train_through_helper(compute_loss, loader, optimizer):
    model = AutoModelForCausalLM.from_pretrained("m", device_map="auto")
    for batch in loader:
        # CHECK: [[@LINE+1]]:9: GL202 `model` is loaded with an automatic device map and trained here (`backward()` through it)
        compute_loss(model, batch).backward()
        optimizer.step()
        optimizer.zero_grad()
