#!/usr/bin/python3
"""The bad-input corpus (tests/bad_inputs/cases.txt): mpsph on malformed command lines, configs,
hostile YAML, initial-condition files, checkpoints, cooling tables and output folders. Each case
must exit with its code (1 input error, 2 usage error) within TIME_LIMIT seconds, without a
signal, with one line on stderr that contains the case's texts, and without output that could pass
for a finished run (the output folder is not created). Controls (exit 3) are the good inputs the
broken ones are made from: they must run.

usage: test_bad_inputs.py <path to mpsph> [name filter]   (run by ctest; exit 77 = skipped when
h5py is missing)"""
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "bad_inputs")
TIME_LIMIT = 20.0  # seconds per case; every case takes well under one second when it works
MAX_MESSAGE = 1000  # characters of the one-line message


def load_cases():
    cases = []
    with open(os.path.join(CORPUS, "cases.txt")) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = [p.strip() for p in line.split("|")]
            if len(parts) != 4:
                sys.exit("cases.txt:%d: expected 4 |-separated columns" % n)
            name, code, args, needles = parts
            cases.append((name, int(code), args, [x for x in needles.split(";") if x]))
    names = [c[0] for c in cases]
    if len(set(names)) != len(names):
        sys.exit("cases.txt: duplicate case names")
    return cases


def run_case(mpsph, case, gen, scratch):
    name, code, args_text, needles = case
    out = os.path.join(scratch, "out_" + name)
    subst = {"cfg": os.path.join(CORPUS, "configs"), "gen": gen, "out": out}
    args = [a.format(**subst) for a in shlex.split(args_text)]
    if args and args[0] == "run" and "--output-dir" not in args:
        args[1:1] = ["--output-dir", out]  # first, so that a case's last option stays last
    problems = []
    t0 = time.monotonic()
    try:
        r = subprocess.run([mpsph] + args, capture_output=True, timeout=TIME_LIMIT, cwd=scratch)
    except subprocess.TimeoutExpired:
        return ["did not finish within %.0f s" % TIME_LIMIT], TIME_LIMIT
    wall = time.monotonic() - t0
    err = r.stderr.decode("utf-8", "replace")
    lines = err.splitlines()
    if r.returncode < 0 or r.returncode in (134, 136, 139):
        problems.append("crashed: exit %d: %r" % (r.returncode, err[-500:]))
    elif r.returncode != code:
        problems.append("exit code %d, expected %d: %r" % (r.returncode, code, err[-500:]))
    if code == 3:  # a control: a good input runs and writes a checkpoint
        if err.strip():
            problems.append("stderr not empty: %r" % err[-500:])
        if not os.path.isfile(os.path.join(out, "checkpoint.h5")):
            problems.append("no checkpoint written")
        return problems, wall
    if len(lines) != 1:
        problems.append("stderr has %d lines, expected one: %r" % (len(lines), err[:500]))
    elif len(lines[0]) > MAX_MESSAGE:
        problems.append("message of %d characters" % len(lines[0]))
    if not err.startswith("mpsph: "):
        problems.append("message does not start with 'mpsph: '")
    for bad in ("internal error", "terminate called", "Segmentation", "Aborted"):
        if bad in err:
            problems.append("%r in the message: %r" % (bad, err[:500]))
    for n in needles:
        if n not in err:
            problems.append("message lacks %r: %r" % (n, err[:500]))
    if os.path.exists(out):
        problems.append("output folder created: %s" % sorted(os.listdir(out)))
    return problems, wall


def main():
    try:
        import h5py  # noqa: F401 (make_bad_files.py needs it)
    except ImportError:
        print("h5py is missing: skipped")
        sys.exit(77)
    mpsph = os.path.abspath(sys.argv[1])
    only = sys.argv[2] if len(sys.argv) > 2 else ""
    cases = [c for c in load_cases() if only in c[0]]
    scratch = tempfile.mkdtemp(prefix="mpsph_bad_inputs_")
    gen = os.path.join(scratch, "gen")
    subprocess.run([sys.executable, os.path.join(CORPUS, "make_bad_files.py"), mpsph, gen],
                   check=True)
    before = set(os.listdir(gen))
    failed = 0
    slowest = (0.0, "")
    for case in cases:
        problems, wall = run_case(mpsph, case, gen, scratch)
        slowest = max(slowest, (wall, case[0]))
        print("%s  %-24s %6.2f s" % ("ok  " if not problems else "FAIL", case[0], wall))
        for p in problems:
            print("      " + p)
        failed += bool(problems)
    # Writers use "<name>.tmp" and rename: no case may leave one behind, nor new files in gen/
    # (an output folder that could not be used must stay as it was).
    leftovers = sorted(set(os.listdir(gen)) - before)
    if leftovers:
        print("FAIL  files left in the generated folder: %s" % leftovers)
        failed += 1
    n_bad = sum(1 for c in cases if c[1] != 3)
    print("%d cases (%d bad inputs, %d controls): %d passed, %d failed; slowest %s %.2f s" %
          (len(cases), n_bad, len(cases) - n_bad, len(cases) - failed, failed, slowest[1],
           slowest[0]))
    if not failed:
        shutil.rmtree(scratch, ignore_errors=True)
    else:
        print("scratch kept: " + scratch)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
