import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "pkg"))
import app  # noqa: E402

app.evaluate()
# Grad mode back on, so that the next helper's toggle is a change the tracer sees.
torch.set_grad_enabled(True)
app.validate()
