#!/usr/bin/python3
"""Plummer sphere: Lagrangian radii (10, 50, 90% of the mass, about the centre of mass) vs time
from every snapshot of a run, in N-body units, relative to t = 0.

usage: /usr/bin/python3 tools/plot_plummer.py OUTPUT_DIR [--type 1]
writes OUTPUT_DIR/plummer_lagrangian_radii.png and prints the largest relative change.
"""
import argparse
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpsph_snap  # noqa: E402

FRACTIONS = (0.1, 0.5, 0.9)


def lagrangian_radii(d):
    x, m = d["Coordinates"], d["Masses"]
    r = np.linalg.norm(x - np.average(x, axis=0, weights=m), axis=1)
    order = np.argsort(r)
    cm = np.cumsum(m[order]) / np.sum(m)
    return [r[order][np.searchsorted(cm, f)] for f in FRACTIONS]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--type", type=int, default=1, help="particle type (default 1, dark matter)")
    a = ap.parse_args()
    snaps = mpsph_snap.snapshots(a.outdir)
    if not snaps:
        sys.exit("no snapshots in %s" % a.outdir)
    t, radii = [], []
    for p in snaps:
        ti, d = mpsph_snap.load(p, a.type)
        t.append(ti)
        radii.append(lagrangian_radii(d))
    t, radii = np.array(t), np.array(radii)
    t_cr = 2.0 * np.sqrt(2.0)  # crossing time of the E = -1/4 model
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for k, f in enumerate(FRACTIONS):
        ax.plot(t / t_cr, radii[:, k], label="%d%% mass" % (100 * f))
    ax.set_yscale("log")
    ax.set_xlabel(r"t / t$_{cr}$  (t$_{cr}$ = 2$\sqrt{2}$ N-body time units)")
    ax.set_ylabel("Lagrangian radius [N-body length]")
    ax.legend()
    change = np.max(np.abs(radii / radii[0] - 1), axis=0)
    ax.set_title("Plummer sphere: max relative change %s" % ", ".join("%.1f%%" % (100 * c) for c in change))
    fig.tight_layout()
    out = os.path.join(a.outdir, "plummer_lagrangian_radii.png")
    fig.savefig(out, dpi=110)
    print("max relative change of the 10/50/90%% radii: %s" % ", ".join("%.4f" % c for c in change))
    print("wrote", out)


if __name__ == "__main__":
    main()
