#!/usr/bin/python3
"""mpsph's command line on bad input: every case exits non-zero with a one-line cause on stderr that
names the problem, and none crashes (no signal, no 'terminate called', no stack trace).

usage: test_cli.py <path to mpsph>   (run by ctest)"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SETUPS = os.path.join(HERE, "..", "..", "setups")


def check(mpsph, args, code, needles, tmp):
    r = subprocess.run([mpsph] + args, capture_output=True, text=True, cwd=tmp)
    err = r.stderr.strip()
    problems = []
    if r.returncode != code:
        problems.append("exit code %d, expected %d" % (r.returncode, code))
    if len(err.splitlines()) != 1:
        problems.append("stderr is not one line: %r" % err)
    for n in needles:
        if n not in err:
            problems.append("stderr lacks %r: %r" % (n, err))
    if "terminate called" in err or "Segmentation" in err:
        problems.append("crashed: %r" % err)
    return problems


def main():
    mpsph = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="mpsph_cli_")
    good = os.path.join(SETUPS, "evrard.yaml")

    def write(name, text):
        p = os.path.join(tmp, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    syntax = write("syntax.yaml", "run:\n  t_end: [1, 2\n")
    unknown = write("unknown.yaml", "run: {t_end: 1}\nsetup: {type: evrard}\nsph: {n_neighbors: 40}\n"
                    "gravity: {softening: [0.01]}\n")
    not_h5 = write("not_h5.h5", "plain text\n")
    bad_unit = write("unit.yaml", "run: {t_end: 1}\nsetup: {type: evrard}\n"
                     "units: {system: physical, length: parsec, mass: Msun, velocity: km/s}\n"
                     "gravity: {softening: [0.01]}\n")
    ic_bad = write("ic.yaml", "run: {t_end: 1}\nsetup: {type: file, path: %s}\n"
                   "gravity: {softening: [0.01]}\n" % not_h5)
    empty_dir = os.path.join(tmp, "empty_dir")
    os.mkdir(empty_dir)
    ro = os.path.join(tmp, "readonly")
    os.mkdir(ro)
    os.chmod(ro, 0o500)
    cases = [
        (["run", os.path.join(tmp, "missing.yaml")], 1, ["missing.yaml"]),
        (["run", syntax], 1, ["syntax.yaml:", "YAML"]),
        (["run", unknown], 1, ["n_neighbors", "n_neighbours"]),
        (["run", good, "--set", "sph.n_neighbours=0"], 1, ["sph.n_neighbours", ">= 1"]),
        (["run", good, "--set", "sph.alpha=abc"], 1, ["sph.alpha"]),
        (["run", good, "--set", "run.t_end=-1"], 1, ["run.t_end"]),
        (["run", bad_unit], 1, ["parsec"]),
        (["run", good, "--device", "tpu"], 1, ["tpu"]),
        (["run", ic_bad], 1, ["not_h5.h5", "HDF5"]),
        (["info", os.path.join(tmp, "nothing.h5")], 1, ["nothing.h5"]),
        (["info", empty_dir], 1, ["empty_dir", "not an mpsph run directory"]),
        (["frobnicate"], 2, ["frobnicate"]),
        (["run"], 2, ["config"]),
        (["run", good, "--bogus"], 2, ["--bogus"]),
    ]
    if os.geteuid() != 0:  # root can write anywhere: the read-only case needs a normal user
        cases.append((["run", good, "--output-dir", os.path.join(ro, "out")], 1, ["readonly"]))
    failed = 0
    for args, code, needles in cases:
        p = check(mpsph, args, code, needles, tmp)
        print(("ok  " if not p else "FAIL") + "  mpsph " + " ".join(os.path.basename(a) for a in args))
        for x in p:
            print("      " + x)
        failed += bool(p)
    os.chmod(ro, 0o700)
    print("%d passed, %d failed" % (len(cases) - failed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
