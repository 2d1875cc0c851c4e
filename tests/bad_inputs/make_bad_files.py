#!/usr/bin/python3
"""Writes the generated part of the bad-input corpus into a scratch folder: initial-condition files
and checkpoints broken one way each (copies of a good snapshot and a good checkpoint that mpsph
itself writes, so the layout is the real one), broken copies of the SD93 cooling tables, and the
hostile YAML files too large to commit (deep nesting, huge scalars, binary garbage).

usage: make_bad_files.py <path to mpsph> <scratch folder>      (called by test_bad_inputs.py)"""
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TABLES = os.path.join(HERE, "..", "..", "data", "cooling_tables", "SD93_CIE")


def good_run(mpsph, gen):
    """A 200-particle Evrard run of one step: snapshot_0000.h5 (t = 0) and checkpoint.h5."""
    out = os.path.join(gen, "good_run")
    r = subprocess.run([mpsph, "run", os.path.join(HERE, "configs", "good.yaml"), "--output-dir",
                        out, "--quiet"], capture_output=True, text=True, timeout=120)
    if r.returncode not in (0, 3):
        sys.exit("make_bad_files: the good run failed (exit %d): %s" % (r.returncode, r.stderr))
    return os.path.join(out, "snapshot_0000.h5"), os.path.join(out, "checkpoint.h5")


def variant(src, dst, edit):
    shutil.copyfile(src, dst)
    with h5py.File(dst, "r+") as f:
        edit(f)


def replace(group, name, data):
    """Replaces dataset `name` by `data` (any shape and type)."""
    del group[name]
    group.create_dataset(name, data=data)


def set_rows(name, rows, value):
    def edit(f):
        d = f["PartType0/" + name]
        a = d[...]
        a[rows] = value
        d[...] = a
    return edit


