#!/usr/bin/python3
"""Sink particles of a run: the mass of every sink and their total against time, and the sink mass
function at one time, from OUTDIR/sinks.csv (written by the sink module: comment lines starting
with '# ', then the header time,id,mass,x,y,z,vx,vy,vz,spin_x,spin_y,spin_z,accreted_mass and one
row per sink per diagnostics step, code units). Units come from the run's first snapshot
(/Units): time in Myr and masses in Msun for a physical unit system, code units otherwise.

usage: /usr/bin/python3 tools/plot_sink_masses.py OUTDIR [--time T] [--bins N] [--out FILE.png]
writes FILE.png (default OUTDIR/sink_masses.png) and prints the first sink's formation time, and
at the mass-function time the number of sinks, their total mass and, when the initial mass of the
run is known from its first snapshot, the star-formation efficiency (total sink mass / initial
mass).
"""
import argparse
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpsph_sinks  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--time", type=float, default=None,
                    help="time of the mass function, code time (default: the last row's)")
    ap.add_argument("--bins", type=int, default=12, help="mass-function bins (default 12)")
    ap.add_argument("--out", default=None, help="output PNG")
    a = ap.parse_args()
    s = mpsph_sinks.read_run_sinks(a.outdir)
    units = mpsph_sinks.run_units(a.outdir)
    t_unit, m_unit = (units[0], units[1]) if units else (1.0, 1.0)
    t_name, m_name = ("Myr", r"M$_\odot$") if units else ("code time", "code mass")
    m_text = "Msun" if units else "code mass"

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2), constrained_layout=True)
    if len(s["time"]) == 0:
        print("no sinks formed")
        ax1.text(0.5, 0.5, "no sinks formed", ha="center", transform=ax1.transAxes)
    else:
        times = np.unique(s["time"])
        t_mf = mpsph_sinks.row_time(times, a.time)
        ids = np.unique(s["id"])
        for i in ids:
            sel = s["id"] == i
            ax1.plot(s["time"][sel] * t_unit, s["mass"][sel] * m_unit, lw=0.6, alpha=0.6)
        total = np.array([s["mass"][s["time"] == t].sum() for t in times])
        count = np.array([np.count_nonzero(s["time"] == t) for t in times])
        ax1.plot(times * t_unit, total * m_unit, "k-", lw=2, label="total")
        ax1.set_yscale("log")
        ax1.legend(loc="upper left")
        axn = ax1.twinx()
        axn.step(times * t_unit, count, "b--", where="post", lw=1)
        axn.set_ylabel("number of sinks", color="b")
        axn.yaxis.set_major_locator(MaxNLocator(integer=True))
        t_first = s["time"].min()
        now = s["time"] == t_mf
        m_now = s["mass"][now] * m_unit
        line = ("first sink at t = %.5g code time%s; at t = %.5g: %d sinks, total %.5g %s"
                % (t_first, " (%.4g Myr)" % (t_first * t_unit) if units else "", t_mf,
                   len(m_now), m_now.sum(), m_text))
        if units and units[2] > 0:
            line += ", star-formation efficiency %.4g" % (m_now.sum() / (units[2] * m_unit))
        print(line)
        lo, hi = np.log10(m_now.min()), np.log10(m_now.max())
        if hi - lo < 1e-6:
            lo, hi = lo - 0.5, hi + 0.5
        edges = np.linspace(lo, hi, a.bins + 1)
        n, _ = np.histogram(np.log10(m_now), bins=edges)
        dlog = edges[1] - edges[0]
        ax2.step(edges[:-1], n / dlog, where="post", color="k")
        ax2.plot([edges[-2], edges[-1]], [n[-1] / dlog] * 2, "k-")
        ax2.set_yscale("log")
        ax2.set_xlabel(r"log$_{10}$ M$_{\rm sink}$ [%s]" % m_name)
        ax2.set_ylabel(r"dN / dlog$_{10}$ M")
        ax2.set_title("sink mass function at t = %.4g %s (%d sinks)"
                      % (t_mf * t_unit, t_name, len(m_now)), fontsize=10)
    ax1.set_xlabel("t [%s]" % t_name)
    ax1.set_ylabel("sink mass [%s]" % m_name)
    ax1.set_title("sink masses (thin) and their total (thick)", fontsize=10)
    out = a.out or os.path.join(a.outdir, "sink_masses.png")
    fig.savefig(out, dpi=110)
    print("wrote %s" % out)


if __name__ == "__main__":
    main()
