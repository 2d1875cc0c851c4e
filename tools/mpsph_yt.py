"""Open an mpsph snapshot in yt with the file's own units and box.

    import sys; sys.path.insert(0, "tools"); import mpsph_yt
    ds = mpsph_yt.load("output/cooling_box/snapshot_0010.h5")

Why a loader: yt's GADGET-HDF5 frontend (yt 4.1, frontends/gadget/data_structures.py,
GadgetDataset._set_code_unit_attributes) takes its units only from the unit_base argument and
otherwise assumes kpc, 1e10 Msun and km/s; it reads no unit metadata from the file. Its SWIFT
frontend does read /Units, but only for files whose /Header Code is "SWIFT", and puts the domain
at [0, BoxSize), which open-boundary runs centred on the origin do not fit. So this passes the
file's /Units as unit_base and its box as bounding_box (docs/file_format.md, "Reading with yt").
"""
import h5py
import numpy as np
import yt


def unit_base(path):
    """yt's unit_base from /Units: length, mass and velocity in cgs (1 each for N-body units, which
    yt then labels cm, g and cm/s)."""
    with h5py.File(path, "r") as f:
        u = f["Units"].attrs
        if int(np.ravel(u["N-body units"])[0]):
            return {"UnitLength_in_cm": 1.0, "UnitMass_in_g": 1.0, "UnitVelocity_in_cm_per_s": 1.0}
        return {"UnitLength_in_cm": float(np.ravel(u["Unit length in cgs (U_L)"])[0]),
                "UnitMass_in_g": float(np.ravel(u["Unit mass in cgs (U_M)"])[0]),
                "UnitVelocity_in_cm_per_s": float(np.ravel(u["Unit velocity in cgs (U_V)"])[0])}


def bounding_box(path):
    """None for a periodic cube [0, BoxSize)^3, which yt's GADGET frontend takes from BoxSize (and
    treats as periodic). Otherwise the box to pass to yt, which then switches periodicity off:
    [BoxCorner, BoxCorner + BoxEdges] for any other periodic box; for open boundaries the
    particles' extent widened by 5% of its size on each side."""
    with h5py.File(path, "r") as f:
        h = f["Header"].attrs
        if int(h["Periodic"]):
            lo = np.asarray(h["BoxCorner"], dtype=float)
            edges = np.asarray(h["BoxEdges"], dtype=float)
            if np.all(lo == 0) and np.all(edges == edges[0]):
                return None
            return np.stack([lo, lo + edges], axis=1)
        pos = np.concatenate([f[g]["Coordinates"][...] for g in f if g.startswith("PartType")])
    lo, hi = pos.min(axis=0), pos.max(axis=0)
    pad = 0.05 * np.max(hi - lo)
    return np.stack([lo - pad, hi + pad], axis=1)


def load(path, **kwargs):
    """yt.load with the snapshot's units and box; other keyword arguments go to yt.load."""
    box = bounding_box(path)
    if box is not None:
        kwargs.setdefault("bounding_box", box)
    return yt.load(path, unit_base=unit_base(path), **kwargs)
