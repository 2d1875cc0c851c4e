#!/usr/bin/python3
"""Sod shock tube: SPH density, velocity, pressure against the exact Riemann solution
(tools/riemann_exact.py) in the unperturbed region 0.5 < x < 1.5 of the periodic box.

usage: /usr/bin/python3 tools/plot_sod.py OUTPUT_DIR [--time 0.2] [--gamma 1.6667]
writes OUTPUT_DIR/sod.png and prints L1 errors (mean |SPH - exact| over particles in the region).
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
import riemann_exact  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--time", type=float, default=0.2)
    ap.add_argument("--gamma", type=float, default=5.0 / 3.0)
    a = ap.parse_args()
    snap = mpsph_snap.snapshot_near(a.outdir, a.time)
    t, d = mpsph_snap.load(snap, 0)
    x = d["Coordinates"][:, 0]
    vx = d["Velocities"][:, 0]
    rho = d["Density"]
    P = (a.gamma - 1) * rho * d["InternalEnergy"]
    sel = (x > 0.5) & (x < 1.5)
    ex = riemann_exact.sample((x[sel] - 1.0) / t, 1.0, 0.0, 1.0, 0.125, 0.0, 0.1, a.gamma)
    xs = np.linspace(0.5, 1.5, 1000)
    exl = riemann_exact.sample((xs - 1.0) / t, 1.0, 0.0, 1.0, 0.125, 0.0, 0.1, a.gamma)
    fig, ax = plt.subplots(1, 3, figsize=(14, 4.2))
    l1 = []
    for k, (y, lab) in enumerate(((rho, "density"), (vx, "velocity v_x"), (P, "pressure"))):
        ax[k].plot(x[sel], y[sel], ".", ms=1, color="C0", label="mpsph")
        ax[k].plot(xs, exl[k], "k-", lw=1, label="exact")
        ax[k].set_xlabel("x")
        ax[k].set_ylabel(lab)
        l1.append(np.mean(np.abs(y[sel] - ex[k])))
    ax[0].legend()
    fig.suptitle("Sod shock tube, t = %.3f, N = %d; L1(rho, v, P) = %.4f, %.4f, %.4f"
                 % (t, len(x), *l1))
    fig.tight_layout()
    out = os.path.join(a.outdir, "sod.png")
    fig.savefig(out, dpi=110)
    print("L1 errors at t = %.4f: density %.5f  velocity %.5f  pressure %.5f" % (t, *l1))
    print("wrote", out)


if __name__ == "__main__":
    main()
