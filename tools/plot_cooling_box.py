#!/usr/bin/python3
"""Cooling box: T(t) of mpsph's implicit cooling against an independent fine-step integration.

Two sources:
  CSV_DIR      the curves tests/cooling/cooling_box_validation.cpp writes (<build>/cooling_box):
               solar and metal-free gas at n_H = 0.1 cm^-3 from 1e7, 1e6, 1e5 K, each with steps
               of 0.01 .. 100 cooling times, and the test's reference integration.
  --run DIR    snapshots of `mpsph setups/cooling_box.yaml` (Temperature, or InternalEnergy with
               mu(T)); the reference is integrated here, in numpy, from data/cooling_tables
               (SD93 above 1e4 K, Koyama & Inutsuka 2002 below), for --n-H, --fe-h, --floor.

usage: /usr/bin/python3 tools/plot_cooling_box.py build/cooling_box
       /usr/bin/python3 tools/plot_cooling_box.py --run output --n-H 0.1 --fe-h 0 --floor 10
writes cooling_box.png into the directory read and prints, per curve, the largest distance of the
mpsph points from the reference: relative error in the time to reach each point's temperature, or
in temperature where T hardly changes, whichever is smaller (the measure of the C++ test).
"""
import argparse
import glob
import math
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpsph_snap  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TABLES = os.path.join(HERE, "..", "data", "cooling_tables", "SD93_CIE")
K_B, M_H, MYR = 1.380649e-16, 1.6735575e-24, 3.15576e13


def distance(t, T, t_ref, T_ref):
    """Per point: min(|t_ref(T)/t - 1|, |T/T_ref(t) - 1|) against a decreasing reference curve."""
    T_at = np.exp(np.interp(t, t_ref, np.log(T_ref)))
    e_T = np.abs(T / T_at - 1)
    # t_ref(T): the reference is monotone decreasing; interpolate in log T on the reversed arrays.
    dec = np.r_[True, np.diff(T_ref) < 0]
    lt, tt = np.log(T_ref[dec])[::-1], t_ref[dec][::-1]
    t_of = np.interp(np.log(T), lt, tt, left=np.inf, right=np.inf)
    e_t = np.abs(t_of / np.where(t > 0, t, np.nan) - 1)
    return np.fmin(e_T, e_t)


# ------------------------------------------------------------------- reference (--run mode)

def read_table(feh):
    """log T, log(Lambda_N n_e n_t / n_H^2) of the SD93 table at feh (a node: no interpolation in
    [Fe/H] here; [Fe/H] <= -99 is the metal-free table)."""
    nodes = {-3: "m-30", -2: "m-20", -1.5: "m-15", -1: "m-10", -0.5: "m-05", 0: "m-00",
             0.5: "m+05"}
    if not np.isfinite(feh) or feh <= -99:
        name = "mzero"
    else:
        key = min(nodes, key=lambda z: abs(z - feh))
        if abs(key - feh) > 1e-9:
            print("note: [Fe/H] = %g is not a table node; the reference uses %s.cie"
                  % (feh, nodes[key]))
        name = nodes[key]
    rows = []
    with open(os.path.join(TABLES, name + ".cie")) as f:
        for line in f:
            v = line.split()
            if len(v) == 12 and v[0][0].isdigit():
                rows.append([float(x) for x in v])
    a = np.array(rows)
    return a[:, 0], a[:, 5] + np.log10(a[:, 1]) + np.log10(a[:, 3])


def mu_of_T(T):
    return np.where(T <= 8000, 1.22, np.where(T >= 1.5e4, 0.59, 1.22 - 0.63 * (T - 8000) / 7000))


def T_of_u(u, gamma=5 / 3):
    """Inverse of u = k T / ((gamma-1) mu(T) m_H) with mu linear in T between 8000 and 1.5e4 K."""
    x = (gamma - 1) * M_H * u / K_B  # T / mu
    if 1.22 * x <= 8000:
        return 1.22 * x
    if 0.59 * x >= 1.5e4:
        return 0.59 * x
    s = -0.63 / 7000
    return x * (1.22 - s * 8000) / (1 - x * s)


def reference(T0, n_H, feh, floor, x_h=0.7, gamma=5 / 3, t_end_s=None, dlnu=1e-3):
    """RK4 in ln u with steps of ~dlnu (shortened where the rate jumps), as t [s], T [K]."""
    logT, logL = read_table(feh)
    rho = n_H * M_H / x_h

    def u_of_T(T):
        return K_B * T / ((gamma - 1) * float(mu_of_T(T)) * M_H)

    def lam(T):
        if T < 1e4:
            return 2e-26 * (1e7 * math.exp(-1.184e5 / (T + 1000))
                            + 1.4e-2 * math.sqrt(T) * math.exp(-92 / T))
        return 10 ** float(np.interp(math.log10(T), logT, logL))

    u_floor = u_of_T(floor)

    def f(y):
        u = math.exp(y)
        if u <= u_floor:
            return 0.0
        return -n_H * n_H * lam(T_of_u(u, gamma)) / rho / u

    y, t = math.log(u_of_T(T0)), 0.0
    ts, Ts = [0.0], [T0]
    while t < t_end_s:
        k1 = f(y)
        if k1 == 0.0:
            break
        h = min(dlnu / abs(k1), t_end_s - t)
        while True:
            k2 = f(y + 0.5 * h * k1)
            k3 = f(y + 0.5 * h * k2)
            k4 = f(y + h * k3)
            if h * max(abs(k2), abs(k3), abs(k4)) <= 2 * dlnu:
                break
            h *= 0.5
        y = max(y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4), math.log(u_floor))
        t += h
        ts.append(t)
        Ts.append(T_of_u(math.exp(y), gamma))
    ts.append(max(t_end_s, t))
    Ts.append(Ts[-1])
    return np.array(ts), np.array(Ts)


