"""Make gradlint's wheel from a built `gradlint` executable (the `wheel` target, cmake/Wheel.cmake).

    make_wheel.py --binary build/bin/gradlint --version 0.1.0 --libgit2 /usr/lib/.../libgit2.so
                  --patchelf patchelf --strip strip --objdump objdump --output-dir build/dist

The distribution is torch-gradlint (PyPI's `gradlint` is another project), its import package
torch_gradlint; the command stays `gradlint`. Writes
OUTPUT_DIR/torch_gradlint-VERSION-py3-none-manylinux_X_Y_ARCH.whl, where glibc X.Y is the oldest
that runs what the wheel holds (platform_tag() says how it is worked out):
  torch_gradlint-VERSION.data/scripts/gradlint the executable, installed into the environment's
                                               bin/ (pip copies it as it is: it is no script)
  torch_gradlint-VERSION.data/data/lib/gradlint/libs
                                               every library it needs outside glibc, libstdc++
                                               and libgcc_s, installed into PREFIX/lib/gradlint/libs
  torch_gradlint/                              python -m torch_gradlint, find_gradlint_bin()
  torch_gradlint-VERSION.dist-info/licenses/PACKAGE/copyright
                                               the license of each bundled library, from the
                                               Debian package it came from
The executable's RUNPATH is $ORIGIN/../lib/gradlint/libs and each library's $ORIGIN: pip puts
scripts in PREFIX/bin and data in PREFIX for every scheme (venv, --user, --prefix, --target,
Debian's /usr/local), so the two stay side by side. libgit2 is not linked but opened by soname
when a run meets a git repository (tool/discover.cpp, for .gitignore); it is bundled with its own
libraries, and the executable's RUNPATH is where dlopen finds it.

Only the standard library: the build backend (packaging/wheel/build_backend.py) runs this under
pip with nothing installed. The archive is reproducible: sorted entries, fixed timestamps.
"""
import argparse
import base64
import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))

# The C and C++ runtime that every manylinux platform provides; everything else is bundled.
RUNTIME = re.compile(r"^(linux-vdso|linux-gate|ld-linux[-.\w]*|libc|libm|libdl|libpthread|librt|"
                     r"libutil|libresolv|libnsl|libcrypt|libstdc\+\+|libgcc_s)\.so[.\d]*$")
LIBS = "lib/gradlint/libs"
# The distribution's name (METADATA) and its normalized form, which names the wheel file, its
# .data and .dist-info folders (the binary distribution format); the import package is the same.
DISTRIBUTION = "torch-gradlint"
PACKAGE = "torch_gradlint"

SUMMARY = "Static analyzer for PyTorch grad-mode misuse"
DESCRIPTION = """\
gradlint finds PyTorch grad-mode misuse before it ships: `torch.set_grad_enabled(False)` left in
force when a function returns, guards never entered, `backward()` through `no_grad()`, training
loops that miss `zero_grad()`, models trained after CPU offload.

    pip install torch-gradlint
    gradlint check src/

The distribution is torch-gradlint and its import package torch_gradlint: the `gradlint`
project on PyPI is another tool. This wheel checks Python code and notebooks (`python -m
torch_gradlint` runs it too). C++ checking needs the gradlint-cpp Debian package.
Documentation: https://github.com/gradlint/gradlint
"""


def fail(message: str) -> None:
    print(f"make_wheel: error: {message}", file=sys.stderr)
    sys.exit(1)


def run(*args: str) -> str:
    result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        fail(f"{' '.join(args)} failed ({result.returncode}): {result.stderr.strip()}")
    return result.stdout


def needed_libraries(elf: str) -> dict:
    """soname -> path of each library `elf` loads, transitively (ldd), outside the runtime."""
    found = {}
    for line in run("ldd", elf).splitlines():
        match = re.match(r"\s*(\S+) => (.*?)(?: \(0x[0-9a-f]+\))?$", line)
        if not match:
            continue  # the vdso and the dynamic loader: no "=>"
        soname, path = match.groups()
        if RUNTIME.match(soname):
            continue
        if path == "not found" or not os.path.isfile(path):
            fail(f"{elf} needs {soname}, which is not installed")
        found[soname] = path
    return found


def debian_package(paths: list) -> str:
    """The Debian package that installed one of `paths` (with usrmerge, dpkg may know the file
    by its /lib name only)."""
    for path in paths:
        for candidate in (path, re.sub(r"^/usr/", "/", path)):
            result = subprocess.run(["dpkg-query", "-S", candidate], stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, text=True)
            if result.returncode == 0:
                return result.stdout.split(":", 1)[0]
    fail(f"no Debian package owns {paths[0]}: its copyright file cannot go into the wheel")


