# `probe run --findings`: each static finding gets a runtime verdict, matched by the file and
# line of its toggle. A made-up claim on a correct `with` block is refuted.
# REQUIRES: probe
# RUN: %expect-exit 1 %gradlint check --no-respect-gitignore --output-format json %s > %t.json
# RUN: %python %S/Inputs/claim.py %t.json %s > %t.claims.json
# RUN: %expect-exit 1 %gradlint probe run --findings %t.claims.json -- %torch-python %s > %t.out 2>&1
# RUN: FileCheck %s < %t.out
import torch


def leaky(model):
    # CHECK: verdicts.py:[[@LINE+1]]: GL101 confirmed
    torch.set_grad_enabled(False)
    return model


def careful(model, batch):
    # CHECK: verdicts.py:[[@LINE+1]]: GL101 refuted
    with torch.no_grad():  # probe-claim
        return model(batch)


def evaluate(model, batch):
    # CHECK: verdicts.py:[[@LINE+1]]: GL104 refuted
    torch.set_grad_enabled(False)
    output = model(batch)
    torch.set_grad_enabled(True)
    return output


def never_called():
    # CHECK: verdicts.py:[[@LINE+1]]: GL101 not-reached
    torch.set_grad_enabled(False)


if __name__ == "__main__":
    linear = torch.nn.Linear(4, 1)
    careful(linear, torch.randn(2, 4))
    evaluate(linear, torch.randn(2, 4))
    leaky(linear)
