# A stand-in for a third-party pipeline whose constructor "optimises for inference" by turning
# grad mode off for the whole thread, as in the Cosmos incident. incident.py checks the probe's
# report against the CHECK lines here.
import torch


class Pipeline:
    def __init__(self):
        self.denoiser = torch.nn.Linear(4, 4)
        # CHECK: pipeline.py:[[@LINE+1]]: `Pipeline.__init__` disabled grad mode and returned with it still disabled
        torch.set_grad_enabled(False)

    def __call__(self, latents):
        return self.denoiser(latents)
