#!/usr/bin/python3
"""Sink particles of an mpsph run: sink mass vs time (each sink and the total) from sinks.csv, and
the sink mass function (the number of sinks per logarithmic mass bin) at the last row of
sinks.csv or, with --snapshot, from a snapshot's PartType5 group. Masses and times are in the
run's code units (sinks.csv's header states them); --msun converts masses with the code mass in
grams from that header.

Prints the number of sinks, the first formation time, and the total sink mass at the last time
(and as a fraction of the total mass with --total-mass).

usage: /usr/bin/python3 tools/plot_sinks.py OUTPUT_DIR [--snapshot FILE] [--msun] [--total-mass M]
writes OUTPUT_DIR/sink_mass.png and OUTPUT_DIR/sink_mass_function.png
"""
import argparse
import os
import re
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mpsph_snap  # noqa: E402

MSUN_G = 1.98847e33
COLUMNS = "time,id,mass,x,y,z,vx,vy,vz,spin_x,spin_y,spin_z,accreted_mass"


def read_sinks(path):
    """(rows as a structured array, code mass in g or None for N-body units)."""
    mass_g = None
    with open(path) as f:
        lines = f.readlines()
    start = None
    for k, line in enumerate(lines):
        if line.startswith("#"):
            m = re.search(r"code mass = ([0-9.eE+-]+) g", line)
            if m:
                mass_g = float(m.group(1))
        elif line.strip() == COLUMNS:
            start = k + 1
            break
    if start is None:
        sys.exit("%s has no column line '%s'" % (path, COLUMNS))
    names = COLUMNS.split(",")
    data = [[float(x) for x in line.split(",")] for line in lines[start:]
            if line.endswith("\n") and line.count(",") == len(names) - 1]
    rows = np.zeros(len(data), dtype=[(n, float) for n in names])
    for k, d in enumerate(data):
        rows[k] = tuple(d)
    return rows, mass_g


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--snapshot", help="mass function from this snapshot's PartType5 instead")
    ap.add_argument("--msun", action="store_true", help="masses in Msun (needs physical units)")
    ap.add_argument("--total-mass", type=float, default=0.0,
                    help="total (gas + sink) mass in code units: prints the sink mass fraction")
    a = ap.parse_args()

    rows, mass_g = read_sinks(os.path.join(a.outdir, "sinks.csv"))
    scale, unit = 1.0, "code mass"
    if a.msun:
        if mass_g is None:
            sys.exit("--msun: sinks.csv is in N-body units (no cgs scale)")
        scale, unit = mass_g / MSUN_G, "Msun"
    if rows.size == 0:
        print("no sinks formed")
        return
    ids = np.unique(rows["id"]).astype(np.int64)
    t_last = rows["time"].max()
    last = rows[rows["time"] == t_last]
    first_time = min(rows["time"][rows["id"] == i].min() for i in ids)
    total = last["mass"].sum()
    print("sinks: %d; first at t = %.6g; at t = %.6g: %d sinks, total mass %.6g %s"
          % (len(ids), first_time, t_last, len(last), total * scale, unit))
    if a.total_mass > 0:
        print("sink mass fraction at t = %.6g: %.6g" % (t_last, total / a.total_mass))

    fig, ax = plt.subplots(figsize=(6, 4.5))
    for i in ids:
        r = rows[rows["id"] == i]
        ax.plot(r["time"], r["mass"] * scale, lw=0.8, alpha=0.7)
    times = np.unique(rows["time"])
    ax.plot(times, [rows["mass"][rows["time"] == t].sum() * scale for t in times], "k-", lw=2,
            label="total")
    ax.set_xlabel("time (code time)")
    ax.set_ylabel("sink mass (%s)" % unit)
    ax.set_yscale("log")
    ax.legend()
    ax.set_title("%d sinks" % len(ids))
    fig.tight_layout()
    fig.savefig(os.path.join(a.outdir, "sink_mass.png"), dpi=120)

    if a.snapshot:
        t_mf, d = mpsph_snap.load(a.snapshot, 5)
        masses = d.get("Masses", np.zeros(0))
    else:
        t_mf, masses = t_last, last["mass"]
    masses = np.asarray(masses) * scale
    fig, ax = plt.subplots(figsize=(6, 4.5))
    if masses.size:
        lo, hi = np.log10(masses.min()), np.log10(masses.max())
        bins = np.linspace(lo - 0.1, hi + 0.1, max(4, min(20, masses.size // 2)) + 1)
        n, edges = np.histogram(np.log10(masses), bins=bins)
        ax.step(edges[:-1], n, where="post")
    ax.set_xlabel("log10 sink mass (%s)" % unit)
    ax.set_ylabel("dN / dlog10 M bin")
    ax.set_title("sink mass function at t = %.4g (%d sinks)" % (t_mf, masses.size))
    fig.tight_layout()
    fig.savefig(os.path.join(a.outdir, "sink_mass_function.png"), dpi=120)


if __name__ == "__main__":
    main()
