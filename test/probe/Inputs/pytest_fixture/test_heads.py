import torch


def test_features(frozen_backbone):
    assert frozen_backbone(torch.randn(2, 4)).shape == (2, 4)


def test_head_trains():
    head = torch.nn.Linear(4, 1)
    head(torch.randn(2, 4)).sum().backward()
    assert head.weight.grad is not None
