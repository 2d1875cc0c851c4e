#!/usr/bin/python3
"""The numbers of a collapse that forms a binary (the Boss-Bodenheimer test, docs/setups.md), from
OUTDIR/sinks.csv and OUTDIR/sink_merges.csv (the sink module's files, code units): the time the
first sink formed (PartType5/FormationTime of the last snapshot when there is one, else the first
sinks.csv row holding a sink: then the formation lies between that row and the one before), and
at the chosen row (default: the last) the number of sinks, the masses of
the two most massive, their separation and the total sink mass; plus the number of merges. Units
come from the run's first snapshot (/Units, as tools/plot_sink_masses.py), or without snapshots
from --units pc,Msun (code length and mass): times also in units of --t-ff (code time), masses in
Msun and lengths in au for a physical unit system.

usage: /usr/bin/python3 tools/sink_binary.py OUTDIR [--t-ff T] [--time T] [--units pc,Msun]
prints one line per quantity ("key: value") and exits 0; exits 1 without sinks.csv.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpsph_sinks  # noqa: E402

PC = 3.0856775814913673e18  # cm


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--t-ff", type=float, default=None, help="free-fall time, code time")
    ap.add_argument("--time", type=float, default=None,
                    help="row time, code time (default: the last row's); the nearest row is used")
    ap.add_argument("--units", default=None,
                    help="code length and mass when the run left no snapshot: pc,Msun")
    a = ap.parse_args()
    s = mpsph_sinks.read_run_sinks(a.outdir)
    units = mpsph_sinks.run_units(a.outdir)
    m_unit = units[1] if units else 1.0
    m_name = "Msun" if units else "code mass"
    l_au = mpsph_sinks.length_unit_au(a.outdir)
    if a.units:
        names = a.units.split(",")
        if names != ["pc", "Msun"]:
            sys.exit("--units: only pc,Msun is known (got %s)" % a.units)
        m_unit, m_name, l_au = 1.0, "Msun", PC / mpsph_sinks.AU

    def t_text(t):
        out = "%.6g code time" % t
        if a.t_ff:
            out += " = %.4f t_ff" % (t / a.t_ff)
        return out

    def l_text(r):
        return "%.6g code length" % r + (" = %.1f au" % (r * l_au) if l_au else "")

    if len(s["time"]) == 0:
        print("sinks: none formed")
        return
    times = np.unique(s["time"])
    t_form = mpsph_sinks.first_formation(a.outdir)
    if t_form is not None:
        print("first sink: %s (formation time, last snapshot)" % t_text(t_form))
    else:
        print("first sink: %s (first sinks.csv row with a sink)" % t_text(s["time"].min()))
    if a.time is not None and a.time < times[0] * (1 - 1e-9):
        print("row: %s" % t_text(a.time))
        print("sinks: 0 (the first row with a sink is at %s)" % t_text(times[0]))
        return
    t_row = mpsph_sinks.row_time(times, a.time)
    now = s["time"] == t_row
    m = s["mass"][now]
    order = np.argsort(-m)
    print("row: %s" % t_text(t_row))
    print("sinks: %d" % int(now.sum()))
    print("total sink mass: %.5g %s" % (m.sum() * m_unit, m_name))
    ids = s["id"][now][order]
    for k in range(min(2, len(m))):
        print("sink %d (id %d): mass %.5g %s" % (k + 1, int(ids[k]), m[order[k]] * m_unit, m_name))
    if len(m) >= 2:
        x = np.stack([s["x"][now], s["y"][now], s["z"][now]], axis=1)[order]
        print("separation of the two most massive: %s" % l_text(float(np.linalg.norm(x[0] - x[1]))))
    n_merges = mpsph_sinks.count_merges(a.outdir)
    if n_merges is not None:
        print("merges: %d" % n_merges)


if __name__ == "__main__":
    main()
