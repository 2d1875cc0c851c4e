#!/usr/bin/python3
"""Radial profiles of a disk galaxy from snapshots (overlaid: the drift from the first to the
last): circular velocity of each component and the rotation of gas and stars, stellar velocity
dispersions, gas and stellar surface densities, Toomre Q, and the median |z| of gas and stars.

usage: /usr/bin/python3 tools/plot_disk_profiles.py SNAP.h5 [SNAP.h5 ...] [--r-max 20]
          [--bins 20] [--galaxy N] [--gamma 1.6667] [--out disk_profiles.png]
writes the PNG (default: disk_profiles.png beside the last snapshot) and prints a table per
snapshot. Units: kpc, km/s, Msun/pc^2.

Circular velocity of a component: the azimuthally averaged radial gravity in the disk plane of its
particles (a random subsample of at most 20 000, Plummer softening 0.1 kpc), so disks count as
disks, not as spheres. Toomre Q: stars sigma_R kappa/(3.36 G Sigma), gas c_s kappa/(pi G Sigma)
with c_s^2 = (gamma - 1) u and kappa^2 = (2 v_c/R)(v_c/R + dv_c/dR) of the total v_c.
Stars: types 3 and 4 (IC disk + bulge stars together).
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

G = galaxy_snap.G_KPC_MSUN_KMS
COMPONENTS = ((0, "gas"), (1, "dark matter"), (2, "cold clouds"), ((3, 4), "stars"))


def select(frame, types):
    types = types if isinstance(types, tuple) else (types,)
    have = [frame[k] for k in types if k in frame]
    if not have:
        return None
    return {key: np.concatenate([d[key] for d in have]) for key in ("x", "v", "m")}


def circular_velocity2(d, radii, n_max=20000, eps=0.1, n_az=16, seed=1):
    """v_c^2(R) in the plane from the particles' gravity (subsampled, masses scaled up)."""
    x, m = d["x"], d["m"]
    if len(m) > n_max:
        idx = np.random.default_rng(seed).choice(len(m), n_max, replace=False)
        x, m = x[idx], m[idx] * (np.sum(m) / np.sum(m[idx]))
    out = np.zeros(len(radii))
    phi = 2 * np.pi * (np.arange(n_az) + 0.5) / n_az
    for i, R in enumerate(radii):
        p = np.stack([R * np.cos(phi), R * np.sin(phi), np.zeros(n_az)], axis=1)
        dx = x[None, :, :] - p[:, None, :]
        r2 = np.sum(dx * dx, axis=2) + eps * eps
        rhat = np.stack([np.cos(phi), np.sin(phi), np.zeros(n_az)], axis=1)
        inward = -np.sum(dx * rhat[:, None, :], axis=2) * m[None, :] / r2 ** 1.5
        out[i] = R * G * np.mean(np.sum(inward, axis=1))
    return out


def profiles(path, args):
    t, parts = galaxy_snap.load(path, galaxy=args.galaxy)
    f = galaxy_snap.to_frame(parts)
    edges = np.linspace(0.0, args.r_max, args.bins + 1)
    mid = 0.5 * (edges[1:] + edges[:-1])
    area_pc2 = galaxy_snap.annulus_areas(edges) * 1e6
    res = {"t": t, "R": mid, "vc2": {}, "vphi": {}, "sigma": {}, "zmed": {}}
    vc2_total = np.zeros(len(mid))
    for types, name in COMPONENTS:
        d = select(f, types)
        if d is None:
            continue
        vc2 = circular_velocity2(d, mid)
        res["vc2"][name] = vc2
        vc2_total += vc2
        if name == "dark matter":
            continue
        x, v, m = d["x"], d["v"], d["m"]
        R = np.hypot(x[:, 0], x[:, 1])
        vR = (x[:, 0] * v[:, 0] + x[:, 1] * v[:, 1]) / np.maximum(R, 1e-30)
        vphi = (x[:, 0] * v[:, 1] - x[:, 1] * v[:, 0]) / np.maximum(R, 1e-30)
        idx = np.digitize(R, edges) - 1
        Sigma = galaxy_snap.annulus_sums(d, m, edges) / area_pc2
        res["sigma"][name] = Sigma
        mean_vphi = np.full(len(mid), np.nan)
        disp = np.full((3, len(mid)), np.nan)
        zmed = np.full(len(mid), np.nan)
        for b in range(len(mid)):
            s = idx == b
            if np.count_nonzero(s) >= 10:
                mean_vphi[b] = np.average(vphi[s], weights=m[s])
                disp[:, b] = [np.std(vR[s]), np.std(vphi[s]), np.std(v[s, 2])]
                zmed[b] = np.median(np.abs(x[s, 2]))
        res["vphi"][name] = mean_vphi
        res["zmed"][name] = zmed
        if name == "stars":
            res["disp_stars"] = disp
        if name == "gas" and 0 in f and "u" in f[0]:
            u = f[0]["u"]
            Rg = np.hypot(f[0]["x"][:, 0], f[0]["x"][:, 1])
            ig = np.digitize(Rg, edges) - 1
            cs2 = np.full(len(mid), np.nan)
            for b in range(len(mid)):
                s = ig == b
                if np.any(s):
                    cs2[b] = (args.gamma - 1) * np.average(u[s], weights=f[0]["m"][s])
            res["cs"] = np.sqrt(cs2)
    res["vc2"]["total"] = vc2_total
    vc = np.sqrt(np.maximum(vc2_total, 0))
    dvdR = np.gradient(vc, mid)
    kappa = np.sqrt(np.maximum(2 * vc / mid * (vc / mid + dvdR), 0))  # km/s/kpc
    Sig_kpc = {k: s * 1e6 for k, s in res["sigma"].items()}  # Msun/kpc^2
    res["Q"] = {}
    if "stars" in Sig_kpc and "disp_stars" in res:
        res["Q"]["stars"] = res["disp_stars"][0] * kappa / (3.36 * G * Sig_kpc["stars"])
    if "gas" in Sig_kpc and "cs" in res:
        res["Q"]["gas"] = res["cs"] * kappa / (np.pi * G * Sig_kpc["gas"])
    return res


