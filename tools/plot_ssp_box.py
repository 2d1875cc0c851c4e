#!/usr/bin/python3
"""[O/Fe] of the gas of an SSP box run (setups/ssp_box.yaml) against time, with the population's
own [O/Fe] of new metals from `mpsph ssp` (the same SSP table) for comparison: for metal-free gas
the two agree, high while only SN II explode and falling once SN Ia start.

usage: /usr/bin/python3 tools/plot_ssp_box.py RUN_DIR [--mpsph PATH] [--out FILE]
reads RUN_DIR/snapshot_*.h5 (PartType0 OxygenMassFraction, IronMassFraction, Masses; PartType3 or
4 BirthTime, InitialMass, Metallicity of the first star) and writes RUN_DIR/ssp_box_ofe.png:
[O/Fe] = log10((sum m Z_O / sum m Z_Fe) / (O/Fe)_sun) of all the gas, Anders & Grevesse (1989)
solar ratio, against time in Myr; prints the values.
"""
import argparse
import glob
import io
import os
import shutil
import subprocess
import sys

import h5py
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

MYR = 3.15576e13  # s
SOLAR_O_TO_FE = 1.3509e-2 / 2.5913e-3  # Anders & Grevesse (1989), as the cooling tables


def read(path):
    with h5py.File(path, "r") as f:
        t_cgs = float(f["Units"].attrs["Unit time in cgs (U_t)"][0])
        t = float(f["Header"].attrs["Time"]) * t_cgs / MYR
        g = f["PartType0"]
        m = g["Masses"][...]
        o = np.sum(m * g["OxygenMassFraction"][...])
        fe = np.sum(m * g["IronMassFraction"][...])
        star = None
        for k in ("PartType3", "PartType4"):
            if k in f and f[k]["Masses"].shape[0] > 0:
                s = f[k]
                star = (float(s["BirthTime"][0]) * t_cgs / MYR, float(s["Metallicity"][0]))
                break
        return t, o, fe, star


def run_model(run):
    """imf, yields, snia of the run's feedback section (config_resolved.yaml), if readable."""
    try:
        import yaml
        with open(os.path.join(run, "config_resolved.yaml")) as f:
            fb = yaml.safe_load(f).get("feedback", {})
        return {k: fb[k] for k in ("imf", "yields", "snia") if k in fb}
    except Exception:  # no PyYAML, no file, or not a mapping: the default model
        return {}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run")
    ap.add_argument("--mpsph")
    ap.add_argument("--out")
    a = ap.parse_args()
    snaps = sorted(glob.glob(os.path.join(a.run, "snapshot_*.h5")))
    if not snaps:
        sys.exit("plot_ssp_box.py: no snapshots in " + a.run)
    rows = [read(p) for p in snaps]
    t = np.array([r[0] for r in rows])
    o = np.array([r[1] for r in rows])
    fe = np.array([r[2] for r in rows])
    ok = (o > 0) & (fe > 0)
    ofe = np.log10(o[ok] / fe[ok] / SOLAR_O_TO_FE)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.semilogx(t[ok], ofe, "o", ms=4, label="gas (snapshots)")
    print("time [Myr]  [O/Fe] of the gas")
    for x, y in zip(t[ok], ofe):
        print("%10.2f  %+.4f" % (x, y))
    star = rows[-1][3]
    exe = a.mpsph or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build-cpu", "bin", "mpsph")
    if not os.path.exists(exe):
        exe = shutil.which("mpsph")
    if star and exe:
        ages = np.logspace(0, np.log10(max(t[-1] - star[0], 2.0)), 200)
        model = run_model(a.run)
        args = [exe, "ssp", "--metallicity", "%g" % star[1], "--ages", ",".join("%.6g" % x for x in ages)]
        for k in ("imf", "yields", "snia"):
            if k in model:
                args += ["--" + k, str(model[k])]
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode == 0:
            body = [l for l in r.stdout.splitlines() if not l.startswith("#")]
            d = np.loadtxt(io.StringIO("\n".join(body[1:])), delimiter=",", ndmin=2)
            k = (d[:, 5] > 0) & (d[:, 6] > 0)
            ax.semilogx(d[k, 0] + star[0], np.log10(d[k, 5] / d[k, 6] / SOLAR_O_TO_FE), "-",
                        label="SSP new metals (mpsph ssp, Z = %g, %s)" % (
                            star[1], ", ".join(str(v) for v in model.values()) or "default model"))
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xlabel("time [Myr]")
    ax.set_ylabel("[O/Fe]")
    ax.set_title("SSP box: [O/Fe] of the gas")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    out = a.out or os.path.join(a.run, "ssp_box_ofe.png")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("wrote", out)


if __name__ == "__main__":
    main()
