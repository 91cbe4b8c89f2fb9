"""jax_privacy 2.0's BLT features in dptheory (seed 003; ``matrix_factorization.buffered_toeplitz``): the number of
buffers chosen automatically (``optimize(..., buffers=None)``), the RA-BLT of arXiv 2404.16706v2 Prop. 4.5
(:meth:`BLT.rational_approximation`) and the Pillutla score (arXiv 2504.21413 Thm 1, :meth:`BLT.pillutla_score`).

Peer values: ``tests/peer_values/jax_privacy_blt_features.json``, written by the script beside it with jax_privacy
2.0.0 (these tests never import jax). jax_privacy's losses are **squared**; dptheory's are unsquared, so every
comparison below squares dptheory's (error ``'mean'`` is dptheory's ``loss="rms"``).
"""

import json
from pathlib import Path

import mpmath
import numpy as np
import pytest

import dptheory as dpt
from dptheory.blt import BLT, Participation, optimize, prefix_loss
from dptheory.blt import optimizer as opt
from dptheory.blt.optimizer import DegenerateOptimum

PEER = json.loads((Path(__file__).parent / "peer_values" / "jax_privacy_blt_features.json").read_text())
PEER_RTOL = 1e-9  # dptheory against jax_privacy, relative, on squared losses


def _participation(case):
    if case["max_participations"] == 1:
        return Participation()
    return Participation(max_participations=case["max_participations"], min_sep=case["min_sep"])


def _loss(case):
    return "max" if case["error"] == "max" else "rms"


def _case_id(case):
    return f"n{case['n']}-b{case['min_sep']}-k{case['max_participations']}-{case['error']}"


# -- the number of buffers chosen automatically -------------------------------------------------------------------


@pytest.mark.parametrize("case", PEER["cases"], ids=_case_id)
def test_auto_buffers_choose_jax_privacys_d_and_reach_its_loss(case):
    """optimize(buffers=None, min_buffers=1, max_buffers=10, rtol=1.01) chooses jax_privacy's d (its optimize with
    the same arguments), at a loss ≤ jax's·(1 + 1e-9) (squared); every d both tried reaches jax's loss at that d
    or lower; the rule holds on the recorded losses; every optimum has Pillutla score < 1."""
    p = _participation(case)
    result = optimize(case["n"], p, buffers=None, loss=_loss(case), min_buffers=case["min_buffers"],
                      max_buffers=case["max_buffers"], rtol=case["rtol"])
    assert result.buffers_used == result.buffers_requested == case["buffers"]
    assert not result.collapsed
    assert result.value**2 <= case["loss"] * (1 + PEER_RTOL)
    assert result.value == pytest.approx(prefix_loss(result.blt, case["n"], p).max_loss if case["error"] == "max"
                                         else prefix_loss(result.blt, case["n"], p).rms_loss, rel=1e-10)
    jax_per_d = {call["d"]: call["loss"] for call in case["per_buffers"] if "loss" in call}
    tried = result.buffer_losses
    assert [d for d, _, _ in tried] == sorted(jax_per_d)  # the same d's tried, up to the first rejected
    for d, value, used in tried:
        assert used == d
        assert value**2 <= jax_per_d[d] * (1 + PEER_RTOL)
    for (_, better, _), (_, worse, _) in zip(tried[1:-1], tried[:-2]):
        assert case["rtol"] * better**2 < worse**2  # accepted
    assert not case["rtol"] * tried[-1][1] ** 2 < tried[-2][1] ** 2  # the first rejected
    assert result.value == tried[-2][1]
    assert result.blt.pillutla_score() < 1.0


