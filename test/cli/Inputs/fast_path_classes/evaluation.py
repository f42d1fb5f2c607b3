# GL303 stays quiet when every call site of an evaluation helper runs with grad disabled: the
# call site in `report` names no marker, and must still be seen.
import torch


class Evaluator:
    def __init__(self, model):
        self.model = model

    def score(self, loader):
        self.model.eval()
        for x in loader:
            self.model(x)

    def validate(self, loader):
        with torch.no_grad():
            return self.score(loader)

    def report(self, loader):
        return self.score(loader)


# In another module's terms: only `Evaluator.score`-style calls can reach the method; here the
# helper is a function, called once with grad disabled and once without.
def score_fn(model, loader):
    model.eval()
    for x in loader:
        model(x)


def guarded(model, loader):
    with torch.no_grad():
        score_fn(model, loader)
