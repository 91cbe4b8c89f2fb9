"""Seed 002 (Lowy & Razaviyayn, ISRL-DP): the rate registry against digest 002 and against independent routes.

Kinds of claim (``dptheory.claims.KINDS``):

* ``regression`` (most): every number of errata 002 §6 C5–C11, C13–C18, C26, C29, C34 that is a closed form of
  the rates, recomputed from :mod:`dptheory.isrl.registry` and compared with the digest's printed digits
  (half a unit in the last printed digit; where the digest's short print is an exact value — 1e-6, 1e5, 2e5,
  1000, 10 — to 1e-12). The digest computed them from the same printed formulas, so these catch a
  transcription error, nothing more. Exact elasticities (C11, C13–C16) are read off the same expressions. So are
  the symbolic identities between two theorems' formulas that the paper's reductions imply (C8: Thm 2.2 vs
  Bassily et al.; C9; C28: Thm 2.2 at n = 1 vs Duchi et al.; Thm F.3 vs the CDP ERM bound; C34): both formulas
  are typed from the papers into the registry, so sympy's difference is 0 unless one was mistyped (issue 39).
* ``cross-check``: at least one per theorem family but Thm F.3's ERM lower bounds (checked by the identity
  above only), by a route other than the rate's own formula: the privacy terms of Thms 2.1,
  4.1 and H.1 rebuilt from the calibration code's σ² / ξ_i (Lemma D.6's ``D·√(dσ²/(MR))`` and ``dσ²/(μMR)``:
  the rate over it must be the same constant at points 10–100× apart); Thm 3.1's and Thm 5.2's proof bounds
  before optimisation at the batch size the calibration code (resp. the round registry) prescribes, against
  the optimised rates; the explicit-constant form of Thm D.1 against a numerical minimisation over η of
  :func:`~dptheory.isrl.schedules.explicit_convex_bound`; Thm 2.2's ε0/√N reduction against the N- and
  ε0-elasticities of Thm D.5's eq. (21) (calibration code); the smooth round counts at the Moreau β against the
  non-smooth ones (Thm D.1 vs D.2, F.1 vs F.2); App. D.3.5's conversion round trip (App. C.2); the crossover of
  C10 by root finding against its closed form. The simulations of ``verify/isrl_simulation.py`` check Thm
  2.1's exponents (C12, C33) too.

Also writes Fig. 3 rebuilt with its corrections (``isrl_figure3_table.md``) and a picture of the exact
elasticities (``isrl_rate_table.png``).
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

from dptheory.claims import Claim, atomic_write, save_figure
from dptheory.data import golden
from dptheory.isrl import calibration as cal, schedules
from dptheory.isrl import registry as ir
from dptheory.symbolic import elasticity

PAPER = "seed 002"
#: errata 002 §6 reference points (L = D = mu = phi = beta = 1, M = N)
UNIT = dict(L=1, D=1, mu=1, phi=1, beta=1)
P1 = dict(n=1000, N=100, M=100, d=100, eps0=1, delta0=1e-6, **UNIT)
P2 = dict(n=1000, N=100, M=100, d=10_000, eps0=0.5, delta0=1e-6, **UNIT)
EXACT = "exact (symbolic / Rational)"
#: the kind of a symbolic identity between two formulas both typed from the papers into the registry
#: (``C8.*.identity``, ``C9.identity``, ``C28.*``, ``xcheck.isrl_erm_*_lo.cdp``): sympy's ``simplify`` of their
#: difference is exactly 0 unless one of them was mistyped, so it catches a transcription error and nothing more
#: (issue 39): a regression value, as ``C10.sdp.symbolic`` and ``C34.symbolic``, not a cross-check
TYPED = "regression"


def G(key: str):
    """The printed digits of a reference value of errata 002 §6 (``dptheory/data/golden.json``, shared with tests/)."""
    return golden("002", key).printed


def printed(s: str) -> tuple[float, float]:
    """The value of a printed decimal and the relative half-unit of its last digit."""
    mant, _, exp = s.lower().partition("e")
    decimals = len(mant.split(".")[1]) if "." in mant else 0
    value = float(s)
    ulp = 10.0 ** (-decimals + (int(exp) if exp else 0))
    return value, 0.5 * ulp / abs(value)


def _claim(cid, where, statement, digest: str, measured: float, exact: bool = False) -> Claim:
    """The registry against a digest number (a regression value: the digest computed it from the same formula).
    ``exact``: the digest's short print is the exact value (e.g. ``1e5`` for ``min{Mn, Mε0²n²/d}``), so the
    tolerance is floating point, not half a unit of a one-digit print."""
    value, rtol = printed(digest)
    why = "half a unit in the digest's last printed digit"
    if exact:
        rtol, why = 1e-12, "the digest's print is the exact value (exact arithmetic of the formula); floating point"
    return Claim(cid, PAPER, where, statement, value, float(measured), rtol=rtol, kind="regression", tolerance_why=why)


def _exact(cid, where, statement, predicted, measured) -> Claim:
    """An exact value read off the registry's expressions (an elasticity, a flag): a regression value."""
    return Claim(cid, PAPER, where, statement, float(predicted), float(measured), rtol=0.0, kind="regression",
                 tolerance_why=EXACT)


def _identity(cid, where, statement, a, b, kind: str = TYPED) -> Claim:
    """``a == b`` symbolically: the measured value is ``simplify(a - b)`` (must be exactly 0). Two theorems'
    formulas that the paper's reductions say agree, both typed from the papers: a regression value (:data:`TYPED`; a
    transcription error in either shows, nothing more)."""
    diff = sp.simplify(a - b)
    return Claim(cid, PAPER, where, statement, 0.0, float(diff) if diff.is_number else float("nan"),
                 rtol=0.0, kind=kind, tolerance_why=EXACT)


