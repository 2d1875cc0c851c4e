#!/usr/bin/python3
"""Self-similar Sedov-Taylor point explosion in a uniform gas at rest (Sedov 1959; Taylor 1950),
spherical, for gamma < 7: the closed form of Kamm & Timmes (2007, LA-UR-07-2849, "On efficient
generation of numerically robust Sedov solutions", section 2, the "standard" case omega = 0, j = 3)
with the similarity variable V as parameter. Same equations as tests/setups/sedov_exact.hpp.

R_s(t) = xi0 (E t^2 / rho0)^(1/5); behind the shock rho, v, P follow
rho = rho2 g(lambda), v = v2 f(lambda), P = P2 h(lambda) with lambda = r / R_s and the
Rankine-Hugoniot strong-shock states rho2 = rho0 (gamma+1)/(gamma-1), v2 = 2/(gamma+1) dR_s/dt,
P2 = 2/(gamma+1) rho0 (dR_s/dt)^2. xi0 follows from the energy integral (E fixed).

Dimensionless: any consistent units (the explosion energy E, ambient density rho0 and time t in
code units give R_s in code length, rho in code density).
"""
import numpy as np

J = 3.0  # spherical


def _profile_coefficients(gamma):
    g = gamma
    j2w = J + 2.0  # j + 2 - omega, omega = 0
    a = j2w * (g + 1.0) / 4.0
    b = (g + 1.0) / (g - 1.0)
    c = j2w * g / 2.0
    d = j2w * (g + 1.0) / (j2w * (g + 1.0) - 2.0 * (2.0 + J * (g - 1.0)))
    e = (2.0 + J * (g - 1.0)) / 2.0
    a0 = 2.0 / j2w
    a2 = -(g - 1.0) / (2.0 * (g - 1.0) + J)
    a1 = j2w * g / (2.0 + J * (g - 1.0)) * (2.0 * (J * (2.0 - g)) / (g * j2w ** 2) - a2)
    a3 = J / (2.0 * (g - 1.0) + J)
    a4 = j2w * J * a1 / (J * (2.0 - g))
    a5 = -2.0 * J / (J * (2.0 - g))
    return a, b, c, d, e, a0, a1, a2, a3, a4, a5


def shape(gamma, n=20000):
    """lambda = r/R_s, f = v/v2, g = rho/rho2, h = P/P2 on n points from the centre to the shock,
    parametrised by V in (2/(j2w gamma), 4/(j2w (gamma+1))]; points clustered near the centre
    (lambda ~ (V - V0)^alpha, so a geometric spacing in V - V0, from 1e-9, above which lambda
    still increases in double), plus the centre lambda = 0 (f = g = 0, h = its limit)."""
    a, b, c, d, e, a0, a1, a2, a3, a4, a5 = _profile_coefficients(gamma)
    j2w = J + 2.0
    v0 = 2.0 / (j2w * gamma)
    v2 = 4.0 / (j2w * (gamma + 1.0))
    dv = (v2 - v0) * np.logspace(-9, 0, n)
    V = v0 + dv
    V[-1] = v2
    x1 = a * V
    x2 = b * (c * V - 1.0)
    x3 = d * (1.0 - e * V)
    x4 = b * (1.0 - c * V / gamma)
    lam = x1 ** (-a0) * x2 ** (-a2) * x3 ** (-a1)
    f = x1 * lam
    g = x2 ** a3 * x3 ** a4 * x4 ** a5
    h = x1 ** (a0 * J) * x3 ** (a4 - 2.0 * a1) * x4 ** (1.0 + a5)
    # The centre itself (V = V0): v and rho vanish, P tends to a constant.
    return (np.concatenate(([0.0], lam)), np.concatenate(([0.0], f)),
            np.concatenate(([0.0], g)), np.concatenate(([h[0]], h)))