def print_table(path, r):
    print("%s  t = %.1f Myr" % (path, r["t"]))
    names = list(r["vc2"].keys())
    print("  R[kpc] " + " ".join("vc_%s" % n.replace(" ", "_") for n in names) +
          " [km/s] | Sigma_gas Sigma_stars [Msun/pc^2] | vphi_gas vphi_stars sigR_stars [km/s]"
          " | Q_stars Q_gas | zmed_gas zmed_stars [kpc]")
    g = lambda d, k, i: d.get(k, np.full(len(r["R"]), np.nan))[i]  # noqa: E731
    for i, R in enumerate(r["R"]):
        vcs = " ".join("%7.1f" % np.sqrt(max(r["vc2"][n][i], 0)) for n in names)
        sig = r["disp_stars"][0][i] if "disp_stars" in r else np.nan
        print("  %6.2f %s | %8.2f %8.2f | %7.1f %7.1f %6.1f | %6.2f %6.2f | %6.3f %6.3f" % (
            R, vcs, g(r["sigma"], "gas", i), g(r["sigma"], "stars", i), g(r["vphi"], "gas", i),
            g(r["vphi"], "stars", i), sig, g(r["Q"], "stars", i), g(r["Q"], "gas", i),
            g(r["zmed"], "gas", i), g(r["zmed"], "stars", i)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("snapshots", nargs="+")
    ap.add_argument("--r-max", type=float, default=20.0, help="outer radius [kpc] (default 20)")
    ap.add_argument("--bins", type=int, default=20)
    ap.add_argument("--galaxy", type=int, default=None, help="only particles of this GalaxyID")
    ap.add_argument("--gamma", type=float, default=5.0 / 3.0, help="gas gamma for c_s (5/3)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    results = []
    for p in args.snapshots:
        r = profiles(p, args)
        print_table(p, r)
        results.append(r)
    fig, axs = plt.subplots(2, 3, figsize=(15, 8.5))
    colors = {"gas": "tab:blue", "dark matter": "k", "cold clouds": "tab:cyan",
              "stars": "tab:red", "total": "tab:gray"}
    styles = ["-", "--", ":", "-."]
    for j, r in enumerate(results):
        ls = styles[j % len(styles)]
        tl = "t = %.0f Myr" % r["t"]
        R = r["R"]
        for n, vc2 in r["vc2"].items():
            axs[0, 0].plot(R, np.sqrt(np.maximum(vc2, 0)), ls, color=colors[n],
                           label=("v_c " + n) if j == 0 else None)
        for n, vp in r["vphi"].items():
            axs[0, 0].plot(R, vp, ls, marker="o", ms=3, color=colors[n], alpha=0.6,
                           label=("<v_phi> " + n) if j == 0 else None)
        if "disp_stars" in r:
            for k, (lab, c) in enumerate((("sigma_R", "tab:red"), ("sigma_phi", "tab:orange"),
                                          ("sigma_z", "tab:purple"))):
                axs[0, 1].plot(R, r["disp_stars"][k], ls, color=c, label=lab if j == 0 else None)
        for n, s in r["sigma"].items():
            axs[0, 2].semilogy(R, s, ls, color=colors[n], label=(n + ", " + tl))
        for n, q in r["Q"].items():
            axs[1, 0].plot(R, q, ls, color=colors[n], label=(n + ", " + tl))
        for n, z in r["zmed"].items():
            axs[1, 1].plot(R, z, ls, color=colors[n], label=(n + ", " + tl))
    first = results[0]
    for n in first["sigma"]:
        for r in results[1:]:
            ratio = r["sigma"][n] / first["sigma"][n]
            axs[1, 2].plot(r["R"], ratio, color=colors[n],
                           label="Sigma %s, %.0f Myr" % (n, r["t"]))
            zr = r["zmed"][n] / first["zmed"][n]
            axs[1, 2].plot(r["R"], zr, ":", color=colors[n],
                           label="median|z| %s, %.0f Myr" % (n, r["t"]))
    axs[0, 0].set(xlabel="R [kpc]", ylabel="v [km/s]", title="circular velocity and rotation")
    axs[0, 1].set(xlabel="R [kpc]", ylabel="[km/s]", title="stellar velocity dispersion")
    axs[0, 2].set(xlabel="R [kpc]", ylabel=r"$\Sigma$ [M$_\odot$ pc$^{-2}$]",
                  title="surface density")
    axs[1, 0].set(xlabel="R [kpc]", ylabel="Q", title="Toomre Q", ylim=(0, 5))
    axs[1, 0].axhline(1, color="gray", lw=0.5)
    axs[1, 1].set(xlabel="R [kpc]", ylabel="median |z| [kpc]", title="thickness")
    axs[1, 2].set(xlabel="R [kpc]", ylabel="ratio to first snapshot", title="drift",
                  ylim=(0.5, 1.5))
    axs[1, 2].axhspan(0.9, 1.1, color="gray", alpha=0.15)
    for a in axs.flat:
        if a.get_legend_handles_labels()[0]:
            a.legend(fontsize=7)
    fig.tight_layout()
    out = args.out or os.path.join(os.path.dirname(os.path.abspath(args.snapshots[-1])),
                                   "disk_profiles.png")
    fig.savefig(out, dpi=110)
    print("wrote", out)


if __name__ == "__main__":
    main()
