#!/usr/bin/python3
"""yt (Debian's python3-yt) reads an mpsph snapshot of a physical-units run with the file's units:
a short cooling-box run in pc, Msun, km/s (none of them GADGET's defaults) is opened with
tools/mpsph_yt.load, and yt's length, mass, velocity and time units must equal /Units to 1e-5;
yt's time and total gas mass must match the file; a density projection must give the mean column
density M / A of the periodic box.

usage: test_yt_units.py <path to mpsph>   (run by ctest; exit 77 = skipped when yt is missing)"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))

try:
    import yt
except ImportError as e:
    print("yt cannot be imported (%s): skipped; scripts/install-deps.sh installs python3-yt" % e)
    sys.exit(77)
import h5py  # noqa: E402
import numpy as np  # noqa: E402

import mpsph_yt  # noqa: E402

REL_TOL = 1e-5


def main():
    mpsph = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="mpsph_yt_")
    out = os.path.join(tmp, "cooling_box")
    # Time unit pc / (km/s) = 0.978 Myr: t_end 0.005 is ~50 steps.
    cmd = [mpsph, "run", os.path.join(ROOT, "setups", "cooling_box.yaml"), "--output-dir", out,
           "--quiet", "--set", "units.length=pc", "--set", "units.mass=Msun",
           "--set", "units.velocity=km/s", "--set", "run.t_end=0.005",
           "--set", "run.snapshot_interval=0.005"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("FAILED: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    snap = os.path.join(out, "snapshot_0001.h5")

    with h5py.File(snap, "r") as f:
        units = {k: float(np.ravel(v)[0]) for k, v in f["Units"].attrs.items()}
        time = float(f["Header"].attrs["Time"])
        mass = float(np.sum(f["PartType0/Masses"][...]))
        edges = np.asarray(f["Header"].attrs["BoxEdges"], dtype=float)
    yt.set_log_level(40)
    ds = mpsph_yt.load(snap)

    failed = []

    def check(name, got, want):
        rel = abs(got / want - 1.0)
        ok = rel <= REL_TOL
        print("%s  %-26s yt %.9e  file %.9e  rel. diff %.1e" % ("ok  " if ok else "FAIL", name,
                                                               got, want, rel))
        if not ok:
            failed.append(name)

    check("length unit [cm]", float(ds.length_unit.in_cgs()), units["Unit length in cgs (U_L)"])
    check("mass unit [g]", float(ds.mass_unit.in_cgs()), units["Unit mass in cgs (U_M)"])
    check("velocity unit [cm/s]", float(ds.velocity_unit.in_cgs()),
          units["Unit velocity in cgs (U_V)"])
    check("time unit [s]", float(ds.time_unit.in_cgs()), units["Unit time in cgs (U_t)"])
    check("current time [s]", float(ds.current_time.in_cgs()),
          time * units["Unit time in cgs (U_t)"])
    ad = ds.all_data()
    mass_g = mass * units["Unit mass in cgs (U_M)"]
    check("gas mass [g]", float(ad["PartType0", "Masses"].in_cgs().sum()), mass_g)

    # The projection of an SPH density over the periodic box integrates to the mass, so its mean
    # is M / A; 1% allows for the pixelisation of 512 kernels on yt's 800^2 image.
    proj = yt.ProjectionPlot(ds, "z", ("gas", "density"))
    column = proj.frb["gas", "density"].in_cgs()
    area = edges[0] * edges[1] * units["Unit length in cgs (U_L)"] ** 2
    rel = abs(float(column.mean()) / (mass_g / area) - 1.0)
    ok = str(column.units) == "g/cm**2" and rel <= 0.01
    print("%s  projection of density: mean %.6e %s, M/A %.6e g/cm**2, rel. diff %.1e"
          % ("ok  " if ok else "FAIL", float(column.mean()), column.units, mass_g / area, rel))
    if not ok:
        failed.append("projection")
    shutil.rmtree(tmp)
    if failed:
        sys.exit("FAILED: " + ", ".join(failed))


if __name__ == "__main__":
    main()
