"""Seed 002 rate registry (:mod:`dptheory.isrl.registry`) against digest 002's claims C5–C11, C13–C18, C26, C28,
C29, C34, Fig. 3 and the errata of errata 002 §8.

Expected numbers are the digest's printed digits (compared at half a unit of the last digit), read from
``dptheory/data/golden.json`` (shared with verify/isrl_rates.py); the Fig. 3 cells are typed here from the paper's
table, independently of the registry.
"""

from __future__ import annotations

import math
import time

import pytest
import sympy as sp

from dptheory.data import golden
from dptheory.hypotheses import ConditionError, TheoremCheck
from dptheory.isrl import calibration as cal, schedules
from dptheory.isrl import registry as ir
from dptheory.isrl.registry import (D, L, M, N, beta, d, delta, delta0, eps, eps0, kappa, mu, n, phi)

UNIT = dict(L=1, D=1, mu=1, phi=1, beta=1)
P1 = dict(n=1000, N=100, M=100, d=100, eps0=1, delta0=1e-6, **UNIT)
P2 = dict(n=1000, N=100, M=100, d=10_000, eps0=0.5, delta0=1e-6, **UNIT)


def close(measured, printed: str):
    """``measured`` agrees with a printed decimal to half a unit of its last digit."""
    mant, _, exp = printed.lower().partition("e")
    decimals = len(mant.split(".")[1]) if "." in mant else 0
    half = 0.5 * 10.0 ** (-decimals + (int(exp) if exp else 0))
    return abs(float(measured) - float(printed)) <= half


def G(key: str):
    """The printed digits of a golden value of errata 002 §6."""
    return golden("002", key).printed


def same(a, b) -> bool:
    return sp.simplify(sp.sympify(a) - sp.sympify(b)) == 0


# -- the registry -------------------------------------------------------------------------------------------
EXPECTED_KEYS = {
    "isrl_iid_cvx_up", "isrl_iid_sc_up", "isrl_iid_cvx_explicit", "isrl_iid_cvx_lo", "isrl_iid_sc_lo",
    "isrl_noniid_cvx_up", "isrl_noniid_sc_up", "isrl_noniid_cvx_lo", "isrl_noniid_sc_lo",
    "isrl_erm_cvx_up", "isrl_erm_sc_up", "isrl_erm_cvx_lo", "isrl_erm_sc_lo", "wu_erm_sc_up",
    "sdp_iid_cvx_up", "sdp_iid_sc_up", "sdp_noniid_cvx_up", "sdp_noniid_sc_up", "sdp_noniid_cvx_up_M",
    "sdp_noniid_sc_up_M", "cdp_cvx_lo", "cdp_sc_lo", "ldp_cvx_lo", "cross_device_cvx_up",
    "unbalanced_cvx_up", "unbalanced_sc_up",
}


def test_registry_holds_every_rate_with_its_metadata():
    reg = ir.rates()
    assert set(reg) == EXPECTED_KEYS
    theorems = " ".join(r.theorem for r in reg.values())
    for thm in ("Thm 2.1", "Thm 2.2", "Thm 3.1", "Thm 4.1", "F.2", "Thm F.3", "Thm 5.1", "Thm 5.2", "Thm H.1", "D.3.5"):
        assert thm in theorems
    for key, r in reg.items():
        assert r.key == key and r.kind in ("upper", "lower") and r.equation and r.setting and r.loss
        assert set(r.terms) <= {"stat", "priv", "hetero"} and "priv" in r.terms
        assert r.expr == sp.Add(*r.terms.values())
        assert r.conditions and all(isinstance(c, (str, sp.core.relational.Relational)) for c in r.conditions)
        assert r.constants_hidden is (key != "isrl_iid_cvx_explicit")
        assert all(s.is_positive for s in r.expr.free_symbols)
    assert ir.rate("isrl_iid_cvx_lo").notation == "Omega~" and ir.rate("isrl_iid_cvx_up").notation == "O~"


def test_logs_none_drops_exactly_the_log_factors():
    for key in ir.rates():
        assert not ir.rate(key, logs="none").expr.has(sp.log) or key.startswith("unbalanced")
    assert same(ir.rate("isrl_iid_cvx_up").terms["priv"] / ir.rate("isrl_iid_cvx_up", logs="none").terms["priv"],
                sp.sqrt(sp.log(1 / delta0)))


# -- C5, C6, C7: values at the reference points ---------------------------------------------------------------
C5 = G("C5")  # key: (no-log, log) at P1, kappa = 100, eps = 1


@pytest.mark.parametrize("key", sorted(C5))
def test_C5_rates_at_P1(key):
    point = dict(P1, kappa=100, eps=1, delta=1e-6)
    nolog, log = C5[key]
    assert close(ir.rate(key, logs="none").evaluate(**point), nolog)
    value = ir.rate(key).evaluate(**point)
    assert close(value, log) and value.ok