def make_ics(snap, gen):
    # The base file: the run's first snapshot with ids 1..N in file order, so that particle k of
    # /PartType0 has id k + 1 (the corpus names particles by both).
    good = os.path.join(gen, "ic_good.h5")
    shutil.copyfile(snap, good)
    with h5py.File(good, "r+") as f:
        n = f["PartType0/ParticleIDs"].shape[0]
        f["PartType0/ParticleIDs"][...] = np.arange(1, n + 1, dtype=np.uint64)

    def ic(name, edit):
        variant(good, os.path.join(gen, "ic_" + name + ".h5"), edit)

    with open(good, "rb") as f:
        data = f.read()
    size = len(data)
    with open(os.path.join(gen, "ic_truncated.h5"), "wb") as f:
        f.write(data[: size // 2])
    with open(os.path.join(gen, "ic_superblock_only.h5"), "wb") as f:
        f.write(data[:96])
    open(os.path.join(gen, "ic_empty.h5"), "wb").close()
    with open(os.path.join(gen, "ic_text.h5"), "w") as f:
        f.write("PartType0 Coordinates 0 0 0\n")

    def no_header(f):
        del f["Header"]
    ic("no_header", no_header)

    def no_counts(f):
        for a in ("NumPart_ThisFile", "NumPart_Total"):
            del f["Header"].attrs[a]
    ic("no_counts", no_counts)

    def counts(values):
        def edit(f):
            f["Header"].attrs["NumPart_ThisFile"] = np.array(values, dtype=np.uint64)
        return edit
    ic("zero_particles", counts([0] * 6))
    ic("count_mismatch", counts([n + 100, 0, 0, 0, 0, 0]))
    ic("count_huge", counts([10 ** 15, 0, 0, 0, 0, 0]))
    ic("type_seven", counts([n, 0, 0, 0, 0, 0, 5]))

    def header_attr(name, value):
        def edit(f):
            f["Header"].attrs[name] = value
        return edit
    ic("multifile", header_attr("NumFilesPerSnapshot", 2))
    ic("late_time", header_attr("Time", 10.0))

    def group_is_dataset(f):
        del f["PartType0"]
        f.create_dataset("PartType0", data=np.zeros(3))
    ic("group_is_dataset", group_is_dataset)
    ic("coords_2d", lambda f: replace(f["PartType0"], "Coordinates", np.zeros((n, 2))))
    ic("coords_strings",
       lambda f: replace(f["PartType0"], "Coordinates", np.array([[b"x"] * 3] * n)))
    ic("ids_float", lambda f: replace(f["PartType0"], "ParticleIDs", np.arange(1.0, n + 1)))
    ic("coords_nan", set_rows("Coordinates", 17, np.nan))
    ic("vel_inf", set_rows("Velocities", 23, np.inf))
    ic("mass_negative", set_rows("Masses", 5, -1.0))
    ic("mass_zero", set_rows("Masses", 6, 0.0))
    ic("u_negative", set_rows("InternalEnergy", 7, -0.05))
    ic("u_zero", set_rows("InternalEnergy", 8, 0.0))
    ic("u_nan", set_rows("InternalEnergy", 9, np.nan))
    ic("u_missing", lambda f: f["PartType0"].__delitem__("InternalEnergy"))
    ic("h_negative", set_rows("SmoothingLength", 10, -0.1))
    ic("h_zero", set_rows("SmoothingLength", 11, 0.0))
    ic("density_nan", set_rows("Density", 12, np.nan))
    ic("duplicate_ids", set_rows("ParticleIDs", 150, 4))

    def coincident(f):
        d = f["PartType0/Coordinates"]
        a = d[...]
        a[120] = a[30]
        d[...] = a
    ic("coincident", coincident)

    def few_gas(f):
        g = f["PartType0"]
        for name in list(g.keys()):
            data = g[name][:10]
            del g[name]
            g.create_dataset(name, data=data)
        f["Header"].attrs["NumPart_ThisFile"] = np.array([10, 0, 0, 0, 0, 0], dtype=np.uint64)
        f["Header"].attrs["NumPart_Total"] = np.array([10, 0, 0, 0, 0, 0], dtype=np.uint64)
    ic("few_gas", few_gas)

    def add_type(t):
        def edit(f):
            g = f.create_group("PartType%d" % t)
            g.create_dataset("Coordinates", data=np.full((1, 3), 5.0))
            g.create_dataset("Masses", data=np.ones(1))
            g.create_dataset("ParticleIDs", data=np.array([1000], dtype=np.uint64))
            n = f["Header"].attrs["NumPart_ThisFile"].copy()
            n[t] = 1
            f["Header"].attrs["NumPart_ThisFile"] = n
            f["Header"].attrs["NumPart_Total"] = n
        return edit
    ic("clouds", add_type(2))
    ic("sinks", add_type(5))

    def no_masses(f):
        del f["PartType0/Masses"]
        f["Header"].attrs["MassTable"] = np.zeros(6)
    ic("no_masses", no_masses)

    def small_box(f):
        f["Header"].attrs["BoxSize"] = 0.5
        for a in ("BoxCorner", "BoxEdges"):
            if a in f["Header"].attrs:
                del f["Header"].attrs[a]
    ic("outside_box", small_box)

    def bad_units(f):
        f["Units"].attrs["N-body units"] = 0
        f["Units"].attrs["Unit length in cgs (U_L)"] = -1.0
    ic("bad_units", bad_units)


def make_checkpoints(ckpt, snap, gen):
    def ck(name, edit):
        variant(ckpt, os.path.join(gen, "ck_" + name + ".h5"), edit)

    shutil.copyfile(ckpt, os.path.join(gen, "ck_good.h5"))
    with open(ckpt, "rb") as f:
        data = f.read()
    with open(os.path.join(gen, "ck_truncated.h5"), "wb") as f:
        f.write(data[: 2 * len(data) // 3])
    shutil.copyfile(snap, os.path.join(gen, "ck_is_snapshot.h5"))

    def root_attr(name, value):
        def edit(f):
            f.attrs[name] = value
        return edit
    ck("version", root_attr("mpsph_checkpoint_version", 99))
    ck("count_mismatch", root_attr("NumParticles", np.uint64(250)))
    ck("count_huge", root_attr("NumParticles", np.uint64(10 ** 15)))
    ck("no_pos", lambda f: f["Particles"].__delitem__("pos"))
    ck("pos_float32", lambda f: replace(f["Particles"], "pos",
                                        f["Particles/pos"][...].astype(np.float32)))

    def rows(name, row, value):
        def edit(f):
            d = f["Particles/" + name]
            a = d[...]
            a[row] = value
            d[...] = a
        return edit
    ck("pos_nan", rows("pos", 3, np.nan))
    ck("bad_type", rows("type", 4, 9))
    ck("mass_negative", rows("mass", 5, -2.0))
    ck("u_negative", rows("u", 6, -1.0))
    ck("duplicate_ids", rows("id", 7, 1))
    ck("no_state", lambda f: f.__delitem__("State"))
    ck("no_box_scalar", lambda f: f["State/Scalars"].attrs.__delitem__("box_periodic"))
    ck("dt_nan", lambda f: f["State"].attrs.__setitem__("TimeStep", np.nan))
    ck("dt_negative", lambda f: f["State"].attrs.__setitem__("TimeStep", -1e-3))
    ck("config_garbage", lambda f: f["State"].attrs.__setitem__("ConfigYAML", "run: [1, 2\n"))


def make_tables(gen):
    def table(name, edit):
        d = os.path.join(gen, "tab_" + name)
        shutil.copytree(TABLES, d)
        edit(d)

    def lines_of(d, fname):
        with open(os.path.join(d, fname)) as f:
            return f.read().split("\n")

    def write_lines(d, fname, lines):
        with open(os.path.join(d, fname), "w") as f:
            f.write("\n".join(lines))

    def data_row(lines, k):
        """Index of the k-th data row (after the title and the header)."""
        seen = 0
        for i, line in enumerate(lines):
            if line.strip() and line.split()[0][0].isdigit() and "." in line.split()[0]:
                if seen == k:
                    return i
                seen += 1
        raise RuntimeError("no data row %d" % k)

    table("missing_file", lambda d: os.remove(os.path.join(d, "m-10.cie")))

    def truncated(d):
        p = os.path.join(d, "m-00.cie")
        with open(p, "rb") as f:
            data = f.read()
        with open(p, "wb") as f:
            f.write(data[: len(data) // 2])
    table("truncated", truncated)

    def cell(value, k=20, col=5, fname="m-05.cie"):
        def edit(d):
            lines = lines_of(d, fname)
            i = data_row(lines, k)
            cells = lines[i].split("\t")
            cells[col] = value
            lines[i] = "\t".join(cells)
            write_lines(d, fname, lines)
        return edit
    table("not_a_number", cell("-2l.34"))
    table("nan", cell("nan"))
    table("ne_negative", cell("-0.5", col=1))

    def header(d):
        lines = lines_of(d, "m-20.cie")
        i = next(k for k, line in enumerate(lines) if line.startswith("log(T)"))
        lines[i] = lines[i].replace("log(lambda norm)", "log(lambda)")
        write_lines(d, "m-20.cie", lines)
    table("wrong_header", header)

    def skipped_row(d):
        lines = lines_of(d, "m-15.cie")
        del lines[data_row(lines, 40)]
        write_lines(d, "m-15.cie", lines)
    table("skipped_row", skipped_row)

    def short_row(d):
        lines = lines_of(d, "m-30.cie")
        i = data_row(lines, 3)
        lines[i] = "\t".join(lines[i].split("\t")[:7])
        write_lines(d, "m-30.cie", lines)
    table("short_row", short_row)

    table("empty_file", lambda d: open(os.path.join(d, "mzero.cie"), "w").close())

    def garbage(d):
        with open(os.path.join(d, "m+05.cie"), "wb") as f:
            f.write(bytes(np.random.default_rng(5).integers(0, 256, 4096, dtype=np.uint8)))
    table("binary", garbage)


def make_hostile_yaml(gen):
    def write(name, data):
        with open(os.path.join(gen, name), "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())

    base = "run: {t_end: 1}\nsetup: {type: evrard}\ngravity: {softening: [0.01]}\n"
    write("deep_flow.yaml", base + "sph: " + "[" * 100000 + "]" * 100000 + "\n")
    write("deep_block.yaml", base + "".join("  " * k + "k%d:\n" % k for k in range(500)) +
          "  " * 500 + "x: 1\n")
    write("huge_scalar.yaml", base.replace("evrard", "evrard, path: " + "x" * (20 << 20)))
    write("long_value.yaml", base + "sph: {alpha: '" + "7" * 200000 + "'}\n")
    write("huge_file.yaml", base + "".join("# padding line %d of a config that never ends\n" % k
                                           for k in range(200000)))
    write("many_keys.yaml", base + "extra:\n" + "".join("  key%d: %d\n" % (k, k)
                                                       for k in range(300000)))
    rng = np.random.default_rng(7)
    write("binary.yaml", bytes(rng.integers(0, 256, 65536, dtype=np.uint8)))
    write("nul_bytes.yaml", base.encode()[:20] + b"\0" * 64 + base.encode()[20:])


def main():
    mpsph, gen = os.path.abspath(sys.argv[1]), sys.argv[2]
    os.makedirs(gen, exist_ok=True)
    snap, ckpt = good_run(mpsph, gen)
    make_ics(snap, gen)
    make_checkpoints(ckpt, snap, gen)
    make_tables(gen)
    make_hostile_yaml(gen)
    os.makedirs(os.path.join(gen, "empty_dir"), exist_ok=True)  # not a run directory
    # Plain files that output directories cannot be made in or under.
    with open(os.path.join(gen, "a_file"), "w") as f:
        f.write("not a directory\n")


if __name__ == "__main__":
    main()