# The runtime libraries that the manylinux tags allow outside glibc, by the version families of
# their symbols: for each version a wheel may need, the oldest glibc whose manylinux baseline
# distribution ships a libstdc++/libgcc_s that has it (the baselines of PEP 600's tags as
# auditwheel's policies list them: CentOS 7 for 2.17, Debian 9 for 2.24, Ubuntu 18.04 for 2.27,
# AlmaLinux 8 for 2.28, Ubuntu 20.04 for 2.31, AlmaLinux 9 for 2.34, Ubuntu 22.04 for 2.35,
# Ubuntu 24.04 for 2.39). A version newer than the table knows is pinned to this machine's glibc.
RUNTIME_FLOORS = {
    "GLIBCXX": [((3, 4, 19), (2, 17)), ((3, 4, 22), (2, 24)), ((3, 4, 24), (2, 27)),
                ((3, 4, 28), (2, 31)), ((3, 4, 29), (2, 34)), ((3, 4, 30), (2, 35)),
                ((3, 4, 33), (2, 39))],
    "CXXABI": [((1, 3, 7), (2, 17)), ((1, 3, 10), (2, 24)), ((1, 3, 11), (2, 27)),
               ((1, 3, 12), (2, 31)), ((1, 3, 13), (2, 34)), ((1, 3, 15), (2, 39))],
    "GCC": [((4, 8, 0), (2, 17)), ((7, 0, 0), (2, 27)), ((12, 0, 0), (2, 35)),
            ((14, 0, 0), (2, 39))],
}
# The oldest tag made: older ones (manylinux1, manylinux2010) only serve pips from before 2019.
OLDEST_GLIBC = (2, 17)
VERSION_NEED = re.compile(r"\s+0x[0-9a-f]+ 0x[0-9a-f]+ \d+ (GLIBC|GLIBCXX|CXXABI|GCC)_([\d.]+)$")


def version_needs(objdump: str, elf: str) -> dict:
    """family -> the newest version of it that `elf` needs (its .gnu.version_r, the `Version
    References` of `objdump -p`): GLIBC from libc, libm, ld.so, ...; GLIBCXX and CXXABI from
    libstdc++; GCC from libgcc_s."""
    needs = {}
    for line in run(objdump, "-p", elf).splitlines():
        match = VERSION_NEED.match(line)
        if match:
            version = tuple(int(part) for part in match[2].split("."))
            needs[match[1]] = max(needs.get(match[1], version), version)
    return needs


def machine_glibc() -> tuple:
    libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
    match = re.fullmatch(r"glibc (\d+)\.(\d+)", libc)
    if not match:
        fail(f"not a glibc system ({libc!r}): manylinux wheels need glibc")
    return (int(match[1]), int(match[2]))


def dotted(version: tuple) -> str:
    return ".".join(str(part) for part in version)


