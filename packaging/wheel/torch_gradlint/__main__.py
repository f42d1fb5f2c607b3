"""python -m torch_gradlint ARGS...: runs the gradlint executable with ARGS (it replaces this
process)."""
import sys

from torch_gradlint import exec_gradlint


def main() -> None:
    exec_gradlint(sys.argv[1:])


if __name__ == "__main__":
    main()
