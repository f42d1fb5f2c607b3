"""A diffusers-style pipeline: every grad-mode mention is a region that restores the mode it
found, and nothing inside touches grad mode otherwise. The fast path parses none of it."""
import torch


class Pipeline:
    def __init__(self, unet, scheduler):
        self.unet = unet
        self.scheduler = scheduler

    @torch.no_grad()
    def __call__(self, latents, steps):
        """Denoises `latents`; no backward() happens here, whatever this docstring says."""
        for t in range(steps):
            noise = self.unet(latents, t)
            latents = self.scheduler.step(noise, t, latents)  # a scheduler, not an optimizer
        return latents

    def encode(self, images):
        with torch.no_grad():
            return self.unet.encode(images)


@torch.inference_mode()
def generate(pipeline, latents):
    return pipeline(latents, 50)


async def stream(pipeline, latents):
    async with torch.no_grad(), open("log.txt") as log:
        log.write("start")
        return pipeline(latents, 10)
