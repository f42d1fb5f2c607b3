# GL000 invalid-syntax: the file does not parse. gradlint reports the error and still analyses
# the definitions that do parse, so one typo does not hide a leak elsewhere in the file.
#
# An unexpected token.
# RUN: not %check-file %S/Inputs/unexpected_token.py | FileCheck %S/Inputs/unexpected_token.py --implicit-check-not=': GL'
#
# Suppression comments do not hide a syntax error: neither `# noqa` on the line nor a
# file-level `# gradlint: noqa`.
# RUN: not %check-file %S/Inputs/noqa_line.py | FileCheck %S/Inputs/noqa_line.py --implicit-check-not=': GL'
# RUN: not %check-file %S/Inputs/noqa_file.py | FileCheck %S/Inputs/noqa_file.py --implicit-check-not=': GL'
#
# A NUL byte: CPython refuses the file, and so does gradlint, pointing at the byte (line 2,
# column 6). The file names torch.no_grad so that it is not skipped as unrelated.
# RUN: %python -c "open(r'%t.py', 'wb').write(b'import torch\nx = 1\x00\nwith torch.no_grad():\n    pass\n')"
# RUN: not %check-file %t.py | FileCheck %s --check-prefix=NUL --implicit-check-not=': GL'
# NUL: .py:2:6: GL000 invalid syntax: source code cannot contain null bytes
#
# The prefilter's trade-off: a function that only enters a restoring region is not parsed, so
# its syntax error is reported with --no-prefilter only.
# RUN: %python -c "open(r'%t.restoring.py', 'w').write('import torch\n\n\ndef scale(batch):\n    with torch.no_grad():\n        factor = = 2\n        return batch * factor\n')"
# RUN: %check-file %t.restoring.py | count 0
# RUN: not %check-file --no-prefilter %t.restoring.py | FileCheck %s --check-prefix=RESTORING
# RESTORING: .restoring.py:6:18: GL000 invalid syntax: unexpected `=`
#
# A character that is not Python at all: the error names it, not the valid operand before it.
# RUN: not %check-file %S/Inputs/invalid_character.py | FileCheck %S/Inputs/invalid_character.py --implicit-check-not=': GL'
#
# This file: a syntax error in one function, a leak in the next.
# RUN: not %check-file %s | FileCheck %s --implicit-check-not=': GL'
import torch


# A missing `)`: the error is reported on the line of the unclosed call... (gradlint parses only
# the definitions that mention what a selected rule looks for, in code: this one names
# grad_enabled; a mention in a comment or string would not count.)
def broken(model, batch, grad_enabled=False):
    # CHECK: [[@LINE+1]]:{{[0-9]+}}: GL000 invalid syntax
    out = model(batch, 2
    return out


# ...and the leak in the next function is still found.
def leaks(model, batch):
    # CHECK: [[@LINE+1]]:5: GL101 `torch.set_grad_enabled(False)` disables grad mode and `leaks` returns with it still disabled
    torch.set_grad_enabled(False)
    return model(batch)