@pytest.mark.parametrize("case", PEER["cases"], ids=_case_id)
def test_dptheory_loss_of_jax_privacys_blt_is_jax_privacys_loss(case):
    """The loss of jax_privacy's BLT(θ, ω), each per-d optimum and the chosen one, by dptheory's route
    (prefix_loss: Eq. 2 coefficients, Thm 3.1 sensitivity), squared, equals jax_privacy's to 1e-9 relative (jax's
    closed forms for single-participation max, else its materialised Toeplitz route)."""
    p = _participation(case)
    for blt_data in [case] + [call for call in case["per_buffers"] if "loss" in call]:
        oracle = prefix_loss(BLT(blt_data["theta"], blt_data["omega"]), case["n"], p)
        ours = oracle.max_loss if case["error"] == "max" else oracle.rms_loss
        assert ours**2 == pytest.approx(blt_data["loss"], rel=PEER_RTOL)
    assert case["loss"] == pytest.approx(case["loss_materialised"], rel=1e-12)


def test_auto_buffers_follow_the_rule_on_squared_losses():
    """rtol compares squared losses (jax_privacy's rule): rtol = 1 accepts every strict improvement, a huge rtol
    none (min_buffers back); max_buffers caps the search; min_buffers = max_buffers is one optimisation, the same
    as buffers=d."""
    p = Participation(max_participations=3, min_sep=100)
    strict = optimize(300, p, buffers=None, rtol=1.0, max_buffers=4)
    assert strict.buffers_used <= 4 and len(strict.buffer_losses) <= 4
    loose = optimize(300, p, buffers=None, rtol=1e6, min_buffers=2)
    assert loose.buffers_used == 2 and [d for d, _, _ in loose.buffer_losses] == [2, 3]
    one = optimize(300, p, buffers=None, min_buffers=2, max_buffers=2)
    fixed = optimize(300, p, buffers=2)
    assert one.buffer_losses == fixed.buffer_losses == ((2, fixed.value, 2),)
    assert one.value == fixed.value
    np.testing.assert_array_equal(one.theta, fixed.theta)
    # the rule between the squares, not the unsquared losses: accept iff rtol·L(d+1)² < L(d)²
    (_, l1, _), (_, l2, _) = optimize(300, p, buffers=None, max_buffers=2, rtol=1.0).buffer_losses
    ratio = (l1 / l2) ** 2
    assert optimize(300, p, buffers=None, max_buffers=2, rtol=ratio * (1 - 1e-6)).buffers_used == 2
    assert optimize(300, p, buffers=None, max_buffers=2, rtol=ratio * (1 + 1e-6)).buffers_used == 1


def test_a_collapsed_d_counts_as_no_improvement():
    """(n=100, b=20, k=5): the 4-buffer optimum collapses to 3 buffers (tests/test_blt_optimizer.py); with
    buffers=None it stops there and returns the 3-buffer optimum, uncollapsed, the collapse recorded."""
    p = Participation(max_participations=5, min_sep=20)
    result = optimize(100, p, buffers=None, min_buffers=3, rtol=1.0)
    assert (result.buffers_used, result.buffers_requested, result.collapsed) == (3, 3, False)
    assert result.buffer_losses[-1][0] == 4 and result.buffer_losses[-1][2] < 4
    assert result.value == pytest.approx(optimize(100, p, buffers=3).value, rel=1e-12)


def test_a_degenerate_optimum_at_min_buffers_propagates():
    """64 epochs of 16 steps: the 1-buffer optimum is degenerate (tests/test_blt_optimizer.py) — at min_buffers
    the search cannot start and says so."""
    with pytest.raises(DegenerateOptimum):
        optimize(1024, Participation(max_participations=64, min_sep=16), buffers=None)


@pytest.mark.parametrize("kwargs,match", [
    ({"buffers": 2, "min_buffers": 1}, r"buffers = 2 fixes the number of buffers.*buffers=None"),
    ({"buffers": 2, "rtol": 1.01}, r"min_buffers, max_buffers and rtol"),
    ({"buffers": None, "min_buffers": 0}, r"min_buffers must .*\[1, 15\]"),
    ({"buffers": None, "max_buffers": 16}, r"max_buffers must .*\[1, 15\].*15\+ lead to numerical trouble"),
    ({"buffers": None, "min_buffers": 4, "max_buffers": 3}, r"max_buffers must .*\[4, 15\]"),
    ({"buffers": None, "rtol": 0.99}, r"rtol must lie in \[1, inf\)"),
    ({"buffers": None, "rtol": float("nan")}, r"rtol must be finite"),
    ({"buffers": None, "rtol": float("inf")}, r"rtol must be finite"),
    ({"buffers": None, "initial": ([0.9], [0.5])}, r"initial .* pass buffers=d"),
    ({"init": "digest"}, r"init must be None .* or \"rational\""),
    ({"buffers": 0}, r"buffers must .*\[1, inf\)"),
])
def test_auto_buffers_bad_input_names_the_parameter_and_range(kwargs, match):
    with pytest.raises(ValueError, match=match):
        optimize(100, None, **kwargs)


