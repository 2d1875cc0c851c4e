#!/usr/bin/env python3
"""Checks with h5py that an mpsph snapshot has the GADGET-4 / SWIFT layout of docs/file_format.md.

Usage (ctest runs it in the build directory):
    test_snapshot_layout.py <mpsph binary> [<mpsph_unit_tests binary>]

The sample file test_output/sample_snapshot.h5 is written by the Catch2 test case tagged
[io][sample]; given the unit-test binary, this script runs that test case itself first, so the
check never depends on test order. Without it an existing sample is checked. Exit 77 = skipped.
"""
import os
import subprocess
import sys

SKIP = 77
G_CGS = 6.6743e-8  # cm^3 g^-1 s^-2, as in src/core/constants.hpp

# The sample writer's particle numbers per type (tests/io/snapshot_test.cpp).
SAMPLE_COUNTS = [10, 7, 4, 0, 3, 0]

# /Header attribute -> (numpy dtype, shape), as GADGET-4 (counts, MassTable, Time, ...) and the
# GADGET-2/SWIFT legacy header (high word, flags, cosmology) write them.
HEADER = {
    "NumPart_ThisFile": ("uint64", (6,)),
    "NumPart_Total": ("uint64", (6,)),
    "NumPart_Total_HighWord": ("uint32", (6,)),
    "MassTable": ("float64", (6,)),
    "Time": ("float64", ()),
    "Redshift": ("float64", ()),
    "BoxSize": ("float64", ()),
    "NumFilesPerSnapshot": ("int32", ()),
    "Omega0": ("float64", ()),
    "OmegaLambda": ("float64", ()),
    "HubbleParam": ("float64", ()),
    "Flag_Sfr": ("int32", ()),
    "Flag_Cooling": ("int32", ()),
    "Flag_Feedback": ("int32", ()),
    "Flag_StellarAge": ("int32", ()),
    "Flag_Metals": ("int32", ()),
    "Flag_DoublePrecision": ("int32", ()),
    "Flag_Entropy_ICs": ("uint32", (6,)),
    "Step": ("int64", ()),
    "Periodic": ("int32", ()),
    "BoxCorner": ("float64", (3,)),
    "BoxEdges": ("float64", (3,)),
}

UNITS = [
    "Unit mass in cgs (U_M)",
    "Unit length in cgs (U_L)",
    "Unit time in cgs (U_t)",
    "Unit current in cgs (U_I)",
    "Unit temperature in cgs (U_T)",
    "Unit velocity in cgs (U_V)",
    "Gravitational constant in code units (G)",
]

GADGET_UNIT_ATTRS = ["a_scaling", "h_scaling", "length_scaling", "mass_scaling",
                     "velocity_scaling", "to_cgs"]
SWIFT_EXPONENTS = ["U_M exponent", "U_L exponent", "U_t exponent", "U_I exponent",
                   "U_T exponent", "h-scale exponent", "a-scale exponent"]
SWIFT_FACTORS = ["Conversion factor to CGS (not including cosmological corrections)",
                 "Conversion factor to physical CGS (including cosmological corrections)"]

# Dataset -> (dtype, columns or None, code-unit exponents (length, mass, velocity), gas only).
# Acceleration and Potential are the extra fields the sample requests.
DATASETS = {
    "Coordinates": ("float64", 3, (1, 0, 0), False),
    "Velocities": ("float64", 3, (0, 0, 1), False),
    "Masses": ("float64", None, (0, 1, 0), False),
    "ParticleIDs": ("uint64", None, (0, 0, 0), False),
    "InternalEnergy": ("float64", None, (0, 0, 2), True),
    "Density": ("float32", None, (-3, 1, 0), True),
    "SmoothingLength": ("float32", None, (1, 0, 0), True),
    "Acceleration": ("float64", 3, (-1, 0, 2), False),
    "Potential": ("float64", None, (0, 0, 2), False),
}


def close(a, b, rel=1e-12):
    return abs(a - b) <= rel * max(abs(a), abs(b))


