#!/usr/bin/python3
"""Every Catch2 test case that ctest runs through catch_discover_tests has a name without ';'.
catch_discover_tests cuts ctest names at ';' (CMake's list separator): the cut name then matches
no test case, the executable runs nothing and ctest reports "Passed". Seven tests, the layering
test among them, never ran under ctest that way until 2026-11-25. The MPI executable
(tests/parallel/*_mpi.cpp) runs whole under mpiexec and is exempt.

usage: test_test_names.py <path to mpsph>   (run by ctest; the argument is not used)"""
import glob
import os
import re
import sys

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# TEST_CASE( followed by one or more adjacent string literals (the name).
NAME = re.compile(r'TEST_CASE\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)')


def names(path):
    text = open(path, encoding="utf-8").read()
    for m in NAME.finditer(text):
        literals = re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1))
        yield "".join(literals), text.count("\n", 0, m.start()) + 1


def main():
    files = [f for f in glob.glob(os.path.join(TESTS, "**", "*.cpp"), recursive=True)
             if not f.endswith("_mpi.cpp")]
    bad, count = [], 0
    for f in sorted(files):
        for name, line in names(f):
            count += 1
            if ";" in name:
                bad.append(f"{os.path.relpath(f, TESTS)}:{line}: {name}")
    if count < 100:
        print(f"found only {count} test cases under {TESTS}: the pattern no longer matches")
        return 1
    for b in bad:
        print("test name with ';' (ctest would not run it):", b)
    print(f"{count} test case names checked, {len(bad)} with ';'")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