def test_C6_rates_at_P2_are_privacy_dominated():
    p2 = dict(P2, eps=0.5, delta=1e-6)
    v = ir.rate("isrl_iid_cvx_up", logs="none").evaluate(**p2)
    assert close(v, G("C6.isrl_iid_cvx_up")) and close(v.terms["priv"], "0.02") and v.dominant == "priv"
    assert close(ir.rate("isrl_iid_sc_up", logs="none").evaluate(**p2), G("C6.isrl_iid_sc_up"))
    assert close(ir.rate("isrl_noniid_cvx_up", logs="none").evaluate(**p2), G("C6.isrl_noniid_cvx_up"))
    assert close(ir.rate("sdp_iid_cvx_up", logs="none").evaluate(**p2), G("C6.sdp_iid_cvx_up"))
    assert ir.dominant_term("isrl_iid_cvx_up", logs="none", **P1) == "stat"


def test_C7_lower_bound_meets_upper_bound_at_P1():
    for loss, digest in (("cvx", C5["isrl_iid_cvx_up"][0]), ("sc", C5["isrl_iid_sc_up"][0])):
        lo = ir.rate(f"isrl_iid_{loss}_lo").evaluate(C=1, **P1)
        up = ir.rate(f"isrl_iid_{loss}_up", logs="none").evaluate(**P1)
        assert close(lo, digest) and close(up, digest)


# -- C8, C9: identities ---------------------------------------------------------------------------------------
def test_C8_isrl_at_eps0_is_cdp_at_eps0_over_sqrt_N():
    isrl = ir.rate("isrl_iid_cvx_lo").substitute(C=1).expr
    cdp = ir.rate("cdp_cvx_lo").substitute(eps=eps0 / sp.sqrt(N)).expr
    assert same(isrl, cdp)
    isrl_sc = ir.rate("isrl_iid_sc_lo").substitute(C=1, L=mu * D).expr
    cdp_sc = ir.rate("cdp_sc_lo").substitute(eps=eps0 / sp.sqrt(N), L=mu * D).expr
    assert same(isrl_sc, cdp_sc)
    # the upper bound (phi = L, non-trivial branch) is the CDP rate too; P1: both 4.1623e-3
    up = ir.rate("isrl_iid_cvx_up", logs="none").substitute(M=N).expr
    assert same(up, ir.rate("cdp_cvx_lo").substitute(eps=eps0 / sp.sqrt(N), phi=L).expr.replace(sp.Min, lambda a, b: b))
    assert close(ir.rate("cdp_cvx_lo").evaluate(eps=0.1, **P1), C5["isrl_iid_cvx_up"][0])


def test_C9_sdp_privacy_is_isrl_privacy_at_eps_N_over_sqrt_M():
    sdp = ir.rate("sdp_iid_cvx_up").terms["priv"]
    isrl = ir.rate("isrl_iid_cvx_up").terms["priv"].subs({eps0: eps * N / sp.sqrt(M), delta0: delta})
    assert same(sdp, isrl)
    sdp_sc = ir.rate("sdp_iid_sc_up").terms["priv"]
    isrl_sc = ir.rate("isrl_iid_sc_up").terms["priv"].subs({eps0: eps * N / sp.sqrt(M), delta0: delta})
    assert same(sdp_sc, isrl_sc)
    r = ir.rate("sdp_iid_cvx_up")
    assert r.slope("M", term="priv") == 0 and r.slope("M", term="stat") == sp.Rational(-1, 2)
    # at M = N the SDP rate is the central one (Thm 5.1: optimal CDP rate without a trusted server)
    cdp = ir.rate("cdp_cvx_lo", logs="none").substitute(phi=L).expr.replace(sp.Min, lambda a, b: b)
    assert same(ir.rate("sdp_iid_cvx_up", logs="none").substitute(M=N).expr, cdp)


# -- C10: crossovers ------------------------------------------------------------------------------------------
def test_C10_where_privacy_stops_being_free():
    no = dict(n=1000, M=100, eps0=1, L=1, D=1)
    assert same(ir.crossover("isrl_iid_cvx_up", "stat", "priv", solve_for="d", logs="none"), eps0**2 * n)
    assert same(ir.crossover("isrl_iid_sc_up", "stat", "priv", solve_for="d", logs="none"), eps0**2 * n)
    assert same(ir.crossover("isrl_iid_cvx_up"), eps0**2 * n / sp.log(1 / delta0))
    assert close(ir.crossover("isrl_iid_cvx_up", "stat", "priv", solve_for="d", logs="none", **no), G("C10.iid_cvx.nolog"))
    assert close(ir.crossover("isrl_iid_cvx_up", solve_for="d", delta0=1e-6, **no), G("C10.iid_cvx.log"))
    assert close(ir.crossover("isrl_iid_sc_up", delta0=1e-6, mu=1, **no), G("C10.iid_cvx.log"))
    assert close(ir.crossover("isrl_iid_cvx_explicit", delta0=1e-6, R=2e5, **no), G("C10.explicit"))
    assert close(ir.crossover("isrl_noniid_cvx_up", logs="none", phi=1, beta=1, **no), G("C10.noniid_cvx"))
    sym = ir.crossover("isrl_noniid_cvx_up", logs="none").subs({phi: 1, beta: 1, L: 1, D: 1})
    assert same(sym, eps0**2 * n ** sp.Rational(3, 4) * M ** sp.Rational(-1, 4))
    assert same(ir.crossover("sdp_iid_cvx_up", logs="none"), eps**2 * n * N**2 / M)
    # in the other direction: the n above which privacy is free at d = 100
    assert close(ir.crossover("isrl_iid_cvx_up", solve_for="n", logs="none", d=100, M=100, eps0=1, L=1, D=1), "100")


