from helper import freeze


def evaluate(model, batch):
    freeze(model)
    return model(batch)
