"""Parse `--output-format junit` (a file) with Python's XML parser and print its structure.

    suites tests=3 failures=3 errors=0
    suite findings.py tests=3 failures=3 errors=0
      case org.gradlint.GL101 line=6 column=5: GL101: `torch.set_grad...`

A report that is not well-formed XML fails here with `junit_summary: error:`.
"""
import sys
import xml.etree.ElementTree as ElementTree


def main() -> int:
    try:
        root = ElementTree.parse(sys.argv[1]).getroot()
    except ElementTree.ParseError as error:
        print(f"junit_summary: error: not well-formed XML: {error}")
        return 1
    if root.tag != "testsuites":
        print(f"junit_summary: error: the root is <{root.tag}>")
        return 1
    print(f"suites tests={root.get('tests')} failures={root.get('failures')} "
          f"errors={root.get('errors')}")
    for suite in root.findall("testsuite"):
        print(f"suite {suite.get('name')!r} tests={suite.get('tests')} "
              f"failures={suite.get('failures')} errors={suite.get('errors')}")
        for case in suite.findall("testcase"):
            failure = case.find("failure")
            error = case.find("error")
            if failure is not None:
                detail = f"{failure.get('type')}: {failure.text}"
            elif error is not None:
                detail = f"error: {error.get('message')}"
            else:
                detail = "passed"
            print(f"  case {case.get('name')} classname={case.get('classname')!r} "
                  f"line={case.get('line')} column={case.get('column')}: {detail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