def _same(cid, where, statement, a: float, b: float, why: str, rtol: float = 1e-12) -> Claim:
    """Two numbers that two routes say are equal: the claim is their ratio ``b/a`` against 1 (both numbers are in
    the statement)."""
    return Claim(cid, PAPER, where, f"{statement} [{float(a):.10g} vs {float(b):.10g}; measured: their ratio]", 1.0,
                 float(b) / float(a), rtol=rtol, kind="cross-check", tolerance_why=why)


def _val(key, logs, **params) -> float:
    return float(ir.rate(key, logs=logs).evaluate(**params))


def rate_claims() -> list[Claim]:
    c: list[Claim] = []
    # C5: rates at P1 (no-log / log), kappa = 100 for the non-i.i.d. SC rate, eps = 1 for SDP
    c5 = G("C5")  # rate key -> (no-log, log)
    where5 = {
        "isrl_iid_cvx_up": "Thm 2.1 eq. (4)", "isrl_iid_sc_up": "Thm 2.1 eq. (5)", "isrl_noniid_cvx_up": "Thm 3.1 eq. (6)",
        "isrl_noniid_sc_up": "Thm 3.1 eq. (7)", "isrl_erm_cvx_up": "Thm 4.1 eq. (8)", "isrl_erm_sc_up": "Thm 4.1 eq. (9)",
        "sdp_iid_cvx_up": "Thm 5.1 eq. (37)", "sdp_iid_sc_up": "Thm 5.1 eq. (38)",
    }
    point = dict(P1, kappa=100, eps=1, delta=1e-6)
    # without logs these five are sums of powers of ten at P1: the digest's short prints are exact
    exact5 = {"isrl_iid_sc_up", "isrl_noniid_sc_up", "isrl_erm_cvx_up", "isrl_erm_sc_up", "sdp_iid_sc_up"}
    for key, where in where5.items():
        nolog, log = c5[key]
        c.append(_claim(f"C5.{key}.nolog", f"{where} / errata 002 C5", f"{key} at P1, logs dropped", nolog,
                        _val(key, "none", **point), exact=key in exact5))
        c.append(_claim(f"C5.{key}.log", f"{where} / errata 002 C5", f"{key} at P1, ln(1/δ) kept", log,
                        _val(key, "paper", **point)))
    # C6: P2 (privacy-dominated)
    p2 = dict(P2, eps=0.5, delta=1e-6)
    for key, digest, where in (("isrl_iid_cvx_up", G("C6.isrl_iid_cvx_up"), "Thm 2.1"),
                               ("isrl_iid_sc_up", G("C6.isrl_iid_sc_up"), "Thm 2.1"),
                               ("isrl_noniid_cvx_up", G("C6.isrl_noniid_cvx_up"), "Thm 3.1"),
                               ("sdp_iid_cvx_up", G("C6.sdp_iid_cvx_up"), "Thm 5.1")):
        c.append(_claim(f"C6.{key}", f"{where} / errata 002 C6", f"{key} at P2, logs dropped", digest,
                        _val(key, "none", **p2), exact=key == "isrl_iid_sc_up"))
    c.append(Claim("C6.iid_cvx.priv_dominates", PAPER, "Thm 2.1 / errata 002 C6", "privacy term dominant at P2 (1 = yes)",
                   1.0, float(ir.dominant_term("isrl_iid_cvx_up", logs="none", **p2) == "priv"), rtol=0.0,
                   kind="regression", tolerance_why=EXACT))
    # C7: tightness at P1 (C = 1)
    for key_up, key_lo, digest in (("isrl_iid_cvx_up", "isrl_iid_cvx_lo", c5["isrl_iid_cvx_up"][0]),
                                   ("isrl_iid_sc_up", "isrl_iid_sc_lo", c5["isrl_iid_sc_up"][0])):
        c.append(_claim(f"C7.{key_lo}", "Thm 2.2 / errata 002 C7", f"lower bound {key_lo} at P1 (C = 1) = upper bound",
                        digest, _val(key_lo, "none", C=1, **P1), exact=key_lo == "isrl_iid_sc_lo"))
    # C8: ISRL-DP at eps0 == CDP at eps = eps0/sqrt(N)
    for loss, extra in (("cvx", {}), ("sc", {"L": ir.mu * ir.D})):
        isrl = ir.rate(f"isrl_iid_{loss}_lo").substitute(C=1, **extra).expr
        cdp = ir.rate(f"cdp_{loss}_lo").substitute(eps=ir.eps0 / sp.sqrt(ir.N), **extra).expr
        c.append(_identity(f"C8.{loss}.identity", "Thm 2.2 vs Bassily et al. / errata 002 C8",
                           f"ISRL-DP {loss} lower bound at eps0 == CDP rate at eps = eps0/sqrt(N) (simplify difference)",
                           isrl, cdp))
    c.append(_claim("C8.cvx.P1.cdp", "Bassily et al. / errata 002 C8", "CDP convex rate at eps = eps0/sqrt(N), P1",
                    c5["isrl_iid_cvx_up"][0], _val("cdp_cvx_lo", "none", eps=0.1, **P1)))
    # C9: SDP privacy at eps == ISRL privacy at eps0 = eps N/sqrt(M); M-slopes
    sdp = ir.rate("sdp_iid_cvx_up").terms["priv"]
    isrl = ir.rate("isrl_iid_cvx_up").terms["priv"].subs({ir.eps0: ir.eps * ir.N / sp.sqrt(ir.M), ir.delta0: ir.delta})
    c.append(_identity("C9.identity", "Thm 5.1 vs Thm 2.1 / errata 002 C9",
                       "SDP privacy term at eps == ISRL-DP privacy term at eps0 = eps N/sqrt(M)", sdp, isrl))
    r = ir.rate("sdp_iid_cvx_up")
    c.append(_exact("C9.sdp_priv.M_slope", "Thm 5.1 / errata 002 C9", "SDP privacy term independent of M", 0,
                    r.slope("M", term="priv")))
    c.append(_exact("C9.sdp_stat.M_slope", "Thm 5.1 / errata 002 C9", "SDP statistical term ∝ M^(-1/2)", -0.5,
                    r.slope("M", term="stat")))
    # C10: crossovers
    no = dict(n=1000, M=100, eps0=1, L=1, D=1)
    c.append(_claim("C10.iid_cvx.nolog", "Thm 2.1 / errata 002 C10", "d* = eps0^2 n (no-log)", G("C10.iid_cvx.nolog"),
                    ir.crossover("isrl_iid_cvx_up", logs="none", **no), exact=True))
    c.append(_claim("C10.iid_sc.nolog", "Thm 2.1 / errata 002 C10", "SC gives the same d* (no-log)", G("C10.iid_cvx.nolog"),
                    ir.crossover("isrl_iid_sc_up", logs="none", mu=1, **no), exact=True))
    c.append(_claim("C10.iid_cvx.log", "Thm 2.1 / errata 002 C10", "d* = eps0^2 n/ln(1/delta0)", G("C10.iid_cvx.log"),
                    ir.crossover("isrl_iid_cvx_up", delta0=1e-6, **no)))
    c.append(_claim("C10.explicit", "Thm D.1 proof / errata 002 C10",
                    "d* with explicit constants (2 vs 16, two logs, R = 2e5): privacy never free at P1", G("C10.explicit"),
                    ir.crossover("isrl_iid_cvx_explicit", delta0=1e-6, R=2e5, **no)))
    c.append(_claim("C10.noniid_cvx", "Thm 3.1 / errata 002 C10", "d* = eps0^2 n^(3/4) N^(-1/4) (no-log)", G("C10.noniid_cvx"),
                    ir.crossover("isrl_noniid_cvx_up", logs="none", phi=1, beta=1, N=100, v=1, **no)))
    c.append(_identity("C10.sdp.symbolic", "Thm 5.1 / errata 002 C10", "SDP d* = eps^2 n N^2/M (sympy's solve vs the digest's)",
                       ir.crossover("sdp_iid_cvx_up", logs="none"), ir.eps**2 * ir.n * ir.N**2 / ir.M, kind="regression"))
    # C11: slopes of the i.i.d. convex rate
    r = ir.rate("isrl_iid_cvx_up")
    for term, var, exp in (("priv", "n", -1), ("priv", "eps0", -1), ("priv", "M", sp.Rational(-1, 2)),
                           ("priv", "d", sp.Rational(1, 2)), ("stat", "n", sp.Rational(-1, 2)),
                           ("stat", "M", sp.Rational(-1, 2)), ("stat", "eps0", 0)):
        c.append(_exact(f"C11.{term}.{var}", "Thm 2.1 / errata 002 C11", f"elasticity of the {term} term in {var} = {exp}",
                        exp, r.slope(var, term=term)))
    # C13: non-i.i.d. convex privacy term
    r = ir.rate("isrl_noniid_cvx_up", logs="none").substitute(M=ir.N)
    for var, exp in (("n", "-4/5"), ("eps0", "-4/5"), ("N", "-2/5"), ("d", "2/5"), ("beta", "1/5")):
        c.append(_exact(f"C13.{var}", "Thm 3.1 / errata 002 C13", f"non-i.i.d. convex privacy term, elasticity in {var}",
                        sp.Rational(exp), r.slope(var, term="priv")))
    ratio = (ir.rate("isrl_noniid_cvx_up", logs="none").terms["priv"]
             / ir.rate("isrl_iid_cvx_up", logs="none").terms["priv"])
    c.append(_claim("C13.ratio", "Thm 3.1 vs 2.1 / errata 002 C13", "non-iid / iid privacy term = (eps0 n sqrt(N)/sqrt(d))^(1/5) at P1",
                    G("C13.ratio"), float(ratio.subs({ir.SYMBOLS[k]: v for k, v in P1.items()}))))
    # C14: non-i.i.d. SC
    r = ir.rate("isrl_noniid_sc_up")
    c.append(_exact("C14.kappa", "Thm 3.1 / errata 002 C14", "non-iid SC privacy term, elasticity in kappa", 0.5,
                    r.slope("kappa", term="priv")))
    ratio = r.terms["priv"] / ir.rate("isrl_iid_sc_up").terms["priv"]
    c.append(_claim("C14.ratio", "Thm 3.1 vs 2.1 / errata 002 C14", "at kappa = 100 the privacy term is 10× the iid one",
                    "10", float(ratio.subs(ir.kappa, 100)), exact=True))
    # C15: non-i.i.d. lower bound
    p1 = {ir.SYMBOLS[k]: v for k, v in P1.items()}
    c.append(_claim("C15.C2", "Fig. 3 / errata 002 C15", "C^2 = (eps0 n sqrt(N)/sqrt(d))^(2/5) at P1", G("C15.C2"),
                    float(ir._C_NONIID_CVX.subs(p1))))
    lo = ir.rate("isrl_noniid_cvx_lo").evaluate(**P1)
    up = ir.rate("isrl_noniid_cvx_up", logs="none").evaluate(**P1, v=1)
    c.append(_claim("C15.lower_priv", "Fig. 3 / errata 002 C15", "lower-bound privacy term (sqrt(d)/(eps0 n sqrt(N)))^(7/5)",
                    G("C15.lower_priv"), lo.terms["priv"]))
    c.append(_claim("C15.upper_priv", "Thm 3.1 / errata 002 C15", "upper-bound privacy term at P1", G("C15.upper_priv"),
                    up.terms["priv"]))
    c.append(_claim("C15.gap", "Fig. 3 / errata 002 C15", "gap upper/lower privacy term = x^(-3/5)", G("C15.gap"),
                    up.terms["priv"] / lo.terms["priv"]))
    for var in ("n", "eps0"):
        c.append(_exact(f"C15.slope.{var}", "Fig. 3 / errata 002 C15", f"lower-bound privacy term elasticity in {var} = -7/5",
                        sp.Rational(-7, 5), ir.rate("isrl_noniid_cvx_lo").slope(var, term="priv")))
    # C16: other slopes
    for key, exp in (("sdp_iid_cvx_up", -1), ("sdp_iid_sc_up", -2)):
        for var in ("n", "N", "eps"):
            c.append(_exact(f"C16.{key}.{var}", "Thm 5.1 / errata 002 C16", f"{key} privacy elasticity in {var}", exp,
                            ir.rate(key).slope(var, term="priv")))
    c.append(_exact("C16.ldp.n", "Duchi et al. / errata 002 C16", "LDP rate elasticity in n", 0, ir.rate("ldp_cvx_lo").slope("n")))
    c.append(_exact("C16.ldp.N", "Duchi et al. / errata 002 C16", "LDP rate elasticity in N", -0.5, ir.rate("ldp_cvx_lo").slope("N")))
    c.append(_exact("C16.cross_device.n", "App. D.3.5 / errata 002 C16", "cross-device privacy term elasticity in n (no-log)",
                    0, ir.rate("cross_device_cvx_up", logs="none").slope("n", term="priv")))
    return c


