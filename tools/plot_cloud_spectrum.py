#!/usr/bin/python3
"""Cloud mass spectrum dN/dm of the cold clouds (PartType2) of an mpsph run, with a dN/dm ~ m^-2
reference line (the slope sticky-cloud coagulation approaches: Theis & Hensler 1993, Harfst,
Theis & Hensler 2006).

usage: /usr/bin/python3 tools/plot_cloud_spectrum.py RUN_DIR [--times T1 T2 ...] [--evolution]
writes cloud_spectrum.png into RUN_DIR: dN/dm [1/Msun] against m [Msun] in logarithmic bins for
the first snapshot, the last one and any --times (the snapshot nearest each, code time), and
prints per snapshot the number of clouds, the largest mass and the least-squares slope of
log dN/dm against log m over the bins above 2x the smallest initial mass that hold clouds.

--evolution (periodic boxes): for every snapshot also the maximum-likelihood slope of the tail
m >= 2 m_0 (Clauset, Shalizi & Newman 2009, discrete form: masses are multiples of the initial
m_0; dN/dm ~ m^-alpha, printed as -alpha with its error (alpha - 1)/sqrt(n)), the mean collision
time t_coll = 1/<Gamma_i> with Gamma_i = sum_j pi (R_i + R_j)^2 |v_i - v_j| / V (geometric cross
section, no focusing; R = sqrt(m / (pi Sigma_cl)) with multiphase.sigma_cl_Msun_pc2 of the run's
config_resolved.yaml) and the number of collision times elapsed, integral of dt / t_coll
(trapezoid over the snapshots); writes cloud_spectrum_evolution.png (clouds, slopes and t_coll
against time) and cloud_spectrum_evolution.csv.
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


def sigma_cl_msun_pc2(run):
    """multiphase.sigma_cl_Msun_pc2 of the run (config_resolved.yaml), else the default 100."""
    path = os.path.join(run, "config_resolved.yaml")
    if os.path.exists(path):
        for line in open(path):
            if line.strip().startswith("sigma_cl_Msun_pc2:"):
                return float(line.split(":", 1)[1])
    return 100.0


def ml_slope(m, m_unit):
    """-alpha of dN/dm ~ m^-alpha for m >= 2 m_unit (discrete power law, Clauset et al. 2009
    eq. 3.7: alpha = 1 + n / sum ln(m / (m_min - m_unit/2))), its error (alpha - 1)/sqrt(n), n."""
    m_min = 2.0 * m_unit
    tail = m[m >= m_min * (1 - 1e-9)]
    n = len(tail)
    if n < 5:
        return float("nan"), float("nan"), n
    alpha = 1.0 + n / np.sum(np.log(tail / (m_min - 0.5 * m_unit)))
    return -alpha, (alpha - 1.0) / np.sqrt(n), n


def collision_time(path, sigma_cl):
    """Mean collision time [code time] of the clouds of a periodic snapshot (geometric cross
    section, every pair, mean-field: Gamma_i = sum_j pi (R_i + R_j)^2 |v_ij| / V)."""
    with h5py.File(path, "r") as f:
        g = f.get("PartType2")
        if g is None or len(g["Masses"]) < 2:
            return float("nan")
        m = g["Masses"][...]
        v = g["Velocities"][...]
        V = float(np.prod(f["Header"].attrs["BoxEdges"]))
        u = f["Units"].attrs
        length_pc = float(u["Unit length in cgs (U_L)"][0]) / 3.0856775814913673e18
        mass_msun = float(u["Unit mass in cgs (U_M)"][0]) / MSUN
    sigma_code = sigma_cl * mass_msun ** -1 * length_pc ** 2  # Msun/pc^2 -> code mass / length^2
    R = np.sqrt(m / (np.pi * sigma_code))
    gamma = np.zeros(len(m))
    for i in range(len(m)):  # rows: memory O(N)
        dv = np.linalg.norm(v - v[i], axis=1)
        cross = np.pi * (R + R[i]) ** 2
        cross[i] = 0.0
        gamma[i] = np.sum(cross * dv) / V
    return 1.0 / np.mean(gamma)


def evolution(run, snaps):
    sigma_cl = sigma_cl_msun_pc2(run)
    rows = []
    m0 = None
    t_unit_label = m_unit_label = ""
    for path in snaps:
        with h5py.File(path, "r") as f:
            t_code = float(f["Header"].attrs["Time"])
        t, m, t_unit_label, m_unit_label = cloud_masses(path)
        if m0 is None:
            m0 = m.min()
        bins = np.logspace(np.log10(m0) - 0.05, np.log10(1e7 if m_unit_label == "Msun" else
                                                            m.max() * 1.1) + 0.05, 25)
        c, dndm, counts = spectrum(m, bins)
        ls = tail_slope(c, dndm, counts, 2 * m0)
        ml, ml_err, n_tail = ml_slope(m, m0)
        tc = collision_time(path, sigma_cl)
        rows.append((t_code, t, len(m), m.max() if len(m) else 0.0, ls, ml, ml_err, n_tail, tc))
    tau = [0.0]
    for a, b in zip(rows[:-1], rows[1:]):
        tau.append(tau[-1] + 0.5 * (b[0] - a[0]) * (1.0 / a[8] + 1.0 / b[8]))
    out = os.path.join(run, "cloud_spectrum_evolution.csv")
    with open(out, "w") as f:
        f.write("# cloud mass spectrum against time: t [code time], t [%s], clouds, largest "
                "[%s], binned LSQ slope of the tail m > 2 m0, ML slope -alpha (m >= 2 m0), its "
                "error, clouds in the tail, mean collision time [code time], collision times "
                "elapsed\n" % (t_unit_label, m_unit_label))
        f.write("t_code,t,n_clouds,m_max,slope_lsq,slope_ml,slope_ml_err,n_tail,t_coll,"
                "n_coll_times\n")
        for r, k in zip(rows, tau):
            f.write("%.6g,%.6g,%d,%.6g,%.4f,%.4f,%.4f,%d,%.6g,%.4g\n" % (r + (k,)))
    print("t [code]  t [%s]  clouds  largest [%s]  slope LSQ  slope ML (+-)  n_tail  t_coll "
          "[code]  collision times" % (t_unit_label, m_unit_label))
    for r, k in zip(rows, tau):
        print("%8.4g  %8.4g  %6d  %10.4g  %9.3f  %7.3f (%.3f)  %6d  %10.4g  %8.3g"
              % (r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], k))
    print("wrote", out)
    t = np.array([r[1] for r in rows])
    fig, ax = plt.subplots(3, 1, figsize=(6, 7.5), sharex=True)
    ax[0].semilogy(t, [r[2] for r in rows], "k-")
    ax[0].set_ylabel("clouds")
    ax[1].plot(t, [r[4] for r in rows], "b-", label="binned least squares (m > 2 m0)")
    ax[1].errorbar(t, [r[5] for r in rows], yerr=[r[6] for r in rows], fmt="r.", ms=3,
                   label="maximum likelihood (m >= 2 m0)")
    ax[1].axhline(-2.0, color="k", ls="--", lw=1, label="-2 (Harfst et al. 2006)")
    ax[1].set_ylabel("d log(dN/dm) / d log m")
    ax[1].legend(fontsize=7)
    ax[2].semilogy(t, [r[8] for r in rows], "k-")
    ax[2].set_ylabel("t_coll [code time]")
    ax[2].set_xlabel("t [%s]" % t_unit_label)
    fig.tight_layout()
    png = os.path.join(run, "cloud_spectrum_evolution.png")
    fig.savefig(png, dpi=120)
    print("wrote", png)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", help="mpsph output directory")
    ap.add_argument("--times", type=float, nargs="*", default=[], help="code times to add")
    ap.add_argument("--evolution", action="store_true",
                    help="slopes and collision times of every snapshot (periodic boxes)")
    args = ap.parse_args()
    snaps = mpsph_snap.snapshots(args.run)
    if not snaps:
        sys.exit("no snapshots in %s" % args.run)
    if args.evolution:
        evolution(args.run, snaps)
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