def test_rational_init_is_jax_privacys_start_and_reaches_the_optimum():
    """init="rational" adds jax_privacy's start (get_init_blt: the RA-BLT with max decay and Pillutla score
    1 − 1e-6); alone (starts=0) it reaches jax's 3-buffer optimum at (n=1000, b=100, k=10) to 1e-9."""
    case = next(c for c in PEER["cases"] if (c["n"], c["min_sep"]) == (1000, 100))
    jax3 = next(call["loss"] for call in case["per_buffers"] if call["d"] == 3)
    result = optimize(1000, _participation(case), buffers=3, starts=0, init="rational")
    assert result.buffers_used == 3
    assert result.value**2 <= jax3 * (1 + PEER_RTOL)
    D = opt._differences(opt._gaps(opt._rational_start(3)))
    ra = BLT.rational_approximation(3, max_decay=1 - 1e-6, max_pillutla_score=1 - 1e-6)
    np.testing.assert_allclose(opt._decay_pair(D, 3)[0], ra.theta, rtol=1e-14)


# -- RA-BLT (arXiv 2404.16706v2 Prop. 4.5) ---------------------------------------------------------------------------


def _ra_kwargs(rec):
    return dict(max_decay=rec["max_decay"], max_pillutla_score=rec["max_pillutla_score"],
                decay_scale=rec["decay_scale"], decay_shift=rec["decay_shift"])


@pytest.mark.parametrize("rec", [r for r in PEER["rational"] if "error" not in r],
                         ids=lambda r: f"d{r['buffers']}-{r['max_decay']:g}-{r['max_pillutla_score']}-"
                                       f"{r['decay_scale']:g}-{r['decay_shift']}")