# -- C11, C13–C16: elasticities ---------------------------------------------------------------------------------
@pytest.mark.parametrize("term,var,exp", [
    ("priv", "n", -1), ("priv", "eps0", -1), ("priv", "M", sp.Rational(-1, 2)), ("priv", "d", sp.Rational(1, 2)),
    ("stat", "n", sp.Rational(-1, 2)), ("stat", "M", sp.Rational(-1, 2)), ("stat", "eps0", 0),
])
def test_C11_iid_convex_slopes_are_exact_rationals(term, var, exp):
    s = ir.rate("isrl_iid_cvx_up").slope(var, term=term)
    assert isinstance(s, sp.Rational) and s == exp


def test_slope_at_a_point_weights_the_terms():
    r = ir.rate("isrl_iid_cvx_up", logs="none")
    v = r.evaluate(**P1)
    expected = (-0.5 * v.terms["stat"] - v.terms["priv"]) / float(v)
    assert r.slope("n", **P1) == pytest.approx(expected, rel=1e-12)
    assert r.slope("n", **P1) == pytest.approx(-0.62013, abs=1e-5)
    # a lower bound past its trivial threshold has zero slope in d (min{1, .} is active)
    assert ir.rate("isrl_iid_cvx_lo").slope("d", term="priv", C=1, **dict(P1, d=2e8)) == 0.0


def test_C13_noniid_convex_privacy_term():
    r = ir.rate("isrl_noniid_cvx_up", logs="none").substitute(M=N)
    for var, exp in (("n", "-4/5"), ("eps0", "-4/5"), ("N", "-2/5"), ("d", "2/5"), ("beta", "1/5")):
        assert r.slope(var, term="priv") == sp.Rational(exp)
    ratio = ir.rate("isrl_noniid_cvx_up", logs="none").terms["priv"] / ir.rate("isrl_iid_cvx_up", logs="none").terms["priv"]
    ratio = ratio.subs({ir.SYMBOLS[k]: val for k, val in P1.items()})
    assert close(ratio, G("C13.ratio"))
    ratio_nolog = (ir.rate("isrl_noniid_cvx_up", logs="none").terms["priv"]
                   / ir.rate("isrl_iid_cvx_up", logs="none").terms["priv"]).subs({M: N, L: 1, D: 1, beta: 1})
    assert same(ratio_nolog, (eps0 * n * sp.sqrt(N) / sp.sqrt(d)) ** sp.Rational(1, 5))


def test_C14_noniid_sc_privacy_term():
    r = ir.rate("isrl_noniid_sc_up")
    assert r.slope("kappa", term="priv") == sp.Rational(1, 2)
    assert same(r.terms["priv"] / ir.rate("isrl_iid_sc_up").terms["priv"], sp.sqrt(kappa))


def test_C15_noniid_lower_bound_with_C_squared():
    lo = ir.rate("isrl_noniid_cvx_lo").evaluate(**P1)
    up = ir.rate("isrl_noniid_cvx_up", logs="none").evaluate(**P1, v=1)
    assert close(ir._C_NONIID_CVX.subs({eps0: 1, n: 1000, N: 100, d: 100}), G("C15.C2"))
    assert close(lo.terms["priv"], G("C15.lower_priv")) and close(up.terms["priv"], G("C15.upper_priv"))
    assert close(up.terms["priv"] / lo.terms["priv"], G("C15.gap"))
    for var in ("n", "eps0"):
        assert ir.rate("isrl_noniid_cvx_lo").slope(var, term="priv") == sp.Rational(-7, 5)
    assert ir.rate("isrl_noniid_sc_lo").slope("kappa", term="priv") == -1


def test_C16_other_slopes():
    for key, exp in (("sdp_iid_cvx_up", -1), ("sdp_iid_sc_up", -2)):
        for var in ("n", "N", "eps"):
            assert ir.rate(key).slope(var, term="priv") == exp
    assert ir.rate("ldp_cvx_lo").slope("n") == 0 and ir.rate("ldp_cvx_lo").slope("N") == sp.Rational(-1, 2)
    cd = ir.rate("cross_device_cvx_up")
    assert ir.rate("cross_device_cvx_up", logs="none").slope("n", term="priv") == 0
    assert same(cd.slope("n", term="priv"), 1 / (2 * sp.log(n / delta)))  # only through ln(n/delta)