def xi0(gamma):
    """E = K rho0 R_s^5 / t^2 with K = 16 pi/25 * 2/(gamma^2-1) * int_0^1 (g f^2 + h) lambda^2
    dlambda; xi0 = K^(-1/5)."""
    lam, f, g, h = shape(gamma)
    y = (g * f * f + h) * lam * lam
    # Trapezoidal from the first point off the centre; below it the integrand is (g f^2 + h)
    # lambda^2 with g f^2 + h constant to ~1e-6 (P is flat at the centre).
    integral = np.sum(0.5 * (y[2:] + y[1:-1]) * np.diff(lam[1:])) + y[1] * lam[1] / 3.0
    k = 16.0 * np.pi / 25.0 * 2.0 / (gamma * gamma - 1.0) * integral
    return k ** -0.2


def shock_radius(E, rho0, t, gamma):
    return xi0(gamma) * (E * t * t / rho0) ** 0.2


def profile(r, E, rho0, t, gamma):
    """Density, radial velocity and pressure at radii r (array) at time t; ambient gas (rho0, at
    rest, zero pressure) outside the shock."""
    rs = shock_radius(E, rho0, t, gamma)
    us = 0.4 * rs / t
    rho2 = rho0 * (gamma + 1.0) / (gamma - 1.0)
    v2 = 2.0 / (gamma + 1.0) * us
    p2 = 2.0 / (gamma + 1.0) * rho0 * us * us
    lam, f, g, h = shape(gamma)
    x = np.asarray(r, dtype=float) / rs
    inside = x <= 1.0
    rho = np.where(inside, rho2 * np.interp(x, lam, g), rho0)
    v = np.where(inside, v2 * np.interp(x, lam, f), 0.0)
    p = np.where(inside, p2 * np.interp(x, lam, h), 0.0)
    return rho, v, p


def smoothed_density(r, h, E, rho0, t, gamma, n=400):
    """The density smoothed with the M4 kernel of smoothing length h (arrays r > 0 and h of the
    same shape), i.e. what an SPH particle at radius r with that h measures in the exact flow:
    rho_h(r) = (2 pi/r) int_0^2h s W(s, h) [F(r + s) - F(|r - s|)] ds, F(x) = int_0^x rho(d) d dd
    (the angular integral done exactly); midpoint rule in s."""
    rs = shock_radius(E, rho0, t, gamma)
    rho2 = rho0 * (gamma + 1.0) / (gamma - 1.0)
    lam, _, g, _ = shape(gamma)
    g1 = np.concatenate(([0.0], np.cumsum(0.5 * (g[1:] * lam[1:] + g[:-1] * lam[:-1])
                                          * np.diff(lam))))

    def F(x):
        inside = rho2 * rs * rs * np.interp(np.minimum(x / rs, 1.0), lam, g1)
        return np.where(x >= rs, rho2 * rs * rs * g1[-1] + 0.5 * rho0 * (x * x - rs * rs), inside)

    r = np.asarray(r, dtype=float).ravel()
    h = np.broadcast_to(np.asarray(h, dtype=float), np.shape(r)).ravel()
    out = np.empty_like(r)
    for a in range(0, len(r), 2048):  # in chunks: n values per radius
        rc, hc = r[a:a + 2048, None], h[a:a + 2048, None]
        s = (np.arange(n) + 0.5) / n * 2.0 * hc
        q = s / hc
        w = np.where(q < 1.0, 1.0 - 1.5 * q * q + 0.75 * q ** 3, 0.25 * (2.0 - q) ** 3)
        w /= np.pi * hc ** 3
        sum_s = (s * w * (F(rc + s) - F(np.abs(rc - s)))).sum(axis=1)
        out[a:a + 2048] = 2.0 * np.pi / rc[:, 0] * sum_s * (2.0 * hc[:, 0] / n)
    return out


if __name__ == "__main__":
    for gam in (5.0 / 3.0, 1.4):
        print("gamma = %.6f: xi0 = %.6f" % (gam, xi0(gam)))
