"""Analytic-core claims of seed 004 checked by independent routes (errata 004 §8).

Sensitivities (closed form vs time-domain sums), Lemma F.16 (mpmath Π vs quadrature), and the exact
Gaussian linear-regression F∞ against the digest's independent Monte-Carlo ratios.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate

import dptheory as dpt
from dptheory.claims import Claim
from dptheory.data import golden
from dptheory.special import sqrt_pole_integral

PAPER = "seed 004"


def _quad_pole(a: float, b: float) -> float:
    f = lambda w: abs(1 - a - np.exp(1j * w)) / abs(1 - b - np.exp(1j * w)) ** 2
    return 2 * integrate.quad(f, 0, math.pi, points=[min(a, b)], limit=1000, epsabs=0, epsrel=1e-13)[0]


def run(out_dir, quick: bool = False, executor=None) -> list[Claim]:
    claims = []
    for nu in (0.1, 1e-3) if quick else (0.5, 0.1, 0.01, 1e-3, 1e-5):
        beta = dpt.nu_ftrl(nu)
        claims.append(Claim(f"gamma_inf.nu={nu:g}", PAPER, "eq. (5), Lemma F.15",
                            "γ∞(β^ν)² = (2/π)K(1−ν) vs Σ_t c_t² of the inverse coefficients",
                            beta.limiting_sensitivity(method="closed_form") ** 2,
                            beta.limiting_sensitivity(method="time") ** 2, rtol=1e-12,
                            tolerance_why="time sum truncated at 1e-17 relative tail", kind="cross-check"))
    claims.append(Claim("gamma_T.optimal_cc.T=1e6", PAPER, "Table 2 (Fichtenberger et al.)",
                        "γ_T² − ln(T)/π → (γ_E + 4 ln 2)/π = 1.0662758532",
                        (np.euler_gamma + 4 * math.log(2)) / math.pi,
                        dpt.optimal_cc().sensitivity(10**6) ** 2 - math.log(1e6) / math.pi, rtol=1e-6,
                        tolerance_why="o(1) remainder is O(1/T)", kind="cross-check"))
    for a, b in [(0.1, 0.3), (1e-3, 1e-2), (0.2, 0.05)]:
        claims.append(Claim(f"lemma_F16.a={a:g}.b={b:g}", PAPER, "Lemma F.16, eq. (49)",
                            "I(a,b) by mpmath Π vs adaptive quadrature", _quad_pole(a, b), sqrt_pole_integral(a, b),
                            rtol=1e-10, tolerance_why="quad epsrel 1e-13, with margin", kind="cross-check"))
    lam = 1.0 / np.arange(1, 129)
    mc_table = golden("004", "linreg.exact_over_lti")  # errata 004 §8 #23b
    digest_mc = {float(eta): mc for eta, mc in mc_table.value.items()}
    for eta, mc in digest_mc.items():
        p = dpt.LinearRegression(eta, lam)
        ratio = dpt.F_inf(dpt.dpsgd(), p, rho=1.0) / dpt.F_inf(dpt.dpsgd(), p, rho=1.0, kind="lti")
        # a check only where the ±2% tolerance excludes the LTI surrogate (ratio 1); at η = 0.005 the gap is 1.4%,
        # and Figure 2's simulation (fig2.eta.*.eta=0.005.not_lti) is what separates the two there
        weak = abs(mc - 1.0) <= 0.02 * mc
        claims.append(Claim(f"linreg.exact_over_lti.eta={eta:g}", PAPER, "Thm 2.2, App. C (errata 004 §8 #23b)",
                            "exact Gaussian F∞ / LTI part vs independent Monte-Carlo (d=128, λ_k=1/k, Noisy-SGD)"
                            + (" — the tolerance also accepts the LTI surrogate (ratio 1), so not a check; "
                               "see fig2.eta.Noisy-SGD.eta=0.005.not_lti" if weak else ""),
                            mc, ratio, rtol=mc_table.rtol, tolerance_why="the digest's MC carries ±2% (64–192 chains)",
                            kind="informational" if weak else "cross-check"))
    return claims
