#!/usr/bin/python3
"""Reference solution of the Evrard (1988) collapse: 1D spherical Lagrangian hydrodynamics with
self-gravity, independent of the SPH code.

Initial state (G = M = R = 1): rho = M / (2 pi R^2 r) for r < R, so M(r) = r^2; u = 0.05 GM/R;
at rest; gamma = 5/3; vacuum outside R.

Scheme (Richtmyer & Morton 1967, ch. 12, the staggered Lagrangian scheme):
- N zones between N+1 shell interfaces (nodes) r_0 = 0 < r_1 < ... < r_N, initially equally
  spaced in r. Zones carry mass dm_j, density, specific internal energy e_j; nodes carry r, v.
- Node i (>= 1) carries half of each neighbouring zone's mass, node 0 half of zone 1 (fixed at
  the centre). Momentum: m_i dv_i/dt = -4 pi r_i^2 [(P + q)_{i+1} - (P + q)_i]
  - G m_i M_i^g / r_i^2, with (P + q) = 0 outside the outermost zone (vacuum). M_i^g = (node mass
  inside r_i) + m_i / 2 makes the thin-shell potential energy W = -G sum m_i M_i^g / r_i the exact
  potential of these forces (M_i^g equals the mass inside r_i for equal zone masses).
- Energy: de_j = -(P + q)_j d(1/rho_j), with P and q averaged over the step as the two half
  kicks apply them, P^{n+1} solved for exactly (ideal gas): total energy is then conserved to
  second order in dt (measured: 4e-6 at t = 0.8 with 1000 shells, CFL 0.3).
- Artificial viscosity in compressed zones (dv_j = v_j - v_{j-1} < 0): von Neumann & Richtmyer
  (1950) q = c2 rho dv^2, plus Landshoff's (1955) linear term c1 rho c_s |dv| that damps the
  post-shock ringing of the quadratic term.
- Kick-drift-kick leapfrog with dt = C min_j dr_j / (c_s + 2 (c1 + c2) |dv_j|) (zones) and the
  free-fall limit dt <= C dr_j / |dv_j|; the step is shortened to land on each output time.

usage: /usr/bin/python3 tools/evrard_1d.py --shells 4000 --times 0.8 --out data/reference/evrard_1d
writes <out>_t<time>.csv for each time, with a '#' header holding the command, solver, shell
count, date, units and columns.
"""
import argparse
import datetime
import sys
import time as wallclock

import numpy as np

GAMMA = 5.0 / 3.0
G = 1.0


