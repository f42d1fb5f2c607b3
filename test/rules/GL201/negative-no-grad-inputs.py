# RUN: %check-file %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# The offloaded pipeline only computes inputs, under `torch.no_grad()`, for a separate model
# that is trained: no gradient reaches the pipeline, so its hooks never see training.
import torch
from diffusers import DiffusionPipeline


def train_on_latents(pipe, model, opt, loader):
    pipe.enable_model_cpu_offload()
    for images in loader:
        with torch.no_grad():
            latents = pipe.vae.encode(images).latent_dist.sample()
        opt.zero_grad()
        loss = model(latents).mean()
        loss.backward()
        opt.step()


def train_on_embeddings(pipe, model, prompt):
    pipe.enable_sequential_cpu_offload()
    with torch.no_grad():
        embeddings = pipe.text_encoder(prompt)[0]
    loss = model(embeddings).mean()
    loss.backward()