def platform_tag(objdump: str, elves: dict) -> str:
    """The manylinux tag of a wheel holding `elves` (name -> path): the oldest glibc that has
    every GLIBC symbol version they need, and whose baseline's libstdc++ and libgcc_s have every
    GLIBCXX, CXXABI and GCC version they need (RUNTIME_FLOORS). The tag names what the files
    need, not the glibc of the machine that built them: a Debian 12 build needs glibc 2.34 and
    GCC 12's libstdc++ (GLIBCXX_3.4.30), which Ubuntu 22.04 has."""
    glibc = OLDEST_GLIBC
    reasons = []
    for name, path in sorted(elves.items()):
        for family, version in sorted(version_needs(objdump, path).items()):
            if family == "GLIBC":
                floor = version[:2]
            else:
                floor = next((glibc_of for newest, glibc_of in RUNTIME_FLOORS[family]
                              if version <= newest), machine_glibc())
            if floor > glibc:
                glibc = floor
                reasons = []
            if floor == glibc:
                reasons.append(f"{family}_{dotted(version)} ({name})")
    if glibc > machine_glibc():
        fail(f"the files need glibc {dotted(glibc)}, newer than this machine's: {reasons}")
    print(f"make_wheel: glibc {dotted(glibc)} for " + ", ".join(reasons), file=sys.stderr)
    return f"manylinux_{glibc[0]}_{glibc[1]}_{platform.machine()}"


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--libgit2", required=True, help="the libgit2 that gradlint opens")
    parser.add_argument("--patchelf", required=True)
    parser.add_argument("--strip", required=True)
    parser.add_argument("--objdump", default="objdump")
    parser.add_argument("--output-dir", required=True)
    args = parser.parse_args()
    for tool, package in ((args.patchelf, "patchelf"), (args.strip, "binutils"),
                          (args.objdump, "binutils")):
        if shutil.which(tool) is None:
            fail(f"{tool} is needed to make the wheel (Debian: apt-get install {package})")

    dist = f"{PACKAGE}-{args.version}"
    data = f"{dist}.data"
    info = f"{dist}.dist-info"
    files = {}  # archive name -> (bytes, executable)

    with tempfile.TemporaryDirectory() as staging:
        executable = os.path.join(staging, "gradlint")
        shutil.copyfile(args.binary, executable)
        run(args.strip, "--strip-unneeded", executable)  # debug info: ~90% of a RelWithDebInfo build
        libraries = needed_libraries(executable)
        libgit2 = os.path.realpath(args.libgit2)
        libgit2_soname = run(args.patchelf, "--print-soname", libgit2).strip()
        libraries[libgit2_soname] = libgit2
        libraries.update(needed_libraries(libgit2))
        run(args.patchelf, "--set-rpath", f"$ORIGIN/../{LIBS}", executable)
        with open(executable, "rb") as source:
            files[f"{data}/scripts/gradlint"] = (source.read(), True)
        elves = {"gradlint": executable}  # what the platform tag is read from
        packages = set()
        for soname, path in sorted(libraries.items()):
            packages.add(debian_package([path, os.path.realpath(path)]))
            copy = os.path.join(staging, soname)
            shutil.copyfile(path, copy)
            run(args.patchelf, "--set-rpath", "$ORIGIN", copy)  # their own needs, beside them
            with open(copy, "rb") as source:
                files[f"{data}/data/{LIBS}/{soname}"] = (source.read(), False)
            elves[soname] = copy
        tag = f"py3-none-{platform_tag(args.objdump, elves)}"

    # The bundled libraries' licenses, as Debian ships them (dist-info/licenses, PEP 639).
    for package in sorted(packages):
        with open(f"/usr/share/doc/{package}/copyright", "rb") as copyright:
            files[f"{info}/licenses/{package}/copyright"] = (copyright.read(), False)
    for name in ("__init__.py", "__main__.py", "pre_commit.py"):
        with open(os.path.join(HERE, PACKAGE, name), encoding="utf-8") as source:
            text = source.read().replace("@GRADLINT_VERSION@", args.version)
        files[f"{PACKAGE}/{name}"] = (text.encode(), False)
    metadata = (f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\nVersion: {args.version}\n"
                f"Summary: {SUMMARY}\nHome-page: https://github.com/gradlint/gradlint\n"
                "Requires-Python: >=3.8\nClassifier: Operating System :: POSIX :: Linux\n"
                "Classifier: Topic :: Software Development :: Quality Assurance\n"
                "Description-Content-Type: text/markdown\n\n" + DESCRIPTION)
    files[f"{info}/METADATA"] = (metadata.encode(), False)
    wheel = (f"Wheel-Version: 1.0\nGenerator: gradlint make_wheel.py\nRoot-Is-Purelib: false\n"
             f"Tag: {tag}\n")
    files[f"{info}/WHEEL"] = (wheel.encode(), False)
    record = [record_line(name, content) for name, (content, _) in sorted(files.items())]
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = (("\n".join(record) + "\n").encode(), False)

    os.makedirs(args.output_dir, exist_ok=True)
    path = os.path.join(args.output_dir, f"{dist}-{tag}.whl")
    partial = path + ".partial"
    # dist-info last and RECORD at the very end, as the wheel spec recommends; fixed dates make
    # the bytes reproducible.
    order = sorted(files, key=lambda name: (name.startswith(info), name == f"{info}/RECORD", name))
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name in order:
            content, is_executable = files[name]
            entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = (0o100755 if is_executable else 0o100644) << 16
            archive.writestr(entry, content)
    os.replace(partial, path)
    # One wheel there: the build backend copies it. gradlint-*.whl: one made before the rename.
    for name in os.listdir(args.output_dir):
        if (name.startswith((f"{PACKAGE}-", "gradlint-")) and name.endswith(".whl")
                and name != os.path.basename(path)):
            os.remove(os.path.join(args.output_dir, name))
    print(path)


if __name__ == "__main__":
    main()