def round_claims() -> list[Claim]:
    c: list[Claim] = []
    p1 = {ir.SYMBOLS[k]: v for k, v in P1.items()}
    beta_s = ir.smoothing_beta("isrl_iid_cvx")
    c.append(_claim("C17.beta", "Thm 2.1 (D.2) / errata 002 C17", "Moreau beta = (L sqrt(M)/D) min{sqrt(n), eps0 n/sqrt(d)}",
                    G("C17.beta"), float(beta_s.subs(p1))))
    smooth = ir.rounds("isrl_iid_cvx_smooth").substitute(beta=beta_s)
    c.append(_claim("C17.R_cvx", "Thm 2.1 (D.1 at the Moreau beta) / errata 002 C17", "R = 2 min{nM, eps0^2 n^2 M/d}",
                    G("C17.R_cvx"), float(smooth.evaluate(**P1)), exact=True))
    c.append(_claim("C17.R_cvx_nonsmooth", "Thm 2.1 (D.2) / errata 002 C17", "R of the non-smooth statement", G("C17.R_cvx"),
                    float(ir.rounds("isrl_iid_cvx").evaluate(**P1)), exact=True))
    c.append(_claim("C17.R_sc", "Thm 2.1 (D.1) / errata 002 C17", "SC (kappa = 1) R = max(2 ln(1e6), min{Mn, M eps0^2 n^2/d})",
                    G("C17.R_sc"), float(ir.rounds("isrl_iid_sc_smooth").evaluate(kappa=1, **P1)), exact=True))
    f2 = dict(P1, K=1000)
    c.append(_claim("C18.R_F2.log", "Thm F.2 / errata 002 C18", "R = sqrt(M) eps0 n/sqrt(d ln(1/delta0))", G("C18.R_F2.log"),
                    float(ir.rounds("isrl_erm_cvx").evaluate(**f2))))
    ours = float(ir.rounds("isrl_erm_cvx", logs="none").evaluate(**f2))
    girgis = float(ir.rounds("girgis_erm_cvx").evaluate(**P1))
    c.append(_claim("C18.R_F2.nolog", "Thm F.2 / errata 002 C18", "R without the log", G("C18.R_F2.nolog"), ours, exact=True))
    c.append(_claim("C18.girgis", "Remark F.1 / errata 002 C18", "Girgis et al. R = eps0^2 n^2 M/d", G("C18.girgis"), girgis,
                    exact=True))
    c.append(_claim("C18.speedup", "Remark F.1 / errata 002 C18", "speed-up = min(sqrt(M) eps0 n/sqrt(d), MK), MK >= 1000",
                    G("C18.speedup"), girgis / ours, exact=True))
    return c