class Evrard1D:
    def __init__(self, n, u0=0.05, c1=0.5, c2=2.0, cfl=0.3):
        self.n, self.c1, self.c2, self.cfl = n, c1, c2, cfl
        self.r = np.linspace(0.0, 1.0, n + 1)
        self.v = np.zeros(n + 1)
        # Zone masses from M(r) = r^2 (G = M = R = 1): exact for the 1/r profile.
        self.dm = np.diff(self.r**2)
        self.rho = self.dm / self.zone_volume(self.r)
        self.e = np.full(n, u0)
        self.p = (GAMMA - 1.0) * self.rho * self.e
        self.q = np.zeros(n)
        # Node masses: half of each adjacent zone (node 0 keeps half of zone 1, at the centre).
        self.m = np.zeros(n + 1)
        self.m[:-1] += 0.5 * self.dm
        self.m[1:] += 0.5 * self.dm
        inside = np.concatenate(([0.0], np.cumsum(self.m)[:-1]))
        self.mgrav = inside + 0.5 * self.m
        self.t = 0.0
        self.steps = 0
        self.acc = self.acceleration()

    @staticmethod
    def zone_volume(r):
        return 4.0 * np.pi / 3.0 * np.diff(r**3)

    def acceleration(self):
        ptot = np.concatenate((self.p + self.q, [0.0]))
        a = np.zeros(self.n + 1)
        ri = self.r[1:]
        a[1:] = (-4.0 * np.pi * ri**2 * (ptot[1:] - ptot[:-1]) / self.m[1:]
                 - G * self.mgrav[1:] / ri**2)
        return a

    def sound_speed(self):
        return np.sqrt(GAMMA * self.p / self.rho)

    def time_step(self):
        dr = np.diff(self.r)
        dv = np.abs(np.diff(self.v))
        signal = self.sound_speed() + 2.0 * (self.c1 + self.c2) * dv
        return self.cfl * np.min(dr / np.maximum(signal, 1e-300))

    def step(self, dt):
        vhalf = self.v + 0.5 * dt * self.acc
        vol_old = 1.0 / self.rho
        self.r = self.r + dt * vhalf
        self.r[0] = 0.0
        if np.any(np.diff(self.r) <= 0.0):
            raise RuntimeError("shells crossed at t = %g; lower --cfl" % self.t)
        rho_new = self.dm / self.zone_volume(self.r)
        vol_new = 1.0 / rho_new
        dvol = vol_new - vol_old
        # Viscosity from the velocities during the step and the mid-step density.
        dv = np.diff(vhalf)
        rho_mid = 2.0 / (vol_old + vol_new)
        comp = dv < 0.0
        q = np.where(comp, rho_mid * (self.c2 * dv**2 + self.c1 * self.sound_speed() * np.abs(dv)),
                     0.0)
        # e^{n+1} = e^n - ((P^n + P^{n+1}) / 2 + (q^{n-1/2} + q^{n+1/2}) / 2) dV with
        # P^{n+1} = (gamma - 1) rho^{n+1} e^{n+1}: the step-averaged (P + q) that the two half
        # kicks apply to the nodes, so the work matches.
        qbar = 0.5 * (self.q + q)
        self.e = (self.e - (0.5 * self.p + qbar) * dvol) / (1.0 + 0.5 * (GAMMA - 1.0) * rho_new * dvol)
        if np.any(self.e <= 0.0):
            raise RuntimeError("negative internal energy at t = %g; lower --cfl" % self.t)
        self.rho = rho_new
        self.p = (GAMMA - 1.0) * self.rho * self.e
        self.q = q
        self.acc = self.acceleration()
        self.v = vhalf + 0.5 * dt * self.acc
        self.t += dt
        self.steps += 1

    def run_to(self, t_out):
        while self.t < t_out * (1.0 - 1e-14):
            dt = self.time_step()
            dv = np.abs(np.diff(self.v))
            with np.errstate(divide="ignore"):
                dt = min(dt, self.cfl * np.min(np.diff(self.r) / dv))
            self.step(min(dt, t_out - self.t))

    def energies(self):
        kinetic = 0.5 * np.sum(self.m * self.v**2)
        thermal = np.sum(self.dm * self.e)
        potential = -G * np.sum(self.m[1:] * self.mgrav[1:] / self.r[1:])
        return kinetic, thermal, potential

    def profile(self):
        """Zone values at the zone's half-volume radius; v interpolated linearly between nodes."""
        r3 = self.r**3
        rc = (0.5 * (r3[:-1] + r3[1:]))**(1.0 / 3.0)
        w = (rc - self.r[:-1]) / np.diff(self.r)
        vc = (1.0 - w) * self.v[:-1] + w * self.v[1:]
        mass = np.cumsum(self.dm) - 0.5 * self.dm
        entropy = self.p / self.rho**GAMMA
        return {"r": rc, "rho": self.rho, "v_r": vc, "u": self.e, "P": self.p, "A": entropy,
                "M_r": mass}


def read_csv(path):
    """A profile written by write_csv, as a dict of columns."""
    with open(path) as f:
        cols = [line for line in f if line.startswith("#")][-1].lstrip("# ").strip().split(",")
    data = np.loadtxt(path, delimiter=",", comments="#")
    return {c: data[:, i] for i, c in enumerate(cols)}


def shock_radius(prof):
    """Radius of the steepest velocity rise (the accretion shock)."""
    i = np.argmax(np.diff(prof["v_r"]) / np.diff(prof["r"]))
    return 0.5 * (prof["r"][i] + prof["r"][i + 1])


