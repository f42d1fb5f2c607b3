#!/usr/bin/python3
"""Verdicts for the GL000 findings in notebook cells, read the way Jupyter runs a cell.

    /usr/bin/python3 bench/ecosystem/notebook_verdicts.py FINDINGS.json [WORK]

Each reported cell goes through IPython's own input transforms (prompts, magics, shell
escapes, a common indentation: `TransformerManager.transform_cell`, Debian's python3-ipykernel)
and CPython's `compile()`. A SyntaxError: `true` (Run all stops there); a cell that compiles:
`false` (the error is elsewhere, or there is none). Prints one verdicts.jsonl line each.
WORK is the ecosystem check's work folder (default /tmp/gradlint-ecosystem), whose trees hold
the notebooks."""
import glob
import json
import sys
import warnings

from IPython.core.inputtransformer2 import TransformerManager


def main() -> int:
    findings = json.load(open(sys.argv[1]))
    work = sys.argv[2] if len(sys.argv) > 2 else "/tmp/gradlint-ecosystem"
    transforms = TransformerManager()
    warnings.simplefilter("ignore")  # invalid escape sequences in the cells' strings
    for repo, result in findings["repos"].items():
        for f in result["findings"]:
            if f["code"] != "GL000" or not f["path"].endswith(".ipynb") or not f.get("cell"):
                continue
            root = glob.glob(f"{work}/trees/{repo.replace('/', '+')}@*")[0]
            cell = json.load(open(f"{root}/{f['path']}"))["cells"][f["cell"] - 1]
            source = cell["source"]
            code = "".join(source) if isinstance(source, list) else source
            try:
                compile(transforms.transform_cell(code), "cell", "exec")
                verdict = "false"
                reason = (f"cell {f['cell']} compiles after IPython's transforms (it runs in "
                          "Jupyter): the syntax error is in another cell")
            except (SyntaxError, ValueError) as e:
                verdict = "true"
                reason = (f"cell {f['cell']}: CPython (after IPython's transforms): "
                          f"{getattr(e, 'msg', e)} (cell line {getattr(e, 'lineno', None)}); "
                          "Run all stops here")
            print(json.dumps({"repo": repo, "path": f["path"], "cell": f["cell"],
                              "line": f["line"], "code": "GL000", "verdict": verdict,
                              "reason": reason}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
