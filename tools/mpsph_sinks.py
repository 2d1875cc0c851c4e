"""Reader for the sink module's files of a run (OUTDIR/sinks.csv, OUTDIR/sink_merges.csv: comment
lines starting with '#', then a column line and the rows, code units) and the run's units from its
snapshots (/Units, PartType5), shared by plot_sink_masses.py and sink_binary.py. numpy + h5py."""
import os
import sys

import h5py
import numpy as np

import mpsph_snap

MSUN = 1.98841e33  # g
MYR = 3.15576e13  # s
AU = 1.495978707e13  # cm


def read_sinks(path):
    """The rows of sinks.csv as a dict of numpy columns (empty arrays when no sink has formed)."""
    with open(path) as f:
        lines = [ln for ln in f if ln.strip() and not ln.startswith("#")]
    if not lines:
        sys.exit("%s: no header line" % path)
    header = [h.strip() for h in lines[0].split(",")]
    missing = [c for c in ("time", "id", "mass") if c not in header]
    if missing:
        sys.exit("%s: header lacks %s (got %s)" % (path, missing, header))
    rows = [[float(v) for v in ln.split(",")] for ln in lines[1:]]
    if any(len(r) != len(header) for r in rows):
        sys.exit("%s: a row does not have the %d columns of the header" % (path, len(header)))
    table = np.array(rows, dtype=float).reshape(len(rows), len(header))
    return {h: table[:, k] for k, h in enumerate(header)}


def read_run_sinks(outdir):
    """OUTDIR/sinks.csv as read_sinks returns it; exits when the run has none."""
    path = os.path.join(outdir, "sinks.csv")
    if not os.path.isfile(path):
        sys.exit("no sinks.csv in %s" % outdir)
    return read_sinks(path)


def count_merges(outdir):
    """The number of rows of OUTDIR/sink_merges.csv, or None when the run has no such file."""
    path = os.path.join(outdir, "sink_merges.csv")
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        return len([ln for ln in f if ln.strip() and not ln.startswith("#")][1:])


def row_time(times, t):
    """Of the sorted distinct row times, the one nearest t (code time); the last for t None."""
    return times[-1] if t is None else times[np.argmin(np.abs(times - t))]


def _first_snapshot_units(outdir, read):
    """read(f, units) on the run's first snapshot f with its /Units attributes, or None when there
    is no snapshot, it has no /Units or it is in N-body units."""
    snaps = mpsph_snap.snapshots(outdir)
    if not snaps:
        return None
    with h5py.File(snaps[0], "r") as f:
        if "Units" not in f:
            return None
        u = f["Units"].attrs
        if bool(np.ravel(u["N-body units"])[0]):
            return None
        return read(f, u)


def run_units(outdir):
    """(time unit in Myr, mass unit in Msun, initial total mass in code units) from the first
    snapshot, or None when there is none or it is in N-body units."""

    def read(f, u):
        total = 0.0
        for k in range(6):
            g = f.get("PartType%d" % k)
            if g is not None and "Masses" in g:
                total += float(np.sum(g["Masses"][...]))
        return (float(np.ravel(u["Unit time in cgs (U_t)"])[0]) / MYR,
                float(np.ravel(u["Unit mass in cgs (U_M)"])[0]) / MSUN, total)
    return _first_snapshot_units(outdir, read)


def length_unit_au(outdir):
    """The code length in au from the first snapshot's /Units, or None."""
    return _first_snapshot_units(
        outdir, lambda f, u: float(np.ravel(u["Unit length in cgs (U_L)"])[0]) / AU)


def first_formation(outdir):
    """The earliest PartType5/FormationTime of the last snapshot (code time), or None. A sink
    merged into another before that snapshot is not in it (sink_merges.csv lists those)."""
    snaps = mpsph_snap.snapshots(outdir)
    if not snaps:
        return None
    with h5py.File(snaps[-1], "r") as f:
        g = f.get("PartType5")
        if g is None or "FormationTime" not in g or g["FormationTime"].shape[0] == 0:
            return None
        return float(np.min(g["FormationTime"][...]))
