"""pytest plugin of gradlint's runtime probe (docs/probe.md), loaded by `gradlint probe run`.

`gradlint probe run -- python3 -m pytest ...` puts this file's folder on PYTHONPATH and
`-p gradlint_pytest` in PYTEST_ADDOPTS, so no suite needs to change. The plugin tells the
tracer (libgradlint_probe.so, preloaded) which test or fixture runs now, so that each leak names
the test that leaked it and the test whose backward() paid for it. pytest-xdist workers inherit
both variables and load it too.

With GRADLINT_PROBE_PER_TEST=1 (`--per-test`) a test that ends in another grad or inference
mode than the session started in is reported and the session's mode is set back, as PyTorch's
own test harness does in tearDown; with GRADLINT_PROBE_FAIL_LEAKING_TESTS=1 as well
(`--fail-leaking-tests`) that test's teardown fails.
"""
import ctypes
import os

import pytest

_tracer = None


def _probe():
    """The preloaded tracer, or None outside `gradlint probe run`."""
    global _tracer
    if _tracer is None:
        _tracer = False
        path = os.environ.get("GRADLINT_PROBE_LIBRARY")
        if path:
            try:
                # PyDLL keeps the GIL: the tracer reads Python frames. RTLD_NOLOAD: only the
                # copy LD_PRELOAD loaded, never a second one.
                _tracer = ctypes.PyDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
                _tracer.gradlint_probe_set_context.argtypes = [ctypes.c_char_p]
                _tracer.gradlint_probe_test_ended.argtypes = [ctypes.c_char_p, ctypes.c_int]
                _tracer.gradlint_probe_test_ended.restype = ctypes.c_int
            except (OSError, AttributeError):
                _tracer = False
    return _tracer or None


def _set_context(label):
    tracer = _probe()
    if tracer is not None:
        tracer.gradlint_probe_set_context(label.encode("utf-8", "replace"))


def _flag(name):
    return os.environ.get(name, "") == "1"


def pytest_sessionstart(session):
    tracer = _probe()
    if tracer is not None:
        tracer.gradlint_probe_session_start()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _set_context(item.nodeid)
    yield
    _set_context("")


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    # A fixture's setup is its own context (a session fixture runs inside the first test that
    # asks for it); its teardown runs in the test that ends its scope.
    node = getattr(request, "node", None)
    label = f"fixture `{fixturedef.argname}` ({fixturedef.scope} scope)"
    _set_context(label)
    try:
        yield
    finally:
        _set_context(node.nodeid if node is not None and hasattr(node, "nodeid") else "")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if call.when != "teardown" or not _flag("GRADLINT_PROBE_PER_TEST"):
        return
    tracer = _probe()
    if tracer is None:
        return
    if tracer.gradlint_probe_test_ended(item.nodeid.encode("utf-8", "replace"), 1) == 0:
        return
    if _flag("GRADLINT_PROBE_FAIL_LEAKING_TESTS"):
        report = outcome.get_result()
        report.outcome = "failed"
        report.longrepr = (f"gradlint probe: {item.nodeid} ended with grad mode or inference "
                           "mode changed from the session's (restored for the next test)")
