"""python -m gradlint ARGS...: runs the gradlint executable with ARGS (it replaces this process)."""
import os
import sys

from gradlint import find_gradlint_bin


def main() -> None:
    try:
        gradlint = find_gradlint_bin()
    except FileNotFoundError as error:
        print(f"gradlint: error: {error}", file=sys.stderr)
        sys.exit(2)
    os.execv(gradlint, [gradlint, *sys.argv[1:]])


if __name__ == "__main__":
    main()