# -- C17, C18: rounds -----------------------------------------------------------------------------------------
def test_C17_rounds_of_theorem_2_1():
    b = ir.smoothing_beta("isrl_iid_cvx")
    assert close(b.subs({L: 1, M: 100, D: 1, n: 1000, eps0: 1, d: 100}), G("C17.beta"))
    smooth = ir.rounds("isrl_iid_cvx_smooth").substitute(beta=b)
    assert close(smooth.evaluate(**P1), G("C17.R_cvx"))
    for point in (P1, P2, dict(P1, d=5)):  # both branches of the min: smooth R at the Moreau beta = 2 min{...}
        assert float(smooth.evaluate(**point)) == pytest.approx(float(ir.rounds("isrl_iid_cvx").evaluate(**point)))
    assert close(ir.rounds("isrl_iid_sc_smooth").evaluate(kappa=1, **P1), G("C17.R_sc"))


def test_C18_erm_rounds_against_girgis():
    full = dict(P1, K=1000)
    assert close(ir.rounds("isrl_erm_cvx").evaluate(**full), G("C18.R_F2.log"))
    ours = float(ir.rounds("isrl_erm_cvx", logs="none").evaluate(**full))
    girgis = float(ir.rounds("girgis_erm_cvx").evaluate(**P1))
    assert close(ours, G("C18.R_F2.nolog")) and close(girgis, G("C18.girgis")) and close(girgis / ours, G("C18.speedup"))
    small = dict(P1, K=5)  # MK = 500 < 1000: the speed-up is MK
    assert girgis / float(ir.rounds("isrl_erm_cvx", logs="none").evaluate(**small)) == pytest.approx(500)
    assert same(ir.rounds("isrl_noniid_cvx", logs="none").rounds.subs(ir.FIGURE3_CONVENTIONS), ir._C_NONIID_CVX)


# -- C26, C28, C29, C34 -------------------------------------------------------------------------------------------
def test_C26_cross_device_hybrid():
    eps_, delta_, n_, d_, N_ = 1.0, 1e-6, 100, 10, 10_000
    eps0_, delta0_ = eps_ / n_, delta_ / (4 * n_)
    assert close(eps0_, G("C26.eps0")) and close(delta0_, G("C26.delta0"))
    cd = ir.rate("cross_device_cvx_up").evaluate(eps=eps_, delta=delta_, n=n_, d=d_, N=N_, M=N_, L=1, D=1)
    assert close(cd.terms["priv"], G("C26.rate")) and cd.ok
    th = ir.rate("isrl_iid_cvx_up").evaluate(eps0=eps0_, delta0=delta0_, n=n_, d=d_, N=N_, M=N_, L=1, D=1)
    assert close(th, G("C26.thm21"))


def test_C28_degenerate_limits():
    lo = ir.rate("isrl_iid_cvx_lo").substitute(C=1).terms["priv"]
    assert same(lo.subs(n, 1), ir.rate("ldp_cvx_lo").terms["priv"])
    assert same(lo.subs(N, 1), ir.rate("cdp_cvx_lo").terms["priv"].subs({N: 1, eps: eps0}))
    assert float(ir.rate("ldp_cvx_lo").evaluate(N=100, d=100, eps0=1, L=1, D=1)) == 1.0


def test_C29_trivial_regime_is_flagged():
    assert close(ir.crossover("isrl_iid_cvx_lo", "priv", L * D, n=1000, N=100, eps0=1, C=1, L=1, D=1), G("C29.threshold"))
    beyond = ir.rate("isrl_iid_cvx_lo").evaluate(**dict(P1, d=2e8), C=1)
    assert beyond.terms["priv"] == 1.0 and not beyond.ok
    assert len(beyond.violated) == 1 and "non-trivial" in beyond.violated[0]
    assert ir.rate("isrl_iid_cvx_lo").evaluate(**P1, C=1).ok


def test_C34_wu_et_al_factor():
    ratio = ir.rate("isrl_erm_sc_up").substitute(M=N).terms["priv"] / ir.rate("wu_erm_sc_up").terms["priv"]
    assert same(ratio, sp.log(1 / delta0) / (kappa * n))
    assert close(ratio.subs({kappa: 10, n: 1000, delta0: 1e-6}), G("C34.value"))


