#!/usr/bin/python3
"""Sedov-Taylor point explosion (setups/sedov.yaml): radial density profile of a snapshot against
the self-similar solution (tools/sedov_exact.py), and the shock radius measured against predicted.

usage: /usr/bin/python3 tools/plot_sedov.py RUNDIR [--time T]
writes RUNDIR/sedov.png; E, rho0, gamma and the box are read from RUNDIR/config_resolved.yaml and
the snapshot. All quantities in code units (the run's units: code length, code density, code time).

Shock radius (the same definition as tests/run/sedov_validation.cpp):
  R_half = the radius where the radially binned density (mean over particles in shells of half the
  mean particle spacing) first falls below (rho_peak + rho0)/2 outside its peak, linearly
  interpolated between shell centres: the middle of the smeared jump.
SPH spreads the jump over ~2 h, so R_half of the exact profile is not R_s: the reference is the same
R_half measured on the exact density smoothed with each particle's own kernel (the density an SPH
particle at that radius with that h measures in the exact flow), binned the same way. The error is
R_half(SPH) / R_half(exact, smoothed) - 1; R_half and the density peak are also printed against
the bare self-similar R_s = xi0 (E t^2/rho0)^(1/5).
"""
import argparse
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import yaml  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpsph_snap  # noqa: E402
import sedov_exact  # noqa: E402


def binned_profile(r, y, width, r_max):
    """Shell centres and the mean of y over particles in shells [k width, (k+1) width) out to
    r_max (NaN where empty)."""
    nb = int(np.ceil(r_max / width))
    k = (r / width).astype(int)
    ok = k < nb
    total = np.bincount(k[ok], weights=y[ok], minlength=nb)
    count = np.bincount(k[ok], minlength=nb)
    with np.errstate(invalid="ignore"):
        return (np.arange(nb) + 0.5) * width, total / count


def half_max_radius(centres, rho, rho0):
    """Outer radius where the binned density first falls below (peak + rho0)/2 beyond its peak,
    interpolated linearly; also returns the peak's radius and value."""
    k = int(np.nanargmax(rho))
    half = 0.5 * (rho[k] + rho0)
    j = k + 1
    while j < len(rho) and not (rho[j] < half):
        j += 1
    if j == len(rho):
        return np.nan, centres[k], rho[k]
    w = (rho[j - 1] - half) / (rho[j - 1] - rho[j])
    return centres[j - 1] + w * (centres[j] - centres[j - 1]), centres[k], rho[k]


