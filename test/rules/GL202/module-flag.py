# RUN: not %check-file --select GL202 %s | FileCheck %s --implicit-check-not=': GL'
# RUN: not %check-file --select GL202 --no-prefilter %s | FileCheck %s --implicit-check-not=': GL'
# A notebook's or script's switch: `FP8 = False` at the top, bound nowhere else, then
# `if FP8: ... else: ...` at module level. Only the branch the flag takes runs, so the model is
# judged by that branch's quantization config: a bitsandbytes config that does not allow cpu
# offload makes transformers refuse to offload (loudly), so training it is not GL202.
import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, FineGrainedFP8Config

FP8 = False
USE_BNB = False
REBOUND = False

# The flag is off: only the bitsandbytes branch runs.
if FP8:
    config = FineGrainedFP8Config(dequantize=False)
else:
    config = BitsAndBytesConfig(load_in_4bit=True)
model = AutoModelForCausalLM.from_pretrained("m", device_map="auto", quantization_config=config)
model.train()

# Negated: the same.
if not FP8:
    negated_config = BitsAndBytesConfig(load_in_4bit=True)
else:
    negated_config = FineGrainedFP8Config(dequantize=False)
negated = AutoModelForCausalLM.from_pretrained(
    "m", device_map="auto", quantization_config=negated_config
)
negated.train()

# Wrong: this flag is off, so the FP8 branch runs; FP8 weights can be offloaded.
if USE_BNB:
    fp8_config = BitsAndBytesConfig(load_in_4bit=True)
else:
    fp8_config = FineGrainedFP8Config(dequantize=False)
fp8 = AutoModelForCausalLM.from_pretrained("m", device_map="auto", quantization_config=fp8_config)
# CHECK: [[@LINE+1]]:1: GL202 `fp8` is loaded with an automatic device map and trained here (`fp8.train()`)
fp8.train()

# Not a flag: bound twice, so either branch may run.
if REBOUND:
    either_config = FineGrainedFP8Config(dequantize=False)
else:
    either_config = BitsAndBytesConfig(load_in_4bit=True)
either = AutoModelForCausalLM.from_pretrained(
    "m", device_map="auto", quantization_config=either_config
)
# CHECK: [[@LINE+1]]:1: GL202 `either` is loaded with an automatic device map and trained here (`either.train()`)
either.train()
REBOUND = True

# An `elif` is not folded: either branch may run.
if FP8:
    chained_config = FineGrainedFP8Config(dequantize=False)
elif torch.cuda.is_available():
    chained_config = BitsAndBytesConfig(load_in_4bit=True)
else:
    chained_config = FineGrainedFP8Config(dequantize=True)
chained = AutoModelForCausalLM.from_pretrained(
    "m", device_map="auto", quantization_config=chained_config
)
# CHECK: [[@LINE+1]]:1: GL202 `chained` is loaded with an automatic device map and trained here (`chained.train()`)
chained.train()