def test_unbalanced_rate_reduces_the_privacy_term_by_sqrt_Xi_over_xi_max():
    """Errata 002 C27: Xi/xi_max = 0.33203 at M = M' = N = 4 scales the convex privacy term by 0.576."""
    r = ir.rate("unbalanced_cvx_up")
    xi_max, Xi_over_ximax = golden("002", "C27.xi").value[0], golden("002", "C27.Xi_over_ximax").value
    base = dict(n_min=100, M=4, Mp=4, N=4, d=10, xi_max=xi_max, L=1, D=1)
    ratio = r.evaluate(Xi=Xi_over_ximax * xi_max, **base).terms["priv"] / r.evaluate(Xi=xi_max, **base).terms["priv"]
    assert close(ratio, "0.576")
    assert not r.evaluate(**dict(base, Xi=0.05)).ok  # Xi > xi_max is flagged


# -- outside the regime, bad input ----------------------------------------------------------------------------
def test_evaluation_outside_the_regime_returns_value_and_violated_condition():
    v = ir.rate("isrl_iid_cvx_up").evaluate(**dict(P1, eps0=30))
    assert v.value > 0 and len(v.violated) == 1 and "eps0 <= 2*log(2/delta0)" in v.violated[0]
    assert "violated" in repr(v) and float(v) == v.value
    v = ir.rate("isrl_iid_cvx_up").evaluate(**dict(P1, delta0=2))  # ln(1/δ0) < 0: no value, but said why
    assert math.isnan(v.value) and any("delta0 < 1" in s for s in v.violated)
    v = ir.rate("isrl_iid_cvx_lo").evaluate(**dict(P1, M=50, eps0=20), C=1)
    assert any("M = N" in s for s in v.violated) and any("sqrt(N)" in s for s in v.violated)
    v = ir.rate("sdp_noniid_cvx_up").evaluate(n=1000, N=100, d=100, eps=20, delta=0.7, phi=1, D=1, L=1, beta=1)
    assert len(v.violated) == 2
    v = ir.rate("isrl_noniid_cvx_up").evaluate(**dict(P1, eps0=200))  # > 8 ln(1/δ0) = 110.5
    assert any("8*log(1/delta0)" in s for s in v.violated)
    v = ir.rate("isrl_iid_cvx_up", logs="none").evaluate(**{k: x for k, x in P1.items() if k != "delta0"})
    assert v.ok and any("eps0 <= 2*log" in s for s in v.unchecked)  # cannot be checked without delta0
    assert ir.rounds("sdp_iid_cvx").evaluate(n=10, N=10, M=10, d=10, eps=5, delta=0.5, beta=1, D=1, L=1).violated


def test_conditions_at_a_point_are_the_shared_theorem_check():
    """The conditions of a rate at a point are :class:`dptheory.hypotheses.TheoremCheck` (the type of seed 001's
    theorems): each relation with both sides' values, the assumptions in words unchecked, ``require()`` raising."""
    v = ir.rate("isrl_iid_cvx_lo").evaluate(**dict(P1, M=50, eps0=20), C=1)
    assert isinstance(v.hypotheses, TheoremCheck) and v.hypotheses.theorem == "Thm 2.2 (D.3)"
    assert [c.label for c in v.hypotheses.failed] == ["eps0 in (0, sqrt(N)]", "M = N"]
    m_eq_n = v.hypotheses["M = N"]
    assert (m_eq_n.lhs, m_eq_n.op, m_eq_n.rhs, m_eq_n.slack) == (50.0, "==", 100.0, -0.5)
    assert len(v.hypotheses.unchecked) == 2 and all(isinstance(u, str) for u in v.hypotheses.unchecked)
    with pytest.raises(ConditionError, match="M = N"):
        v.hypotheses.require()
    check = ir.rate("isrl_iid_cvx_up").check(**P1)
    assert check.holds and check == ir.rate("isrl_iid_cvx_up").evaluate(**P1).hypotheses
    assert not ir.rate("isrl_iid_cvx_up").check(eps0=30, delta0=1e-6).holds  # a point needs only the condition's symbols


def test_bad_input_names_the_parameter():
    r = ir.rate("isrl_iid_cvx_up")
    with pytest.raises(ValueError, match=r"n must lie in \(0, inf\)"):
        r.evaluate(**dict(P1, n=-5))
    with pytest.raises(ValueError, match=r"eps0 must lie in \(0, inf\)"):
        r.evaluate(**dict(P1, eps0=0))
    with pytest.raises(ValueError, match=r"missing value\(s\) for \['M', 'delta0'\]"):
        r.evaluate(**{k: x for k, x in P1.items() if k not in ("M", "delta0")})
    with pytest.raises(ValueError, match="unknown parameter name"):
        r.evaluate(epsilon=1, **P1)
    with pytest.raises(ValueError, match="must be a real number"):
        r.evaluate(**dict(P1, n="many"))
    with pytest.raises(ValueError, match="unknown rate key"):
        ir.rate("isrl_iid_cvx")
    with pytest.raises(ValueError, match="logs must be one of"):
        ir.rate("isrl_iid_cvx_up", logs="some")
    with pytest.raises(ValueError, match="variant must be one of"):
        ir.rate("isrl_iid_cvx_up", variant="printed")
    with pytest.raises(ValueError, match="var must be one of"):
        r.slope("epsilon")
    with pytest.raises(ValueError, match="term must be one of"):
        r.slope("n", term="hetero")
    with pytest.raises(ValueError, match="missing value"):
        r.slope("n", n=10)
    with pytest.raises(ValueError, match="never cross"):
        ir.crossover("isrl_iid_cvx_up", "stat", "priv", solve_for="M", logs="none", n=1000, d=100, eps0=1, L=1, D=1)
    with pytest.raises(ValueError, match="appears in neither"):
        ir.crossover("isrl_iid_cvx_up", solve_for="kappa")
    with pytest.raises(ValueError, match="no closed-form solution"):  # d under ln(d/delta): numeric only
        ir.crossover("sdp_noniid_cvx_up")


