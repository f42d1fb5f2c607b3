# A second file, so that `-n 2 --dist loadfile` gives each worker one.
import torch


def test_inference_scoped():
    with torch.inference_mode():
        assert torch.ones(2).sum() == 2
