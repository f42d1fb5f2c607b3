# RUN: not %check-file --select GL202 %s | FileCheck %s --implicit-check-not=': GL'
# RUN: not %check-file --select GL202 --no-prefilter %s | FileCheck %s --implicit-check-not=': GL'
# An automatic device map offloads only what does not fit on the GPU. A checkpoint whose name
# says it has under 1B parameters (a size tag, `tiny`, a small family without a tag) fits whole
# on any GPU used to train, wherever the name comes from: a literal, a local, a parameter's
# default, a module constant, a class attribute or `self.X` set in another method. Large or
# unreadable names stay reported.
from transformers import AutoModelForCausalLM, Trainer

SMALL_ID = "facebook/opt-350m"
LARGE_ID = "meta-llama/Llama-2-7b-hf"
EITHER_ID = "gpt2"
EITHER_ID = "bigscience/bloom-7b1"
SHADOWED_ID = "facebook/opt-125m"


def literal_small():
    model = AutoModelForCausalLM.from_pretrained("gpt2", device_map="auto")
    model.train()


def literal_tiny_and_keyword():
    model = AutoModelForCausalLM.from_pretrained(
        pretrained_model_name_or_path="hf-internal-testing/tiny-random-LlamaForCausalLM",
        device_map="auto",
    )
    Trainer(model=model).train()


def local_small(flag):
    name = "Qwen/Qwen2.5-0.5B" if flag else "bigscience/bloomz-560m"
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    model.train()


def default_small(name="EleutherAI/pythia-160m"):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    model.train()


def module_constant_small():
    model = AutoModelForCausalLM.from_pretrained(SMALL_ID, device_map="auto")
    model.train()


def module_constant_large():
    model = AutoModelForCausalLM.from_pretrained(LARGE_ID, device_map="auto")
    model.train()
    # CHECK: small-checkpoints.py:[[@LINE-1]]:5: GL202 `model` is loaded with an automatic device map


def module_constant_rebound():
    # One of its values is large: reported.
    model = AutoModelForCausalLM.from_pretrained(EITHER_ID, device_map="auto")
    model.train()
    # CHECK: small-checkpoints.py:[[@LINE-1]]:5: GL202


def local_shadows_module_constant():
    # Not the module's constant: unknown. (A function binding the name anywhere makes the
    # module's constant unknown too: gradlint does not tell the scopes apart there.)
    SHADOWED_ID = input()
    model = AutoModelForCausalLM.from_pretrained(SHADOWED_ID, device_map="auto")
    model.train()
    # CHECK: small-checkpoints.py:[[@LINE-1]]:5: GL202


def tiny_but_sized():
    # `Tiny` in the name, but 1.1B parameters: the size tag wins.
    model = AutoModelForCausalLM.from_pretrained("TinyLlama/TinyLlama-1.1B", device_map="auto")
    model.train()
    # CHECK: small-checkpoints.py:[[@LINE-1]]:5: GL202


def family_not_small():
    model = AutoModelForCausalLM.from_pretrained("gpt2-xl", device_map="auto")
    model.train()
    # CHECK: small-checkpoints.py:[[@LINE-1]]:5: GL202


def unknown(name):
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
    model.train()
    # CHECK: small-checkpoints.py:[[@LINE-1]]:5: GL202


class TestSmallModels:
    model_id = "peft-internal-testing/tiny-random-OPTForCausalLM"

    def setUp(self):
        self.causal_lm_model_id = "facebook/opt-125m"

    def test_class_attribute(self):
        model = AutoModelForCausalLM.from_pretrained(self.model_id, device_map="auto")
        model.train()

    def test_set_in_setup(self):
        model = AutoModelForCausalLM.from_pretrained(self.causal_lm_model_id, device_map="auto")
        Trainer(model=model).train()


class TestLargeModels:
    def setUp(self):
        self.causal_lm_model_id = "facebook/opt-6.7b"

    def test_set_in_setup(self):
        model = AutoModelForCausalLM.from_pretrained(self.causal_lm_model_id, device_map="auto")
        Trainer(model=model).train()
        # CHECK: small-checkpoints.py:[[@LINE-1]]:9: GL202


class TestRebound:
    def setUp(self):
        self.model_id = "facebook/opt-125m"

    def use_large(self):
        self.model_id = "facebook/opt-30b"

    def test_either(self):
        model = AutoModelForCausalLM.from_pretrained(self.model_id, device_map="auto")
        model.train()
        # CHECK: small-checkpoints.py:[[@LINE-1]]:9: GL202