# -- corrections and the printed forms --------------------------------------------------------------------------
def test_variant_paper_keeps_the_printed_forms():
    corrected, paper = ir.rates(), ir.rates(variant="paper")
    differ = {k for k in corrected if corrected[k].expr != paper[k].expr}  # structural: same code path
    assert differ == {"isrl_noniid_sc_up", "isrl_noniid_cvx_lo", "sdp_noniid_cvx_up", "sdp_noniid_sc_up",
                      "sdp_noniid_sc_up_M", "cdp_cvx_lo"}
    assert all(corrected[k].corrections for k in differ)
    # eq. (31): phi^2/(nM) missing 1/mu; eq. (11): privacy term missing 1/mu and ln(1/delta) -> ln^2(d/delta)
    assert same(paper["isrl_noniid_sc_up"].terms["stat"] / corrected["isrl_noniid_sc_up"].terms["stat"], mu)
    assert same(ir.rate("sdp_noniid_sc_up", logs="none", variant="paper").terms["priv"]
                / ir.rate("sdp_noniid_sc_up", logs="none").terms["priv"], mu)
    assert corrected["sdp_noniid_sc_up"].terms["priv"].has(sp.log(d / delta, evaluate=False))
    assert paper["cdp_cvx_lo"].expr.has(eps0) and paper["cdp_cvx_lo"].expr.has(phi**2)
    assert any("sqrt(kappa d)" in c for c in corrected["isrl_noniid_sc_up"].corrections)
    assert any("phi^2/(nM)" in c for c in corrected["isrl_noniid_sc_up"].corrections)
    # round complexities: Thm F.1 exponent, Thm F.2 sqrt(M eps0 n), Thm G.1 min{n, .}, Thm G.2 eps0 -> eps
    rc, rp = ir.round_complexities(), ir.round_complexities(variant="paper")
    assert {k for k in rc if rc[k].rounds != rp[k].rounds} == {
        "isrl_erm_cvx_smooth", "isrl_erm_cvx", "isrl_erm_sc", "sdp_iid_cvx", "sdp_iid_sc", "sdp_noniid_cvx"}
    assert rp["isrl_erm_cvx"].rounds.has(sp.sqrt(M * eps0 * n))


# -- Figure 3 -------------------------------------------------------------------------------------------------------
C2 = (eps0 * n * sp.sqrt(N) / sp.sqrt(d)) ** sp.Rational(2, 5)
FIG3 = [  # problem, loss, upper, lower — Fig. 3 as printed, with errata 002 §8 #4 applied
    ("ISRL-DP i.i.d. SCO", "Convex", 1 / sp.sqrt(n * N) + sp.sqrt(d) / (eps0 * n * sp.sqrt(N)),
     1 / sp.sqrt(n * N) + sp.sqrt(d) / (eps0 * n * sp.sqrt(N))),
    ("ISRL-DP i.i.d. SCO", "Strongly convex", 1 / (n * N) + d / (eps0**2 * n**2 * N), 1 / (n * N) + d / (eps0**2 * n**2 * N)),
    ("ISRL-DP non-i.i.d. SCO", "Smooth convex", 1 / sp.sqrt(n * N) + (sp.sqrt(d) / (eps0 * n * sp.sqrt(N))) ** sp.Rational(4, 5),
     1 / sp.sqrt(n * N) + sp.sqrt(d) / (eps0 * n * sp.sqrt(N) * C2)),
    ("ISRL-DP non-i.i.d. SCO", "Smooth strongly convex", 1 / (n * N) + sp.sqrt(kappa) * d / (eps0**2 * n**2 * N),
     1 / (n * N) + d / (eps0**2 * n**2 * N * kappa)),
    ("ISRL-DP ERM", "Convex", sp.sqrt(d) / (eps0 * n * sp.sqrt(N)), sp.sqrt(d) / (eps0 * n * sp.sqrt(N))),
    ("ISRL-DP ERM", "Strongly convex", d / (eps0**2 * n**2 * N), d / (eps0**2 * n**2 * N)),
    ("SDP i.i.d. SCO", "Convex", 1 / sp.sqrt(n * N) + sp.sqrt(d) / (eps * n * N), 1 / sp.sqrt(n * N) + sp.sqrt(d) / (eps * n * N)),
    ("SDP i.i.d. SCO", "Strongly convex", 1 / (n * N) + d / (eps**2 * n**2 * N**2), 1 / (n * N) + d / (eps**2 * n**2 * N**2)),
    ("SDP non-i.i.d. SCO", "Smooth convex", 1 / sp.sqrt(n * N) + (sp.sqrt(d) / (eps * n * N)) ** sp.Rational(4, 5),
     1 / sp.sqrt(n * N) + sp.sqrt(d) / (eps * n * N)),
    ("SDP non-i.i.d. SCO", "Smooth strongly convex", 1 / (n * N) + sp.sqrt(kappa) * d / (eps**2 * n**2 * N**2),
     1 / (n * N) + d / (eps**2 * n**2 * N**2)),
]


