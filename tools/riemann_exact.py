"""Exact solution of the 1D Riemann problem for an ideal gas (Toro 2009, chapter 4): pressure in
the star region by Newton iteration on f(p) = f_L(p) + f_R(p) + u_R - u_L = 0, then sampling of
the self-similar solution at x/t."""
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
