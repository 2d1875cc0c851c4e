#!/usr/bin/python3
"""Writes the seed corpus of the fuzz harnesses into fuzz/corpus/<harness>/ (committed; rerun only
to change it).

  config_fuzz:      the setups/*.yaml files and a few small configs that reach other branches
                    (physical units, cooling, periodic boxes, lists, anchors, flow style)
  ic_reader_fuzz:   small GADGET/SWIFT-layout HDF5 files written with h5py (gas only, a MassTable
                    type without Masses, float32 SWIFT-style, several types) and the first
                    snapshot of a 100-particle mpsph run
  checkpoint_fuzz:  the checkpoint of that run and a copy cut down to 3 particles

usage: fuzz/make_corpus.py <path to mpsph>"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CONFIGS = {
    "minimal.yaml": "run: {t_end: 1}\nsetup: {type: evrard, n_particles: 100}\n"
                    "gravity: {softening: [0.01]}\n",
    "physical.yaml": "run: {t_end: 1e-3, snapshot_times: [1e-4, 5e-4]}\n"
                     "units: {system: physical, length: kpc, mass: 1e10Msun, velocity: km/s}\n"
                     "setup: {type: plummer, n_particles: 200}\n"
                     "gravity: {method: direct, softening: [0.01, 0.02, 0.01, 0.01, 0.01, 0.01]}\n",
    "cooling.yaml": "run: {t_end: 0.1, diagnostics_every: 5}\n"
                    "units: {system: physical, length: pc, mass: Msun, velocity: km/s}\n"
                    "setup: {type: cooling_box}\ncooling: {model: sd93}\ngravity: {enabled: false}\n",
    "anchors.yaml": "run: &r {t_end: 2}\nsetup:\n  type: file\n  path: \"ic.h5\"\n"
                    "sph: {n_neighbours: 50, energy_equation: symmetric}\n"
                    "gravity: {softening: &s [0.01]}\n",
    "lists.yaml": "run:\n  t_end: 3\n  snapshot_times:\n    - 0.5\n    - 1.5\n"
                  "  snapshot_fields: [Acceleration, Potential]\n"
                  "setup: {type: sod, nx_left: 12, ny_left: 6}\ngravity: {enabled: false}\n"
                  "timestep: {scheme: block, dt_max: 0.01}\n",
}


def h5_ic(path, types, swift=False):
    """A GADGET (or SWIFT-style float32 / NumPart_Total) IC file with n_t particles of type t."""
    rng = np.random.default_rng(7)
    with h5py.File(path, "w", libver="earliest") as f:
        counts = [0] * 6
        for t, n in types.items():
            counts[t] = n
        h = f.create_group("Header")
        h.attrs["NumPart_ThisFile" if not swift else "NumPart_Total"] = np.array(counts, "u4")
        masses = np.zeros(6)
        if 1 in types:
            masses[1] = 0.01  # type 1 gets its mass from the table
        h.attrs["MassTable"] = masses
        h.attrs["Time"] = 0.0
        h.attrs["BoxSize"] = 1.0
        first = 1
        for t, n in types.items():
            g = f.create_group("PartType%d" % t)
            ft = "f4" if swift else "f8"
            g["Coordinates"] = rng.random((n, 3)).astype(ft)
            g["Velocities"] = np.zeros((n, 3), ft)
            g["ParticleIDs"] = np.arange(first, first + n, dtype="u8")
            first += n
            if masses[t] == 0:
                g["Masses"] = np.full(n, 1.0 / n, ft)
            if t == 0:
                g["InternalEnergy"] = np.full(n, 0.05, ft)


def cut_checkpoint(src, dst, keep):
    """A copy of checkpoint `src` holding its first `keep` particles (all of them gas)."""
    with h5py.File(src, "r") as a, h5py.File(dst, "w", libver="earliest") as b:
        for k, v in a.attrs.items():
            b.attrs[k] = v
        b.attrs["NumParticles"] = np.uint64(keep)
        a.copy("State", b)
        p = b.create_group("Particles")
        for name, d in a["Particles"].items():
            p.create_dataset(name, data=d[:keep], dtype=d.dtype)


def main():
    mpsph = os.path.abspath(sys.argv[1])
    out = {h: os.path.join(HERE, "corpus", h) for h in
           ("config_fuzz", "ic_reader_fuzz", "checkpoint_fuzz")}
    for d in out.values():
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)

    for p in glob.glob(os.path.join(ROOT, "setups", "*.yaml")):
        shutil.copy(p, out["config_fuzz"])
    for name, text in CONFIGS.items():
        with open(os.path.join(out["config_fuzz"], name), "w") as f:
            f.write(text)

    h5_ic(os.path.join(out["ic_reader_fuzz"], "gas4.h5"), {0: 4})
    h5_ic(os.path.join(out["ic_reader_fuzz"], "gas_dm_masstable.h5"), {0: 3, 1: 2})
    h5_ic(os.path.join(out["ic_reader_fuzz"], "swift_f32.h5"), {0: 3, 4: 1}, swift=True)

    tmp = tempfile.mkdtemp(prefix="mpsph_corpus_")
    run = os.path.join(tmp, "run")
    subprocess.run([mpsph, "run", "--quiet", os.path.join(ROOT, "setups", "evrard.yaml"),
                    "--output-dir", run, "--set", "setup.n_particles=100", "--set",
                    "run.max_steps=1", "--set", "run.snapshot_times=[]"], check=False)
    shutil.copy(os.path.join(run, "snapshot_0000.h5"),
                os.path.join(out["ic_reader_fuzz"], "mpsph_snapshot.h5"))
    shutil.copy(os.path.join(run, "checkpoint.h5"),
                os.path.join(out["checkpoint_fuzz"], "evrard100.h5"))
    cut_checkpoint(os.path.join(run, "checkpoint.h5"),
                   os.path.join(out["checkpoint_fuzz"], "three.h5"), 3)
    shutil.rmtree(tmp)
    for h, d in out.items():
        files = sorted(os.listdir(d))
        print("%s: %d files, %d bytes" % (h, len(files),
                                          sum(os.path.getsize(os.path.join(d, n)) for n in files)))


if __name__ == "__main__":
    main()
