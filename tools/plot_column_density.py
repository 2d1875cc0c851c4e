#!/usr/bin/python3
"""Column-density maps of mpsph snapshots: the gas (PartType0) projected with its SPH kernel, in
Msun/pc^2 (from the snapshot's /Units), sinks (PartType5, when present) marked as circles of area
proportional to their mass.

One row per snapshot, one column per line of sight. The default views, `--views x z`, are those of
the cloud collision (setups/cloud_collision.yaml: the clouds move along x): along x the shocked
layer is seen face-on (the y-z plane), along z edge-on (the x-y plane). For a rotating cloud about
z (setups/boss_bodenheimer.yaml) use `--views z`.

usage: /usr/bin/python3 tools/plot_column_density.py SNAP.h5 [SNAP.h5 ...] [--views x z]
           [--extent HALF_WIDTH] [--centre X Y Z] [--pixels 400] [--t-ff T_FF] [--out FILE.png]
writes FILE.png (default: column_density.png beside the first snapshot) and prints, per snapshot
and view, the peak column density and the number and total mass of the sinks.
"""
import argparse
import os
import sys

import h5py
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

MSUN = 1.98841e33  # g
PC = 3.0856775814913673e18  # cm
MYR = 3.15576e13  # s
AXES = {"x": (1, 2), "y": (2, 0), "z": (0, 1)}  # line of sight -> the two axes of the map
NAMES = "xyz"


def projected_kernel_table(n=256):
    """Column of the M4 kernel (PHYSICS.md section 1) through impact parameter q = R/h, for h = 1:
    F(q) = int W(sqrt(q^2 + z^2)) dz, W = 1/pi {1 - 1.5 s^2 + 0.75 s^3; 0.25 (2 - s)^3}."""
    q = np.linspace(0.0, 2.0, n)
    z = np.linspace(0.0, 2.0, 2001)
    s = np.sqrt(q[:, None] ** 2 + z[None, :] ** 2)
    w = np.where(s < 1, 1 - 1.5 * s**2 + 0.75 * s**3, np.where(s < 2, 0.25 * (2 - s) ** 3, 0.0))
    f = 2.0 * np.trapz(w / np.pi, z, axis=1)
    return q, f


Q_TAB, F_TAB = projected_kernel_table()


def read(path):
    with h5py.File(path, "r") as f:
        u = f["Units"].attrs if "Units" in f else {}
        units = {
            "L": float(np.ravel(u["Unit length in cgs (U_L)"])[0]) if "Units" in f else 1.0,
            "M": float(np.ravel(u["Unit mass in cgs (U_M)"])[0]) if "Units" in f else 1.0,
            "t": float(np.ravel(u["Unit time in cgs (U_t)"])[0]) if "Units" in f else 1.0,
            "nbody": bool(np.ravel(u["N-body units"])[0]) if "Units" in f else True,
        }
        t = float(f["Header"].attrs["Time"])
        g = f["PartType0"]
        gas = {k: g[k][...] for k in ("Coordinates", "Masses", "SmoothingLength") if k in g}
        sinks = None
        if "PartType5" in f:
            s = f["PartType5"]
            sinks = {"Coordinates": s["Coordinates"][...], "Masses": s["Masses"][...]}
    return t, units, gas, sinks


