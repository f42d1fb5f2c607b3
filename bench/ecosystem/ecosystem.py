#!/usr/bin/env python3
"""The ecosystem check: two gradlint binaries over the pinned corpus, and what changed.

    ecosystem.py run --baseline OLD --candidate NEW [--mirror DIR] [--work DIR] [--out DIR]
                     [--repos NAME,...] [--skip-cpp]
    ecosystem.py findings --binary BIN [--mirror DIR] [--work DIR] [--out DIR] [--repos ...]
    ecosystem.py precision FINDINGS.json
    ecosystem.py unverdicted FINDINGS.json

`run` checks every repository of corpus.toml with both binaries (`--select ALL --preview`),
and writes OUT/baseline.json and OUT/candidate.json (every finding) and OUT/report.md: the
findings added and removed per rule (stable and preview apart) and per repository, each with
its verdict from verdicts.jsonl, then the candidate's precision per rule. `findings` runs one
binary only (to write verdicts for a new corpus entry). `precision` and `unverdicted` read a
findings file that `run` or `findings` wrote.

Snapshots: MIRROR (default: $GRADLINT_ECOSYSTEM_MIRROR) holds one bare clone per repository,
as `git clone --mirror https://github.com/OWNER/NAME MIRROR/OWNER+NAME/repo` makes it. Nothing
is downloaded: a repository missing there, or its commit, is an error naming it. Each commit is
written once into WORK (default $GRADLINT_ECOSYSTEM_WORK or /tmp/gradlint-ecosystem); files
the snapshot lacks (a clone can be partial) are skipped and counted. Results of a binary are
kept in WORK/results, keyed by the binary's hash and the corpus entry, so a second run with the
same baseline runs only the candidate. The context environment is an empty virtual environment
in WORK (no installed packages): what the corpus reports depends on the corpus alone.
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import time
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
CORPUS = HERE / "corpus.toml"
VERDICTS = HERE / "verdicts.jsonl"
VERDICT_WORDS = ("true", "false", "debatable")
CPP_SUFFIXES = (".cpp", ".cc", ".cxx", ".cu")
# Every C++ suffix gradlint reads (program/discover.cpp): the Python pass leaves them to the
# C++ pass, which names its units and their flags.
CPP_EXCLUDES = ["*.cpp", "*.cc", "*.cxx", "*.cu", "*.h", "*.hpp", "*.hh", "*.hxx", "*.cuh",
                "*.tpp", "*.ipp", "*.inl"]
RESULT_FORMAT = 2


class Failure(Exception):
    pass


# ---- the corpus -------------------------------------------------------------------------------

def load_corpus(path: pathlib.Path = CORPUS) -> tuple[list[dict], list[str]]:
    with open(path, "rb") as f:
        data = tomllib.load(f)
    repos = data.get("repo", [])
    names = set()
    for repo in repos:
        for key in ("name", "commit", "kind"):
            if not isinstance(repo.get(key), str) or not repo[key]:
                raise Failure(f"{path}: a [[repo]] lacks `{key}`: {repo}")
        if repo["name"] in names:
            raise Failure(f"{path}: {repo['name']} is listed twice")
        if len(repo["commit"]) != 40:
            raise Failure(f"{path}: {repo['name']}: `commit` must be a full 40-digit hash")
        names.add(repo["name"])
    return repos, list(data.get("cpp", {}).get("flags", []))


def select_repos(repos: list[dict], wanted: str | None) -> list[dict]:
    if not wanted:
        return repos
    names = [n.strip() for n in wanted.split(",") if n.strip()]
    by_name = {r["name"]: r for r in repos}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise Failure("not in the corpus: " + ", ".join(unknown))
    return [by_name[n] for n in names]


def slug(name: str) -> str:
    return name.replace("/", "+")


def entry_key(repo: dict, cpp_flags: list[str]) -> str:
    """What a repository's findings depend on besides the binary."""
    text = json.dumps({"repo": repo, "cpp": cpp_flags if "cpp" in repo else None,
                       "format": RESULT_FORMAT}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# ---- snapshots --------------------------------------------------------------------------------

def git(gitdir: pathlib.Path, *args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], capture_output=True, **kw)


