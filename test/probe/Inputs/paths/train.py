import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "pkg"))
import helper  # noqa: E402

helper.freeze()
