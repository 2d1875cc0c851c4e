#!/usr/bin/python3
"""`mpsph ssp`: the CSV header states the units, the columns are those documented, and the values
agree with an independent integration written here with scipy.integrate.quad (Salpeter 0.1-100
Msun, RVN96 lifetimes, ejecta and O/Fe fits, PN/AGB return, no SN Ia before 38 Myr); the SN II
number is 6.8e-3 per Msun; bad options exit 2 with a one-line cause.

usage: test_ssp_cli.py <path to mpsph>   (run by ctest)"""
import io
import math
import subprocess
import sys

import numpy as np
from scipy.integrate import quad


def run(mpsph, args):
    return subprocess.run([mpsph, "ssp"] + args, capture_output=True, text=True)


def table(text):
    lines = [l for l in text.splitlines() if not l.startswith("#")]
    names = lines[0].split(",")
    data = np.loadtxt(io.StringIO("\n".join(lines[1:])), delimiter=",", ndmin=2)
    return names, data


def reference(age_myr, z):
    """Cumulative N_SNII, M_returned (without SN Ia), M_O, M_Fe per Msun at age_myr."""
    lz = math.log10(min(max(z, 7e-5), 0.03))
    a0 = 10.13 + 0.07547 * lz - 0.008084 * lz * lz
    a1 = -4.424 - 0.7939 * lz - 0.1187 * lz * lz
    a2 = 1.262 + 0.3385 * lz + 0.05417 * lz * lz

    def log_t(m):
        x = math.log10(m)
        return a0 + a1 * x + a2 * x * x

    lt = math.log10(age_myr * 1e6)
    lo, hi = 0.0, 100.0
    if log_t(hi) > lt:
        m_d = 100.0
    else:
        lo = 0.05
        for _ in range(200):
            mid = math.sqrt(lo * hi)
            if log_t(mid) > lt:
                lo = mid
            else:
                hi = mid
        m_d = hi
    k = 1.0 / quad(lambda m: m ** -1.35, 0.1, 100.0, epsabs=0, epsrel=1e-13)[0]
    phi = lambda m: k * m ** -2.35
    a = max(8.0, m_d)
    q = lambda f, lo, hi: quad(f, lo, hi, epsabs=0, epsrel=1e-12)[0] if hi > lo else 0.0
    n2 = q(phi, a, 40.0)
    ret = q(lambda m: phi(m) * 0.7682 * m ** 1.056, a, 40.0)
    ret += q(lambda m: phi(m) * (m - 0.109 * m - 0.394), max(1.0, m_d), 8.0)
    o = q(lambda m: phi(m) * 4.586e-4 * m ** 2.721, a, 40.0)
    fe = q(lambda m: phi(m) * 2.802e-4 * m ** 1.864, a, 40.0)
    return n2, ret, o, fe


def main():
    mpsph = sys.argv[1]
    problems = []
    ages = [2, 4, 6, 10, 20, 35]
    r = run(mpsph, ["--ages", ",".join(str(a) for a in ages), "--metallicity", "0.004"])
    if r.returncode != 0:
        print("mpsph ssp failed: %s" % r.stderr)
        return 1
    head = [l for l in r.stdout.splitlines() if l.startswith("#")]
    if not any("units:" in l and "[Msun/Msun]" in l and "[erg/Msun]" in l for l in head):
        problems.append("header states no units: %r" % head)
    names, d = table(r.stdout)
    want = ["age_Myr", "N_SNII", "N_SNIa", "E_SN_erg", "M_returned", "M_O", "M_Fe"]
    if names != want:
        problems.append("columns %r, expected %r" % (names, want))
    for row in d:
        n2, ret, o, fe = reference(row[0], 0.004)
        # The table's interpolation error is below 3e-5 of the totals (docs/feedback.md).
        for name, got, ref, total in (("N_SNII", row[1], n2, 6.8e-3), ("M_returned", row[4], ret, 0.27),
                                      ("M_O", row[5], o, 8e-3), ("M_Fe", row[6], fe, 3.5e-4)):
            if abs(got - ref) > 1e-4 * total + 1e-12:
                problems.append("age %g Myr: %s = %.8g, quad gives %.8g" % (row[0], name, got, ref))
        if row[2] != 0.0:
            problems.append("age %g Myr: SN Ia before the 8 Msun lifetime" % row[0])
        if abs(row[3] - 1e51 * (row[1] + row[2])) > 1e-9 * max(row[3], 1.0):
            problems.append("E_SN_erg is not 1e51 (N_SNII + N_SNIa)")
    r = run(mpsph, ["--ages", "13700"])
    _, d = table(r.stdout)
    if abs(d[0, 1] - 6.8e-3) > 0.05e-3:
        problems.append("N_SNII per Msun = %g, expected 6.8e-3" % d[0, 1])
    # Kroupa + WW95 + t^-1 SN Ia runs, and [O/Fe] of the ejecta falls once SN Ia start.
    r = run(mpsph, ["--imf", "kroupa", "--yields", "ww95", "--snia", "dtd", "--ages", "30,13700"])
    _, d = table(r.stdout)
    if r.returncode != 0 or not d[1, 5] / d[1, 6] < 0.7 * d[0, 5] / d[0, 6]:
        problems.append("kroupa/ww95/dtd: %r %r" % (r.stderr, d))
    for args, needle in ((["--imf", "chabrier"], "chabrier"), (["--ages", "1,x"], "--ages"),
                         (["--ages", "-3"], "positive"), (["--metallicity", "2"], "--metallicity"),
                         (["--frobnicate", "1"], "--frobnicate"), (["--imf"], "--imf")):
        r = run(mpsph, args)
        if r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1 or needle not in r.stderr:
            problems.append("%r: exit %d, stderr %r" % (args, r.returncode, r.stderr))
    for p in problems:
        print("FAIL:", p)
    print("test_ssp_cli: %d problems" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
