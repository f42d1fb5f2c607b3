import torch


def predict(model, batch):
    with torch.no_grad():
        return model(batch)
