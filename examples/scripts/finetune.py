"""Fine-tuning script with the training-loop and offload mistakes gradlint reports."""
import torch
from diffusers import StableDiffusionPipeline


def finetune(path, loader, epochs=1):
    pipe = StableDiffusionPipeline.from_pretrained(path)
    pipe.enable_model_cpu_offload()  # built for inference: hooks move weights around
    unet = pipe.unet
    unet.train()  # GL201: trains an offloaded model
    opt = torch.optim.AdamW(unet.parameters(), lr=1e-5)
    for _ in range(epochs):
        for batch in loader:
            loss = unet(batch).sum()
            loss.backward()
            opt.step()  # GL301: gradients are never reset between steps


def evaluate(model, loader):
    model.eval()
    losses = []
    for batch in loader:
        losses.append(model(batch).sum())  # GL303: eval() does not stop graph recording
    return losses


def train_ok(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model.train()
    for batch in loader:
        opt.zero_grad()
        model(batch).sum().backward()
        opt.step()
