"""Exact solutions of the 1D Riemann problem.
Ideal gas (Toro 2009, chapter 4): pressure in the star region by Newton iteration on
f(p) = f_L(p) + f_R(p) + u_R - u_L = 0, then sampling of the self-similar solution at x/t.
Isothermal gas, P = c^2 rho (isothermal_*): the gamma -> 1 limit, two waves and no contact
(tests/setups/riemann_isothermal.hpp is the C++ twin)."""
import numpy as np


def _f(p, rho, pk, g):
    c = np.sqrt(g * pk / rho)
    if p > pk:  # shock (Toro eq. 4.21)
        A, B = 2.0 / ((g + 1) * rho), (g - 1) / (g + 1) * pk
        return (p - pk) * np.sqrt(A / (p + B)), np.sqrt(A / (B + p)) * (1 - 0.5 * (p - pk) / (B + p))
    # rarefaction (eq. 4.20)
    return (2 * c / (g - 1)) * ((p / pk) ** ((g - 1) / (2 * g)) - 1), (p / pk) ** (-(g + 1) / (2 * g)) / (rho * c)


def star_state(rhoL, uL, pL, rhoR, uR, pR, g):
    p = max(1e-10, 0.5 * (pL + pR))
    for _ in range(100):
        fL, dL = _f(p, rhoL, pL, g)
        fR, dR = _f(p, rhoR, pR, g)
        dp = (fL + fR + uR - uL) / (dL + dR)
        p = max(1e-12, p - dp)
        if abs(dp) < 1e-14 * p:
            break
    fL, _ = _f(p, rhoL, pL, g)
    fR, _ = _f(p, rhoR, pR, g)
    return p, 0.5 * (uL + uR) + 0.5 * (fR - fL)


def sample(xi, rhoL, uL, pL, rhoR, uR, pR, g):
    """(rho, u, p) at similarity coordinates xi = (x - x0)/t (array)."""
    ps, us = star_state(rhoL, uL, pL, rhoR, uR, pR, g)
    out = np.zeros((3, len(xi)))
    for i, s in enumerate(np.atleast_1d(xi)):
        if s <= us:  # left of contact
            rho, u, p = rhoL, uL, pL
            c = np.sqrt(g * p / rho)
            if ps > p:  # left shock
                S = u - c * np.sqrt((g + 1) / (2 * g) * ps / p + (g - 1) / (2 * g))
                if s >= S:
                    rho = rho * (ps / p + (g - 1) / (g + 1)) / ((g - 1) / (g + 1) * ps / p + 1)
                    u, p = us, ps
            else:  # left rarefaction
                cs = c * (ps / p) ** ((g - 1) / (2 * g))
                if s > us - cs:
                    rho, u, p = rho * (ps / p) ** (1 / g), us, ps
                elif s > u - c:
                    u = 2 / (g + 1) * (c + (g - 1) / 2 * u + s)
                    cc = 2 / (g + 1) * (c + (g - 1) / 2 * (uL - s))
                    rho = rhoL * (cc / c) ** (2 / (g - 1))
                    p = pL * (cc / c) ** (2 * g / (g - 1))
        else:  # right of contact
            rho, u, p = rhoR, uR, pR
            c = np.sqrt(g * p / rho)
            if ps > p:  # right shock
                S = u + c * np.sqrt((g + 1) / (2 * g) * ps / p + (g - 1) / (2 * g))
                if s <= S:
                    rho = rho * (ps / p + (g - 1) / (g + 1)) / ((g - 1) / (g + 1) * ps / p + 1)
                    u, p = us, ps
            else:  # right rarefaction
                cs = c * (ps / p) ** ((g - 1) / (2 * g))
                if s < us + cs:
                    rho, u, p = rho * (ps / p) ** (1 / g), us, ps
                elif s < u + c:
                    u = 2 / (g + 1) * (-c + (g - 1) / 2 * u + s)
                    cc = 2 / (g + 1) * (c - (g - 1) / 2 * (uR - s))
                    rho = rhoR * (cc / c) ** (2 / (g - 1))
                    p = pR * (cc / c) ** (2 * g / (g - 1))
        out[:, i] = rho, u, p
    return out


def isothermal_star_state(rhoL, uL, rhoR, uR, c):
    """Star density and velocity of the isothermal Riemann problem (P = c^2 rho, c constant): two
    waves, no contact. Shock side K: f_K = c (rho - rho_K)/sqrt(rho rho_K); rarefaction side:
    f_K = c ln(rho/rho_K); rho* solves f_L + f_R + u_R - u_L = 0 (bisection in ln rho)."""
    def f(rho, rk):
        return c * (rho - rk) / np.sqrt(rho * rk) if rho > rk else c * np.log(rho / rk)

    lo, hi = np.log(min(rhoL, rhoR)) - 60.0, np.log(max(rhoL, rhoR)) + 60.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if f(np.exp(mid), rhoL) + f(np.exp(mid), rhoR) + uR - uL > 0:
            hi = mid
        else:
            lo = mid
    rs = np.exp(0.5 * (lo + hi))
    return rs, 0.5 * (uL + uR) + 0.5 * (f(rs, rhoR) - f(rs, rhoL))


def isothermal_sample(xi, rhoL, uL, rhoR, uR, c):
    """(rho, u) of the isothermal Riemann problem at similarity coordinates xi = (x - x0)/t."""
    rs, us = isothermal_star_state(rhoL, uL, rhoR, uR, c)
    out = np.zeros((2, len(np.atleast_1d(xi))))
    for i, s in enumerate(np.atleast_1d(xi)):
        if s <= us:
            if rs > rhoL:  # left shock
                rho, u = (rhoL, uL) if s < uL - c * np.sqrt(rs / rhoL) else (rs, us)
            elif s <= uL - c:
                rho, u = rhoL, uL
            elif s >= us - c:
                rho, u = rs, us
            else:  # inside the left fan
                u = s + c
                rho = rhoL * np.exp((uL - u) / c)
        else:
            if rs > rhoR:  # right shock
                rho, u = (rhoR, uR) if s > uR + c * np.sqrt(rs / rhoR) else (rs, us)
            elif s >= uR + c:
                rho, u = rhoR, uR
            elif s <= us + c:
                rho, u = rs, us
            else:  # inside the right fan
                u = s - c
                rho = rhoR * np.exp((u - uR) / c)
        out[:, i] = rho, u
    return out