def other_claims() -> list[Claim]:
    c: list[Claim] = []
    # C26 cross-device hybrid
    eps_, delta_, n_, d_, N_ = 1.0, 1e-6, 100, 10, 10_000
    eps0_, delta0_ = cal.user_to_isrl(eps_, delta=delta_, n=n_)  # library code (App. D.3.5)
    c.append(_claim("C26.eps0", "App. D.3.5 / errata 002 C26", "calibration.user_to_isrl: eps0 = eps/n", G("C26.eps0"),
                    eps0_, exact=True))
    c.append(_claim("C26.delta0", "App. D.3.5 / errata 002 C26", "calibration.user_to_isrl: delta0 = delta/(4n)",
                    G("C26.delta0"), delta0_, exact=True))
    cd = ir.rate("cross_device_cvx_up").evaluate(eps=eps_, delta=delta_, n=n_, d=d_, N=N_, M=N_, L=1, D=1)
    c.append(_claim("C26.rate", "App. D.3.5 eq. (28) / errata 002 C26", "sqrt(d ln(n/delta))/(eps sqrt(N))", G("C26.rate"),
                    cd.terms["priv"]))
    th = ir.rate("isrl_iid_cvx_up").evaluate(eps0=eps0_, delta0=delta0_, n=n_, d=d_, N=N_, M=N_, L=1, D=1)
    c.append(_claim("C26.thm21", "Thm 2.1 at (eps/n, delta/(4n)) / errata 002 C26", "Thm 2.1 form with ln(1/delta0) + stat term",
                    G("C26.thm21"), float(th)))
    # C28 degenerate limits
    lo = ir.rate("isrl_iid_cvx_lo").substitute(C=1)
    c.append(_identity("C28.n1", "Thm 2.2 at n = 1 / errata 002 C28", "n = 1 gives the LDP bound LD min{1, sqrt(d)/(eps0 sqrt(N))}",
                       lo.terms["priv"].subs(ir.n, 1), ir.rate("ldp_cvx_lo").terms["priv"]))
    c.append(_identity("C28.N1", "Thm 2.2 at N = 1 / errata 002 C28", "N = 1 gives the CDP bound LD min{1, sqrt(d)/(eps0 n)}",
                       lo.terms["priv"].subs(ir.N, 1), ir.rate("cdp_cvx_lo").terms["priv"].subs({ir.N: 1, ir.eps: ir.eps0})))
    c.append(_claim("C28.ldp_value", "Thm 2.2 at n = 1 / errata 002 C28", "LDP bound at N = d = 100, eps0 = 1 (trivial)",
                    "1", float(ir.rate("ldp_cvx_lo").evaluate(N=100, d=100, eps0=1, L=1, D=1)), exact=True))
    # C29 trivial regime
    c.append(_claim("C29.threshold", "Thm 2.2 footnote 8 / errata 002 C29", "LB saturates at LD when d >= eps0^2 n^2 N", G("C29.threshold"),
                    ir.crossover("isrl_iid_cvx_lo", "priv", ir.L * ir.D, n=1000, N=100, eps0=1, C=1, L=1, D=1), exact=True))
    beyond = ir.rate("isrl_iid_cvx_lo").evaluate(**dict(P1, d=2e8), C=1)
    c.append(Claim("C29.flagged", PAPER, "Thm 2.2 / errata 002 C29",
                   "evaluation at d = 2e8 returns the value LD + stat and names the violated non-trivial regime",
                   1.0, float(len(beyond.violated) == 1 and "non-trivial" in beyond.violated[0]
                              and beyond.terms["priv"] == 1.0), rtol=0.0, kind="regression", tolerance_why=EXACT))
    # C34 Wu et al. comparison
    ratio = sp.simplify(ir.rate("isrl_erm_sc_up").substitute(M=ir.N).terms["priv"] / ir.rate("wu_erm_sc_up").terms["priv"])
    c.append(_identity("C34.symbolic", "Thm 4.1 vs Wu et al. / errata 002 C34", "ratio = ln(1/delta0)/(kappa n) (the digest's)",
                       ratio, sp.log(1 / ir.delta0) / (ir.kappa * ir.n), kind="regression"))
    c.append(_claim("C34.value", "Thm 4.1 vs Wu et al. / errata 002 C34", "ratio at kappa = 10, n = 1000, delta0 = 1e-6",
                    G("C34.value"), float(ratio.subs({ir.kappa: 10, ir.n: 1000, ir.delta0: 1e-6}))))
    # corrections: the printed forms differ exactly where the digest says
    for key, term, factor, why in (("isrl_noniid_sc_up", "stat", ir.mu, "eq. (31) printed phi^2/(nM) lacks 1/mu"),
                                   ("sdp_noniid_sc_up", "priv", ir.mu, "eq. (11) privacy term lacks 1/mu")):
        ratio = (ir.rate(key, logs="none", variant="paper").terms[term] / ir.rate(key, logs="none").terms[term])
        c.append(_identity(f"errata.{key}.{term}", "errata 002 §8 #14", f"{why}: printed/corrected = mu", ratio, factor,
                           kind="regression"))
    return c