def test_rational_approximation_matches_jax_privacy(rec):
    """BLT.rational_approximation against jax_privacy's from_rational_approx_to_sqrt_x: θ to 1e-12 (measured
    ≤ 2.1e-14), the first 64 coefficients to 1e-12, the Pillutla score to 1e-12; ω to 5e-12 absolute — jax's ω
    are the less accurate (its eigenvector route: 3.7e-12 from an mpmath inversion at d = 7, dptheory's 1.5e-14,
    test_rational_approximation_against_an_mpmath_inversion)."""
    blt = BLT.rational_approximation(rec["buffers"], **_ra_kwargs(rec))
    assert blt.d == rec["buffers"] and not blt.signed
    np.testing.assert_allclose(blt.theta, rec["theta"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(blt.omega, rec["omega"], rtol=0, atol=5e-12)
    np.testing.assert_allclose(blt.strategy_coeffs(64), rec["coeffs"], rtol=0, atol=1e-12)
    assert blt.pillutla_score() == pytest.approx(rec["pillutla_score"], abs=1e-12)
    assert blt.theta[0] <= rec["max_decay"]
    if rec["max_pillutla_score"] is not None:
        assert blt.pillutla_score() <= rec["max_pillutla_score"] * (1 + 1e-14)


def test_rational_approximation_where_jax_privacy_refuses():
    """jax_privacy's inverse check refuses (d=5, max_decay 0.999, score 0.9, scale 2, shift −2); dptheory's
    secular-equation inversion gives a valid BLT within both bounds."""
    rec = next(r for r in PEER["rational"] if "error" in r)
    blt = BLT.rational_approximation(rec["buffers"], **_ra_kwargs(rec))
    assert blt.d == 5 and np.all(blt.omega > 0) and blt.theta[0] == pytest.approx(0.999, rel=1e-15)
    assert blt.pillutla_score() <= 0.9 * (1 + 1e-14)


def _mp_rational(d, scale=1.6, shift=-1):
    """Prop. 4.5 in 60 digits: the noising BLT's (θ̂, ω̂), C's θ by mpmath's eigenvalues Newton-polished on the
    secular equation, ω by Alg. 5's product form."""
    mpmath.mp.dps = 60
    d1 = (d + 1) // 2
    h = mpmath.mpf(scale) * mpmath.pi / mpmath.sqrt(2 * (d1 + 1))
    ks = [mpmath.mpf(k + shift) for k in range(-d1 + 1, d - d1 + 1)]
    th = [1 / (1 + mpmath.e ** (2 * h * k)) for k in ks]
    Z = sum(mpmath.e ** (h * k) * t for k, t in zip(ks, th))
    om = [-t**2 * mpmath.e ** (3 * h * k) / Z for k, t in zip(ks, th)]
    M = mpmath.matrix(d, d)
    for i in range(d):
        for j in range(d):
            M[i, j] = (th[i] if i == j else 0) - om[j]
    roots = []
    for lam in sorted((mpmath.re(e) for e in mpmath.eig(M)[0]), reverse=True):
        for _ in range(6):
            lam -= (1 + sum(w / (lam - t) for w, t in zip(om, th))) / -sum(w / (lam - t) ** 2 for w, t in zip(om, th))
        roots.append(lam)
    omega = [mpmath.fprod(a - t for t in th) / mpmath.fprod(a - b for j, b in enumerate(roots) if j != i)
             for i, a in enumerate(roots)]
    return np.array([float(r) for r in roots]), np.array([float(w) for w in omega])


@pytest.mark.parametrize("d", [1, 3, 4, 7, 8])
def test_rational_approximation_against_an_mpmath_inversion(d):
    """θ and ω against a 60-digit inversion of the same noising BLT to 1e-13 absolute (measured ≤ 1.5e-14); in
    exact arithmetic θ_1 = 1 (to 1e-60: the approximation of √(1 − x) vanishes at x = 1)."""
    theta, omega = _mp_rational(d)
    blt = BLT.rational_approximation(d)
    np.testing.assert_allclose(blt.theta, theta / max(1.0, theta[0]), rtol=0, atol=1e-13)
    np.testing.assert_allclose(blt.omega, omega, rtol=0, atol=1e-13)
    assert theta[0] == 1.0


def test_rational_approximation_tends_to_the_square_root_factorisation():
    """An independent route: the coefficients approach the binomial series of (1 − x)^{−1/2}, C(2j, j)/4^j
    (optimal_cc's strategy, checked there against the closed form), max_j<512 |c_j − c*_j| falling from d to d + 2
    for d = 1 … 10 (the step h depends on ⌈d/2⌉, so not by every step: d = 3 is worse than d = 2), below 0.011
    at d = 11, 12."""
    reference = dpt.optimal_cc().strategy_coeffs(512)
    np.testing.assert_allclose(reference[:4], [1.0, 0.5, 0.375, 0.3125], rtol=1e-15)
    err = {d: float(np.max(np.abs(BLT.rational_approximation(d).strategy_coeffs(512) - reference)))
           for d in range(1, 13)}
    for d in range(1, 11):
        assert err[d + 2] < err[d], (d, err)
    assert err[11] < 0.011 and err[12] < 0.011
    assert err[3] > err[2]


@pytest.mark.parametrize("kwargs,match", [
    ({"buffers": 0}, r"buffers must .*\[1, 24\]"),
    ({"buffers": 25}, r"buffers must .*\[1, 24\]"),
    ({"buffers": 2.5}, r"buffers must be an integer"),
    ({"buffers": 3, "max_decay": 0.0}, r"max_decay must lie in \(0, 1\]"),
    ({"buffers": 3, "max_decay": 1.1}, r"max_decay must lie in \(0, 1\]"),
    ({"buffers": 3, "max_pillutla_score": -1.0}, r"max_pillutla_score must lie in \(0, inf\)"),
    ({"buffers": 3, "decay_scale": 0.0}, r"decay_scale must lie in \(0, inf\)"),
    ({"buffers": 3, "decay_shift": 0.5}, r"decay_shift must be an integer"),
    ({"buffers": 24, "decay_scale": 3.0}, r"double precision does not resolve .*buffers = 24"),
])
def test_rational_approximation_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        BLT.rational_approximation(kwargs.pop("buffers"), **kwargs)


# -- the Pillutla score (arXiv 2504.21413 Thm 1) --------------------------------------------------------------------


@pytest.mark.parametrize("rec", PEER["pillutla"], ids=lambda r: f"d{len(r['theta'])}-{r['pillutla_score']:.3f}")
def test_pillutla_score_matches_jax_privacy_and_certifies_positive_inverse_decays(rec):
    """Σω/θ equals jax_privacy's pillutla_score(); the inverse decays equal jax's inverse() to 1e-12; and,
    checked on the inverse itself, score < 1 ⇔ every inverse decay in (0, 1), interlacing, with ω̂ < 0."""
    blt = BLT(rec["theta"], rec["omega"])
    assert blt.pillutla_score() == pytest.approx(rec["pillutla_score"], rel=1e-15)
    np.testing.assert_allclose(blt.inverse_decays(), rec["inverse_theta"], rtol=0, atol=1e-12)
    thh = blt.inverse().theta
    assert (blt.pillutla_score() < 1.0) == bool(np.all((thh > 0) & (thh < 1)))
    assert np.all(blt.inverse_scales() < 0)
    assert np.all(thh < blt.theta) and np.all(thh[:-1] > blt.theta[1:])


def test_pillutla_score_one_is_an_inverse_decay_at_zero_and_random_blts_agree():
    """Score = 1 puts θ̂_d at 0 (BLT([0.9], [0.9]): θ̂ = θ − ω = 0, to rounding; and a 3-buffer BLT scaled to
    score 1); on 200 random BLTs score < 1 ⇔ min θ̂ > 0."""
    assert abs(BLT([0.9], [0.9]).inverse_decays()[0]) < 1e-15
    base = BLT([0.99, 0.6, 0.2], [0.05, 0.1, 0.02])
    at_one = BLT(base.theta, base.omega / base.pillutla_score())
    assert at_one.pillutla_score() == pytest.approx(1.0, rel=1e-15)
    assert abs(at_one.inverse_decays()[-1]) < 1e-14
    rng = np.random.default_rng(7)
    for _ in range(200):
        d = int(rng.integers(1, 5))
        theta = np.sort(rng.uniform(0.01, 0.999, d))[::-1]
        blt = BLT(theta, rng.uniform(0.001, 0.5, d) * theta)
        if abs(blt.pillutla_score() - 1.0) > 1e-9:
            assert (blt.pillutla_score() < 1.0) == (blt.inverse_decays()[-1] > 0.0)
    assert BLT((), ()).pillutla_score() == 0.0


# -- the command line (dptheory blt optimize) --------------------------------------------------------------------


def test_cli_blt_optimize_buffers_auto_reports_the_choice(capsys):
    """`dptheory blt optimize --buffers auto` is optimize(buffers=None): it reports buffers_used, collapsed and
    each d tried, in JSON and in text; a fixed --buffers that collapses says so."""
    from dptheory.cli import main

    assert main(["blt", "optimize", "--horizon", "1000", "--participation", "10:100", "--buffers", "auto",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["buffers_used"], data["buffers_requested"], data["collapsed"]) == (2, 2, False)
    assert [d for d, _, _ in data["buffer_losses"]] == [1, 2, 3]
    assert data["value"] ** 2 == pytest.approx(PEER["cases"][0]["loss"], rel=PEER_RTOL)
    assert main(["blt", "optimize", "--horizon", "100", "--participation", "5:20", "--buffers", "4"]) == 0
    assert "3 used of 4 requested (that optimum collapsed" in capsys.readouterr().out
    assert main(["blt", "optimize", "--buffers", "many"]) != 0
    assert "a whole number of buffers, or auto" in capsys.readouterr().err
