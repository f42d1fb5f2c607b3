"""Checks that gradlint's man page covers every command that `--help` shows.

Usage: man_page_options.py GRADLINT MAN_PAGE

From `gradlint --help` down, every listed subcommand is visited through the real parser
(`gradlint SUB... --help`). Each must have a `.SS gradlint SUB...` section in the man page, and
that section must name each option its --help lists. Prints one line per command with the
options it checked, and `missing: ...` for each gap; exits 1 if there is one.
"""
import re
import subprocess
import sys


def help_text(gradlint, words):
    return subprocess.run([gradlint, *words, "--help"], capture_output=True, text=True,
                          check=True).stdout


def help_section(text, title):
    """The lines of CLI11's `Title:` block, up to the blank line after it."""
    lines = []
    inside = False
    for line in text.splitlines():
        if line == title + ":":
            inside = True
        elif inside and not line.strip():
            break
        elif inside:
            lines.append(line)
    return lines


def options(text):
    names = []
    for line in help_section(text, "Options"):
        # "  -h,--help   ...", "  --findings TEXT   ..."; wrapped descriptions are indented deeper.
        match = re.match(r"  (-\S+)", line)
        if match:
            names.extend(name for name in match.group(1).split(",") if name)
    return names


def subcommands(text):
    return [line.split()[0] for line in help_section(text, "Subcommands")
            if re.match(r"  \S", line)]


def man_sections(path):
    """`.SS` title -> its text, roff's `\\-` and `\\e` read back as `-` and `\\`."""
    sections = {}
    title = None
    with open(path, encoding="utf-8") as man:
        for line in man:
            line = line.rstrip("\n").replace("\\-", "-").replace("\\e", "\\")
            if line.startswith(".SH "):
                title = None
            elif line.startswith(".SS "):
                title = line[4:]
                sections[title] = ""
            elif title is not None:
                sections[title] += line + "\n"
    return sections


def main():
    gradlint, man_path = sys.argv[1:3]
    sections = man_sections(man_path)
    missing = 0
    pending = [[]]
    while pending:
        words = pending.pop(0)
        text = help_text(gradlint, words)
        pending.extend(words + [sub] for sub in subcommands(text))
        if not words:
            continue
        title = "gradlint " + " ".join(words)
        names = options(text)
        print(f"{title}: {' '.join(names)}")
        if title not in sections:
            print(f"missing: no section `{title}` in the man page")
            missing += 1
            continue
        for name in names:
            if not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", sections[title]):
                print(f"missing: `{title} {name}` is not in its man page section")
                missing += 1
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
