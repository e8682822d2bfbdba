#!/usr/bin/python3
"""Runs every test suite and prints one closing line: `N passed, N failed`.

Catch2 binaries (built by `make build`) and pytest each write JUnit XML; the
counts come from those files, not from parsing the runners' own summaries.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = "/usr/bin/python3"


def junit_counts(path):
    """(passed, failed, skipped) test cases in a JUnit file. Counts <testcase> elements: Catch2
    2.x writes the number of assertions, not of test cases, into <testsuite tests=...>."""
    if not os.path.exists(path):
        return 0, 1, 0  # a runner that crashed before writing its report counts as a failure
    passed = failed = skipped = 0
    for case in ET.parse(path).getroot().iter("testcase"):
        outcomes = {child.tag for child in case}
        if outcomes & {"failure", "error"}:
            failed += 1
        elif "skipped" in outcomes:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def run_ir_tests(report):
    """tests/ir/*.mlir in the lit style: every `// RUN:` line is one test case,
    run with mindir-opt and LLVM's FileCheck; results go to a JUnit file."""
    tools = {"mindir-opt": os.path.join(ROOT, "bazel-bin/tools/mindir-opt"),
             "FileCheck": "/usr/lib/llvm-16/bin/FileCheck"}
    suite = ET.Element("testsuite", name="ir")
    failures = 0
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/ir/*.mlir"))):
        runs = re.findall(r"^// RUN: (.*)$", open(path).read(), re.M)
        for i, command in enumerate(runs):
            command = command.replace("%s", path)
            for name, tool in tools.items():
                command = re.sub(rf"(?<![\w/-]){re.escape(name)}\b", tool, command)
            case = ET.SubElement(suite, "testcase", name=f"{os.path.basename(path)}:RUN{i}")
            proc = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True)
            if proc.returncode:
                failures += 1
                ET.SubElement(case, "failure", message=command).text = proc.stdout + proc.stderr
                print(f"FAIL {os.path.relpath(path, ROOT)}: {command}\n{proc.stderr[-3000:]}", flush=True)
    suite.set("tests", str(len(suite)))
    suite.set("failures", str(failures))
    ET.ElementTree(suite).write(report)


def main():
    out = tempfile.mkdtemp(prefix="msjit-tests-")
    reports = []
    for binary in sorted(glob.glob(os.path.join(ROOT, "bazel-bin/tests/cpp/*_test"))):
        report = os.path.join(out, os.path.basename(binary) + ".xml")
        print(f"== {os.path.basename(binary)}", flush=True)
        exit_code = subprocess.run([binary, "--reporter", "junit", "--out", report], cwd=ROOT).returncode
        if exit_code and not junit_counts(report)[1]:
            os.remove(report)  # a binary that failed without a failing case (a crash) counts as a failure
        if exit_code or junit_counts(report)[1]:
            subprocess.run([binary], cwd=ROOT)  # the console reporter shows what failed
        reports.append(report)
    report = os.path.join(out, "ir.xml")
    print("== tests/ir (mindir-opt | FileCheck)", flush=True)
    run_ir_tests(report)
    reports.append(report)

    report = os.path.join(out, "pytest.xml")
    print("== pytest", flush=True)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "client_py"))
    exit_code = subprocess.run([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
                                os.path.join(ROOT, "tests")], cwd=ROOT, env=env).returncode
    reports.append(report)

    totals = [sum(c) for c in zip(*(junit_counts(r) for r in reports))]
    passed, failed, skipped = totals
    if exit_code not in (0, 1) or (exit_code == 1 and not failed):
        failed += 1  # pytest stopped abnormally (collection error, internal error, interrupted)
        print(f"pytest exited with {exit_code} without a failing test case in its report")
    if skipped:
        print(f"({skipped} skipped)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
