# RUN: %check-file %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
# GL000 invalid-syntax must stay silent on valid modern Python, including syntax a parser for
# an older grammar would reject.
import torch


# Structural pattern matching, with `match` also used as an ordinary name.
def dispatch(command):
    match = {"eval": 1}
    match command:
        case {"mode": "eval", **rest}:
            return rest
        case [first, *others] if first:
            return others
        case _:
            return match


# PEP 695 type parameters and the `type` statement.
type Batch = list[int]


def first[T](items: list[T]) -> T:
    return items[0]


# Walrus, positional-only and keyword-only parameters, f-strings with nested quotes.
def describe(model, /, batch, *, verbose=False):
    if (n := len(batch)) > 0 and verbose:
        print(f"{model!r}: {n} items, first={batch[0]!s:>{n}}, {'nested'}")
    with torch.no_grad():
        return model(batch)


# Async comprehensions and exception groups.
async def collect(stream):
    try:
        return [item async for item in stream]
    except* ValueError:
        return []


# Decorators of any expression (PEP 614).
handlers = {"eval": torch.no_grad()}


@handlers["eval"]
def evaluate(model, batch):
    return model(batch)
