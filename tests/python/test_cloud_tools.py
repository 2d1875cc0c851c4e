#!/usr/bin/python3
"""The molecular-cloud setups start and run from their YAML files (a few steps at small N), and the
cloud plot tools work on their outputs: column-density maps hold the gas mass and mark sinks from
PartType5; the sink-mass plot and the binary summary read hand-made sinks.csv (and
sink_merges.csv) files in the sink module's format.

usage: test_cloud_tools.py <path to mpsph>   (run by ctest)"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "tools")
SETUPS = os.path.join(HERE, "..", "..", "setups")


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("FAILED (exit %d): %s\n%s%s" % (r.returncode, " ".join(cmd), r.stdout, r.stderr))
    return r.stdout + r.stderr


def check_map_masses(stdout, tool_args):
    """Each map must hold the gas mass: the default extent holds every particle's kernel (2h), and
    each particle's projected kernel is normalised to its mass on the pixels, so the map's mass is
    the gas mass to round-off."""
    found = re.findall(r"map mass ([0-9.e+]+) of ([0-9.e+]+)", stdout)
    if not found:
        sys.exit("FAILED: no map masses printed by %s:\n%s" % (tool_args, stdout))
    for got, total in found:
        if abs(float(got) - float(total)) > 1e-5 * float(total):  # 6 printed digits
            sys.exit("FAILED: map mass %s of %s:\n%s" % (got, total, stdout))
    print("ok: %d maps hold their gas mass (%s)" % (len(found), ", ".join(g for g, _ in found)))


def main():
    mpsph = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="mpsph_cloud_tools_")

    # cloud_collision.yaml: 2 x 512 particles, a 512-point glass tile, to t = 0.05 (one segment of
    # timestep.dt_max, 4 steps).
    out = os.path.join(tmp, "cc")
    log = run([mpsph, "run", os.path.join(SETUPS, "cloud_collision.yaml"), "--output-dir", out,
               "--set", "setup.n_per_cloud=512", "--set", "setup.glass_tile_n_side=8",
               "--set", "run.t_end=0.05", "--set", "run.snapshot_times=[]"])
    for needle in ("setup: cloud free-fall time t_ff", "= 1.9678 code time = 1.924 Myr",
                   "initial conditions: 1024 particles (1024 gas)"):
        if needle not in log:
            sys.exit("FAILED: cloud_collision run log lacks '%s':\n%s" % (needle, log))
    print("ok: setups/cloud_collision.yaml runs (t_ff = 1.9678 code time printed)")
    snap = os.path.join(out, "snapshot_0000.h5")
    png = os.path.join(tmp, "cd.png")
    stdout = run([sys.executable, os.path.join(TOOLS, "plot_column_density.py"), snap,
                  "--pixels", "100", "--out", png])
    check_map_masses(stdout, "cloud collision")
    if os.path.getsize(png) < 1000:
        sys.exit("FAILED: no column-density PNG")

    # Sinks from PartType5: two hand-made sinks added to the snapshot.
    with_sinks = os.path.join(tmp, "with_sinks.h5")
    shutil.copy(snap, with_sinks)
    with h5py.File(with_sinks, "r+") as f:
        g = f.create_group("PartType5")
        g["Coordinates"] = np.array([[-3.0, 0.0, 0.0], [3.0, 0.5, 0.0]])
        g["Masses"] = np.array([1.5, 2.5])
    stdout = run([sys.executable, os.path.join(TOOLS, "plot_column_density.py"), with_sinks,
                  "--pixels", "100", "--views", "z", "--out", png])
    if "sinks: 2, mass 4 Msun" not in stdout:
        sys.exit("FAILED: the sinks of PartType5 were not read:\n" + stdout)
    print("ok: plot_column_density.py marks the sinks of PartType5 (2, 4 Msun)")

    # boss_bodenheimer.yaml: 2000 particles, to t = 0.001 (two segments of timestep.dt_max).
    out_bb = os.path.join(tmp, "bb")
    log = run([mpsph, "run", os.path.join(SETUPS, "boss_bodenheimer.yaml"), "--output-dir",
               out_bb, "--set", "setup.n_particles=2000", "--set", "setup.glass_tile_n_side=8",
               "--set", "run.t_end=0.001", "--set", "run.snapshot_times=[]"])
    for needle in ("= 1.078e+12 s", "alpha = 3/2 M c_s^2/|W| = 0.2595", "beta = E_rot/|W| = 0.1628"):
        if needle not in log:
            sys.exit("FAILED: boss_bodenheimer run log lacks '%s':\n%s" % (needle, log))
    print("ok: setups/boss_bodenheimer.yaml runs (t_ff 1.078e12 s, alpha 0.26, beta 0.16)")
    stdout = run([sys.executable, os.path.join(TOOLS, "plot_column_density.py"),
                  os.path.join(out_bb, "snapshot_0000.h5"), "--views", "z", "--pixels", "100",
                  "--out", png])
    check_map_masses(stdout, "boss-bodenheimer")

    # plot_sink_masses.py on a hand-made sinks.csv: three sinks forming at t = 1.0, 1.2, 1.5 with
    # masses 0.5 + rate (t - t0), rates 20, 5, 1: at t = 2 they hold 20.5 + 4.5 + 1 = 26.
    rows = []
    for k in range(9, 21):
        t = 0.1 * k
        for sid, t0, rate in ((9001, 1.0, 20.0), (9002, 1.2, 5.0), (9003, 1.5, 1.0)):
            if t >= t0 - 1e-9:
                m = 0.5 + rate * (t - t0)
                rows.append("%.6g,%d,%.6g,0.1,0.2,0.3,0,0,0,0,0,0,%.6g" % (t, sid, m, m - 0.5))
    with open(os.path.join(out, "sinks.csv"), "w") as f:
        f.write("# sinks (code units)\ntime,id,mass,x,y,z,vx,vy,vz,spin_x,spin_y,spin_z,"
                "accreted_mass\n" + "\n".join(rows) + "\n")
    stdout = run([sys.executable, os.path.join(TOOLS, "plot_sink_masses.py"), out])
    want = "first sink at t = 1 code time (0.9778 Myr); at t = 2: 3 sinks, total 26 Msun, " \
           "star-formation efficiency 0.0065"
    if want not in stdout or os.path.getsize(os.path.join(out, "sink_masses.png")) < 1000:
        sys.exit("FAILED: plot_sink_masses.py printed\n%s\nnot\n%s" % (stdout, want))
    print("ok: plot_sink_masses.py: " + want)

    # sink_binary.py on a hand-made binary (units pc, Msun from the copied snapshot): sinks 7 and 5
    # of 0.3 and 0.2 Msun at x = +-0.001 pc from t = 1 (t_ff = 2) and a third of 0.1 Msun that
    # merged into sink 5 at t = 1.5: separation 0.002 pc = 412.5 au.
    out_b = os.path.join(tmp, "binary")
    os.makedirs(out_b)
    shutil.copy(snap, os.path.join(out_b, "snapshot_0000.h5"))
    rows = ["1,5,0.1,-0.001,0,0,0,0,0,0,0,0,0", "1,7,0.3,0.001,0,0,0,0,0,0,0,0,0",
            "1,9,0.1,-0.0011,0,0,0,0,0,0,0,0,0", "2,5,0.2,-0.001,0,0,0,0,0,0,0,0,0.1",
            "2,7,0.3,0.001,0,0,0,0,0,0,0,0,0"]
    with open(os.path.join(out_b, "sinks.csv"), "w") as f:
        f.write("# sinks\ntime,id,mass,x,y,z,vx,vy,vz,spin_x,spin_y,spin_z,accreted_mass\n" +
                "\n".join(rows) + "\n")
    with open(os.path.join(out_b, "sink_merges.csv"), "w") as f:
        f.write("# merges\ntime,id_kept,id_merged,mass_kept,mass_merged,separation,energy\n"
                "1.5,5,9,0.1,0.1,0.0001,-1\n")
    stdout = run([sys.executable, os.path.join(TOOLS, "sink_binary.py"), out_b, "--t-ff", "2"])
    for want in ("first sink: 1 code time = 0.5000 t_ff (first sinks.csv row with a sink)",
                 "sinks: 2", "total sink mass: 0.5 Msun", "sink 1 (id 7): mass 0.3 Msun",
                 "sink 2 (id 5): mass 0.2 Msun",
                 "separation of the two most massive: 0.002 code length = 412.5 au",
                 "merges: 1"):
        if want not in stdout:
            sys.exit("FAILED: sink_binary.py printed\n%s\nwithout '%s'" % (stdout, want))
    print("ok: sink_binary.py: the binary's masses, separation (412.5 au) and the merge")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
