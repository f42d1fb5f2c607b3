# A conflict inside a class whose members name no grad API: the member's chunk is parsed.
import torch


class Loader:
    def size(self):
        return 1

    # CHECK: [[@LINE+1]]:1: GL000 invalid syntax: merge conflict marker `<<<<<<< ours`
<<<<<<< ours
    def shuffle(self):
        return True
=======
>>>>>>> theirs


def evaluate(model, batch):
    with torch.no_grad():
        return model(batch)