def measure(r, rho, h, E, rho0, t, gamma, spacing, r_max):
    """Shock radii of one snapshot: dict with R_s (self-similar), R_half of the SPH and of the
    smoothed exact profile, the SPH density peak, and the binned profiles."""
    width = 0.5 * spacing
    exact_h = sedov_exact.smoothed_density(r, h, E, rho0, t, gamma)
    c, sph = binned_profile(r, rho, width, r_max)
    _, ref = binned_profile(r, exact_h, width, r_max)
    r_sph, r_peak, rho_peak = half_max_radius(c, sph, rho0)
    r_ref, r_ref_peak, rho_ref_peak = half_max_radius(c, ref, rho0)
    return dict(R_s=sedov_exact.shock_radius(E, rho0, t, gamma), R_half=r_sph, R_half_ref=r_ref,
                R_peak=r_peak, rho_peak=rho_peak, R_peak_ref=r_ref_peak,
                rho_peak_ref=rho_ref_peak, centres=c, sph=sph, ref=ref)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("rundir")
    ap.add_argument("--time", type=float, default=None, help="snapshot nearest this time "
                    "(default: the last snapshot)")
    a = ap.parse_args()
    with open(os.path.join(a.rundir, "config_resolved.yaml")) as f:
        cfg = yaml.safe_load(f)
    setup = cfg["setup"]
    if setup["type"] != "sedov":
        sys.exit("%s is not a sedov run (setup.type = %s)" % (a.rundir, setup["type"]))
    E, rho0, L = float(setup["energy"]), float(setup["density"]), float(setup["box_size"])
    gamma = float(cfg["eos"]["gamma"])
    n_side = int(setup["n_side"])
    snap = (mpsph_snap.snapshots(a.rundir)[-1] if a.time is None
            else mpsph_snap.snapshot_near(a.rundir, a.time))
    t, d = mpsph_snap.load(snap, 0)
    x = d["Coordinates"] - 0.5 * L  # the explosion is at the box centre
    r = np.sqrt(np.sum(x * x, axis=1))
    rho = d["Density"].astype(float)
    h = d["SmoothingLength"].astype(float)
    vr = np.sum(d["Velocities"] * x, axis=1) / np.maximum(r, 1e-300)
    m = measure(r, rho, h, E, rho0, t, gamma, L / n_side, 0.5 * L)
    err = m["R_half"] / m["R_half_ref"] - 1.0

    rs = m["R_s"]
    grid = np.linspace(1e-4, 0.5 * L, 2000)
    rho_exact, v_exact, _ = sedov_exact.profile(grid, E, rho0, t, gamma)
    fig, ax = plt.subplots(1, 2, figsize=(13, 4.8))
    ax[0].plot(r, rho, ".", ms=0.5, color="0.7", label="particles")
    ax[0].plot(m["centres"], m["sph"], "C0-", lw=1.5, label="mpsph, binned")
    ax[0].plot(m["centres"], m["ref"], "C1--", lw=1.2, label="exact, kernel-smoothed at each h")
    ax[0].plot(grid, rho_exact, "k-", lw=1, label="exact (self-similar)")
    ax[0].axvline(rs, color="k", ls=":", lw=0.8)
    ax[0].axvline(m["R_half"], color="C0", ls=":", lw=0.8)
    ax[0].set_xlabel("r [code length]")
    ax[0].set_ylabel("density [code density]")
    ax[0].set_xlim(0, 0.5 * L)
    ax[0].legend(fontsize=8)
    ax[1].plot(r, vr, ".", ms=0.5, color="0.7", label="particles")
    ax[1].plot(grid, v_exact, "k-", lw=1, label="exact")
    ax[1].set_xlabel("r [code length]")
    ax[1].set_ylabel("radial velocity [code velocity]")
    ax[1].set_xlim(0, 0.5 * L)
    ax[1].legend(fontsize=8)
    ts = cfg["timestep"]
    scheme = ts["scheme"] + (", limiter %s" % ts["limiter_factor"] if ts["scheme"] == "block"
                             else "")
    fig.suptitle("Sedov, t = %.4g, N = %d (%s): R_s = %.4f, R_half = %.4f vs %.4f smoothed exact "
                 "(%+.2f%%)" % (t, len(r), scheme, rs, m["R_half"], m["R_half_ref"], 100 * err))
    fig.tight_layout()
    out = os.path.join(a.rundir, "sedov.png")
    fig.savefig(out, dpi=110)
    print("Sedov at t = %.6g (code time), N = %d, E = %g, rho0 = %g, gamma = %.6g (code units)"
          % (t, len(r), E, rho0, gamma))
    print("self-similar shock radius R_s = %.5f (xi0 = %.5f)" % (rs, sedov_exact.xi0(gamma)))
    print("half-maximum radius R_half: mpsph %.5f, exact smoothed %.5f: error %+.2f%%"
          % (m["R_half"], m["R_half_ref"], 100 * err))
    print("density peak: mpsph %.4f at r = %.5f (%+.2f%% of R_s); exact smoothed %.4f at r = %.5f"
          % (m["rho_peak"], m["R_peak"], 100 * (m["R_peak"] / rs - 1), m["rho_peak_ref"],
             m["R_peak_ref"]))
    print("R_half / R_s - 1: mpsph %+.2f%%, exact smoothed %+.2f%%"
          % (100 * (m["R_half"] / rs - 1), 100 * (m["R_half_ref"] / rs - 1)))
    print("wrote", out)


if __name__ == "__main__":
    main()
