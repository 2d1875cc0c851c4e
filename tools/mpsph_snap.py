"""Small reader for mpsph snapshots and energy logs (numpy + h5py), shared by the plot scripts."""
import glob
import os

import h5py
import numpy as np


def snapshots(outdir):
    """Sorted list of snapshot files in an output directory."""
    return sorted(glob.glob(os.path.join(outdir, "snapshot_*.h5")))


def load(path, ptype=0):
    """Returns (time, dict of datasets) for one particle type of a snapshot."""
    with h5py.File(path, "r") as f:
        t = float(f["Header"].attrs["Time"])
        g = f.get("PartType%d" % ptype)
        data = {k: g[k][...] for k in g.keys()} if g is not None else {}
    return t, data


def snapshot_near(outdir, t_want):
    """The snapshot whose time is closest to t_want."""
    best, dt = None, np.inf
    for p in snapshots(outdir):
        with h5py.File(p, "r") as f:
            t = float(f["Header"].attrs["Time"])
        if abs(t - t_want) < dt:
            best, dt = p, abs(t - t_want)
    return best


def energy(outdir):
    """energy.csv as a numpy structured array (the '#' header lines skipped)."""
    path = os.path.join(outdir, "energy.csv")
    with open(path) as f:
        n_comment = 0
        for line in f:
            if not line.startswith("#"):
                break
            n_comment += 1
    return np.genfromtxt(path, delimiter=",", names=True, skip_header=n_comment)


def binned(x, y, bins):
    """Mean of y in bins of x (NaN where empty)."""
    idx = np.digitize(x, bins) - 1
    out = np.full(len(bins) - 1, np.nan)
    for i in range(len(bins) - 1):
        sel = idx == i
        if np.any(sel):
            out[i] = np.mean(y[sel])
    return out
