"""A sharded wrapper whose options name offloading but call no offload API, and a backward with
no optimizer step beside it: the prefilter parses none of it."""
import torch


class OffloadConfig:
    def __init__(self, offload_params=False, offload_to_cpu=True):
        self.offload_params = offload_params
        self.offload_to_cpu = offload_to_cpu


class ShardedModule(torch.nn.Module):
    def __init__(self, module, cpu_offload=None):
        super().__init__()
        self.module = module
        self.cpu_offload = cpu_offload or OffloadConfig()

    def forward(self, *args):
        if self.cpu_offload.offload_params:
            self._load_offloaded_shards()
        return self.module(*args)

    @torch.no_grad()
    def _post_backward_hook(self, parameter):
        if self.cpu_offload.offload_to_cpu:
            parameter.data = parameter.data.cpu()

    def _load_offloaded_shards(self):
        for parameter in self.module.parameters():
            parameter.data = parameter.data.to("cuda")


def fit_once(model, batch, training_step=None, step_size=1):
    loss = model(batch).sum()
    loss.backward()
    return loss.detach()


def rpc_options(device_maps):
    return {"device_maps": device_maps, "device_mapping_done": True}
