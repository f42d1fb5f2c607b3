# test_a leaks grad mode through an installed package's helper and passes; test_b, unrelated,
# then fails in backward(). The parametrized test runs in between.
import pytest
import torch
from fakeweights import load_frozen


def test_a_loads_weights():
    model = load_frozen(torch.nn.Linear(4, 1))
    assert model.weight.shape == (1, 4)


@pytest.mark.parametrize("width", [2, 3])
def test_shapes(width):
    assert torch.zeros(width).shape == (width,)


def test_b_trains():
    model = torch.nn.Linear(4, 1)
    model(torch.randn(8, 4)).sum().backward()
    assert model.weight.grad is not None
