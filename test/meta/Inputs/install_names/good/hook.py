"""python -m torch_gradlint.pre_commit ARGS: the hook."""
from torch_gradlint import exec_gradlint
import torch_gradlint
