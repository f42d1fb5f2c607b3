"""Line-level suppressions. The CHECK lines are read by test/cli/noqa.test."""
import torch


# A blanket `# noqa` hides every finding on its line.
def blanket():
    torch.set_grad_enabled(False)  # noqa


# `# noqa: GL101` hides GL101.
def by_code():
    torch.set_grad_enabled(False)  # noqa: GL101


# Without the space, and in lower case.
def compact():
    torch.set_grad_enabled(False)  # noqa:gl101


# A list of codes that includes the one reported.
def listed():
    torch.set_grad_enabled(False)  # noqa: GL104, GL101


# `# noqa: GL104` names another rule, so GL101 is still reported.
def other_code():
    # CHECK: noqa.py:[[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `other_code` returns
    torch.set_grad_enabled(False)  # noqa: GL104


# The comment has to be on the reported line (the toggle), not on the return.
def wrong_line():
    # CHECK: noqa.py:[[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `wrong_line` returns
    torch.set_grad_enabled(False)
    return None  # noqa: GL101


# "noqa" in prose is not a suppression comment.
def prose():
    # CHECK: noqa.py:[[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `prose` returns
    torch.set_grad_enabled(False)  # see the noqa docs