def attr_type(obj, name):
    """(dtype name, shape) of an attribute as stored in the file."""
    aid = obj.attrs.get_id(name)
    return aid.dtype.name, aid.shape


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def check(path, h5py):
    errors = []
    f = h5py.File(path, "r")

    header = f["Header"]
    for name, want in HEADER.items():
        if name not in header.attrs:
            errors.append(f"/Header lacks {name}")
        elif attr_type(header, name) != want:
            errors.append(f"/Header {name} is {attr_type(header, name)}, expected {want}")
    counts = [int(n) for n in header.attrs["NumPart_ThisFile"]]
    if counts != SAMPLE_COUNTS:
        errors.append(f"NumPart_ThisFile = {counts}, the sample writer wrote {SAMPLE_COUNTS}")
    if list(header.attrs["NumPart_Total"]) != list(header.attrs["NumPart_ThisFile"]):
        errors.append("NumPart_Total differs from NumPart_ThisFile in a one-file snapshot")
    if any(header.attrs["NumPart_Total_HighWord"]):
        errors.append("NumPart_Total_HighWord must be 0 (NumPart_Total is 64-bit)")
    if header.attrs["OmegaLambda"] != 0 or header.attrs["Redshift"] != 0:
        errors.append("a non-cosmological snapshot needs OmegaLambda = 0 and Redshift = 0")
    if header.attrs["NumFilesPerSnapshot"] != 1 or header.attrs["Flag_DoublePrecision"] != 1:
        errors.append("NumFilesPerSnapshot and Flag_DoublePrecision must be 1")

    units = f["Units"]
    for name in UNITS:
        if name not in units.attrs:
            errors.append(f"/Units lacks '{name}'")
        elif attr_type(units, name) != ("float64", (1,)):
            errors.append(f"/Units '{name}' is {attr_type(units, name)}, expected float64 (1,)")
    if attr_type(units, "N-body units") != ("int32", (1,)):
        errors.append("/Units 'N-body units' must be int32 (1,)")
    U_L = float(units.attrs["Unit length in cgs (U_L)"][0])
    U_M = float(units.attrs["Unit mass in cgs (U_M)"][0])
    U_t = float(units.attrs["Unit time in cgs (U_t)"][0])
    U_V = float(units.attrs["Unit velocity in cgs (U_V)"][0])
    G = float(units.attrs["Gravitational constant in code units (G)"][0])
    if not close(U_t, U_L / U_V, 1e-15):
        errors.append(f"U_t = {U_t} is not U_L / U_V = {U_L / U_V}")
    if not close(G, G_CGS * U_M * U_t**2 / U_L**3):
        errors.append(f"G = {G} is not G_cgs U_M U_t^2 / U_L^3")

    params = f["Parameters"]
    if "n_neighbours" not in text(params.attrs.get("ConfigYAML", b"")):
        errors.append("/Parameters ConfigYAML does not hold the sample's config text")
    if params.attrs.get("UnitLength_in_cm") != U_L:
        errors.append("/Parameters UnitLength_in_cm differs from /Units U_L")

    for t, n in enumerate(counts):
        group = f"PartType{t}"
        if n == 0:
            if group in f:
                errors.append(f"/{group} exists but holds no particles")
            continue
        if group not in f:
            errors.append(f"/{group} missing for {n} particles")
            continue
        g = f[group]
        for name, (dtype, cols, dim, gas_only) in DATASETS.items():
            where = f"/{group}/{name}"
            if gas_only and t != 0:
                if name in g:
                    errors.append(f"{where}: a gas-only field in a non-gas type")
                continue
            if name not in g:
                errors.append(f"{where} missing")
                continue
            d = g[name]
            shape = (n,) if cols is None else (n, cols)
            if d.shape != shape or d.dtype.name != dtype:
                errors.append(f"{where} is {d.dtype.name} {d.shape}, expected {dtype} {shape}")
            for a in GADGET_UNIT_ATTRS:
                if a not in d.attrs or attr_type(d, a) != ("float64", ()):
                    errors.append(f"{where}: GADGET attribute {a} missing or not a float64 scalar")
            for a in SWIFT_EXPONENTS:
                if a not in d.attrs or attr_type(d, a) != ("float32", (1,)):
                    errors.append(f"{where}: SWIFT attribute '{a}' missing or not float32 (1,)")
            for a in SWIFT_FACTORS:
                if a not in d.attrs or attr_type(d, a) != ("float64", (1,)):
                    errors.append(f"{where}: SWIFT attribute '{a}' missing or not float64 (1,)")
            if not text(d.attrs.get("Description", b"")):
                errors.append(f"{where}: empty Description")
            if errors and errors[-1].startswith(where):
                continue
            # Code units L, M, V with t = L / V: GADGET scalings are (l, m, v) and SWIFT's base
            # exponents are L^(l+v) M^m t^(-v).
            l, m, v = dim
            got = (d.attrs["length_scaling"], d.attrs["mass_scaling"], d.attrs["velocity_scaling"])
            if tuple(float(x) for x in got) != (l, m, v):
                errors.append(f"{where}: GADGET scalings {got}, expected {(l, m, v)}")
            swift = tuple(float(d.attrs[a][0]) for a in SWIFT_EXPONENTS[:3])
            if swift != (m, l + v, -v):
                errors.append(f"{where}: SWIFT (M, L, t) exponents {swift}, expected {(m, l + v, -v)}")
            factor = U_L**l * U_M**m * U_V**v
            if not close(float(d.attrs["to_cgs"]), factor):
                errors.append(f"{where}: to_cgs {d.attrs['to_cgs']} != {factor}")
            if not close(float(d.attrs[SWIFT_FACTORS[0]][0]), factor):
                errors.append(f"{where}: SWIFT conversion factor != {factor}")
            # The SWIFT route to cgs, U_M^a U_L^b U_t^c with the file's exponents, must agree.
            if not close(U_M**swift[0] * U_L**swift[1] * U_t**swift[2], factor):
                errors.append(f"{where}: SWIFT exponents do not reproduce to_cgs")
    return errors


def main():
    try:
        import h5py  # noqa: F401 (imported here so a missing module skips, not fails)
    except ImportError as e:
        print(f"SKIPPED: needs h5py ({e}); use Debian's /usr/bin/python3")
        return SKIP
    sample = os.path.join(os.getcwd(), "test_output", "sample_snapshot.h5")
    if len(sys.argv) > 2:
        if os.path.exists(sample):
            os.remove(sample)  # never check a stale file from an older build
        run = subprocess.run([sys.argv[2], "[io][sample]"], capture_output=True, text=True)
        if run.returncode != 0:
            print(run.stdout + run.stderr)
            print(f"FAILED: the sample writer {sys.argv[2]} exited with {run.returncode}")
            return 1
    if not os.path.exists(sample):
        print(f"SKIPPED: {sample} not found; it is written by `mpsph_unit_tests \"[io][sample]\"`")
        return SKIP
    errors = check(sample, h5py)
    for e in errors:
        print("FAILED:", e)
    if errors:
        return 1
    print(f"OK: {sample} has the GADGET-4/SWIFT layout")
    return 0


if __name__ == "__main__":
    sys.exit(main())
