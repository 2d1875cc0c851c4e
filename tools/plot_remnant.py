#!/usr/bin/python3
"""The stellar profile of a merger remnant (or any galaxy) from a snapshot: projected surface
density Sigma(R) of all stars (types 3 and 4) around the shrinking-sphere centre, averaged over the
three projections along the simulation axes, a Sersic fit, and the half-mass radius.

usage: /usr/bin/python3 tools/plot_remnant.py SNAP.h5 [SNAP.h5 ...] [--out PNG] [--r-min 0.5]
                                              [--r-max 15]
writes remnant_profile.png beside the first snapshot (or PNG): log10 Sigma [Msun/pc^2] against
R^(1/4) [kpc^(1/4)] (a de Vaucouleurs profile is a straight line there), one curve per snapshot,
with its Sersic fit. Prints per snapshot: time [Myr], stellar mass [Msun], projected half-mass
radius R_e [kpc], the Sersic index n and R_e of the fit over [r-min, r-max] (kpc; the inner limit
keeps out the softened centre), and the fit's rms in dex.

Sersic: Sigma(R) = Sigma_e exp(-b_n ((R / R_e)^(1/n) - 1)), b_n = 2 n - 1/3 + 0.009876 / n
(Prugniel & Simien 1997), fitted to log Sigma by least squares on a grid of n (0.5..10) with
Sigma_e and R_e solved for each n. numpy + h5py + matplotlib.
"""
import argparse
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import galaxy_snap  # noqa: E402


def b_n(n):
    return 2.0 * n - 1.0 / 3.0 + 0.009876 / n


def projected_profile(x, m, edges):
    """Surface density [Msun/kpc^2] in annuli `edges` [kpc], mean of the three axis projections."""
    area = np.pi * (edges[1:] ** 2 - edges[:-1] ** 2)
    sig = np.zeros(len(edges) - 1)
    for drop in range(3):
        keep = [a for a in range(3) if a != drop]
        R = np.hypot(x[:, keep[0]], x[:, keep[1]])
        sig += np.histogram(R, bins=edges, weights=m)[0] / area
    return sig / 3.0


def half_mass_radius(x, m):
    """Projected radius holding half the stellar mass, mean of the three projections [kpc]."""
    out = []
    for drop in range(3):
        keep = [a for a in range(3) if a != drop]
        R = np.hypot(x[:, keep[0]], x[:, keep[1]])
        o = np.argsort(R)
        cm = np.cumsum(m[o])
        out.append(R[o][np.searchsorted(cm, 0.5 * cm[-1])])
    return float(np.mean(out))


def sersic_fit(R, sig):
    """Least-squares Sersic fit to log10 Sigma: returns (n, R_e, Sigma_e, rms in dex)."""
    ok = sig > 0
    R, y = R[ok], np.log10(sig[ok])
    best = None
    for n in np.arange(0.5, 10.001, 0.01):
        b = b_n(n)
        # log10 Sigma = log10 Sigma_e + b/ln10 - (b/ln10) (R/R_e)^(1/n): linear in
        # A = log10 Sigma_e + b/ln10 and B = (b/ln10) R_e^(-1/n) for fixed n.
        X = np.vstack([np.ones_like(R), -R ** (1.0 / n)]).T
        coef, *_ = np.linalg.lstsq(X, y, rcond=None)
        A, B = coef
        if B <= 0:
            continue
        rms = float(np.sqrt(np.mean((X @ coef - y) ** 2)))
        if best is None or rms < best[3]:
            re = (B * np.log(10.0) / b) ** (-n)
            best = (float(n), float(re), 10 ** (A - b / np.log(10.0)), rms)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("snapshots", nargs="+")
    ap.add_argument("--out", default=None)
    ap.add_argument("--r-min", type=float, default=0.5)
    ap.add_argument("--r-max", type=float, default=15.0)
    a = ap.parse_args()
    edges = np.logspace(np.log10(0.1), np.log10(40.0), 41)
    Rc = np.sqrt(edges[1:] * edges[:-1])
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    print("t [Myr] | M_* [Msun] | R_e (half mass, projected) [kpc] | Sersic n | R_e fit [kpc] | "
          "rms [dex]")
    for path in a.snapshots:
        t, parts = galaxy_snap.load(path)
        stars = [parts[k] for k in (3, 4) if k in parts]
        if not stars:
            raise SystemExit("%s: no star particles" % path)
        c, _ = galaxy_snap.centre(parts)
        x = np.concatenate([d["x"] for d in stars]) - c
        m = np.concatenate([d["m"] for d in stars])
        sig = projected_profile(x, m, edges) / 1e6  # Msun/pc^2
        fit_sel = (Rc >= a.r_min) & (Rc <= a.r_max)
        n, re, se, rms = sersic_fit(Rc[fit_sel], sig[fit_sel])
        rh = half_mass_radius(x, m)
        edge = " (n at the edge of the fit's grid: no Sersic profile, e.g. two galaxies)" \
            if n <= 0.5 or n >= 10.0 else ""
        print("%.0f | %.3e | %.2f | %.2f | %.2f | %.3f%s" % (t, m.sum(), rh, n, re, rms, edge))
        ok = sig > 0
        line, = ax.plot(Rc[ok] ** 0.25, np.log10(sig[ok]), "o", ms=3,
                        label="%.0f Myr: n = %.2f, R_e = %.2f kpc" % (t, n, re))
        Rf = np.linspace(a.r_min, a.r_max, 100)
        ax.plot(Rf ** 0.25, np.log10(se * np.exp(-b_n(n) * ((Rf / re) ** (1.0 / n) - 1.0))), "-",
                color=line.get_color(), lw=1)
    ax.set_xlabel(r"$R^{1/4}$ [kpc$^{1/4}$]")
    ax.set_ylabel(r"$\log_{10}\,\Sigma_*$ [M$_\odot$ pc$^{-2}$]")
    ax.set_title("stellar surface density (mean of 3 projections) and Sersic fits")
    ax.legend(fontsize=8)
    out = a.out or os.path.join(os.path.dirname(os.path.abspath(a.snapshots[0])),
                                "remnant_profile.png")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print("wrote", out)


if __name__ == "__main__":
    main()
