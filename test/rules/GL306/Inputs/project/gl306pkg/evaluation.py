import torch


def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        for x, y in loader:
            model(x)
