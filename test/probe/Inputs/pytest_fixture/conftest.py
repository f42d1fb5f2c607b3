import pytest
import torch


@pytest.fixture(scope="session")
def frozen_backbone():
    backbone = torch.nn.Linear(4, 4)
    # FIXTURE: conftest.py:[[@LINE+1]]: `frozen_backbone` disabled grad mode and returned with it still disabled
    torch.set_grad_enabled(False)
    return backbone
