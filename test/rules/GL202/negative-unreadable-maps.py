# RUN: %check-file --select GL202,GL201 %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# A device map gradlint cannot read is not reported: in real code such a value is almost always
# one device (a device string, an index, `{"": rank}`, a fixed map onto GPUs). Only maps that
# may send layers to cpu or disk are: an automatic strategy ("auto", "balanced", ...),
# `infer_auto_device_map(...)`, a parameter defaulting to one of those, or a map with a "cpu" or
# "disk" entry (GL201). The reported twins are in positive.py and device-map-local.py.
from accelerate import PartialState
from transformers import AutoModelForCausalLM, Trainer
from transformers.testing_utils import torch_device

from .testing_utils import DEVICE_MAP_MAP, get_kbit_device_map

device = torch.accelerator.current_accelerator().type


# A module global holding the name of the machine's accelerator.
def module_global(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map=device)
    model.train()


# An imported device string.
def imported_device(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map=torch_device)
    model.train()


# A subscript of a table of fixed maps, and a call that builds `{"": process_index}`.
def table_and_builder(name, model_id):
    model = AutoModelForCausalLM.from_pretrained(name, device_map=DEVICE_MAP_MAP[model_id])
    model.train()
    other = AutoModelForCausalLM.from_pretrained(name, device_map=get_kbit_device_map())
    Trainer(model=other).train()


# One device per process, and an integer index.
def per_process(name):
    model = AutoModelForCausalLM.from_pretrained(
        name, device_map={"": PartialState().process_index}
    )
    model.train()
    other = AutoModelForCausalLM.from_pretrained(name, device_map=0)
    other.train()


# An attribute (a command-line option) and a parameter without a default: the caller decides.
def from_arguments(args, device_map):
    model = AutoModelForCausalLM.from_pretrained(args.model, device_map=args.device_map)
    model.train()
    other = AutoModelForCausalLM.from_pretrained(args.model, device_map=device_map)
    other.train()