def _elasticity_fd(f, x: float, h: float = 1e-4) -> float:
    """``d ln f / d ln x`` at ``x`` by a central difference in ``ln x`` (error O(h²))."""
    return (math.log(f(x * math.exp(h))) - math.log(f(x * math.exp(-h)))) / (2.0 * h)


def cross_checks() -> list[Claim]:
    """At least one independent route per theorem family of the registry (module docstring)."""
    c: list[Claim] = []
    R_, D0 = 1000, 1e-6
    # points 10-100x apart in every parameter but (R, delta0), which the log factors depend on
    A = dict(L=1.0, D=1.0, n=1000, M=100, N=100, d=100, eps0=1.0, mu=1.0)
    B = dict(L=2.5, D=0.3, n=50_000, M=7, N=7, d=3, eps0=0.2, mu=0.05)

    def lemma_d6(p, sc: bool) -> float:
        """Lemma D.6's privacy part with the calibration code's σ²: convex D·√(dσ²/(MR)) (the optimum over η of
        D²/(2ηR) + (η/2)dσ²/M), strongly convex dσ²/(μMR) (Lemma D.5's c/(aT), c ⊇ dσ²/M)."""
        s2 = cal.sigma2_noisy_mbsgd(p["L"], R=R_, n=p["n"], eps0=p["eps0"], delta0=D0)
        return p["d"] * s2 / (p["mu"] * p["M"] * R_) if sc else p["D"] * math.sqrt(p["d"] * s2 / (p["M"] * R_))

    for key, sc, thm in (("isrl_iid_cvx_up", False, "Thm 2.1 (convex)"), ("isrl_iid_sc_up", True, "Thm 2.1 (SC)"),
                         ("isrl_erm_cvx_up", False, "Thm 4.1 (convex ERM)"), ("isrl_erm_sc_up", True, "Thm 4.1 (SC ERM)")):
        ratio = {k: lemma_d6(p, sc) / ir.rate(key).evaluate(**p, delta0=D0).terms["priv"] for k, p in (("A", A), ("B", B))}
        c.append(_same(f"xcheck.{key}.priv_from_sigma2", f"{thm}, Lemma D.6 with Thm D.1's σ²",
                       f"{key}'s privacy term against its building block from the calibration code "
                       f"({'dσ²/(μMR)' if sc else 'D·√(dσ²/(MR))'}, σ² = sigma2_noisy_mbsgd at R = {R_}): the ratio (a "
                       f"log factor and a constant, {ratio['A']:.6g}) is the same at two points 10-100× apart in n, ε0, "
                       f"M, d, L, D, μ", ratio["A"], ratio["B"],
                       "the same power laws in every parameter, floating point"))
    # Thm H.1 at balanced data and equal budgets (Remark H.1): xi_i, M' and M from the calibration code
    h1 = {}
    for k, p in (("A", A), ("B", B)):
        xi = float(cal.xi([p["n"]] * 4, eps_i=p["eps0"], delta_i=D0, R=R_)[0])
        Mh, Mp = cal.harmonic_M([p["M"]]), cal.M_prime([p["M"]])
        unb = ir.rate("unbalanced_cvx_up").evaluate(L=p["L"], D=p["D"], d=p["d"], M=Mh, Mp=Mp, Xi=xi, xi_max=xi,
                                                     n_min=p["n"], N=p["N"]).terms["priv"]
        h1[k] = unb / ir.rate("isrl_iid_cvx_up").evaluate(**p, delta0=D0).terms["priv"]
    c.append(_same("xcheck.unbalanced_cvx_up.remark_H1", "Thm H.1, Remark H.1",
                   f"Thm H.1's privacy term at balanced data and equal budgets (ξ_i = calibration.xi, M and M' = "
                   f"calibration.harmonic_M / M_prime of a fixed M) over Thm 2.1's: the same ratio "
                   f"√(ln(2.5R/δ0)ln(2/δ0)/ln(1/δ0)) = {h1['A']:.6g} at two points 10-100× apart (Thm H.1 recovers Thm 2.1)",
                   h1["A"], h1["B"], "the same power laws, floating point"))

    # Thm D.1's explicit-constant form against a numerical minimisation over eta of the proof's bound
    from scipy.optimize import minimize_scalar  # noqa: PLC0415

    R2 = 200_000
    s2 = cal.sigma2_noisy_mbsgd(1.0, R=R2, n=1000, eps0=1.0, delta0=D0)
    res = minimize_scalar(lambda t: schedules.explicit_convex_bound(L=1.0, D=1.0, R=R2, eta=math.exp(t), n=1000, M=100, d=100,
                                                               sigma2=s2), bounds=(-25.0, 0.0), method="bounded",
                          options=dict(xatol=1e-10))
    reg = float(ir.rate("isrl_iid_cvx_explicit").evaluate(L=1, D=1, n=1000, M=100, N=100, d=100, eps0=1, delta0=D0, R=R2))
    c.append(Claim("xcheck.isrl_iid_cvx_explicit.eta_minimum", PAPER, "Thm D.1 proof (Lemmas D.2, D.6; errata 002 §4.1)",
                   f"the registry's explicit form 2LD/√(nM) + 16LD√(d ln(2.5R/δ0) ln(2/δ0))/(ε0n√M) = {reg:.5f} at P1, "
                   f"R = 2e5, against the minimum over η of calibration.explicit_convex_bound (scipy, η* = "
                   f"{math.exp(res.x):.3g}): {res.fun:.5f}", float(res.fun), reg,
                   bounds=(float(res.fun) * (1 - 1e-4), math.sqrt(2) * float(res.fun)),
                   kind="cross-check",
                   tolerance_why="the optimum is √2·LD·√(a + b + 1/(2R)); the registry sums √2·LD·(√a + √b), which lies "
                                 "in [√(a+b), √2·√(a+b)], and drops 1/(2R) (relative 3e-5 here)"))

    # Thm 2.2: its privacy term is the CDP bound at eps = eps0/sqrt(N) (C8), the eps of amplification by
    # shuffling; Thm D.5's eq. (21) (calibration code) must scale as eps0^r N^(-1/2) where n eps0^r << 1
    eq21 = dict(n=10, N=1e6, delta_r=1e-8)
    e0r = 1e-4
    el_N = _elasticity_fd(lambda N: cal.shuffle_amplification_round(e0r, **{**eq21, "N": N})[0], eq21["N"])
    el_e = _elasticity_fd(lambda e: cal.shuffle_amplification_round(e, **eq21)[0], e0r)
    lo = ir.rate("isrl_iid_cvx_lo").substitute(C=1)
    why21 = ("eq. (21) = ε0^r·√(4 ln(4/δ)/N)·(1 + O(nε0^r) + O(1/√N)): both corrections ≤ 1e-3 at nε0^r = 1e-3, N = 1e6; "
             "central difference O(1e-8)")
    c.append(Claim("xcheck.isrl_iid_cvx_lo.N_from_eq21", PAPER, "Thm 2.2 (D.3, D.4) vs Thm D.5 eq. (21)",
                   f"elasticity in N of Thm 2.2's privacy term (registry, C = 1) = −1 − (elasticity in N of eq. (21)'s "
                   f"ε^r, calibration.shuffle_amplification_round: {el_N:.5f}), the CDP bound √d/(εnN) being ∝ 1/(εN)",
                   float(lo.slope("N", term="priv")), -1.0 - el_N, rtol=2e-3, kind="cross-check", tolerance_why=why21))
    c.append(Claim("xcheck.isrl_iid_cvx_lo.eps0_from_eq21", PAPER, "Thm 2.2 (D.3, D.4) vs Thm D.5 eq. (21)",
                   f"elasticity in ε0 of Thm 2.2's privacy term (registry) = −(elasticity in ε0^r of eq. (21)'s ε^r: "
                   f"{el_e:.5f})", float(lo.slope("eps0", term="priv")), -el_e, rtol=2e-3, kind="cross-check",
                   tolerance_why=why21))
    # Thm F.3 (ERM lower bounds) reduce to the CDP ERM bounds (Thm F.4) at eps = eps0/sqrt(N)
    for loss, extra in (("cvx", {}), ("sc", {"L": ir.mu * ir.D})):
        erm = ir.rate(f"isrl_erm_{loss}_lo").substitute(C=1, **extra).terms["priv"]
        cdp = ir.rate(f"cdp_{loss}_lo").substitute(eps=ir.eps0 / sp.sqrt(ir.N), **extra).terms["priv"]
        c.append(_identity(f"xcheck.isrl_erm_{loss}_lo.cdp", "Thm F.3 vs Thm F.4 / Bassily et al.",
                           f"ERM lower bound ({loss}) privacy term == the CDP bound at eps = eps0/sqrt(N) (simplify difference)",
                           erm, cdp))

    # Thm 3.1 (E.1): the proof's bound before optimisation at the batch size of the calibration code
    q = dict(L=1.3, D=0.7, beta=2.0, n=1000, N=100, M=40, d=100, eps0=1.0, v=0.5, phi=1.0)
    lg = math.log(1 / D0)
    K = schedules.onepass_batch_convex(q["L"], beta=q["beta"], D=q["D"], n=q["n"], d=q["d"], eps0=q["eps0"], delta0=D0, M=q["M"])
    up = ir.rate("isrl_noniid_cvx_up").evaluate(**q, delta0=D0)
    bias = q["beta"] * q["D"] ** 2 * K**2 / q["n"] ** 2
    noise = q["L"] * q["D"] * math.sqrt(q["d"] * lg) / (q["eps0"] * math.sqrt(K * q["n"] * q["M"]))
    het = (math.sqrt(K) * q["v"] * q["D"] / math.sqrt(q["n"] * q["M"]) * math.sqrt((q["N"] - q["M"]) / (q["N"] - 1)))
    for name, val in (("bias", bias), ("noise", noise)):
        c.append(_same(f"xcheck.isrl_noniid_cvx_up.{name}_at_K", "Thm 3.1 (E.1), proof before optimisation",
                       f"at K = calibration.onepass_batch_convex = {K:.5g} the proof's {name} term "
                       f"({'βD²K²/n²' if name == 'bias' else 'LD√(d ln(1/δ0))/(ε0√(KnM))'}) equals eq. (30)'s privacy term "
                       f"(registry) (L = 1.3, D = 0.7, β = 2, n = 1000, N = 100, M = 40, d = 100, ε0 = 1)",
                       up.terms["priv"], val, "exact algebra (K balances the two terms), floating point"))
    c.append(_same("xcheck.isrl_noniid_cvx_up.hetero_at_K", "Thm 3.1 (E.1), proof before optimisation",
                   "at the same K the proof's √K·vD/√(nM)·√((N−M)/(N−1)) equals eq. (30)'s heterogeneity term (registry)",
                   up.terms["hetero"], het, "exact algebra, floating point"))
    qs = dict(n=1e4, kappa=100.0, mu=1.0, Delta=1.0, eps0=1.0, M=10, N=40, L=1.0, d=10, phi=3.0, v=0.5)
    Ks = schedules.onepass_batch_sc(qs["n"], kappa=qs["kappa"], mu=qs["mu"], Delta=qs["Delta"], eps0=qs["eps0"], M=qs["M"],
                              L=qs["L"], d=qs["d"], delta0=D0, phi=qs["phi"])
    arg = qs["mu"] * qs["Delta"] * min(qs["eps0"] ** 2 * qs["n"] ** 2 * qs["M"] / (qs["L"] ** 2 * qs["d"] * lg),
                                       qs["n"] * qs["M"] / qs["phi"] ** 2)
    ups = ir.rate("isrl_noniid_sc_up").evaluate(**qs, delta0=D0)
    priv_K = qs["L"] ** 2 * qs["d"] * lg / (qs["mu"] * Ks * qs["n"] * qs["eps0"] ** 2 * qs["M"])
    het_K = qs["v"] ** 2 * Ks * (qs["N"] - qs["M"]) / (qs["N"] - 1) / (qs["mu"] * qs["n"] * qs["M"])
    c.append(_same("xcheck.isrl_noniid_sc_up.priv_at_K", "Thm 3.1 (E.1, SC), proof before optimisation",
                   f"at K = calibration.onepass_batch_sc = {Ks:.5g} the proof's L²d ln(1/δ0)/(μKnε0²M) equals eq. (31)'s "
                   f"privacy term (registry) times the log Õ hides, ln(μΔ·min{{…}}) = {math.log(arg):.5g}",
                   ups.terms["priv"] * math.log(arg), priv_K, "exact algebra, floating point"))
    c.append(_same("xcheck.isrl_noniid_sc_up.hetero_at_K", "Thm 3.1 (E.1, SC), proof before optimisation",
                   "at the same K the proof's v²K(1 − (M−1)/(N−1))/(μnM) equals eq. (31)'s heterogeneity term (registry) "
                   "divided by the same log", ups.terms["hetero"] / math.log(arg), het_K, "exact algebra, floating point"))

    # Thm 5.2 (G.2): the proof's bound before optimisation at K = n/R of the round registry
    g = dict(L=1.3, D=0.7, beta=2.0, n=1000, N=100, M=40, d=100, eps=1.0, delta=1e-6, v=0.5, phi=1.0)
    Kg = g["n"] / float(ir.rounds("sdp_noniid_cvx").evaluate(**g))
    upg = ir.rate("sdp_noniid_cvx_up_M").evaluate(**g)
    noise_g = g["L"] * g["D"] * math.sqrt(g["d"]) * math.log(g["d"] / g["delta"]) / (g["eps"] * g["M"] * math.sqrt(Kg * g["n"]))
    c.append(_same("xcheck.sdp_noniid_cvx_up.noise_at_K", "Thm 5.2 (G.2), proof before optimisation",
                   f"at K = n/R (round registry, corrected batch size of errata 002 §8 #10) = {Kg:.5g}, Lemma G.1's noise "
                   f"term LD√d ln(d/δ)/(εM√(Kn)) equals eq. (39)'s privacy term (registry, corrected log of §8 #14)",
                   upg.terms["priv"], noise_g, "exact algebra, floating point"))
    c.append(_same("xcheck.sdp_noniid_cvx_up.bias_at_K", "Thm 5.2 (G.2), proof before optimisation",
                   "at the same K the bias term βD²K²/n² equals eq. (39)'s privacy term", upg.terms["priv"],
                   g["beta"] * g["D"] ** 2 * Kg**2 / g["n"] ** 2, "exact algebra, floating point"))

    # round counts: the smooth theorem at the Moreau beta is the non-smooth one
    c.append(_same("xcheck.rounds.isrl_iid_cvx.moreau_at_P2", "Thm D.1 at Thm D.2's β",
                   "Thm D.1's smooth R at the Moreau β = (L√M/D)min{√n, ε0n/√d} equals Thm D.2's R = 2min{nM, ε0²n²M/d} "
                   "at P2 (the other branch of the min than P1's C17)",
                   float(ir.rounds("isrl_iid_cvx").evaluate(**P2)),
                   float(ir.rounds("isrl_iid_cvx_smooth").substitute(beta=ir.smoothing_beta("isrl_iid_cvx")).evaluate(**P2)),
                   "two formulas, floating point"))
    f2 = dict(P1, K=P1["n"])  # K = n, M = N: the 1{MK < nN} term vanishes
    smooth = {v_: float(ir.rounds("isrl_erm_cvx_smooth", logs="none", variant=v_)
                        .substitute(beta=ir.smoothing_beta("isrl_erm_cvx", logs="none")).evaluate(**f2))
              for v_ in ("corrected", "paper")}
    c.append(_same("xcheck.rounds.isrl_erm_cvx.moreau_at_P1", "Thm F.1 at Thm F.2's β (errata 002 §8 #6, #7)",
                   f"Thm F.1's smooth R (corrected exponent placement) at the Moreau β = ε0n√M L/(√d D) equals Thm F.2's "
                   f"R = √M ε0 n/√d (logs dropped, K = n, M = N); the printed F.1 gives {smooth['paper']:.4g}",
                   float(ir.rounds("isrl_erm_cvx", logs="none").evaluate(**f2)), smooth["corrected"],
                   "two formulas, floating point"))

    # App. D.3.5: the conversion to (eps0, delta0) and back by group privacy (App. C.2), library code both ways
    eps_, delta_, n_ = 1.0, 1e-6, 100
    e0, d0 = cal.user_to_isrl(eps_, delta=delta_, n=n_)
    e1, d1 = cal.isrl_to_user_level(e0, delta0=d0, n=n_)
    c.append(Claim("xcheck.cross_device.round_trip", PAPER, "App. D.3.5 vs App. C.2",
                   f"(ε, δ) = (1, 1e-6), n = 100 → calibration.user_to_isrl = ({e0:g}, {d0:g}) → isrl_to_user_level "
                   f"(group privacy) = ({e1:g}, {d1:.4g}): δ back is ≤ δ (and ε back = {e1:g})", delta_, d1,
                   bounds=(0.0, delta_), kind="cross-check",
                   tolerance_why="App. D.3.5 claims the conversion gives (ε, δ)-user-level DP: e^{ε(n−1)/n}/4 ≤ 1"))
    th = ir.rate("isrl_iid_cvx_up").evaluate(eps0=e0, delta0=d0, n=n_, d=10, N=10_000, M=10_000, L=1, D=1)
    cd = ir.rate("cross_device_cvx_up").evaluate(eps=eps_, delta=delta_, n=n_, d=10, N=10_000, M=10_000, L=1, D=1)
    c.append(_same("xcheck.cross_device.is_thm21", "App. D.3.5 eq. (28) vs Thm 2.1",
                   "eq. (28)'s privacy term × √(ln(1/δ0)/ln(n/δ)) equals Thm 2.1's privacy term at calibration.user_to_isrl's "
                   "(ε0, δ0) (eq. (28) is Thm 2.1 at the converted budget)",
                   cd.terms["priv"] * math.sqrt(math.log(1 / d0) / math.log(n_ / delta_)), th.terms["priv"],
                   "two formulas, floating point"))
    return c


