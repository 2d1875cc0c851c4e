#!/usr/bin/python3
"""Mass of each phase against time from an mpsph run's energy.csv (multiphase.model
sticky_clouds): hot gas, warm gas (split at multiphase.hot_K, stated in the file's header), cold
clouds and stars; and the energy accounts of the cold phase (radiated in cloud collisions or
dissipated by the cloud viscosity, taken out of the gas by cloud formation, exchanged by
evaporation and condensation, dissipated by drag), with E_radiated of cooling and E_kinetic, on a
symmetric-log axis (E_evaporation is mostly negative: thermal energy brought into the gas).

usage: /usr/bin/python3 tools/plot_phase_masses.py RUN_DIR
writes phase_masses.png into RUN_DIR and prints the first and last row of each phase (code mass,
and Msun where the run has physical units).
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

PHASES = [("M_hot", "hot gas"), ("M_warm", "warm gas"), ("M_cold", "cold clouds"),
          ("M_stars", "stars")]


def header_lines(run):
    with open(os.path.join(run, "energy.csv")) as f:
        return [line[1:].strip() for line in f if line.startswith("#")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", help="mpsph output directory")
    args = ap.parse_args()
    e = mpsph_snap.energy(args.run)
    names = e.dtype.names
    if "M_cold" not in names:
        sys.exit("%s/energy.csv has no phase masses (run with multiphase.model: sticky_clouds)"
                 % args.run)
    split = [h for h in header_lines(args.run) if h.startswith("multiphase:")]
    t = e["time"]
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(6.5, 6.5), sharex=True)
    total = sum(e[c] for c, _ in PHASES)
    for col, label in PHASES:
        a1.plot(t, e[col], label=label)
        print("%-8s %-12s first %.6g  last %.6g (code mass)" % (col, label, e[col][0], e[col][-1]))
    a1.plot(t, total, "k:", lw=1, label="sum")
    a1.set_ylabel("mass [code mass]")
    a1.legend(fontsize=8)
    a1.set_title("phase masses" + (" (hot/warm split: see energy.csv header)" if split else ""))
    shown = [col for col in ("E_collisions", "E_cloud_viscosity", "E_cloud_formation",
                             "E_evaporation", "E_drag", "E_radiated", "E_kinetic") if col in names]
    for col in shown:
        a2.plot(t, e[col], label=col)
        print("%-18s last %.6g (code energy)" % (col, e[col][-1]))
    big = max(np.max(np.abs(e[col])) for col in shown)
    a2.set_yscale("symlog", linthresh=max(1e-8 * big, 1e-300))
    a2.set_xlabel("time [code time]")
    a2.set_ylabel("energy [code energy]")
    a2.legend(fontsize=8)
    fig.tight_layout()
    out = os.path.join(args.run, "phase_masses.png")
    fig.savefig(out, dpi=120)
    rel = np.max(np.abs(e["rel_error"]))
    print("max |rel_error| of E_total (with the modules' accounts) = %.3g" % rel)
    print("wrote", out)


if __name__ == "__main__":
    main()
