import torch
from accelerate import cpu_offload
from diffusers import StableDiffusionPipeline
from transformers import AutoModelForCausalLM, Trainer

pipe = StableDiffusionPipeline.from_pretrained("runwayml/stable-diffusion-v1-5")
pipe.enable_model_cpu_offload()
optimizer = torch.optim.AdamW(pipe.unet.parameters())
pipe.unet.train()
loss = pipe.unet(torch.randn(1, 4, 64, 64), 1, torch.randn(1, 77, 768)).sample.mean()
loss.backward()
optimizer.step()
optimizer.zero_grad()


def train_offloaded(model, batch):
    cpu_offload(model)
    sgd = torch.optim.SGD(model.parameters(), lr=0.1)
    model(batch).sum().backward()
    sgd.step()
    sgd.zero_grad()


def fine_tune(dataset):
    model = AutoModelForCausalLM.from_pretrained("bigscience/bloom-7b1", device_map="auto")
    Trainer(model=model, train_dataset=dataset).train()


def fine_tune_checked(dataset):
    model = AutoModelForCausalLM.from_pretrained("bigscience/bloom-7b1", device_map="auto")
    if "cpu" in model.hf_device_map.values():
        raise RuntimeError("the model does not fit on the GPU")
    Trainer(model=model, train_dataset=dataset).train()


def train_loop(model, batches, optimizer):
    for batch in batches:
        model(batch).sum().backward()
        optimizer.step()