def test_figure3_has_every_row_and_cell():
    table = ir.figure3_table()
    assert len(table) == len(FIG3) == 10
    for row, (prob, loss, up, lo) in zip(table, FIG3):
        assert (row.problem, row.loss) == (prob, loss)
        assert same(row.upper, up) and same(row.lower, lo), (prob, loss)
        assert row.upper_ref and row.lower_ref and row.rounds is not None
    refs = [(r.upper_ref, r.lower_ref) for r in table]
    assert refs[4] == ("Girgis et al. 2021 + Thm 4.1", "Thm 4.2 (= Thm F.3)") and refs[2][1] == "Thm 2.2*"
    assert refs[6][1] == "Bassily et al. 2019"
    # round complexities: the one-pass R is C^2; ERM R against Girgis et al.
    assert same(table[2].rounds, C2) and same(table[3].rounds, sp.sqrt(kappa))
    assert same(table[4].rounds, sp.sqrt(N) * eps0 * n / sp.sqrt(d)) and same(table[4].prior_rounds, eps0**2 * n**2 * N / d)
    assert same(table[0].rounds, 2 * sp.Min(n * N, eps0**2 * n**2 * N / d))


def test_figure3_marks_the_corrections_and_keeps_the_printed_cells():
    corrected, printed = ir.figure3_table(), ir.figure3_table(variant="paper")
    assert [bool(r.corrections) for r in corrected] == [False, False, True, True] + [False] * 5 + [True]
    assert same(printed[2].lower, 1 / sp.sqrt(n * N) + sp.sqrt(d) / (eps0 * n * sp.sqrt(N * C2)))
    assert same(printed[3].upper, 1 / (n * N) + sp.sqrt(kappa * d) / (eps0**2 * n**2 * N))
    assert same(printed[9].upper, 1 / (n * N) + sp.sqrt(kappa * d) / (eps**2 * n**2 * N**2))
    assert all(same(a.upper, b.upper) for i, (a, b) in enumerate(zip(corrected, printed)) if i not in (3, 9))
    md = corrected.render_markdown()
    assert md.count("†") == 6 and "sqrt(N C^2)" in md and "sqrt(kappa d)" in md
    for prob, loss, *_ in FIG3:
        assert prob in md and loss in md
    point = dict(n=1000, N=100, d=100, eps0=1, eps=1, delta0=1e-6, delta=1e-6, kappa=100)
    valued = ir.figure3_table(params=point)
    assert close(valued[0].values["upper"], C5["isrl_iid_cvx_up"][0]) and close(valued[2].values["lower"], "3.2254e-3")
    assert close(valued[4].values["prior_rounds"], G("C18.girgis")) and "upper @ point" in valued.render_markdown()


@pytest.mark.parametrize("point", [dict(L=1.0, D=1.0, n=1000, M=100, N=100, d=100, eps0=1.0, mu=1.0),
                                   dict(L=2.5, D=0.3, n=50_000, M=7, N=7, d=3, eps0=0.2, mu=0.05),
                                   dict(L=0.1, D=40.0, n=300, M=1, N=2, d=10_000, eps0=20.0, mu=3.0)])
def test_privacy_terms_are_lemma_D6_with_the_calibrated_sigma2(point):
    """Thms 2.1 and 4.1: the privacy term is Lemma D.6's D·√(dσ²/(MR)) (convex) or dσ²/(μMR) (SC) with Thm D.1's σ²
    from the calibration code, up to a factor of logs and constants alone: 16·√(ln(2.5R/δ0)ln(2/δ0)/ln(1/δ0)) and
    its square."""
    R, d0 = 1000, 1e-6
    s2 = cal.sigma2_noisy_mbsgd(point["L"], R=R, n=point["n"], eps0=point["eps0"], delta0=d0)
    factor = 16 * math.sqrt(math.log(2.5 * R / d0) * math.log(2 / d0) / math.log(1 / d0))
    cvx = point["D"] * math.sqrt(point["d"] * s2 / (point["M"] * R))
    sc = point["d"] * s2 / (point["mu"] * point["M"] * R)
    for key, block, f in (("isrl_iid_cvx_up", cvx, factor), ("isrl_erm_cvx_up", cvx, factor),
                          ("isrl_iid_sc_up", sc, factor**2), ("isrl_erm_sc_up", sc, factor**2)):
        assert block == pytest.approx(f * ir.rate(key).evaluate(**point, delta0=d0).terms["priv"], rel=1e-12), key


