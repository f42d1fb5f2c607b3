"""Check a wheel's manylinux tags against what its ELF files need:

    check_tags.py WHEEL [--as-tag PLATFORM_TAG]

Reads the symbol versions that each ELF file in WHEEL needs from its .gnu.version_r section
(parsed here, with no binutils, so that the check does not share make_wheel.py's objdump
reading) and checks each platform tag of the wheel (its WHEEL file's Tag lines, which must be
those of its file name): `manylinux_X_Y_ARCH` admits glibc X.Y's GLIBC versions and the
libstdc++/libgcc_s versions of that tag's baseline distribution (BASELINES), and no older tag
admits them all (the tag claims no more than the files need). --as-tag checks PLATFORM_TAG
instead of the wheel's own, to show what a wrong tag reports. Prints the tag, each family's
newest need with the files that need it, and the verdicts; exits 1 when a check fails.
"""
import os
import re
import struct
import sys
import zipfile

# What each manylinux baseline's C++ runtime provides, newest version per family (CentOS 7 for
# 2.17, Debian 9 for 2.24, Ubuntu 18.04 for 2.27, AlmaLinux 8 for 2.28, Ubuntu 20.04 for 2.31,
# AlmaLinux 9 for 2.34, Ubuntu 22.04 for 2.35, Ubuntu 24.04 for 2.39; PEP 600 tags as
# auditwheel's policies define them). A glibc between two rows gets the older row's.
BASELINES = {
    (2, 17): {"GLIBCXX": (3, 4, 19), "CXXABI": (1, 3, 7), "GCC": (4, 8, 0)},
    (2, 24): {"GLIBCXX": (3, 4, 22), "CXXABI": (1, 3, 10), "GCC": (4, 8, 0)},
    (2, 27): {"GLIBCXX": (3, 4, 24), "CXXABI": (1, 3, 11), "GCC": (7, 0, 0)},
    (2, 31): {"GLIBCXX": (3, 4, 28), "CXXABI": (1, 3, 12), "GCC": (7, 0, 0)},
    (2, 34): {"GLIBCXX": (3, 4, 29), "CXXABI": (1, 3, 13), "GCC": (7, 0, 0)},
    (2, 35): {"GLIBCXX": (3, 4, 30), "CXXABI": (1, 3, 13), "GCC": (12, 0, 0)},
    (2, 39): {"GLIBCXX": (3, 4, 33), "CXXABI": (1, 3, 15), "GCC": (14, 0, 0)},
}
FAMILIES = ("GLIBC", "GLIBCXX", "CXXABI", "GCC")
SHT_GNU_VERNEED = 0x6FFFFFFE


def version_needs(data: bytes) -> dict:
    """family -> newest needed version, from a 64-bit little-endian ELF file's verneed entries."""
    if data[4] != 2 or data[5] != 1:
        raise SystemExit("check_tags: only 64-bit little-endian ELF files are read")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + index * shentsize)
                for index in range(shnum)]
    needs = {}
    for _, kind, _, _, offset, _, link, count, _, _ in sections:
        if kind != SHT_GNU_VERNEED:
            continue
        strings = sections[link][4]

        def name_at(position):
            start = strings + position
            return data[start:data.index(b"\0", start)].decode()

        entry = offset
        for _ in range(count):  # Elf64_Verneed: version, cnt, file, aux, next
            _, aux_count, _, aux, following = struct.unpack_from("<HHIII", data, entry)
            aux_entry = entry + aux
            for _ in range(aux_count):  # Elf64_Vernaux: hash, flags, other, name, next
                _, _, _, name, aux_following = struct.unpack_from("<IHHII", data, aux_entry)
                match = re.fullmatch(r"([A-Z]+)_([\d.]+)", name_at(name))
                if match and match[1] in FAMILIES:
                    version = tuple(int(part) for part in match[2].split("."))
                    needs[match[1]] = max(needs.get(match[1], version), version)
                aux_entry += aux_following
            entry += following
    return needs


def admits(glibc: tuple, needs: dict) -> list:
    """What `needs` (family -> (version, files)) has that manylinux_glibc lacks."""
    rows = [row for row in BASELINES if row <= glibc]
    runtime = BASELINES[max(rows)] if rows else {}
    missing = []
    for family, (version, _) in sorted(needs.items()):
        if family == "GLIBC":
            lacking = version[:2] > glibc  # GLIBC_2.2.5 is glibc 2.2's
        else:
            lacking = version > runtime.get(family, ())
        if lacking:
            missing.append(f"{family}_{'.'.join(map(str, version))}")
    return missing


def main() -> int:
    wheel = sys.argv[1]
    archive = zipfile.ZipFile(wheel)
    (wheel_info,) = [name for name in archive.namelist() if name.endswith(".dist-info/WHEEL")]
    tags = [line.split(":", 1)[1].strip()
            for line in archive.read(wheel_info).decode().splitlines() if line.startswith("Tag:")]
    python_tag, abi_tag, platforms = os.path.basename(wheel)[:-len(".whl")].split("-")[-3:]
    name_tags = [f"{python_tag}-{abi_tag}-{platform}" for platform in platforms.split(".")]
    status = 0
    if set(name_tags) != set(tags):
        print(f"the file name's tags {name_tags} are not the WHEEL file's: {tags}")
        status = 1
    if "--as-tag" in sys.argv:
        tags = ["py3-none-" + sys.argv[sys.argv.index("--as-tag") + 1]]
    needs = {}  # family -> (newest version, files that need it)
    for name in sorted(archive.namelist()):
        data = archive.read(name)
        if not data.startswith(b"\x7fELF"):
            continue
        for family, version in version_needs(data).items():
            newest, files = needs.get(family, ((), []))
            if version > newest:
                needs[family] = (version, [os.path.basename(name)])
            elif version == newest:
                files.append(os.path.basename(name))
    for family in FAMILIES:
        if family in needs:
            version, files = needs[family]
            print(f"needs {family}_{'.'.join(map(str, version))} ({', '.join(files)})")
    if "GLIBC" not in needs:
        print("needs no glibc symbol version")
    oldest_glibc = max([needs["GLIBC"][0][:2]] if "GLIBC" in needs else [(2, 17)])
    while admits(oldest_glibc, needs):
        later = [row for row in BASELINES if row > oldest_glibc]
        if not later:
            break
        oldest_glibc = min(later)
    for tag in tags:
        platform = tag.split("-")[-1]
        print(f"tag {platform}")
        match = re.fullmatch(r"manylinux_(\d+)_(\d+)_\w+", platform)
        if not match:
            print(f"{platform}: not a manylinux_X_Y tag")
            status = 1
            continue
        glibc = (int(match[1]), int(match[2]))
        missing = admits(glibc, needs)
        if missing:
            print(f"{platform} lacks {', '.join(missing)}")
            status = 1
        else:
            print("the tag admits every need")
        if glibc > oldest_glibc:
            print(f"an older tag admits them all: manylinux_{oldest_glibc[0]}_{oldest_glibc[1]}")
            status = 1
        elif not missing:
            print("no older tag does")
    return status


if __name__ == "__main__":
    sys.exit(main())