def extract(mirror: pathlib.Path, work: pathlib.Path, repo: dict) -> pathlib.Path:
    """The repository's tree at its commit, under WORK/trees (written once)."""
    gitdir = mirror / slug(repo["name"]) / "repo"
    commit = repo["commit"]
    root = work / "trees" / f"{slug(repo['name'])}@{commit[:12]}"
    done = root / ".ecosystem-extracted"
    if done.exists():
        return root
    if not gitdir.is_dir():
        raise Failure(f"no snapshot of {repo['name']}: {gitdir} is missing "
                      f"(git clone --mirror https://github.com/{repo['name']} {gitdir})")
    if git(gitdir, "cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
        raise Failure(f"{repo['name']}: commit {commit} is not in {gitdir}")
    listing = git(gitdir, "ls-tree", "-r", "-z", "--full-tree", commit, check=True).stdout
    entries = []
    for item in listing.split(b"\0"):
        if not item:
            continue
        meta, path = item.split(b"\t", 1)
        mode, kind, sha = meta.split(b" ")
        if kind == b"blob":
            entries.append((mode.decode(), sha.decode(), path.decode("utf-8", "surrogateescape")))
    tmp = root.with_name(root.name + ".partial")
    subprocess.run(["rm", "-rf", str(tmp)], check=True)
    tmp.mkdir(parents=True)
    missing = 0
    # One `cat-file --batch` for the whole tree; a clone may lack some blobs (large files).
    batch = subprocess.Popen(["git", f"--git-dir={gitdir}", "cat-file", "--batch"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert batch.stdin and batch.stdout
    for mode, sha, path in entries:
        batch.stdin.write(sha.encode() + b"\n")
        batch.stdin.flush()
        header = batch.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":
            missing += 1
            continue
        data = batch.stdout.read(int(header[2]))
        batch.stdout.read(1)  # the newline after the contents
        target = tmp / path
        if ".." in pathlib.PurePosixPath(path).parts:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            # A symbolic link inside the tree only; one that leaves it is dropped.
            link = data.decode("utf-8", "surrogateescape")
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), link))
            if not link.startswith("/") and not resolved.startswith(".."):
                os.symlink(link, target)
            continue
        target.write_bytes(data)
        if mode == "100755":
            target.chmod(0o755)
    batch.stdin.close()
    batch.wait()
    (tmp / ".ecosystem-extracted").write_text(
        json.dumps({"repo": repo["name"], "commit": commit, "files": len(entries),
                    "missing": missing}) + "\n")
    subprocess.run(["rm", "-rf", str(root)], check=True)
    tmp.rename(root)
    return root


def empty_environment(work: pathlib.Path) -> pathlib.Path:
    env = work / "env"
    (env / "lib" / "python3.11" / "site-packages").mkdir(parents=True, exist_ok=True)
    cfg = env / "pyvenv.cfg"
    if not cfg.exists():
        cfg.write_text("home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n")
    return env


def cpp_units(root: pathlib.Path, spec: dict) -> list[str]:
    units = set()
    for pattern in spec.get("units", []):
        for path in root.glob(pattern):
            if path.is_file() and path.suffix in CPP_SUFFIXES:
                units.add(path.relative_to(root).as_posix())
    return sorted(units)


def write_compile_database(root: pathlib.Path, spec: dict, flags: list[str]) -> pathlib.Path:
    folder = root / ".ecosystem-build"
    folder.mkdir(exist_ok=True)
    commands = []
    for unit in cpp_units(root, spec):
        unit_dir = (root / unit).parent
        includes = []
        for inc in spec.get("include", []):
            path = pathlib.Path(inc.replace("{dir}", str(unit_dir)))
            includes += ["-I", os.path.normpath(str(root / path))]
        arguments = ["clang++", *flags, *spec.get("flags", []), *includes, "-c", unit]
        commands.append({"directory": str(root), "file": unit, "arguments": arguments})
    (folder / "compile_commands.json").write_text(json.dumps(commands, indent=1) + "\n")
    return folder


# ---- running a binary -------------------------------------------------------------------------

