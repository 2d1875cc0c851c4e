#!/usr/bin/python3
"""The plot tools run on real (tiny) mpsph outputs and write their PNGs: Evrard, Sod (adiabatic and
isothermal), Sedov, Plummer, the sinks of an isothermal Evrard collapse, the sticky-cloud box
(cloud mass spectrum, phase masses), the galaxy tools on ICs written by `mpsph ics` (isolated
disk, merger), and the remnant profile tool on a synthetic Hernquist sphere.

usage: test_tools.py <path to mpsph>   (run by ctest)"""
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "tools")


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("FAILED: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    return r.stdout


def check_evrard_errors(stdout):
    """plot_evrard.py prints three finite L1 errors against the 1D reference. Measured at N = 400:
    log rho 0.17, v_r 0.37, log A 0.20 (N = 4896: 0.13, 0.13, 0.11); the limits leave room for
    that, while a missing or misread reference gives NaN or far larger values."""
    lines = stdout.splitlines()
    at = [i for i, line in enumerate(lines) if "L1 errors against" in line]
    if not at:
        sys.exit("FAILED: plot_evrard.py printed no L1 errors:\n" + stdout)
    words = lines[at[0] + 1].split()
    values = [float(words[i]) for i in (2, 4, 7)]  # log10 rho X   v_r Y   log10 A Z
    limits = (0.4, 0.6, 0.4)
    if not all(0 <= v < lim for v, lim in zip(values, limits)):
        sys.exit("FAILED: Evrard L1 errors %s not below %s:\n%s" % (values, limits, stdout))
    print("ok: Evrard L1 errors against the 1D reference (log rho, v_r, log A) = %s" % values)


def check_run_info(mpsph, out):
    """`mpsph info RUNDIR` on the finished run: what ran, how far, timing and the files."""
    info = run([mpsph, "info", out])
    needles = ["  setup        mass 1, n_particles 400", "t_end 0.85 (reached)",
               "checkpoint.h5: t = 0.85", "max |rel_error|", "updates/s", "smoothing lengths",
               "evrard_profiles.png", "snapshot_0000.h5 .. snapshot_0002.h5   3 files"]
    missing = [n for n in needles if n not in info]
    if missing:
        sys.exit("FAILED: mpsph info %s lacks %s:\n%s" % (out, missing, info))
    print("ok: mpsph info RUNDIR")


def check_galaxy_tools(mpsph, tmp, setups):
    """plot_galaxy.py and plot_disk_profiles.py on small disk and merger ICs from `mpsph ics`. The
    profile tool's total circular velocity at R = 8-9 kpc (from the particles' gravity) must be
    within 15% of the generator's 233 km/s at 8 kpc (the model's v_c is flat there, 231-234 km/s
    from 7.5 to 12 kpc): at 4 000 halo particles the shot noise of the enclosed mass is ~5%."""
    small = ["--set", "setup.halo.n=4000", "--set", "setup.disk.n=2000", "--set",
             "setup.gas.n=1000", "--set", "setup.bulge.n=200", "--set", "setup.grid.n_R=32",
             "--set", "setup.grid.n_z=24"]
    disk = os.path.join(tmp, "disk_ics.h5")
    run([mpsph, "ics", os.path.join(setups, "isolated_disk.yaml"), disk] + small)
    merger = os.path.join(tmp, "merger_ics.h5")
    merger_small = [a.replace("setup.", "setup.galaxy%d." % g) if a != "--set" else a
                    for g in (1, 2) for a in small]
    run([mpsph, "ics", os.path.join(setups, "merger.yaml"), merger] + merger_small)
    run([sys.executable, os.path.join(TOOLS, "plot_galaxy.py"), disk, merger])
    run([sys.executable, os.path.join(TOOLS, "plot_galaxy.py"), merger, "--no-rotate",
         "--size", "150", "--out-dir", os.path.join(tmp)])
    stdout = run([sys.executable, os.path.join(TOOLS, "plot_disk_profiles.py"), disk])
    for png in ("galaxy_disk_ics.png", "galaxy_merger_ics.png", "disk_profiles.png"):
        path = os.path.join(tmp, png)
        if not os.path.isfile(path) or os.path.getsize(path) < 1000:
            sys.exit("FAILED: galaxy tools did not write %s" % path)
    header = [line for line in stdout.splitlines() if line.strip().startswith("R[kpc]")][0].split()
    col = header.index("vc_total")
    row = [line.split() for line in stdout.splitlines() if line.strip().startswith("8.50")][0]
    vc = float(row[col])
    if abs(vc / 233.0 - 1) > 0.15:
        sys.exit("FAILED: plot_disk_profiles.py v_c(8.5 kpc) = %.1f km/s, model 233:\n%s"
                 % (vc, stdout))
    # Movie frames: one PNG per snapshot in the order given.
    movie = os.path.join(tmp, "movie")
    os.makedirs(movie)
    run([sys.executable, os.path.join(TOOLS, "plot_galaxy.py"), disk, merger, "--movie",
         "--out-dir", movie])
    for png in ("frame_0000.png", "frame_0001.png"):
        if not os.path.isfile(os.path.join(movie, png)):
            sys.exit("FAILED: plot_galaxy.py --movie did not write %s" % png)
    # Kennicutt-Schmidt tool: the ICs' gas surface density in the 3-6 kpc annulus against the
    # exponential model, M_g e^-R/R_g / (2 pi R_g^2) with M_g = 6e9 Msun, R_g = 3 kpc: the annulus
    # holds 2/e - 3/e^2 = 0.330 of the gas, 23.35 Msun/pc^2 over its 27 pi kpc^2. 1 000 gas
    # particles put ~330 there: 5.5% shot noise; 20% is 3.6 sigma. No stars have formed: SFR 0.
    stdout = run([sys.executable, os.path.join(TOOLS, "plot_ks.py"), disk, "--bins", "5",
                  "--r-max", "15", "--out", os.path.join(tmp, "ks.png")])
    row = [line.split() for line in stdout.splitlines() if line.strip().startswith("4.50")][0]
    sigma_gas, sigma_sfr = float(row[1]), float(row[2])
    if abs(sigma_gas / 23.35 - 1) > 0.2 or sigma_sfr != 0 or not os.path.isfile(
            os.path.join(tmp, "ks.png")):
        sys.exit("FAILED: plot_ks.py Sigma_gas(3-6 kpc) = %g Msun/pc^2 (model 23.35), Sigma_SFR "
                 "%g (0 expected):\n%s" % (sigma_gas, sigma_sfr, stdout))
    print("ok: plot_galaxy.py (--movie), plot_disk_profiles.py (v_c(8.5 kpc) = %.1f km/s), "
          "plot_ks.py (Sigma_gas(3-6 kpc) = %.2f Msun/pc^2, model 23.35)" % (vc, sigma_gas))
def check_remnant_tool(tmp):
    """plot_remnant.py on a synthetic snapshot of a Hernquist sphere (a = 2 kpc, 40 000 stars): its
    projected half-mass radius is R_e = 1.8153 a (Hernquist 1990) for every projection, 3.63 kpc;
    the shot noise of the median radius at 40 000 particles is ~0.5%, so 3% is 6 sigma. Hernquist
    built the profile to follow de Vaucouleurs' R^(1/4) law (n = 4) within ~0.1-10 R_e: the fit
    over 0.5-15 kpc must find n in 3-5."""
    import h5py
    import numpy as np
    rng = np.random.default_rng(7)
    n, a = 40000, 2.0
    u = rng.random(n)
    r = a * np.sqrt(u) / (1.0 - np.sqrt(u))
    mu = 2.0 * rng.random(n) - 1.0
    phi = 2.0 * np.pi * rng.random(n)
    s = np.sqrt(1.0 - mu * mu)
    x = np.stack([r * s * np.cos(phi), r * s * np.sin(phi), r * mu], axis=1) + 50.0
    path = os.path.join(tmp, "hernquist.h5")
    with h5py.File(path, "w") as f:
        units = f.create_group("Units")
        for key, val in (("Unit length in cgs (U_L)", 3.0856775814913673e21),
                         ("Unit mass in cgs (U_M)", 1.98841e43),
                         ("Unit velocity in cgs (U_V)", 1e5),
                         ("Unit time in cgs (U_t)", 3.0856775814913673e16)):
            units.attrs[key] = np.array([val])
        f.create_group("Header").attrs["Time"] = 0.0
        g = f.create_group("PartType3")
        g["Coordinates"] = x
        g["Velocities"] = np.zeros_like(x)
        g["Masses"] = np.full(n, 1.0 / n)
    stdout = run([sys.executable, os.path.join(TOOLS, "plot_remnant.py"), path, "--out",
                  os.path.join(tmp, "remnant.png")])
    row = [line.split("|") for line in stdout.splitlines() if line.startswith("0 |")][0]
    re_half, n_fit = float(row[2]), float(row[3])
    if abs(re_half / (1.8153 * a) - 1) > 0.03 or not 3.0 <= n_fit <= 5.0 or not os.path.isfile(
            os.path.join(tmp, "remnant.png")):
        sys.exit("FAILED: plot_remnant.py on a Hernquist sphere: R_e %.3f kpc (exact %.3f), "
                 "Sersic n %.2f (3-5 expected):\n%s" % (re_half, 1.8153 * a, n_fit, stdout))
    print("ok: plot_remnant.py, Hernquist sphere R_e %.3f kpc (exact %.3f), Sersic n %.2f"
          % (re_half, 1.8153 * a, n_fit))


def check_sticky_clouds(tool, stdout):
    """plot_cloud_spectrum.py prints one line per snapshot: the first has the 300 initial clouds,
    the last fewer (clouds coalesce in this dense box). plot_phase_masses.py prints the largest
    |rel_error| of E_total with the collision account: round-off only (measured 4e-16)."""
    if tool == "plot_cloud_spectrum.py":
        counts = [int(line.split(" clouds")[0].split()[-1]) for line in stdout.splitlines()
                  if " clouds, largest" in line]
        if len(counts) < 2 or counts[0] != 300 or not counts[-1] < 300:
            sys.exit("FAILED: cloud counts %s (expected 300 first, fewer last):\n%s"
                     % (counts, stdout))
        # --evolution: the first row's mean collision time against the Maxwellian estimate
        # 1 / ((N - 1)/V pi (2R)^2 <|v_ij|>), <|v_ij|> = 4 sigma / sqrt(pi), sigma = 5 km/s,
        # R = 5.642 pc (1e4 Msun at 100 Msun/pc^2), V = 150^3 pc^3: 2.49 code time. The 300
        # sampled velocities give sigma to ~4% (sqrt(1/(2 * 3 * 300)) per component): 10%.
        lines = stdout.splitlines()
        head = [k for k, line in enumerate(lines) if line.startswith("t [code]")]
        if len(head) != 1:
            sys.exit("FAILED: --evolution printed no table:\n%s" % stdout)
        t_coll = float(lines[head[0] + 1].split()[8])
        expect = 1.0 / (299 / 150.0 ** 3 * math.pi * (2 * 5.642) ** 2 * 4 * 5 / math.sqrt(math.pi))
        if abs(t_coll / expect - 1) > 0.1:
            sys.exit("FAILED: t_coll(0) = %g, Maxwellian estimate %g:\n%s"
                     % (t_coll, expect, stdout))
        print("ok: cloud spectrum, clouds %s, t_coll(0) = %.3f (estimate %.3f)"
              % (counts, t_coll, expect))
    else:
        err = [float(line.split("=")[-1]) for line in stdout.splitlines() if "max |rel_error|" in line]
        if len(err) != 1 or not err[0] < 1e-12:
            sys.exit("FAILED: phase masses: E_total error %s not below 1e-12:\n%s" % (err, stdout))
        print("ok: phase masses, max |rel_error| %.2e" % err[0])


def check_starform(stdout):
    """plot_sfr.py compares the mass formed with the integral of the rate the clouds of the
    snapshots expect: ~600 stars form, so the ratio is 1 within ~4% (1 sigma) plus the trapezoid
    error of 1-unit snapshots on a rate that falls as the clouds give mass to stars."""
    ratio = [float(line.split("ratio")[-1]) for line in stdout.splitlines() if "ratio" in line]
    if len(ratio) != 1 or not 0.8 < ratio[0] < 1.2:
        sys.exit("FAILED: plot_sfr.py measured/expected mass formed %s not within 20%%:\n%s"
                 % (ratio, stdout))
    print("ok: sfr, measured/expected mass formed %.3f" % ratio[0])


# timing.txt of 2 device-resident GPU ranks (disk galaxy, 2e7 particles per GPU, two H200s,
# 2026-11-27, stop 45 call 9), its stage table and "MPI ranks" section as the program writes them.
RANKS_TIMING = """stage                  time [s]     share   per step [ms]   steps 2+ [ms]
order + trees             0.139      1.5%          11.587           5.956
smoothing lengths         6.693     72.0%         557.769          64.014
density                   0.931     10.0%          77.560          71.029
gravity                   1.918     20.6%         159.800         120.649
time step                 0.043      0.5%           3.598           3.450
total                     9.314    100.0%         776.187         265.035
backend: gpu (MPI ranks; particles on the device), 32 OpenMP threads

MPI ranks: 2, particles on the GPU of each rank; stage parts, ms per step, largest over the ranks (mean over them), over all steps and over steps 2 to 12:
  decomposition + migration                 698.721 (698.286)   steps 2+:      5.771 (5.573)
    of which re-cuts                          2.268 (2.087)   steps 2+:      2.475 (2.277)
  smoothing lengths: halos                   23.135 (22.926)   steps 2+:     18.778 (18.777)
  smoothing lengths: passes                 503.721 (503.720)   steps 2+:     45.236 (45.235)
    of which this rank's own work           502.934 (390.179)   steps 2+:     44.382 (44.238)
  density + forces: halos                     1.337 (1.335)   steps 2+:      0.627 (0.625)
  density + forces: passes                   76.332 (76.330)   steps 2+:     70.402 (70.399)
    of which this rank's own work            74.759 (74.247)   steps 2+:     68.691 (68.557)
  gravity: local tree                         7.859 (7.132)   steps 2+:      7.005 (6.331)
  gravity: LET selection                      3.397 (3.389)   steps 2+:      3.062 (3.042)
  gravity: LET exchange                       3.097 (2.387)   steps 2+:      3.029 (2.344)
  gravity: walk                             144.102 (140.173)   steps 2+:    107.553 (104.433)
  ghosts per local gas particle (density halo): 0.043

steady steps: 265.035 ms per step, wall time between the order stages of steps 2 to 11
"""


def check_rank_timing(tmp, reference):
    """plot_rank_timing.py on a real one-process run (the Evrard case's timing.txt) and the
    2-rank timing.txt above: the ranks' parts are the file's numbers - decomposition 5.771, SPH
    halos 18.778 + 0.627, the passes' own work 44.238 + 68.557 (means), the wait 45.236 + 70.402
    less that, gravity's tree and LET 7.005 + 3.062 + 3.029, walk 107.553, and the rest of the
    265.035 ms step 3.572 - and the weak efficiency is the reference's steady step over 265.035."""
    ranks = os.path.join(tmp, "disk_2")
    os.makedirs(ranks, exist_ok=True)
    with open(os.path.join(ranks, "timing.txt"), "w") as f:
        f.write(RANKS_TIMING)
    png = os.path.join(tmp, "rank_timing.png")
    out = run([sys.executable, os.path.join(TOOLS, "plot_rank_timing.py"), reference, ranks,
               "--weak", "--out", png])
    with open(os.path.join(reference, "timing.txt")) as f:
        t1 = float([line.split()[2] for line in f if line.startswith("steady steps:")][0])
    lines = out.splitlines()
    at = [k for k, line in enumerate(lines) if line.startswith("disk_2 (2 ranks)")]
    if not at:
        sys.exit("FAILED: plot_rank_timing.py printed no row for the ranks:\n" + out)
    values = {}
    for line in lines[at[0] + 1:]:
        if not line.startswith("  "):
            break
        values[line[:21].strip()] = float(line[21:])
    want = {"decomposition": 5.771, "SPH halos": 19.405, "SPH passes": 112.795, "SPH wait": 2.843,
            "gravity tree+LET": 13.096, "gravity walk": 107.553, "other": 3.572}
    bad = [k for k, v in want.items() if k not in values or abs(values[k] - v) > 0.051]
    eff = float(lines[at[0]].rsplit(" ", 1)[1])
    if bad or abs(eff - t1 / 265.035) > 5e-4 or not os.path.isfile(png):
        sys.exit("FAILED: plot_rank_timing.py: parts %s differ from %s, or efficiency %s is not "
                 "%.4f:\n%s" % (bad, want, eff, t1 / 265.035, out))
    print("ok: plot_rank_timing.py, the ranks' parts and weak efficiency %.3f" % eff)


def main():
    mpsph = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="mpsph_tools_")
    setups = os.path.join(HERE, "..", "..", "setups")
    cases = [
        ("evrard", ["--set", "setup.n_particles=400", "--set", "run.t_end=0.85",
                    "--set", "run.snapshot_times=[0.8]"],
         "plot_evrard.py", ["evrard_profiles.png", "evrard_energy.png"]),
        ("sod", ["--set", "setup.nx_left=24", "--set", "setup.ny_left=12", "--set", "run.t_end=0.05",
                 "--set", "run.snapshot_times=[]"],
         "plot_sod.py", ["sod.png"]),
        ("sod_isothermal", ["--set", "setup.nx_left=24", "--set", "setup.ny_left=12",
                            "--set", "run.t_end=0.05", "--set", "run.snapshot_times=[]"],
         "plot_sod.py", ["sod.png"]),
        ("sedov", ["--set", "setup.n_side=12", "--set", "setup.glass_n_side=6",
                   "--set", "run.t_end=0.01", "--set", "run.snapshot_times=[]"],
         "plot_sedov.py", ["sedov.png"]),
        ("plummer", ["--set", "setup.n_particles=500", "--set", "run.t_end=1.0",
                     "--set", "run.snapshot_interval=0.5"],
         "plot_plummer.py", ["plummer_lagrangian_radii.png"]),
        # The Evrard sphere, isothermal and cold, forms a sink by t = 0.45 (N = 432).
        ("evrard", ["--set", "setup.n_particles=400", "--set", "run.t_end=0.6",
                    "--set", "run.snapshot_times=[0.6]", "--set", "eos.type=isothermal",
                    "--set", "eos.sound_speed=0.15", "--set", "sinks.model=bate95",
                    "--set", "sinks.h_acc=0.05"],
         "plot_sinks.py", ["sink_mass.png", "sink_mass_function.png"]),
        ("sticky_clouds", ["--set", "setup.n_clouds=300", "--set", "setup.box_size=150",
                           "--set", "run.t_end=5", "--set", "run.snapshot_interval=2.5"],
         "plot_cloud_spectrum.py", ["cloud_spectrum.png", "cloud_spectrum_evolution.png"]),
        ("sticky_clouds", ["--set", "setup.n_clouds=300", "--set", "setup.box_size=150",
                           "--set", "run.t_end=5", "--set", "run.snapshot_interval=2.5"],
         "plot_phase_masses.py", ["phase_masses.png"]),
        # At 100 K every 1e4 Msun cloud is above its Jeans mass (840 Msun): stars form at once.
        # The free-fall trigger, whose rate the snapshots' clouds predict (the coalescence
        # trigger's depends on the collisions between snapshots: plot_sfr.py draws no expectation).
        ("starform_box", ["--set", "setup.n_clouds=300", "--set", "setup.box_size=150",
                          "--set", "run.t_end=5", "--set", "run.snapshot_interval=1",
                          "--set", "run.diagnostics_every=1", "--set", "starform.cloud_T_K=100",
                          "--set", "starform.clouds_trigger=free_fall"],
         "plot_sfr.py", ["sfr.png"]),
    ]
    for name, extra, tool, pngs in cases:
        out = os.path.join(tmp, name + "_" + os.path.splitext(tool)[0])
        run([mpsph, "run", os.path.join(setups, name + ".yaml"), "--output-dir", out, "--quiet"]
            + extra)
        args = [sys.executable, os.path.join(TOOLS, tool), out]
        if name.startswith("sod"):
            args += ["--time", "0.05"]
        if tool == "plot_cloud_spectrum.py":
            args += ["--evolution"]
        stdout = run(args)
        if tool == "plot_sinks.py" and not stdout.startswith("sinks: 1;"):
            sys.exit("FAILED: plot_sinks.py found no sink:\n" + stdout)
        if name == "sticky_clouds":
            check_sticky_clouds(tool, stdout)
        if name == "starform_box":
            check_starform(stdout)
        if tool == "plot_evrard.py":
            check_evrard_errors(stdout)
            check_run_info(mpsph, out)
        for p in pngs:
            path = os.path.join(out, p)
            if not os.path.isfile(path) or os.path.getsize(path) < 1000:
                sys.exit("FAILED: %s did not write %s" % (tool, path))
        print("ok: %s -> %s" % (tool, ", ".join(pngs)))
    check_galaxy_tools(mpsph, tmp, setups)
    check_remnant_tool(tmp)
    check_rank_timing(tmp, os.path.join(tmp, "evrard_plot_evrard"))
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
