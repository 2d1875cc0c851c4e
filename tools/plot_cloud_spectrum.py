#!/usr/bin/python3
"""Cloud mass spectrum dN/dm of the cold clouds (PartType2) of an mpsph run, with a dN/dm ~ m^-2
reference line (the slope sticky-cloud coagulation approaches: Theis & Hensler 1993, Harfst,
Theis & Hensler 2006).

usage: /usr/bin/python3 tools/plot_cloud_spectrum.py RUN_DIR [--times T1 T2 ...]
writes cloud_spectrum.png into RUN_DIR: dN/dm [1/Msun] against m [Msun] in logarithmic bins for
the first snapshot, the last one and any --times (the snapshot nearest each, code time), and
prints per snapshot the number of clouds, the largest mass and the least-squares slope of
log dN/dm against log m over the bins above 2x the smallest initial mass that hold clouds.
"""
import argparse
import os
import sys

import h5py
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpsph_snap  # noqa: E402

MSUN = 1.98841e33  # g
MYR = 3.15576e13   # s


def cloud_masses(path):
    """(time in Myr or code time, clouds' masses in Msun or code mass, time unit label)."""
    with h5py.File(path, "r") as f:
        t = float(f["Header"].attrs["Time"])
        g = f.get("PartType2")
        m = g["Masses"][...] if g is not None else np.zeros(0)
        nbody = int(f["Units"].attrs["N-body units"][0]) if "Units" in f else 1
        if nbody:
            return t, m, "code time", "code mass"
        t_cgs = float(f["Units"].attrs["Unit time in cgs (U_t)"][0])
        m_cgs = float(f["Units"].attrs["Unit mass in cgs (U_M)"][0])
        return t * t_cgs / MYR, m * m_cgs / MSUN, "Myr", "Msun"


def spectrum(m, bins):
    """dN/dm per logarithmic bin (counts / bin width) and the bin centres (geometric)."""
    counts, _ = np.histogram(m, bins=bins)
    return np.sqrt(bins[1:] * bins[:-1]), counts / np.diff(bins), counts


def tail_slope(centres, dndm, counts, m_min):
    sel = (counts > 0) & (centres > m_min)
    if np.count_nonzero(sel) < 3:
        return float("nan")
    return float(np.polyfit(np.log10(centres[sel]), np.log10(dndm[sel]), 1)[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", help="mpsph output directory")
    ap.add_argument("--times", type=float, nargs="*", default=[], help="code times to add")
    args = ap.parse_args()
    snaps = mpsph_snap.snapshots(args.run)
    if not snaps:
        sys.exit("no snapshots in %s" % args.run)
    chosen = [snaps[0]] + [mpsph_snap.snapshot_near(args.run, t) for t in args.times] + [snaps[-1]]
    chosen = list(dict.fromkeys(chosen))
    data = [cloud_masses(p) for p in chosen]
    m0 = data[0][1]
    if len(m0) == 0:
        sys.exit("no clouds (PartType2) in %s" % chosen[0])
    m_all = np.concatenate([d[1] for d in data])
    bins = np.logspace(np.log10(m_all.min()) - 0.05, np.log10(m_all.max()) + 0.05, 25)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for (t, m, t_unit, m_unit), path in zip(data, chosen):
        c, dndm, counts = spectrum(m, bins)
        slope = tail_slope(c, dndm, counts, 2 * m0.min())
        print("%s: t = %.4g %s, %d clouds, largest %.4g %s, tail slope d log(dN/dm)/d log m = %.3f"
              % (os.path.basename(path), t, t_unit, len(m), m.max(), m_unit, slope))
        ok = counts > 0
        ax.loglog(c[ok], dndm[ok], "o-", ms=3, label="t = %.3g %s (%d clouds)" % (t, t_unit, len(m)))
    # Reference dN/dm ~ m^-2 through the last spectrum at the middle of its tail.
    c, dndm, counts = spectrum(data[-1][1], bins)
    ok = (counts > 0) & (c > 2 * m0.min())
    if np.any(ok):
        k = np.flatnonzero(ok)[len(np.flatnonzero(ok)) // 2]
        ref = dndm[k] * (c / c[k]) ** -2.0
        ax.loglog(c, ref, "k--", lw=1, label=r"$dN/dm \propto m^{-2}$")
    ax.set_xlabel("cloud mass m [%s]" % data[0][3])
    ax.set_ylabel("dN/dm [1/%s]" % data[0][3])
    ax.set_title("cloud mass spectrum")
    ax.legend(fontsize=8)
    fig.tight_layout()
    out = os.path.join(args.run, "cloud_spectrum.png")
    fig.savefig(out, dpi=120)
    print("wrote", out)


if __name__ == "__main__":
    main()
