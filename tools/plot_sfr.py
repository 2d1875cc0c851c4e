#!/usr/bin/python3
"""Star formation rate and stellar mass formed against time from an mpsph run's sfr.csv
(starform.model clouds, probabilistic or katz; docs/starform.md).

usage: /usr/bin/python3 tools/plot_sfr.py RUN_DIR [--out PNG]
writes sfr.png into RUN_DIR (or PNG): the SFR in Msun/yr (mean between sfr.csv rows) and the
stellar mass formed in Msun, against time in Myr, and the SN energy the stars' feedback injected
(sfr.csv's E_feedback_injected_erg) when feedback is on. For the cloud models whose rate follows
from the clouds a snapshot holds, it adds at every snapshot the rate the model expects
(PHYSICS.md section 6):
  clouds, clouds_trigger free_fall: sum over clouds above their Jeans mass of eps_sf m / t_ff(m)
  probabilistic: sum over all clouds of eps_ff m / t_ff(m)
(with clouds_trigger coalescence, the default, stars form at the coalescences between snapshots,
which the snapshots do not record: no expectation is drawn)
with the cloud density rho = 3 m / (4 pi R^3), R = sqrt(m / (pi Sigma_cl)), t_ff =
sqrt(3 pi / (32 G rho)), M_J = pi^(5/2)/6 c^3 / sqrt(G^3 rho), c^2 = k_B T_cl / (mu_cl m_H).
Prints the totals and, for the cloud models, the ratio of the measured to the expected mass formed
between the first and the last snapshot.
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

G_CGS = 6.6743e-8
K_B = 1.380649e-16
M_H = 1.6735575e-24
MSUN = 1.98841e33
PC = 3.0856775814913673e18
YR = 3.15576e7


def read_sfr(run):
    path = os.path.join(run, "sfr.csv")
    if not os.path.isfile(path):
        sys.exit("%s has no sfr.csv (run with starform.model clouds, probabilistic or katz)" % run)
    with open(path) as f:
        n_comment = sum(1 for line in f if line.startswith("#"))
    return np.genfromtxt(path, delimiter=",", names=True, skip_header=n_comment, ndmin=1)


def resolved_config(run):
    """section -> {key: text} of config_resolved.yaml (two levels are all this tool reads)."""
    cfg, section = {}, None
    with open(os.path.join(run, "config_resolved.yaml")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            if not line.startswith(" "):
                section = line.split(":")[0].strip()
                cfg[section] = {}
            elif line.startswith("  ") and not line.startswith("   ") and ":" in line:
                key, _, value = line.strip().partition(":")
                cfg[section][key.strip()] = value.strip()
    return cfg


def expected_rate(run, cfg):
    """(time [Myr], expected SFR [Msun/yr]) at every snapshot, for the cloud models."""
    sf = cfg.get("starform", {})
    model = sf.get("model")
    if model not in ("clouds", "probabilistic"):
        return None
    if model == "clouds" and sf.get("clouds_trigger", "coalescence") != "free_fall":
        return None
    sigma = float(cfg["multiphase"]["sigma_cl_Msun_pc2"]) * MSUN / PC**2
    times, rates = [], []
    for path in mpsph_snap.snapshots(run):
        import h5py
        with h5py.File(path, "r") as f:
            u = f["Units"].attrs
            mass_cgs = float(u["Unit mass in cgs (U_M)"][0])
            time_cgs = float(u["Unit time in cgs (U_t)"][0])
        t, clouds = mpsph_snap.load(path, 2)
        m = clouds["Masses"] * mass_cgs if clouds else np.zeros(0)
        R = np.sqrt(m / (np.pi * sigma))
        rho = 3 * m / (4 * np.pi * R**3) if len(m) else m
        t_ff = np.sqrt(3 * np.pi / (32 * G_CGS * rho)) if len(m) else m
        if model == "clouds":
            c = np.sqrt(K_B * float(sf["cloud_T_K"]) / (float(sf["cloud_mu"]) * M_H))
            m_j = np.pi**2.5 / 6 * c**3 / np.sqrt(G_CGS**3 * rho) if len(m) else m
            rate = float(sf["eps_sf"]) * np.sum(np.where(m > m_j, m / t_ff, 0.0))
        else:
            rate = float(sf["eps_ff"]) * np.sum(m / t_ff)
        times.append(t * time_cgs / (1e6 * YR))
        rates.append(rate / MSUN * YR)
    return (np.array(times), np.array(rates)) if times else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", help="mpsph output directory")
    ap.add_argument("--out", help="PNG to write (default RUN/sfr.png)")
    args = ap.parse_args()
    d = read_sfr(args.run)
    cfg = resolved_config(args.run)
    t, sfr, m = d["time_Myr"], d["SFR_Msun_per_yr"], d["M_formed_Msun"]
    names = d.dtype.names or ()
    e_fb = d["E_feedback_injected_erg"] if "E_feedback_injected_erg" in names else None
    if e_fb is not None and not np.any(e_fb > 0):
        e_fb = None
    fig, axes = plt.subplots(3 if e_fb is not None else 2, 1,
                             figsize=(6.5, 8.5 if e_fb is not None else 6.5), sharex=True)
    a1, a2 = axes[0], axes[1]
    # Each SFR is the mean since the previous row: draw it as steps over that interval.
    a1.step(t, sfr, where="pre", label="sfr.csv (mean between rows)")
    exp = expected_rate(args.run, cfg)
    if exp is not None:
        a1.plot(exp[0], exp[1], "o", ms=4, label="expected from the snapshot's clouds")
    a1.set_ylabel("SFR [Msun/yr]")
    a1.legend(fontsize=8)
    a1.set_title("star formation: starform.model %s" % cfg.get("starform", {}).get("model", "?"))
    a2.plot(t, m)
    a2.set_ylabel("stellar mass formed [Msun]")
    if e_fb is not None:
        axes[2].plot(t, e_fb)
        axes[2].set_ylabel("SN energy injected [erg]")
    axes[-1].set_xlabel("time [Myr]")
    fig.tight_layout()
    out = args.out or os.path.join(args.run, "sfr.png")
    fig.savefig(out, dpi=110)
    print("sfr.csv: %d rows, t = %.4g .. %.4g Myr, stellar mass formed %.6g Msun, mean SFR %.4g "
          "Msun/yr" % (len(t), t[0], t[-1], m[-1],
                       m[-1] / ((t[-1] - t[0]) * 1e6) if t[-1] > t[0] else 0.0))
    if e_fb is not None:
        print("SN energy injected by feedback: %.6g erg" % e_fb[-1])
    if exp is not None and len(exp[0]) > 1:
        # Mass formed between the first and last snapshot: measured against the trapezoid
        # integral of the expected rate over the snapshots.
        t0, t1 = exp[0][0], exp[0][-1]
        measured = np.interp(t1, t, m) - np.interp(t0, t, m)
        expected = np.trapz(exp[1], exp[0]) * 1e6 if hasattr(np, "trapz") else \
            np.trapezoid(exp[1], exp[0]) * 1e6
        if expected > 0:
            print("mass formed between the first and last snapshot: measured %.6g Msun, expected "
                  "from the clouds %.6g Msun, ratio %.3f" % (measured, expected,
                                                            measured / expected))
    print("wrote", out)


if __name__ == "__main__":
    main()
