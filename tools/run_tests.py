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
    """(passed, failed, skipped) over every <testsuite> in a JUnit file."""
    if not os.path.exists(path):
        return 0, 1, 0  # a runner that crashed before writing its report counts as a failure
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.iter("testsuite")
    passed = failed = skipped = 0
    for s in suites:
        tests, fail = int(s.get("tests", 0)), int(s.get("failures", 0)) + int(s.get("errors", 0))
        skip = int(s.get("skipped", 0))
        passed, failed, skipped = passed + tests - fail - skip, failed + fail, skipped + skip
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
        subprocess.run([binary, "--reporter", "junit", "--out", report], cwd=ROOT)
        if junit_counts(report)[1]:
            subprocess.run([binary], cwd=ROOT)  # the console reporter shows what failed
        reports.append(report)
    report = os.path.join(out, "ir.xml")
    print("== tests/ir (mindir-opt | FileCheck)", flush=True)
    run_ir_tests(report)
    reports.append(report)

    report = os.path.join(out, "pytest.xml")
    print("== pytest", flush=True)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "client_py"))
    subprocess.run([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
                    os.path.join(ROOT, "tests")], cwd=ROOT, env=env)
    reports.append(report)

    totals = [sum(c) for c in zip(*(junit_counts(r) for r in reports))]
    passed, failed, skipped = totals
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line)
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