ELASTICITY_VARS = ("n", "eps0|eps", "N", "d", "kappa")


def elasticity_table(table=None) -> tuple[list[str], list[str], np.ndarray, list[list[str]]]:
    """Exact elasticities of the privacy and statistical terms of each Fig. 3 upper bound (M = N)."""
    table = table if table is not None else ir.figure3_table()
    labels, rows_txt, vals = [], [], []
    for row in table:
        for term in ("priv", "stat"):
            e = row.upper_terms.get(term)
            if e is None:
                continue
            labels.append(f"{row.problem}, {row.loss} — {term}")
            line_v, line_t = [], []
            for var in ELASTICITY_VARS:
                name = ("eps" if row.problem.startswith("SDP") else "eps0") if "|" in var else var
                s = elasticity(e, ir.SYMBOLS[name])
                line_v.append(float(s))
                line_t.append(str(s))
            vals.append(line_v)
            rows_txt.append(line_t)
    return labels, list(ELASTICITY_VARS), np.array(vals), rows_txt


def _figure(path: Path) -> None:
    labels, cols, vals, txt = elasticity_table()
    fig, ax = plt.subplots(figsize=(8.8, 0.32 * len(labels) + 0.5), layout="constrained")
    ax.imshow(vals, cmap="coolwarm", vmin=-2, vmax=2, aspect="auto")
    for i in range(vals.shape[0]):
        for j in range(vals.shape[1]):
            ax.text(j, i, txt[i][j], ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(cols)), ["n", "ε0 / ε", "N (= M)", "d", "κ"])
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.set_title("Seed 002, Fig. 3 upper bounds: exact elasticities d ln f / d ln x", fontsize=9)
    save_figure(fig, path)
    plt.close(fig)


def run(out_dir, quick: bool = False, executor=None) -> list[Claim]:
    out = Path(out_dir)
    claims = rate_claims() + round_claims() + other_claims() + cross_checks()
    point = dict(n=1000, N=100, d=100, eps0=1, eps=1, delta0=1e-6, delta=1e-6, kappa=100)
    md = ir.figure3_table(params=point).render_markdown() + "\n" + ir.figure3_table(variant="paper").render_markdown()
    atomic_write(out / "isrl_figure3_table.md", md)
    _figure(out / "isrl_rate_table.png")
    return claims
