# Partial parsing splits classes into methods; these cases need more than the method that
# names a marker. Each is checked by test/cli/fast_path_classes.test with the full parse.
import torch
from diffusers import DiffusionPipeline


# GL201 follows `self.pipe` from `__init__` (offload) to `fit` (training), and `fit` names
# no GL201 marker: under `--select GL201` the whole class is parsed.
class OffloadedTrainer:
    def __init__(self, path):
        self.pipe = DiffusionPipeline.from_pretrained(path)
        self.pipe.enable_model_cpu_offload()

    def unrelated(self):
        return "no marker here"

    def fit(self, batches):
        self.pipe.unet.train()
        for batch in batches:
            self.pipe.unet(batch)


# The optimizer is assigned in `__init__`, which names no marker, under a name the training
# rules cannot guess (`self.o`): the chunk that mentions torch.optim is parsed too.
class Stepper:
    def __init__(self, model):
        self.model = model
        self.o = torch.optim.SGD(model.parameters(), lr=0.1)

    def run(self, batches):
        for batch in batches:
            loss = self.model(batch).sum()
            loss.backward()
            self.o.step()


# A nested class: only its method that names a marker (and both headers) are parsed.
class Outer:
    class Inner:
        def quiet(self):
            return 1

        def leak(self):
            torch.set_grad_enabled(False)

    def other(self):
        return 2
