#!/usr/bin/python3
"""Cumulative release of a simple stellar population per Msun formed, as `mpsph ssp` prints it
(the same SSP table as the feedback stage): SN II and SN Ia numbers, SN energy, returned mass, O
and Fe against age, and [O/Fe] of the ejecta made so far relative to solar.

usage: /usr/bin/python3 tools/plot_ssp.py [--mpsph PATH] [--csv FILE ...] [--out ssp.png]
           [mpsph ssp options: --imf ..., --yields ..., --snia ..., --metallicity ...]
Without --csv it runs `mpsph ssp` (PATH default: build-cpu/bin/mpsph, then mpsph on PATH) for
Salpeter and Kroupa with the given options at 200 ages from 1 Myr to 14 Gyr; with --csv it draws
the given files (CSV written by mpsph ssp). Writes the PNG (default ssp.png).
"""
import argparse
import io
import os
import shutil
import subprocess
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

# Anders & Grevesse (1989) solar O/Fe mass ratio (the abundances of the cooling tables).
SOLAR_O_TO_FE = 1.3509e-2 / 2.5913e-3


def read_csv(text):
    lines = text.splitlines()
    label = next((l[2:] for l in lines if l.startswith("# imf")), "")
    body = [l for l in lines if not l.startswith("#")]
    names = body[0].split(",")
    d = np.loadtxt(io.StringIO("\n".join(body[1:])), delimiter=",", ndmin=2)
    return label, {n: d[:, k] for k, n in enumerate(names)}


def find_mpsph(given):
    if given:
        return given
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build-cpu", "bin", "mpsph")
    return here if os.path.exists(here) else shutil.which("mpsph")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mpsph")
    ap.add_argument("--csv", nargs="+")
    ap.add_argument("--out", default="ssp.png")
    ap.add_argument("--yields", default="rvn96")
    ap.add_argument("--snia", default="binary")
    ap.add_argument("--metallicity", default="0.02")
    a = ap.parse_args()
    runs = []
    if a.csv:
        for f in a.csv:
            with open(f) as fh:
                runs.append(read_csv(fh.read()))
    else:
        exe = find_mpsph(a.mpsph)
        if not exe:
            sys.exit("plot_ssp.py: mpsph not found (give --mpsph)")
        ages = ",".join("%.6g" % x for x in np.logspace(0, np.log10(14000), 200))
        for imf in ("salpeter", "kroupa"):
            r = subprocess.run([exe, "ssp", "--imf", imf, "--yields", a.yields, "--snia", a.snia,
                                "--metallicity", a.metallicity, "--ages", ages],
                               capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit("mpsph ssp failed: " + r.stderr)
            runs.append(read_csv(r.stdout))
    fig, ax = plt.subplots(2, 2, figsize=(11, 8), sharex=True)
    for label, d in runs:
        t = d["age_Myr"]
        short = label.split(" (")[0]
        ax[0, 0].loglog(t, d["N_SNII"], label=short + " SN II")
        ax[0, 0].loglog(t, d["N_SNIa"], "--", label=short + " SN Ia")
        ax[0, 1].loglog(t, d["M_returned"], label=short)
        ax[1, 0].loglog(t, d["M_O"], label=short + " O")
        ax[1, 0].loglog(t, d["M_Fe"], "--", label=short + " Fe")
        ok = (d["M_O"] > 0) & (d["M_Fe"] > 0)
        ax[1, 1].semilogx(t[ok], np.log10(d["M_O"][ok] / d["M_Fe"][ok] / SOLAR_O_TO_FE), label=short)
    ax[0, 0].set_ylabel("cumulative SN per Msun formed")
    ax[0, 1].set_ylabel("returned mass [Msun / Msun formed]")
    ax[1, 0].set_ylabel("new O, Fe [Msun / Msun formed]")
    ax[1, 1].set_ylabel("[O/Fe] of the ejecta (new metals)")
    for x in ax[1]:
        x.set_xlabel("age [Myr]")
    for x in ax.flat:
        x.legend(fontsize=7)
        x.grid(alpha=0.3)
    fig.suptitle(runs[0][0] if runs else "", fontsize=8)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print("wrote", a.out)


if __name__ == "__main__":
    main()
