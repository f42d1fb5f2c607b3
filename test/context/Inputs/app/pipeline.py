# Fixture (test/context): a pipeline whose dependencies, installed in the environment, change
# grad mode for it. Nothing in this file toggles anything itself.
import broken
import nothere
import stubbed
from broken import latin, nul
from cosmos_guardrail.offload import save_memory
from nspkg.sub.tools import inference_mode_on
from pth_helper import disable


def is_cosmos_guardrail_available():
    return True


if is_cosmos_guardrail_available():
    from cosmos_guardrail import CosmosSafetyChecker
else:

    class CosmosSafetyChecker:
        def __init__(self, *args, **kwargs):
            raise ImportError("pip install cosmos_guardrail")


class Pipeline:
    def __init__(self, unet):
        self.unet = unet
        self.safety_checker = CosmosSafetyChecker()


def use_namespace_package():
    inference_mode_on()


def use_pth_folder():
    disable()


def use_stub_only():
    stubbed.freeze()


def train_after_dependency_offload(pipe):
    save_memory(pipe)
    pipe.unet.train()


def use_broken():
    return broken, latin, nul
