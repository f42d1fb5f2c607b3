# Names offload settings in three methods and places nothing: a sharded wrapper's configuration.
import torch


class ShardedWrapper:
    def __init__(self, module, cpu_offload=None, offload_params=False):
        self.module = module
        self.cpu_offload = cpu_offload
        self.offload_params = offload_params

    def _offload_to_cpu(self):
        return self.offload_params and self.cpu_offload is not None

    def train_step(self, batch, opt):
        self.module.train()
        loss = self.module(batch).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    def evaluate(self, batch):
        self.module.eval()
        with torch.no_grad():
            return self.module(batch)

    def reset(self):
        self.cpu_offload = None
        self.offload_params = False
        return self
