"""PEP 517 build backend for `pip install .` (and `pip wheel .`) in a gradlint source checkout.

It builds the wheel that `cmake --build build --target wheel` makes (cmake/Wheel.cmake), with
CMake, so pyproject.toml asks for no build requirements: pip needs no index, with or without
--no-build-isolation. The build folder is $GRADLINT_BUILD_DIR, else build/ in the checkout:
  - a folder already configured (tool/bootstrap.sh made it) is built as it is, target `wheel`;
  - otherwise it is configured for the wheel alone: no tests, no C++ checker (LLVM), no probe
    (LibTorch). Then only the gradlint executable is compiled. CMake and the Debian packages
    that tool/bootstrap.sh installs must be there; CMake fetches the grammar with npm unless
    the build folder has it.
CMake's output goes to stderr, which pip shows with -v or when the build fails.
"""
import os
import re
import shutil
import subprocess
import sys

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _version() -> str:
    with open(os.path.join(SOURCE, "CMakeLists.txt"), encoding="utf-8") as cmakelists:
        match = re.search(r"project\(gradlint VERSION ([0-9.]+)", cmakelists.read())
    if not match:
        raise RuntimeError("gradlint's version: no `project(gradlint VERSION ...)` in CMakeLists.txt")
    return match[1]


def _cmake(*args: str) -> None:
    cmake = shutil.which("cmake")
    if cmake is None:
        raise RuntimeError("building gradlint's wheel needs CMake and the Debian packages that "
                           "`bash tool/bootstrap.sh` installs")
    print("+ cmake " + " ".join(args), file=sys.stderr, flush=True)
    # stdout to stderr: a PEP 517 frontend may read the hook's stdout.
    subprocess.run([cmake, *args], cwd=SOURCE, check=True, stdout=sys.stderr)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    build = os.path.abspath(os.environ.get("GRADLINT_BUILD_DIR")
                            or os.path.join(SOURCE, "build"))
    if not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        # -O2 as RelWithDebInfo, without the debug info that the wheel strips anyway.
        _cmake("-S", SOURCE, "-B", build, *generator, "-DCMAKE_BUILD_TYPE=Release",
               "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG", "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG",
               "-DGRADLINT_BUILD_TESTS=OFF", "-DGRADLINT_WITH_CPP=OFF",
               "-DGRADLINT_WITH_PROBE=OFF", "-DGRADLINT_CPP_MODULE_SEPARATE=ON")
    _cmake("--build", build, "--target", "wheel")
    dist = os.path.join(build, "dist")
    prefix = f"torch_gradlint-{_version()}-"  # make_wheel.py's name
    wheels = [name for name in os.listdir(dist) if name.startswith(prefix) and name.endswith(".whl")]
    if len(wheels) != 1:
        raise RuntimeError(f"expected one {prefix}*.whl in {dist}, found {wheels}")
    shutil.copyfile(os.path.join(dist, wheels[0]), os.path.join(wheel_directory, wheels[0]))
    return wheels[0]


def get_requires_for_build_wheel(config_settings=None):
    return []