# ------------------------------------------------------------------- the two modes

def plot_csv(d):
    cases = [("solar", "[Fe/H] = 0"), ("zero", "metal-free")]
    fig, ax = plt.subplots(2, 3, figsize=(15, 8.5))
    for r, (name, label) in enumerate(cases):
        for c, lt in enumerate((7, 6, 5)):
            stem = os.path.join(d, "%s_T%d" % (name, lt))
            if not os.path.exists(stem + "_steps.csv"):
                continue
            ref = np.genfromtxt(stem + "_ref.csv", delimiter=",", names=True)
            st = np.genfromtxt(stem + "_steps.csv", delimiter=",", names=True)
            kcol = st.dtype.names[0]
            a = ax[r, c]
            a.loglog(ref["t_Myr"], ref["T_K"], "k-", lw=1.2, label="reference (RK4)")
            for i, k in enumerate(sorted(set(st[kcol]))):
                s = st[st[kcol] == k]
                e = np.nanmax(distance(s["t_Myr"], s["T_K"], ref["t_Myr"], ref["T_K"]))
                a.loglog(s["t_Myr"], s["T_K"], "o", ms=2.5 + i, mfc="none", color="C%d" % i,
                         label="dt = %g t_cool (err %.1e)" % (k, e))
                print("%-5s T0 = 1e%d K, dt = %6g t_cool: %d steps, max distance %.2e"
                      % (name, lt, k, len(s), e))
            a.set_xlim(ref["t_Myr"][1], ref["t_Myr"][-1])
            a.set_ylim(5, 2 * 10 ** lt)
            a.set_title("%s, T0 = 1e%d K, n_H = 0.1 cm^-3" % (label, lt))
            a.set_xlabel("t [Myr]")
            a.set_ylabel("T [K]")
            a.legend(fontsize=7)
    fig.tight_layout()
    out = os.path.join(d, "cooling_box.png")
    fig.savefig(out, dpi=110)
    print("wrote", out)


def plot_run(d, n_H, feh, floor):
    snaps = mpsph_snap.snapshots(d)
    if not snaps:
        sys.exit("no snapshot_*.h5 in " + d)
    import h5py
    ts, Ts = [], []
    for p in snaps:
        with h5py.File(p, "r") as f:
            t = float(f["Header"].attrs["Time"])
            t_unit = float(f["Units"].attrs["Unit time in cgs (U_t)"])
            v_unit = float(f["Units"].attrs["Unit velocity in cgs (U_V)"])
            g = f["PartType0"]
            if "Temperature" in g:
                T = float(np.mean(g["Temperature"][...]))
            else:
                T = T_of_u(float(np.mean(g["InternalEnergy"][...])) * v_unit ** 2)
        ts.append(t * t_unit)
        Ts.append(T)
    ts, Ts = np.array(ts), np.array(Ts)
    tr, Tr = reference(Ts[0], n_H, feh, floor, t_end_s=ts[-1])
    e = distance(ts[1:], Ts[1:], tr, Tr)
    fig, a = plt.subplots(figsize=(7, 5))
    a.loglog(tr[1:] / MYR, Tr[1:], "k-", label="reference (numpy RK4)")
    a.loglog(ts[1:] / MYR, Ts[1:], "o", mfc="none", label="mpsph (max distance %.1e)" % np.max(e))
    a.set_xlabel("t [Myr]")
    a.set_ylabel("T [K]")
    a.set_title("cooling box: n_H = %g cm^-3, [Fe/H] = %g, floor %g K" % (n_H, feh, floor))
    a.legend()
    fig.tight_layout()
    out = os.path.join(d, "cooling_box.png")
    fig.savefig(out, dpi=110)
    print("%d snapshots: max distance from the reference %.2e" % (len(ts), np.max(e)))
    print("wrote", out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("csv_dir", nargs="?", help="directory of the validation test's CSV files")
    ap.add_argument("--run", help="output directory of an mpsph cooling-box run")
    ap.add_argument("--n-H", type=float, default=0.1)
    ap.add_argument("--fe-h", type=float, default=0.0)
    ap.add_argument("--floor", type=float, default=10.0)
    a = ap.parse_args()
    if a.run:
        plot_run(a.run, a.n_H, a.fe_h, a.floor)
    elif a.csv_dir and glob.glob(os.path.join(a.csv_dir, "*_steps.csv")):
        plot_csv(a.csv_dir)
    else:
        ap.error("give the validation test's CSV directory (<build>/cooling_box) or --run DIR")


if __name__ == "__main__":
    main()