def file_hash(path: pathlib.Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def binary_key(binary: pathlib.Path) -> str:
    """The executable and the C++ module beside it (lib/gradlint/), which C++ units load."""
    h = hashlib.sha256(file_hash(binary).encode())
    # An installed tree keeps the module in lib/gradlint/, a build folder in lib/.
    for module in (binary.parent.parent / "lib" / "gradlint" / "libgradlint-cpp.so",
                   binary.parent.parent / "lib" / "libgradlint-cpp.so"):
        if module.exists():
            h.update(file_hash(module).encode())
            break
    return h.hexdigest()[:16]


def normalise(raw: list[dict], root: pathlib.Path, repo: str) -> list[dict]:
    out = []
    for d in raw:
        filename = d.get("filename", "")
        try:
            path = pathlib.Path(filename).resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            path = filename
        cell = d.get("cell")
        out.append({
            "repo": repo, "path": path, "cell": cell if isinstance(cell, int) else None,
            "line": d["location"]["row"], "column": d["location"]["column"],
            "code": d["code"], "message": d["message"],
        })
    out.sort(key=lambda f: (f["path"], f["cell"] or 0, f["line"], f["column"], f["code"]))
    return out


def run_gradlint(binary: pathlib.Path, args: list[str], cwd: pathlib.Path,
                 cache_dir: pathlib.Path | None = None) -> tuple[list, float, str, str]:
    """Findings, seconds, a note, and a crash ("" when the binary exited normally).

    A crash (a signal, or an exit status gradlint never uses) is a result of the binary, as a
    finding is: it is reported first, and `run` fails when the candidate has one. The C++ part
    keeps a cache folder per binary (`cache_dir`) so that units sharing LibTorch's headers share
    one precompiled header across the corpus; the Python part caches nothing."""
    cache = ["--cache-dir", str(cache_dir)] if cache_dir else ["--no-cache"]
    command = [str(binary), "check", "--select", "ALL", "--preview", *cache, "--exit-zero",
               "--output-format", "json", *args]
    start = time.monotonic()
    proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    elapsed = time.monotonic() - start
    tail = "\n".join(proc.stderr.strip().splitlines()[-3:])
    if proc.returncode in (0, 1):
        return json.loads(proc.stdout or "[]"), elapsed, "", ""
    # A run of nothing (a C++ corpus entry whose units all fail) is data, not a crash.
    if proc.returncode == 2 and proc.stdout.strip().startswith("["):
        return json.loads(proc.stdout), elapsed, tail, ""
    status = (f"killed by signal {-proc.returncode}" if proc.returncode < 0
              else f"exit status {proc.returncode}")
    return [], elapsed, "", f"{status}: {tail}"


def check_part(binary: pathlib.Path, repo: dict, part: str, root: pathlib.Path,
               env: pathlib.Path, cpp_flags: list[str], cache_root: pathlib.Path) -> dict:
    """One repository's Python files and notebooks (`python`), or its C++ units (`cpp`)."""
    if part == "python":
        excludes = [a for pattern in CPP_EXCLUDES for a in ("--exclude", pattern)]
        args = ["--python", str(env), *excludes, "."]
    else:
        database = write_compile_database(root, repo["cpp"], cpp_flags)
        units = cpp_units(root, repo["cpp"])
        if not units:
            return {"findings": [], "seconds": 0.0, "note": "no C++ unit matches the globs"}
        args = ["-p", str(database), "--python", str(env), *units]
    cache_dir = cache_root / "cpp-cache" if part == "cpp" else None
    raw, elapsed, note, crash = run_gradlint(binary, args, root, cache_dir)
    return {"findings": normalise(raw, root, repo["name"]), "seconds": elapsed, "note": note,
            "crash": crash}


def parts_of(repo: dict, skip_cpp: bool) -> list[str]:
    parts = ["python"] if repo.get("python", True) else []
    if "cpp" in repo and not skip_cpp:
        parts.append("cpp")
    return parts


def corpus_findings(binary: pathlib.Path, repos: list[dict], cpp_flags: list[str],
                    mirror: pathlib.Path, work: pathlib.Path, skip_cpp: bool,
                    label: str) -> dict:
    binary = binary.resolve()
    if not os.access(binary, os.X_OK):
        raise Failure(f"{binary}: not an executable")
    env = empty_environment(work)
    key = binary_key(binary)
    results = {}
    for repo in repos:
        root = extract(mirror, work, repo)
        result = {"findings": [], "seconds": {}, "notes": [], "cached": True}
        for part in parts_of(repo, skip_cpp):
            cache = (work / "results" / key /
                     f"{slug(repo['name'])}-{entry_key(repo, cpp_flags)}.{part}.json")
            if cache.exists():
                done = json.loads(cache.read_text())
            else:
                done = check_part(binary, repo, part, root, env, cpp_flags,
                                  work / "results" / key)
                cache.parent.mkdir(parents=True, exist_ok=True)
                tmp = cache.with_suffix(".tmp")
                tmp.write_text(json.dumps(done))
                tmp.rename(cache)
                result["cached"] = False
            result["findings"] += done["findings"]
            result["seconds"][part] = done["seconds"]
            if done.get("note"):
                result["notes"].append(f"{part}: {done['note']}")
            if done.get("crash"):
                result.setdefault("crashes", []).append(f"{part}: {done['crash']}")
        took = sum(result["seconds"].values())
        crashed = " CRASHED" if result.get("crashes") else ""
        print(f"  {label}: {repo['name']}: {len(result['findings'])} findings{crashed} "
              f"({'cached' if result['cached'] else f'{took:.1f} s'})", file=sys.stderr)
        results[repo["name"]] = result
    return {"binary": str(binary), "binary_key": key, "version": version_of(binary),
            "rules": rule_table(binary), "repos": results}


def version_of(binary: pathlib.Path) -> str:
    proc = subprocess.run([str(binary), "--version"], capture_output=True, text=True)
    return proc.stdout.strip()


def rule_table(binary: pathlib.Path) -> dict:
    proc = subprocess.run([str(binary), "rule", "--all", "--output-format", "json"],
                          capture_output=True, text=True, check=True)
    return {r["code"]: {"name": r["name"], "preview": bool(r.get("preview"))}
            for r in json.loads(proc.stdout)}


# ---- verdicts and precision -------------------------------------------------------------------

def finding_key(f: dict) -> tuple:
    return (f["repo"], f["path"], f.get("cell"), f["line"], f["code"])


def load_verdicts(path: pathlib.Path = VERDICTS) -> dict:
    verdicts = {}
    if not path.exists():
        return verdicts
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            v = json.loads(line)
        except json.JSONDecodeError as e:
            raise Failure(f"{path}:{number}: not JSON: {e}") from e
        missing = [k for k in ("repo", "path", "line", "code", "verdict", "reason") if k not in v]
        if missing:
            raise Failure(f"{path}:{number}: lacks {', '.join(missing)}")
        if v["verdict"] not in VERDICT_WORDS:
            raise Failure(f"{path}:{number}: verdict must be one of {', '.join(VERDICT_WORDS)}")
        key = (v["repo"], v["path"], v.get("cell"), v["line"], v["code"])
        if key in verdicts:
            raise Failure(f"{path}:{number}: a second verdict for {key}")
        verdicts[key] = v
    return verdicts


def all_findings(result: dict) -> list[dict]:
    return [f for r in result["repos"].values() for f in r["findings"]]


def precision_table(findings: list[dict], verdicts: dict, rules: dict) -> tuple[list[str], list[dict]]:
    counts = collections.defaultdict(collections.Counter)
    unverdicted = []
    for f in findings:
        v = verdicts.get(finding_key(f))
        counts[f["code"]][v["verdict"] if v else "none"] += 1
        if not v:
            unverdicted.append(f)
    lines = ["| rule | findings | true | false | debatable | no verdict | precision t/(t+f) |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    total = collections.Counter()
    for code in sorted(counts):
        c = counts[code]
        total.update(c)
        lines.append(precision_row(code + (" (preview)" if rules.get(code, {}).get("preview") else ""), c))
    lines.append(precision_row("**all**", total))
    return lines, unverdicted


def precision_row(label: str, c: collections.Counter) -> str:
    judged = c["true"] + c["false"]
    precision = f"{c['true'] / judged:.2f}" if judged else "-"
    return (f"| {label} | {sum(c.values())} | {c['true']} | {c['false']} | {c['debatable']} | "
            f"{c['none']} | {precision} |")


def where(f: dict) -> str:
    cell = f" cell {f['cell']}" if f.get("cell") else ""
    return f"`{f['path']}`{cell}:{f['line']}"


def describe(f: dict, verdicts: dict) -> str:
    v = verdicts.get(finding_key(f))
    verdict = f"**{v['verdict']}**: {v['reason']}" if v else "**no verdict**"
    message = f["message"] if len(f["message"]) <= 160 else f["message"][:157] + "..."
    return f"- {f['repo']} {where(f)} {f['code']}: {verdict}  \n  _{message}_"


# ---- the report -------------------------------------------------------------------------------

def diff(baseline: dict, candidate: dict) -> tuple[list, list]:
    old = collections.Counter(finding_key(f) for f in all_findings(baseline))
    new = collections.Counter(finding_key(f) for f in all_findings(candidate))
    by_key_new = {finding_key(f): f for f in all_findings(candidate)}
    by_key_old = {finding_key(f): f for f in all_findings(baseline)}
    added = [by_key_new[k] for k in sorted((new - old).elements(), key=str)]
    removed = [by_key_old[k] for k in sorted((old - new).elements(), key=str)]
    return added, removed


def report(baseline: dict, candidate: dict, verdicts: dict, repos: list[dict]) -> str:
    added, removed = diff(baseline, candidate)
    rules = {**baseline["rules"], **candidate["rules"]}
    out = [f"# Ecosystem check", "",
           f"- baseline: `{baseline['binary']}` ({baseline['version']}, {baseline['binary_key']})",
           f"- candidate: `{candidate['binary']}` ({candidate['version']}, {candidate['binary_key']})",
           f"- corpus: {len(repos)} repositories "
           f"({sum(1 for r in repos if 'cpp' in r)} with C++), `--select ALL --preview`",
           f"- findings: baseline {len(all_findings(baseline))}, candidate "
           f"{len(all_findings(candidate))}: **+{len(added)} -{len(removed)}**", ""]
    for label, result in (("candidate", candidate), ("baseline", baseline)):
        crashes = [(n, c) for n, r in result["repos"].items() for c in r.get("crashes", [])]
        if crashes:
            out += [f"## The {label} crashed ({len(crashes)})", ""]
            out += [f"- {n}: {c}" for n, c in crashes] + [""]

    for preview in (False, True):
        title = "Preview rules" if preview else "Stable rules"
        codes = sorted({f["code"] for f in all_findings(baseline) + all_findings(candidate)
                        if rules.get(f["code"], {}).get("preview", False) == preview})
        out += [f"## {title}", ""]
        if not codes:
            out += ["No findings.", ""]
            continue
        out += ["| rule | baseline | candidate | added | removed |", "| --- | ---: | ---: | ---: | ---: |"]
        for code in codes:
            b = sum(1 for f in all_findings(baseline) if f["code"] == code)
            c = sum(1 for f in all_findings(candidate) if f["code"] == code)
            a = sum(1 for f in added if f["code"] == code)
            r = sum(1 for f in removed if f["code"] == code)
            out.append(f"| {code} {rules.get(code, {}).get('name', '')} | {b} | {c} | +{a} | -{r} |")
        out.append("")

    out += ["## Per repository", "",
            "| repository | baseline | candidate | added | removed | baseline s | candidate s |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for repo in repos:
        name = repo["name"]
        b, c = baseline["repos"][name], candidate["repos"][name]
        a = sum(1 for f in added if f["repo"] == name)
        r = sum(1 for f in removed if f["repo"] == name)
        out.append(f"| {name} | {len(b['findings'])} | {len(c['findings'])} | +{a} | -{r} | "
                   f"{seconds(b)} | {seconds(c)} |")
    out.append("")

    for title, items in (("Added", added), ("Removed", removed)):
        out += [f"## {title} ({len(items)})", ""]
        out += [describe(f, verdicts) for f in items] or ["None."]
        out.append("")

    table, unverdicted = precision_table(all_findings(candidate), verdicts, candidate["rules"])
    out += ["## Precision of the candidate (verdicts.jsonl)", ""] + table + [""]
    if unverdicted:
        out += [f"{len(unverdicted)} findings have no verdict yet (`ecosystem.py unverdicted`)."]
    notes = [(n, r) for n, r in candidate["repos"].items() if r.get("notes")]
    if notes:
        out += ["", "## Notes from the runs", ""]
        out += [f"- {n}: {'; '.join(r['notes'])}" for n, r in notes]
    return "\n".join(out) + "\n"


def seconds(result: dict) -> str:
    if result.get("cached"):
        return "cached"
    return f"{sum(result['seconds'].values()):.1f}"


# ---- commands ---------------------------------------------------------------------------------

def common_paths(args) -> tuple[pathlib.Path, pathlib.Path, pathlib.Path]:
    mirror = args.mirror or os.environ.get("GRADLINT_ECOSYSTEM_MIRROR")
    if not mirror:
        raise Failure("name the folder of snapshots: --mirror DIR or GRADLINT_ECOSYSTEM_MIRROR")
    work = args.work or os.environ.get("GRADLINT_ECOSYSTEM_WORK") or "/tmp/gradlint-ecosystem"
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    return pathlib.Path(mirror), pathlib.Path(work), out


def write_json(path: pathlib.Path, data) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.rename(path)


def command_run(args) -> int:
    mirror, work, out = common_paths(args)
    repos, cpp_flags = load_corpus()
    repos = select_repos(repos, args.repos)
    verdicts = load_verdicts()
    start = time.monotonic()
    baseline = corpus_findings(pathlib.Path(args.baseline), repos, cpp_flags, mirror, work,
                               args.skip_cpp, "baseline")
    candidate = corpus_findings(pathlib.Path(args.candidate), repos, cpp_flags, mirror, work,
                                args.skip_cpp, "candidate")
    write_json(out / "baseline.json", baseline)
    write_json(out / "candidate.json", candidate)
    text = report(baseline, candidate, verdicts, repos)
    text += f"\nThe whole check took {time.monotonic() - start:.0f} s.\n"
    (out / "report.md").write_text(text)
    print(text)
    return 1 if any(r.get("crashes") for r in candidate["repos"].values()) else 0


def command_findings(args) -> int:
    mirror, work, out = common_paths(args)
    repos, cpp_flags = load_corpus()
    repos = select_repos(repos, args.repos)
    result = corpus_findings(pathlib.Path(args.binary), repos, cpp_flags, mirror, work,
                             args.skip_cpp, "binary")
    write_json(out / "findings.json", result)
    table, unverdicted = precision_table(all_findings(result), load_verdicts(), result["rules"])
    print("\n".join(table))
    print(f"{len(unverdicted)} findings without a verdict; wrote {out / 'findings.json'}")
    return 0


def command_precision(args) -> int:
    result = json.loads(pathlib.Path(args.findings).read_text())
    table, unverdicted = precision_table(all_findings(result), load_verdicts(), result["rules"])
    print("\n".join(table))
    if unverdicted:
        print(f"\n{len(unverdicted)} findings have no verdict.")
    return 0


def command_unverdicted(args) -> int:
    """One verdicts.jsonl line per finding without a verdict, to fill in."""
    result = json.loads(pathlib.Path(args.findings).read_text())
    _, unverdicted = precision_table(all_findings(result), load_verdicts(), result["rules"])
    for f in unverdicted:
        print(json.dumps({"repo": f["repo"], "path": f["path"], "cell": f["cell"],
                          "line": f["line"], "code": f["code"], "verdict": "",
                          "reason": "", "message": f["message"]}))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    def paths(p):
        p.add_argument("--mirror", help="folder of bare snapshots, OWNER+NAME/repo")
        p.add_argument("--work", help="folder for extracted trees and kept results")
        p.add_argument("--out", default="ecosystem-out", help="where the reports go")
        p.add_argument("--repos", help="only these repositories (comma separated)")
        p.add_argument("--skip-cpp", action="store_true", help="Python and notebooks only")

    run = sub.add_parser("run", help="baseline against candidate")
    run.add_argument("--baseline", required=True)
    run.add_argument("--candidate", required=True)
    paths(run)
    run.set_defaults(func=command_run)
    one = sub.add_parser("findings", help="one binary's findings")
    one.add_argument("--binary", required=True)
    paths(one)
    one.set_defaults(func=command_findings)
    prec = sub.add_parser("precision", help="precision of a findings file")
    prec.add_argument("findings")
    prec.set_defaults(func=command_precision)
    unv = sub.add_parser("unverdicted", help="findings without a verdict, as verdict lines")
    unv.add_argument("findings")
    unv.set_defaults(func=command_unverdicted)
    args = parser.parse_args()
    try:
        return args.func(args)
    except Failure as e:
        print(f"ecosystem.py: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