def test_thm31_proof_terms_balance_at_the_calibrated_batch_size():
    """Thm 3.1 (E.1): at K = calibration.onepass_batch_convex the proof's βD²K²/n² and LD√(d ln(1/δ0))/(ε0√(KnM))
    both equal eq. (30)'s privacy term, and √K·vD/√(nM)·√((N−M)/(N−1)) its heterogeneity term."""
    q = dict(L=1.3, D=0.7, beta=2.0, n=1000, N=100, M=40, d=100, eps0=1.0, v=0.5, phi=1.0)
    K = schedules.onepass_batch_convex(q["L"], beta=q["beta"], D=q["D"], n=q["n"], d=q["d"], eps0=q["eps0"], delta0=1e-6, M=q["M"])
    t = ir.rate("isrl_noniid_cvx_up").evaluate(**q, delta0=1e-6).terms
    assert q["beta"] * q["D"] ** 2 * K**2 / q["n"] ** 2 == pytest.approx(t["priv"], rel=1e-12)
    noise = q["L"] * q["D"] * math.sqrt(q["d"] * math.log(1e6)) / (q["eps0"] * math.sqrt(K * q["n"] * q["M"]))
    assert noise == pytest.approx(t["priv"], rel=1e-12)
    het = math.sqrt(K) * q["v"] * q["D"] / math.sqrt(q["n"] * q["M"]) * math.sqrt((q["N"] - q["M"]) / (q["N"] - 1))
    assert het == pytest.approx(t["hetero"], rel=1e-12)


def test_verify_script_passes_and_writes_its_files(tmp_path):
    from verify import isrl_rates

    start = time.perf_counter()
    claims = isrl_rates.run(tmp_path, quick=True)
    assert time.perf_counter() - start < 10
    failed = [c.id for c in claims if not c.passed]
    assert not failed and len(claims) > 60
    assert {c.id.split(".")[0] for c in claims} >= {"C5", "C6", "C7", "C8", "C9", "C10", "C11", "C13", "C14", "C15",
                                                     "C16", "C17", "C18", "C26", "C28", "C29", "C34"}
    assert all(c.paper == "seed 002" for c in claims)
    # digest numbers are regression values (computed from the same formulas); a short print that is exact is
    # compared to floating point, not to half a unit of one digit (no rtol of 0.5 or 0.05)
    assert {c.kind for c in claims} == {"regression", "cross-check"}
    assert max(c.rtol for c in claims if c.rtol is not None) < 0.02
    assert all(c.kind == "regression" for c in claims if c.id.split(".")[0] in ("C5", "C6", "C7", "C11", "C13", "C17", "C18"))
    # every theorem family of the registry has a cross-check by another route (module docstring of verify/isrl_rates)
    xfamilies = {c.id.split(".")[1] for c in claims if c.kind == "cross-check" and c.id.startswith("xcheck.")}
    assert {"isrl_iid_cvx_up", "isrl_iid_sc_up", "isrl_iid_cvx_explicit", "isrl_iid_cvx_lo", "isrl_noniid_cvx_up",
            "isrl_noniid_sc_up", "isrl_erm_cvx_up", "isrl_erm_sc_up",
            "sdp_noniid_cvx_up", "unbalanced_cvx_up", "cross_device", "rounds"} <= xfamilies
    # a symbolic identity between two formulas typed from the papers catches a transcription error only: a
    # regression value (issue 39), so Thm F.3's ERM lower bounds have no cross-check by another route
    kinds = {c.id: c.kind for c in claims}
    assert all(kinds[i] == "regression" for i in ("C8.cvx.identity", "C8.sc.identity", "C9.identity", "C28.n1", "C28.N1",
                                                 "xcheck.isrl_erm_cvx_lo.cdp", "xcheck.isrl_erm_sc_lo.cdp"))
    # C26's (eps0, delta0) come from the library's conversion, not from the script's own arithmetic
    c26 = {c.id: c for c in claims if c.id.startswith("C26.")}
    assert c26["C26.eps0"].measured == cal.user_to_isrl(1.0, delta=1e-6, n=100)[0]
    assert "Figure 3" in (tmp_path / "isrl_figure3_table.md").read_text()
    assert (tmp_path / "isrl_rate_table.png").stat().st_size > 10_000
    assert not list(tmp_path.glob(".*.tmp"))
