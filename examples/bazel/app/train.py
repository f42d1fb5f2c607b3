"""Distillation: a frozen teacher and a student that is trained."""
import torch

from lib.helpers import freeze_for_inference


def load_teacher(path):
    teacher = torch.load(path)
    # freeze_for_inference() leaves grad mode disabled: the student's backward() below then
    # computes nothing.
    return freeze_for_inference(teacher)


def train_step(student, teacher, optimizer, batch):
    optimizer.zero_grad()
    loss = (student(batch) - teacher(batch)).pow(2).mean()
    loss.backward()
    optimizer.step()
    return loss.item()
