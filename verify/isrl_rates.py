"""Seed 002 (Lowy & Razaviyayn, ISRL-DP): the rate registry against digest 002's checkable claims.

Every number of errata 002 §6 C5–C11, C13–C18, C26, C28, C29, C34 that is a closed form of the rates is
recomputed from :mod:`dptheory.isrl.registry` (one definition: the registry) and compared with the digest's
printed digits (tolerance: half a unit in the last printed digit). Symbolic identities (C8, C9, C28) and
exact elasticities (C11, C13–C16) are checked exactly (ratio 1, difference 0). Also writes Fig. 3 rebuilt
with its corrections (``isrl_figure3_table.md``) and a picture of the exact elasticities
(``isrl_rate_table.png``).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

from dptheory.claims import Claim, atomic_write, save_figure
from dptheory.data import golden
from dptheory.isrl import registry as ir
from dptheory.symbolic import elasticity

PAPER = "seed 002"
#: errata 002 §6 reference points (L = D = mu = phi = beta = 1, M = N)
UNIT = dict(L=1, D=1, mu=1, phi=1, beta=1)
P1 = dict(n=1000, N=100, M=100, d=100, eps0=1, delta0=1e-6, **UNIT)
P2 = dict(n=1000, N=100, M=100, d=10_000, eps0=0.5, delta0=1e-6, **UNIT)
EXACT = "exact (symbolic / Rational)"


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


def _claim(cid, where, statement, digest: str, measured: float) -> Claim:
    value, rtol = printed(digest)
    return Claim(cid, PAPER, where, statement, value, float(measured), rtol=rtol,
                 tolerance_why="half a unit in the digest's last printed digit")


def _exact(cid, where, statement, predicted, measured) -> Claim:
    return Claim(cid, PAPER, where, statement, float(predicted), float(measured), rtol=0.0, tolerance_why=EXACT)


def _identity(cid, where, statement, a, b) -> Claim:
    """``a == b`` symbolically: the measured value is ``simplify(a - b)`` (must be exactly 0)."""
    diff = sp.simplify(a - b)
    return Claim(cid, PAPER, where, statement, 0.0, float(diff) if diff.is_number else float("nan"),
                 bounds=(0.0, 0.0), tolerance_why=EXACT)


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
    for key, where in where5.items():
        nolog, log = c5[key]
        c.append(_claim(f"C5.{key}.nolog", f"{where} / errata 002 C5", f"{key} at P1, logs dropped", nolog,
                        _val(key, "none", **point)))
        c.append(_claim(f"C5.{key}.log", f"{where} / errata 002 C5", f"{key} at P1, ln(1/δ) kept", log,
                        _val(key, "paper", **point)))
    # C6: P2 (privacy-dominated)
    p2 = dict(P2, eps=0.5, delta=1e-6)
    for key, digest, where in (("isrl_iid_cvx_up", G("C6.isrl_iid_cvx_up"), "Thm 2.1"),
                               ("isrl_iid_sc_up", G("C6.isrl_iid_sc_up"), "Thm 2.1"),
                               ("isrl_noniid_cvx_up", G("C6.isrl_noniid_cvx_up"), "Thm 3.1"),
                               ("sdp_iid_cvx_up", G("C6.sdp_iid_cvx_up"), "Thm 5.1")):
        c.append(_claim(f"C6.{key}", f"{where} / errata 002 C6", f"{key} at P2, logs dropped", digest,
                        _val(key, "none", **p2)))
    c.append(Claim("C6.iid_cvx.priv_dominates", PAPER, "Thm 2.1 / errata 002 C6", "privacy term dominant at P2 (1 = yes)",
                   1.0, float(ir.dominant_term("isrl_iid_cvx_up", logs="none", **p2) == "priv"), rtol=0.0,
                   tolerance_why=EXACT))
    # C7: tightness at P1 (C = 1)
    for key_up, key_lo, digest in (("isrl_iid_cvx_up", "isrl_iid_cvx_lo", c5["isrl_iid_cvx_up"][0]),
                                   ("isrl_iid_sc_up", "isrl_iid_sc_lo", c5["isrl_iid_sc_up"][0])):
        c.append(_claim(f"C7.{key_lo}", "Thm 2.2 / errata 002 C7", f"lower bound {key_lo} at P1 (C = 1) = upper bound",
                        digest, _val(key_lo, "none", C=1, **P1)))
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
                    ir.crossover("isrl_iid_cvx_up", logs="none", **no)))
    c.append(_claim("C10.iid_sc.nolog", "Thm 2.1 / errata 002 C10", "SC gives the same d* (no-log)", G("C10.iid_cvx.nolog"),
                    ir.crossover("isrl_iid_sc_up", logs="none", mu=1, **no)))
    c.append(_claim("C10.iid_cvx.log", "Thm 2.1 / errata 002 C10", "d* = eps0^2 n/ln(1/delta0)", G("C10.iid_cvx.log"),
                    ir.crossover("isrl_iid_cvx_up", delta0=1e-6, **no)))
    c.append(_claim("C10.explicit", "Thm D.1 proof / errata 002 C10",
                    "d* with explicit constants (2 vs 16, two logs, R = 2e5): privacy never free at P1", G("C10.explicit"),
                    ir.crossover("isrl_iid_cvx_explicit", delta0=1e-6, R=2e5, **no)))
    c.append(_claim("C10.noniid_cvx", "Thm 3.1 / errata 002 C10", "d* = eps0^2 n^(3/4) N^(-1/4) (no-log)", G("C10.noniid_cvx"),
                    ir.crossover("isrl_noniid_cvx_up", logs="none", phi=1, beta=1, N=100, v=1, **no)))
    c.append(_identity("C10.sdp.symbolic", "Thm 5.1 / errata 002 C10", "SDP d* = eps^2 n N^2/M",
                       ir.crossover("sdp_iid_cvx_up", logs="none"), ir.eps**2 * ir.n * ir.N**2 / ir.M))
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
                    "10", float(ratio.subs(ir.kappa, 100))))
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
                    G("C17.R_cvx"), float(smooth.evaluate(**P1))))
    c.append(_claim("C17.R_cvx_nonsmooth", "Thm 2.1 (D.2) / errata 002 C17", "R of the non-smooth statement", G("C17.R_cvx"),
                    float(ir.rounds("isrl_iid_cvx").evaluate(**P1))))
    c.append(_claim("C17.R_sc", "Thm 2.1 (D.1) / errata 002 C17", "SC (kappa = 1) R", G("C17.R_sc"),
                    float(ir.rounds("isrl_iid_sc_smooth").evaluate(kappa=1, **P1))))
    f2 = dict(P1, K=1000)
    c.append(_claim("C18.R_F2.log", "Thm F.2 / errata 002 C18", "R = sqrt(M) eps0 n/sqrt(d ln(1/delta0))", G("C18.R_F2.log"),
                    float(ir.rounds("isrl_erm_cvx").evaluate(**f2))))
    ours = float(ir.rounds("isrl_erm_cvx", logs="none").evaluate(**f2))
    girgis = float(ir.rounds("girgis_erm_cvx").evaluate(**P1))
    c.append(_claim("C18.R_F2.nolog", "Thm F.2 / errata 002 C18", "R without the log", G("C18.R_F2.nolog"), ours))
    c.append(_claim("C18.girgis", "Remark F.1 / errata 002 C18", "Girgis et al. R = eps0^2 n^2 M/d", G("C18.girgis"), girgis))
    c.append(_claim("C18.speedup", "Remark F.1 / errata 002 C18", "speed-up = min(sqrt(M) eps0 n/sqrt(d), MK), MK >= 1000",
                    G("C18.speedup"), girgis / ours))
    return c


def other_claims() -> list[Claim]:
    c: list[Claim] = []
    # C26 cross-device hybrid
    eps_, delta_, n_, d_, N_ = 1.0, 1e-6, 100, 10, 10_000
    eps0_, delta0_ = eps_ / n_, delta_ / (4 * n_)
    c.append(_claim("C26.eps0", "App. D.3.5 / errata 002 C26", "eps0 = eps/n", G("C26.eps0"), eps0_))
    c.append(_claim("C26.delta0", "App. D.3.5 / errata 002 C26", "delta0 = delta/(4n)", G("C26.delta0"), delta0_))
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
                    "1", float(ir.rate("ldp_cvx_lo").evaluate(N=100, d=100, eps0=1, L=1, D=1))))
    # C29 trivial regime
    c.append(_claim("C29.threshold", "Thm 2.2 footnote 8 / errata 002 C29", "LB saturates at LD when d >= eps0^2 n^2 N", G("C29.threshold"),
                    ir.crossover("isrl_iid_cvx_lo", "priv", ir.L * ir.D, n=1000, N=100, eps0=1, C=1, L=1, D=1)))
    beyond = ir.rate("isrl_iid_cvx_lo").evaluate(**dict(P1, d=2e8), C=1)
    c.append(Claim("C29.flagged", PAPER, "Thm 2.2 / errata 002 C29",
                   "evaluation at d = 2e8 returns the value LD + stat and names the violated non-trivial regime",
                   1.0, float(len(beyond.violated) == 1 and "non-trivial" in beyond.violated[0]
                              and beyond.terms["priv"] == 1.0), rtol=0.0, tolerance_why=EXACT))
    # C34 Wu et al. comparison
    ratio = sp.simplify(ir.rate("isrl_erm_sc_up").substitute(M=ir.N).terms["priv"] / ir.rate("wu_erm_sc_up").terms["priv"])
    c.append(_identity("C34.symbolic", "Thm 4.1 vs Wu et al. / errata 002 C34", "ratio = ln(1/delta0)/(kappa n)",
                       ratio, sp.log(1 / ir.delta0) / (ir.kappa * ir.n)))
    c.append(_claim("C34.value", "Thm 4.1 vs Wu et al. / errata 002 C34", "ratio at kappa = 10, n = 1000, delta0 = 1e-6",
                    G("C34.value"), float(ratio.subs({ir.kappa: 10, ir.n: 1000, ir.delta0: 1e-6}))))
    # corrections: the printed forms differ exactly where the digest says
    for key, term, factor, why in (("isrl_noniid_sc_up", "stat", ir.mu, "eq. (31) printed phi^2/(nM) lacks 1/mu"),
                                   ("sdp_noniid_sc_up", "priv", ir.mu, "eq. (11) privacy term lacks 1/mu")):
        ratio = (ir.rate(key, logs="none", variant="paper").terms[term] / ir.rate(key, logs="none").terms[term])
        c.append(_identity(f"errata.{key}.{term}", "errata 002 §8 #14", f"{why}: printed/corrected = mu", ratio, factor))
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
    fig, ax = plt.subplots(figsize=(7.5, 0.32 * len(labels) + 1.2))
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
    claims = rate_claims() + round_claims() + other_claims()
    point = dict(n=1000, N=100, d=100, eps0=1, eps=1, delta0=1e-6, delta=1e-6, kappa=100)
    md = ir.figure3_table(params=point).render_markdown() + "\n" + ir.figure3_table(variant="paper").render_markdown()
    atomic_write(out / "isrl_figure3_table.md", md)
    _figure(out / "isrl_rate_table.png")
    return claims
