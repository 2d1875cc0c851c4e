#!/usr/bin/python3
"""Sod shock tube: SPH density, velocity, pressure against the exact Riemann solution
(tools/riemann_exact.py) in the unperturbed region 0.5 < x < 1.5 of the periodic box.
The run's config_resolved.yaml says which: an adiabatic run (setups/sod.yaml) is compared with the
ideal-gas solution of its eos.gamma, an isothermal one (setups/sod_isothermal.yaml) with the exact
isothermal solution of its eos.sound_speed (P = c_s^2 rho).

usage: /usr/bin/python3 tools/plot_sod.py OUTPUT_DIR [--time 0.2]
writes OUTPUT_DIR/sod.png and prints L1 errors (mean |SPH - exact| over particles in the region).
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
import riemann_exact  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--time", type=float, default=0.2)
    a = ap.parse_args()
    with open(os.path.join(a.outdir, "config_resolved.yaml")) as f:
        cfg = yaml.safe_load(f)
    eos, setup = cfg["eos"], cfg["setup"]
    gamma = float(eos["gamma"])
    rho_l, rho_r = float(setup["rho_left"]), float(setup["rho_right"])
    snap = mpsph_snap.snapshot_near(a.outdir, a.time)
    t, d = mpsph_snap.load(snap, 0)
    x = d["Coordinates"][:, 0]
    vx = d["Velocities"][:, 0]
    rho = d["Density"]
    # u = P/((gamma-1) rho) under every EOS (docs/eos.md), so this is the pressure of the run.
    P = (gamma - 1) * rho * d["InternalEnergy"]
    sel = (x > 0.5) & (x < 1.5)
    xs = np.linspace(0.5, 1.5, 1000)
    if eos["type"] == "isothermal":
        if eos["sound_speed_from"] != "value":
            sys.exit("plot_sod.py: give the isothermal tube its c_s as eos.sound_speed")
        c = float(eos["sound_speed"])

        def solution(xi):
            r, u = riemann_exact.isothermal_sample(xi, rho_l, 0.0, rho_r, 0.0, c)
            return np.array([r, u, c * c * r])
        what = "isothermal shock tube, c_s = %g" % c
    elif eos["type"] == "adiabatic":
        p_l, p_r = float(setup["p_left"]), float(setup["p_right"])

        def solution(xi):
            return riemann_exact.sample(xi, rho_l, 0.0, p_l, rho_r, 0.0, p_r, gamma)
        what = "Sod shock tube, gamma = %.4g" % gamma
    else:
        sys.exit("plot_sod.py: no exact solution for eos.type %s" % eos["type"])
    ex = solution((x[sel] - 1.0) / t)
    exl = solution((xs - 1.0) / t)
    fig, ax = plt.subplots(1, 3, figsize=(14, 4.2))
    l1 = []
    for k, (y, lab) in enumerate(((rho, "density"), (vx, "velocity v_x"), (P, "pressure"))):
        ax[k].plot(x[sel], y[sel], ".", ms=1, color="C0", label="mpsph")
        ax[k].plot(xs, exl[k], "k-", lw=1, label="exact")
        ax[k].set_xlabel("x")
        ax[k].set_ylabel(lab)
        l1.append(np.mean(np.abs(y[sel] - ex[k])))
    ax[0].legend()
    fig.suptitle("%s, t = %.3f, N = %d; L1(rho, v, P) = %.4f, %.4f, %.4f"
                 % (what, t, len(x), *l1))
    fig.tight_layout()
    out = os.path.join(a.outdir, "sod.png")
    fig.savefig(out, dpi=110)
    print("L1 errors at t = %.4f: density %.5f  velocity %.5f  pressure %.5f" % (t, *l1))
    print("wrote", out)


if __name__ == "__main__":
    main()
