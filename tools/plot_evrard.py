#!/usr/bin/python3
"""Evrard collapse plots: radial profiles (density, radial velocity, entropy P/rho^gamma) at the
snapshot nearest t = 0.8, and energy components vs time. G = M = R = 1 (N-body units).

usage: /usr/bin/python3 tools/plot_evrard.py OUTPUT_DIR [--gamma 1.6667]
writes OUTPUT_DIR/evrard_profiles.png and OUTPUT_DIR/evrard_energy.png
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--gamma", type=float, default=5.0 / 3.0)
    ap.add_argument("--time", type=float, default=0.8)
    a = ap.parse_args()

    snap = mpsph_snap.snapshot_near(a.outdir, a.time)
    if snap is None:
        sys.exit("no snapshots in %s" % a.outdir)
    t, d = mpsph_snap.load(snap, 0)
    x = d["Coordinates"]
    v = d["Velocities"]
    m = d["Masses"]
    com = np.average(x, axis=0, weights=m)
    x = x - com
    r = np.linalg.norm(x, axis=1)
    vr = np.einsum("ij,ij->i", x, v) / np.maximum(r, 1e-30)
    rho = d["Density"]
    P = (a.gamma - 1.0) * rho * d["InternalEnergy"]
    A = P / rho ** a.gamma

    bins = np.logspace(-2.5, 0.3, 40)
    rc = np.sqrt(bins[1:] * bins[:-1])
    fig, ax = plt.subplots(1, 3, figsize=(14, 4.2))
    for axi, y, lab, logy in ((ax[0], rho, r"density $\rho$ [M/R$^3$]", True),
                              (ax[1], vr, r"radial velocity $v_r$ [(GM/R)$^{1/2}$]", False),
                              (ax[2], A, r"entropy $P/\rho^\gamma$", True)):
        axi.plot(r, y, ",", color="0.6", alpha=0.5, rasterized=True)
        axi.plot(rc, mpsph_snap.binned(r, y, bins), "k-", lw=1.5, label="binned mean")
        axi.set_xscale("log")
        if logy:
            axi.set_yscale("log")
        axi.set_xlabel("r [R]")
        axi.set_ylabel(lab)
        axi.set_xlim(1e-2, 2)
    ax[0].legend()
    fig.suptitle("Evrard collapse, N = %d, t = %.3f (G = M = R = 1)" % (len(m), t))
    fig.tight_layout()
    p1 = os.path.join(a.outdir, "evrard_profiles.png")
    fig.savefig(p1, dpi=110)

    e = mpsph_snap.energy(a.outdir)
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.2))
    ax[0].plot(e["time"], e["E_kinetic"], label="kinetic")
    ax[0].plot(e["time"], e["E_thermal"], label="thermal")
    ax[0].plot(e["time"], e["E_potential"], label="potential")
    ax[0].plot(e["time"], e["E_total"], "k", label="total")
    ax[0].set_xlabel("t [(R^3/GM)^{1/2}]")
    ax[0].set_ylabel("energy [GM^2/R]")
    ax[0].legend()
    ax[1].plot(e["time"], e["rel_error"])
    ax[1].set_xlabel("t")
    ax[1].set_ylabel(r"$(E - E_0)/|E_0|$")
    ax[1].axhline(0.01, ls=":", c="r")
    ax[1].axhline(-0.01, ls=":", c="r")
    fig.suptitle("Evrard collapse: energies (max |dE/E0| = %.2e)" % np.max(np.abs(e["rel_error"])))
    fig.tight_layout()
    p2 = os.path.join(a.outdir, "evrard_energy.png")
    fig.savefig(p2, dpi=110)
    print("wrote %s and %s" % (p1, p2))


if __name__ == "__main__":
    main()