def compare(prof, ref, rmin=0.01, rmax=0.8, n=400):
    """Mean absolute differences of log10 rho, v_r and log10 A between two profiles at n
    log-spaced radii in [rmin, rmax]."""
    r = np.geomspace(rmin, rmax, n)
    out = {}
    for key, log in (("rho", True), ("v_r", False), ("A", True)):
        a = np.interp(r, prof["r"], prof[key])
        b = np.interp(r, ref["r"], ref[key])
        out[key] = np.mean(np.abs(np.log10(a / b) if log else a - b))
    return out


def write_csv(path, prof, header_lines):
    cols = ["r", "rho", "v_r", "u", "P", "A", "M_r"]
    data = np.column_stack([prof[c] for c in cols])
    header = "\n".join(header_lines + [",".join(cols)])
    # The column names are the last '#' line.
    np.savetxt(path, data, delimiter=",", header=header, comments="# ", fmt="%.7e")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--shells", type=int, default=4000)
    ap.add_argument("--times", type=float, nargs="+", default=[0.8])
    ap.add_argument("--cfl", type=float, default=0.3)
    ap.add_argument("--c1", type=float, default=0.5, help="linear viscosity coefficient")
    ap.add_argument("--c2", type=float, default=2.0, help="quadratic (vNR) viscosity coefficient")
    ap.add_argument("--out", default="data/reference/evrard_1d",
                    help="output prefix: writes <out>_t<time>.csv")
    ap.add_argument("--compare", metavar="CSV",
                    help="after the run, print the L1 differences of the last output against this"
                    " profile (e.g. the same time at another shell count) over 0.01 <= r <= 0.8")
    a = ap.parse_args()

    sim = Evrard1D(a.shells, c1=a.c1, c2=a.c2, cfl=a.cfl)
    e0 = sum(sim.energies())
    start = wallclock.time()
    for t_out in sorted(a.times):
        sim.run_to(t_out)
        k, u, w = sim.energies()
        err = (k + u + w - e0) / abs(e0)
        path = "%s_t%g.csv" % (a.out, t_out)
        header = [
            "Evrard (1988) collapse, 1D spherical Lagrangian reference solution at t = %g" % t_out,
            "command: /usr/bin/python3 tools/evrard_1d.py " + " ".join(sys.argv[1:]),
            "solver: mpsph tools/evrard_1d.py, staggered Lagrangian hydro (Richtmyer & Morton 1967)"
            " + shell self-gravity, viscosity q = rho (%g dv^2 + %g c_s |dv|), KDK leapfrog,"
            " CFL %g" % (a.c2, a.c1, a.cfl),
            "shells: %d (initially equally spaced in r); steps: %d; energy error at t: %.3e"
            % (a.shells, sim.steps, err),
            "date: %s" % datetime.date.today().isoformat(),
            "units: G = M = R = 1 (time (R^3/GM)^(1/2), velocity (GM/R)^(1/2), density M/R^3);"
            " gamma = 5/3, u0 = 0.05",
            "columns: r (zone half-volume radius), rho, v_r (linear between shell interfaces),"
            " u (specific internal energy), P, A = P/rho^gamma, M_r (mass inside r)",
        ]
        prof = sim.profile()
        write_csv(path, prof, header)
        print("t = %g: %d steps, E = %.6f (K %.4f, U %.4f, W %.4f), dE/|E0| = %.2e, %.1f s -> %s"
              % (t_out, sim.steps, k + u + w, k, u, w, err, wallclock.time() - start, path))
        print("  shock at r = %.4f, min v_r = %.3f at r = %.4f, rho(r = 0.01) = %.1f"
              % (shock_radius(prof), prof["v_r"].min(), prof["r"][np.argmin(prof["v_r"])],
                 np.interp(0.01, prof["r"], prof["rho"])))
    if a.compare:
        d = compare(prof, read_csv(a.compare))
        print("L1 against %s over 0.01 <= r <= 0.8: log10 rho %.4f, v_r %.4f, log10 A %.4f"
              % (a.compare, d["rho"], d["v_r"], d["A"]))


if __name__ == "__main__":
    main()
