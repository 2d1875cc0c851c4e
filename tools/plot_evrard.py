#!/usr/bin/python3
"""Evrard collapse plots: radial profiles (density, radial velocity, entropy P/rho^gamma) at the
snapshot nearest t = 0.8 against the 1D reference solution (data/reference/evrard_1d_t0.8.csv,
made by tools/evrard_1d.py), and energy components vs time. G = M = R = 1 (N-body units).

Prints the L1 errors of the binned SPH means against the reference interpolated at the bin
radii, over --rmin <= r <= --rmax: mean |log10 rho - log10 rho_ref|, mean |v_r - v_r,ref| and
mean |log10 A - log10 A_ref| (A = P/rho^gamma), over the bins that hold particles.

usage: /usr/bin/python3 tools/plot_evrard.py OUTPUT_DIR [--gamma 1.6667] [--reference CSV]
writes OUTPUT_DIR/evrard_profiles.png and OUTPUT_DIR/evrard_energy.png
"""
import argparse
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import evrard_1d  # noqa: E402
import mpsph_snap  # noqa: E402

DEFAULT_REFERENCE = os.path.join(HERE, "..", "data", "reference", "evrard_1d_t0.8.csv")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--gamma", type=float, default=5.0 / 3.0)
    ap.add_argument("--time", type=float, default=0.8)
    ap.add_argument("--reference", default=DEFAULT_REFERENCE,
                    help="1D reference profile (tools/evrard_1d.py output) at the snapshot's time")
    ap.add_argument("--rmin", type=float, default=0.03, help="inner radius of the L1 errors")
    ap.add_argument("--rmax", type=float, default=0.8, help="outer radius of the L1 errors")
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

    ref = evrard_1d.read_csv(a.reference)
    bins = np.logspace(-2.5, 0.3, 40)
    rc = np.sqrt(bins[1:] * bins[:-1])
    in_range = (rc >= a.rmin) & (rc <= a.rmax)
    fig, ax = plt.subplots(1, 3, figsize=(14, 4.2))
    errors = []
    for axi, y, key, lab, logy in (
            (ax[0], rho, "rho", r"density $\rho$ [M/R$^3$]", True),
            (ax[1], vr, "v_r", r"radial velocity $v_r$ [(GM/R)$^{1/2}$]", False),
            (ax[2], A, "A", r"entropy $A = P/\rho^\gamma$", True)):
        mean = mpsph_snap.binned(r, y, bins)
        sel = in_range & np.isfinite(mean)
        at_bins = np.interp(rc[sel], ref["r"], ref[key])
        if logy:
            errors.append(np.mean(np.abs(np.log10(mean[sel] / at_bins))))
        else:
            errors.append(np.mean(np.abs(mean[sel] - at_bins)))
        axi.plot(r, y, ",", color="0.6", alpha=0.5, rasterized=True)
        axi.plot(ref["r"], ref[key], "r-", lw=1.2, label="1D reference")
        axi.plot(rc, mean, "k.-", lw=1.2, ms=4, label="SPH binned mean")
        axi.axvspan(a.rmin, a.rmax, color="0.93", zorder=-1)
        axi.set_xscale("log")
        if logy:
            axi.set_yscale("log")
        axi.set_xlabel("r [R]")
        axi.set_ylabel(lab)
        axi.set_xlim(1e-2, 2)
    ax[0].set_ylim(1e-3, 1e4)
    ax[2].set_ylim(1e-3, 1)
    ax[0].legend(loc="lower left", fontsize=8)
    ax[1].set_title("L1 over %.3g <= r <= %.3g (shaded): log rho %.3f, v_r %.3f, log A %.3f"
                    % (a.rmin, a.rmax, errors[0], errors[1], errors[2]), fontsize=9)
    fig.suptitle("Evrard collapse, N = %d, t = %.3f (G = M = R = 1); reference: %s"
                 % (len(m), t, os.path.basename(a.reference)))
    fig.tight_layout()
    p1 = os.path.join(a.outdir, "evrard_profiles.png")
    fig.savefig(p1, dpi=110)
    print("t = %.4f, N = %d; L1 errors against %s over %g <= r <= %g (%d bins):"
          % (t, len(m), os.path.relpath(a.reference), a.rmin, a.rmax, int(np.sum(in_range))))
    print("  log10 rho %.4f   v_r %.4f   log10 A %.4f" % tuple(errors))

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
