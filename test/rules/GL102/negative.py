# GL102 import-time-grad-mode must stay silent here.
#
# This file is a script outside any package (test/rules/GL102 has no __init__.py): a script
# turns grad mode off for its own process on purpose, and nothing imports it.
# RUN: %check-file %s | FileCheck %s --allow-empty --implicit-check-not=': GL'
#
# Inside a package (Inputs/quiet_pkg), modules that restore before the import finishes, keep
# the toggle under `if __name__ == "__main__":`, or use a `with` block are fine too.
# RUN: %check-file %srcroot/test/rules/GL102/Inputs/quiet_pkg | FileCheck %s --allow-empty --implicit-check-not=': GL'
import torch

torch.set_grad_enabled(False)


class Config:
    torch.set_grad_enabled(False)


def main():
    with torch.no_grad():
        print(torch.zeros(1))


main()
