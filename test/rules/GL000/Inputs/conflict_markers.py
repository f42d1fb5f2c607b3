# A merge left unresolved. Neither function names a grad API, so the prefilter would skip both;
# each marker line is seen by the same scan and its chunk is parsed, so the error shows with the
# prefilter as without it. Marker-like text inside a string or comment is not a marker.
import torch


def scale(batch):
    # CHECK: [[@LINE+1]]:1: GL000 invalid syntax: merge conflict marker `<<<<<<< HEAD`
<<<<<<< HEAD
    return batch * 2
=======
    return batch * 3
>>>>>>> feature/scale


def evaluate(model, batch):
    with torch.no_grad():
        return model(batch)


HOWTO = """
<<<<<<< HEAD
=======
>>>>>>> branch
"""
# <<<<<<< in a comment