def column_density(xy, m, h, lo, width, npix):
    """Mass per unit area on an npix^2 grid over [lo, lo + width)^2 (code units). Each particle's
    projected kernel is sampled at the pixel centres within 2h and normalised to its mass, so the
    map holds exactly the mass of the particles inside it; a particle whose kernel misses every
    pixel centre (2h < half a pixel) goes into its pixel."""
    dx = width / npix
    area = dx * dx
    grid = np.zeros((npix, npix))
    ij = np.floor((xy - lo) / dx).astype(np.int64)
    reach = np.ceil(2.0 * h / dx).astype(np.int64)
    inside = np.all((ij + reach[:, None] >= 0) & (ij - reach[:, None] < npix), axis=1)
    xy, m, h, ij, reach = xy[inside], m[inside], h[inside], ij[inside], reach[inside]
    for k in np.unique(reach):
        sel = reach == k
        px, pm, ph, pij = xy[sel], m[sel], h[sel], ij[sel]
        offs = np.arange(-k, k + 1)
        oi, oj = np.meshgrid(offs, offs, indexing="ij")
        oi, oj = oi.ravel(), oj.ravel()
        ci = pij[:, 0, None] + oi[None, :]
        cj = pij[:, 1, None] + oj[None, :]
        cx = lo[0] + (ci + 0.5) * dx - px[:, 0, None]
        cy = lo[1] + (cj + 0.5) * dx - px[:, 1, None]
        q = np.sqrt(cx * cx + cy * cy) / ph[:, None]
        w = np.where(q < 2.0, np.interp(q, Q_TAB, F_TAB), 0.0)
        tot = w.sum(axis=1)
        lone = tot <= 0
        w[lone, (len(offs) ** 2) // 2] = 1.0  # the particle's own pixel
        tot[lone] = 1.0
        w *= (pm / tot)[:, None]
        ok = (ci >= 0) & (ci < npix) & (cj >= 0) & (cj < npix)
        np.add.at(grid, (ci[ok], cj[ok]), w[ok])
    return grid / area


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("snapshots", nargs="+")
    ap.add_argument("--views", nargs="+", default=["x", "z"], choices=list(AXES),
                    help="lines of sight (default: x z, face-on and edge-on of the collision layer)")
    ap.add_argument("--extent", type=float, default=None,
                    help="half width of the maps, code length (default: the first snapshot's gas "
                         "with its kernels, 2h, inside)")
    ap.add_argument("--centre", type=float, nargs=3, default=None,
                    help="map centre, code length (default: the first snapshot's gas centre of mass)")
    ap.add_argument("--pixels", type=int, default=400, help="pixels per side (default 400)")
    ap.add_argument("--t-ff", type=float, default=None,
                    help="free-fall time, code time (printed at the start of the run): titles "
                         "then also give t / t_ff")
    ap.add_argument("--out", default=None, help="output PNG")
    a = ap.parse_args()
    for p in a.snapshots:
        if not os.path.isfile(p):
            sys.exit("no such snapshot: %s" % p)

    data = [read(p) for p in a.snapshots]
    t0, units0, gas0, _ = data[0]
    if "SmoothingLength" not in gas0:
        sys.exit("%s has no PartType0/SmoothingLength" % a.snapshots[0])
    x0, m0 = gas0["Coordinates"], gas0["Masses"]
    centre = np.array(a.centre) if a.centre else np.average(x0, axis=0, weights=m0)
    if a.extent:
        half = a.extent
    else:
        h0 = gas0["SmoothingLength"].astype(float)
        half = np.max(np.max(np.abs(x0 - centre), axis=1) + 2.0 * h0)
    physical = not units0["nbody"]
    # Column density unit: code mass / code length^2 -> Msun/pc^2.
    sigma_unit = units0["M"] / MSUN / (units0["L"] / PC) ** 2 if physical else 1.0
    length_unit, length_name = (units0["L"] / PC, "pc") if physical else (1.0, "code length")
    if physical and half * length_unit < 0.05:
        length_unit, length_name = units0["L"] / 1.495978707e13, "au"
    sigma_name = r"$\Sigma$ [M$_\odot$ pc$^{-2}$]" if physical else r"$\Sigma$ [code mass / length$^2$]"

    maps = []
    for (t, units, gas, sinks), path in zip(data, a.snapshots):
        row = []
        for v in a.views:
            i, j = AXES[v]
            lo = np.array([centre[i] - half, centre[j] - half])
            xy = gas["Coordinates"][:, [i, j]]
            sig = column_density(xy, gas["Masses"], gas["SmoothingLength"].astype(float), lo,
                                 2 * half, a.pixels) * sigma_unit
            row.append(sig)
            n_s = 0 if sinks is None else len(sinks["Masses"])
            m_s = 0.0 if sinks is None else float(np.sum(sinks["Masses"]))
            m_unit = units["M"] / MSUN if physical else 1.0
            pix_area = (2 * half / a.pixels) ** 2 / sigma_unit  # code area x Sigma unit
            print("%s  t = %.5g%s  view along %s: peak Sigma = %.4g %s, map mass %.6g of %.6g "
                  "%s, sinks: %d, mass %.4g %s"
                  % (os.path.basename(path), t,
                     " (%.4g Myr)" % (t * units["t"] / MYR) if physical else "", v, sig.max(),
                     "Msun/pc^2" if physical else "code", sig.sum() * pix_area * m_unit,
                     gas["Masses"].sum() * m_unit, "Msun" if physical else "code mass", n_s,
                     m_s * m_unit, "Msun" if physical else "code mass"))
        maps.append(row)

    positive = np.concatenate([m[m > 0].ravel() for row in maps for m in row])
    vmax = np.log10(positive.max())
    vmin = max(np.log10(np.percentile(positive, 5)), vmax - 5)
    nr, nc = len(maps), len(a.views)
    fig, axes = plt.subplots(nr, nc, figsize=(4.2 * nc + 1.0, 4.0 * nr), squeeze=False,
                             constrained_layout=True)
    ext = [-half * length_unit, half * length_unit, -half * length_unit, half * length_unit]
    for r, ((t, units, gas, sinks), row) in enumerate(zip(data, maps)):
        for c, v in enumerate(a.views):
            ax = axes[r][c]
            i, j = AXES[v]
            with np.errstate(divide="ignore"):
                img = np.log10(row[c]).T
            im = ax.imshow(img, origin="lower", extent=ext, vmin=vmin, vmax=vmax, cmap="inferno",
                           interpolation="nearest")
            if sinks is not None and len(sinks["Masses"]):
                sx = (sinks["Coordinates"][:, i] - centre[i]) * length_unit
                sy = (sinks["Coordinates"][:, j] - centre[j]) * length_unit
                sm = sinks["Masses"]
                ax.scatter(sx, sy, s=20 + 80 * sm / sm.max(), facecolors="none",
                           edgecolors="cyan", linewidths=0.8)
            ax.set_xlim(ext[0], ext[1])
            ax.set_ylim(ext[2], ext[3])
            ax.set_xlabel("%s [%s]" % (NAMES[i], length_name))
            ax.set_ylabel("%s [%s]" % (NAMES[j], length_name))
            tt = ("t = %.3g Myr" % (t * units["t"] / MYR)) if physical else "t = %.4g" % t
            if a.t_ff:
                tt += " = %.3g t$_{\\rm ff}$" % (t / a.t_ff)
            ax.set_title("%s, along %s%s" % (tt, v, "" if sinks is None else
                                              ", %d sinks" % len(sinks["Masses"])), fontsize=9)
        fig.colorbar(im, ax=list(axes[r]), label=r"log$_{10}$ " + sigma_name, shrink=0.9)
    out = a.out or os.path.join(os.path.dirname(os.path.abspath(a.snapshots[0])),
                                "column_density.png")
    fig.savefig(out, dpi=110)
    print("wrote %s" % out)


if __name__ == "__main__":
    main()
