#!/usr/bin/python3
"""The Kennicutt-Schmidt relation of a disk galaxy snapshot against the observed one.

usage: /usr/bin/python3 tools/plot_ks.py SNAP.h5 [--age-myr 50] [--r-max 15] [--bins 15]
          [--z-max 1.0] [--galaxy N] [--out ks.png]
writes the PNG (default: ks.png beside the snapshot) and prints the table. Units: Msun/pc^2 for
the gas, Msun/yr/kpc^2 for star formation.

In the disk frame (galaxy_snap.to_frame: centre and spin of gas and stars), in annuli of equal width
out to --r-max kpc and within |z| < --z-max kpc:
  Sigma_gas = (SPH gas + cold clouds) mass / annulus area
  Sigma_SFR = initial mass of the stars (type 4) born in the last --age-myr Myr / age / area
against Kennicutt (1998, ApJ 498, 541, eq. 4; Salpeter IMF 0.1-100 Msun, as feedback.imf's
default): Sigma_SFR = 2.5e-4 (Sigma_gas / Msun pc^-2)^1.4 Msun/yr/kpc^2 (his scatter ~0.3 dex).
Also prints the whole disk's Sigma_SFR and Sigma_gas inside the radius holding 90% of the gas and
the least-squares slope of log Sigma_SFR on log Sigma_gas over the annuli that formed stars.
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


def kennicutt98(sigma_gas):
    return 2.5e-4 * sigma_gas ** 1.4


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("snapshot")
    ap.add_argument("--age-myr", type=float, default=50.0)
    ap.add_argument("--r-max", type=float, default=15.0)
    ap.add_argument("--bins", type=int, default=15)
    ap.add_argument("--z-max", type=float, default=1.0)
    ap.add_argument("--galaxy", type=int, default=None)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    t, parts = galaxy_snap.load(a.snapshot, galaxy=a.galaxy)
    f = galaxy_snap.to_frame(parts)
    edges = np.linspace(0.0, a.r_max, a.bins + 1)
    area_kpc2 = galaxy_snap.annulus_areas(edges)

    gas = np.zeros(a.bins)
    for k in (0, 2):
        if k in f:
            gas += galaxy_snap.annulus_sums(f[k], f[k]["m"], edges, a.z_max)
    young = np.zeros(a.bins)
    if 4 in f and "birth" in f[4]:
        d = f[4]
        age = t - d["birth"]
        w = np.where((age >= 0) & (age < a.age_myr), d.get("m0", d["m"]), 0.0)
        young = galaxy_snap.annulus_sums(d, w, edges, a.z_max)
    sigma_gas = gas / (area_kpc2 * 1e6)  # Msun/pc^2
    sigma_sfr = young / (a.age_myr * 1e6) / area_kpc2  # Msun/yr/kpc^2
    print("%s: t = %.1f Myr; stars younger than %g Myr; annuli of %.2f kpc, |z| < %g kpc"
          % (a.snapshot, t, a.age_myr, edges[1], a.z_max))
    print("  R[kpc]  Sigma_gas[Msun/pc^2]  Sigma_SFR[Msun/yr/kpc^2]  Kennicutt98  ratio")
    for i in range(a.bins):
        k98 = kennicutt98(sigma_gas[i]) if sigma_gas[i] > 0 else 0.0
        ratio = sigma_sfr[i] / k98 if k98 > 0 else float("nan")
        print("  %6.2f  %20.4g  %24.4g  %11.4g  %5.2f" % (0.5 * (edges[i] + edges[i + 1]),
                                                        sigma_gas[i], sigma_sfr[i], k98, ratio))
    total_gas = np.sum(gas)
    if total_gas > 0:
        cum = np.cumsum(gas) / total_gas
        i90 = int(np.searchsorted(cum, 0.9))
        r90 = edges[i90 + 1]
        area = np.pi * r90 ** 2
        sg = np.sum(gas[: i90 + 1]) / (area * 1e6)
        ss = np.sum(young[: i90 + 1]) / (a.age_myr * 1e6) / area
        print("  whole disk (R < %.2f kpc, 90%% of the gas): Sigma_gas %.4g Msun/pc^2, Sigma_SFR "
              "%.4g Msun/yr/kpc^2, Kennicutt98 %.4g (ratio %.2f); SFR %.3g Msun/yr"
              % (r90, sg, ss, kennicutt98(sg), ss / kennicutt98(sg) if sg > 0 else float("nan"),
                 ss * area))
    ok = (sigma_gas > 0) & (sigma_sfr > 0)
    if np.count_nonzero(ok) >= 3:
        slope, icpt = np.polyfit(np.log10(sigma_gas[ok]), np.log10(sigma_sfr[ok]), 1)
        print("  slope of log Sigma_SFR on log Sigma_gas over %d annuli: %.2f (Kennicutt98: 1.40 "
              "+- 0.15), offset at 10 Msun/pc^2: %+.2f dex" %
              (np.count_nonzero(ok), slope,
               slope + icpt - np.log10(kennicutt98(10.0))))

    fig, ax = plt.subplots(figsize=(6, 5))
    xs = np.logspace(-1, 4, 50)
    ax.plot(xs, kennicutt98(xs), "k-", label="Kennicutt (1998)")
    ax.fill_between(xs, kennicutt98(xs) / 2, kennicutt98(xs) * 2, color="0.85",
                    label="+- 0.3 dex")
    if np.any(ok):
        sc = ax.scatter(sigma_gas[ok], sigma_sfr[ok], c=0.5 * (edges[:-1] + edges[1:])[ok],
                        cmap="viridis", zorder=3)
        fig.colorbar(sc, ax=ax, label="R [kpc]")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"$\Sigma_{gas}$ [M$_\odot$ pc$^{-2}$] (SPH gas + clouds)")
    ax.set_ylabel(r"$\Sigma_{SFR}$ [M$_\odot$ yr$^{-1}$ kpc$^{-2}$] (age < %g Myr)" % a.age_myr)
    ax.set_title("Kennicutt-Schmidt, t = %.0f Myr" % t)
    ax.legend(loc="upper left")
    out = a.out or os.path.join(os.path.dirname(os.path.abspath(a.snapshot)), "ks.png")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print("wrote", out)


if __name__ == "__main__":
    main()
