"""Galaxy snapshots for the disk and merger plot tools: particles per type in kpc, km/s and Msun
(from the snapshot's /Units), the galaxy's centre and the rotation into its disk plane.
numpy + h5py only."""
import h5py
import numpy as np

KPC_CM = 3.0856775814913673e21
MSUN_G = 1.98841e33
KMS_CMS = 1e5
G_KPC_MSUN_KMS = 4.30091e-6  # G in kpc (km/s)^2 / Msun
TYPE_NAMES = {0: "gas", 1: "dark matter", 2: "cold clouds", 3: "stars (IC: disk + bulge)",
              4: "new stars", 5: "sinks"}


def load(path, galaxy=None):
    """Returns (time in Myr, {type: dict with x [kpc], v [km/s], m [Msun], u [(km/s)^2], and for
    star particles birth [Myr] and m0 [Msun] (BirthTime, InitialMass) where the snapshot has them}).
    galaxy: keep only particles with that GalaxyID (needs the GalaxyID dataset)."""
    out = {}
    with h5py.File(path, "r") as f:
        units = f["Units"].attrs
        L = float(units["Unit length in cgs (U_L)"][0]) / KPC_CM
        M = float(units["Unit mass in cgs (U_M)"][0]) / MSUN_G
        V = float(units["Unit velocity in cgs (U_V)"][0]) / KMS_CMS
        t_unit_myr = float(units["Unit time in cgs (U_t)"][0]) / 3.15576e13
        t = float(f["Header"].attrs["Time"]) * t_unit_myr
        for ptype in range(6):
            g = f.get("PartType%d" % ptype)
            if g is None or g["Coordinates"].shape[0] == 0:
                continue
            d = {"x": g["Coordinates"][...] * L, "v": g["Velocities"][...] * V,
                 "m": g["Masses"][...] * M}
            if "InternalEnergy" in g:
                d["u"] = g["InternalEnergy"][...] * V * V
            if "BirthTime" in g:
                d["birth"] = g["BirthTime"][...] * t_unit_myr
            if "InitialMass" in g:
                d["m0"] = g["InitialMass"][...] * M
            if galaxy is not None:
                if "GalaxyID" not in g:
                    raise SystemExit("%s: no GalaxyID dataset to select galaxy %d" % (path, galaxy))
                sel = g["GalaxyID"][...] == galaxy
                d = {k: a[sel] for k, a in d.items()}
            if len(d["m"]):
                out[ptype] = d
    return t, out


def centre(parts, iterations=12):
    """Shrinking-sphere centre of the stars (gas and stars if none) and their mean velocity
    within 5 kpc of it."""
    src = [parts[k] for k in (3, 4) if k in parts] or [parts[k] for k in (0, 2) if k in parts]
    if not src:
        src = list(parts.values())
    x = np.concatenate([d["x"] for d in src])
    v = np.concatenate([d["v"] for d in src])
    m = np.concatenate([d["m"] for d in src])
    c = np.average(x, axis=0, weights=m)
    r = np.max(np.linalg.norm(x - c, axis=1))
    for _ in range(iterations):
        sel = np.linalg.norm(x - c, axis=1) < r
        if np.count_nonzero(sel) < 100:
            break
        c = np.average(x[sel], axis=0, weights=m[sel])
        r *= 0.7
    sel = np.linalg.norm(x - c, axis=1) < 5.0
    vc = np.average(v[sel], axis=0, weights=m[sel]) if np.any(sel) else np.zeros(3)
    return c, vc


def disk_frame(parts, c, vc, radius=10.0):
    """Rotation matrix whose third row is the unit angular momentum of the gas and stars within
    `radius` kpc of the centre (the disk's spin)."""
    L = np.zeros(3)
    for k in (0, 2, 3, 4):
        if k in parts:
            d = parts[k]
            x, v = d["x"] - c, d["v"] - vc
            sel = np.linalg.norm(x, axis=1) < radius
            L += np.sum(d["m"][sel, None] * np.cross(x[sel], v[sel]), axis=0)
    if not np.any(L):
        return np.eye(3)
    ez = L / np.linalg.norm(L)
    ex = np.cross([0.0, 1.0, 0.0] if abs(ez[1]) < 0.9 else [1.0, 0.0, 0.0], ez)
    ex /= np.linalg.norm(ex)
    return np.array([ex, np.cross(ez, ex), ez])


def to_frame(parts, rotate=True):
    """Positions and velocities relative to the centre, rotated into the disk frame."""
    c, vc = centre(parts)
    rot = disk_frame(parts, c, vc) if rotate else np.eye(3)
    out = {}
    for k, d in parts.items():
        e = dict(d)
        e["x"] = (d["x"] - c) @ rot.T
        e["v"] = (d["v"] - vc) @ rot.T
        out[k] = e
    return out


def annulus_areas(edges):
    """Areas [kpc^2] of the annuli between the radii `edges` [kpc]."""
    return np.pi * (edges[1:] ** 2 - edges[:-1] ** 2)


def annulus_sums(d, w, edges, z_max=None):
    """Sums of the weights w over the particles d (a dict with x [kpc] in the disk frame, as
    to_frame gives) in the annuli edges[i] <= R < edges[i + 1] of cylindrical radius
    R = hypot(x, y) [kpc]; only |z| < z_max when given. Each sum is taken directly (np.bincount),
    not as a difference of running sums, so a light outer annulus keeps its own precision."""
    R = np.hypot(d["x"][:, 0], d["x"][:, 1])
    if z_max is not None:
        sel = np.abs(d["x"][:, 2]) < z_max
        R, w = R[sel], w[sel]
    n = len(edges) - 1
    idx = np.digitize(R, edges) - 1
    inside = (idx >= 0) & (idx < n)
    return np.bincount(idx[inside], weights=w[inside], minlength=n)
