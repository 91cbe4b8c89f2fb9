"""Seed 000's algorithms (dptheory.treeagg.ftrl) and Thm C.1 (dptheory.treeagg.regret): the Thm B.1 identity and its
failure under a constraint, lazy projection, DP-FTRL-LS and its PSD caveat, the printed and corrected regret bound,
a small regret simulation, the concentration step's failure, and bad inputs (errata 000 §2.4–2.9, §3, §5 #12, #25,
#26)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from dptheory.mechanisms import TreeAggregation, tree_nodes
from dptheory.treeagg import ftrl as F
from dptheory.treeagg import regret as R


def _logistic(n=64, p=5, chains=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((chains, n, p))
    X /= np.linalg.norm(X, axis=-1, keepdims=True)
    y = np.where(rng.random((chains, n)) < 0.5, 1.0, -1.0)
    return F.LogisticLosses(X, y)


@pytest.mark.parametrize("readout, momentum, lam", [("vanilla", 0.0, 4.0), ("honaker", 0.0, 4.0), ("vanilla", 0.9, 20.0),
                                                    ("honaker", 0.9, 20.0)])
def test_thm_b1_dp_ftrl_equals_noisy_sgd_with_the_same_node_draws(readout, momentum, lam):
    """errata 000 §3 Thm B.1, §5 #12: b = B z (GetSum) for DP-FTRL, a = stream(M z) for Noisy-SGD, η = 1/λ."""
    stream = _logistic()
    n, chains, p = stream.steps, 3, stream.p
    z = np.random.default_rng(1).standard_normal((tree_nodes(n, readout).shape[0], chains, p))
    b, a = F.tree_noise(readout, z)
    ftrl = F.dp_ftrl(stream, lam=lam, sigma=1.5, readout=readout, prefix_noise=b, momentum=momentum)
    sgd = F.noisy_sgd(stream, eta=1 / lam, sigma=1.5, readout=readout, increments=a, momentum=momentum)
    assert np.abs(ftrl.theta).max() > 0.1  # a non-trivial trajectory
    assert np.abs(ftrl.theta - sgd.theta).max() <= 1e-14
    # the same white draws through both algorithms' own streams
    w = np.random.default_rng(2).standard_normal((n, chains, p))
    f2 = F.dp_ftrl(stream, lam=lam, sigma=1.5, readout=readout, white=w, momentum=momentum)
    s2 = F.noisy_sgd(stream, eta=1 / lam, sigma=1.5, readout=readout, white=w, momentum=momentum)
    assert np.abs(f2.theta - s2.theta).max() <= 1e-14


def test_tree_noise_routes_agree_and_match_the_mechanism():
    for readout in ("vanilla", "honaker"):
        n = 37
        z = np.random.default_rng(3).standard_normal((tree_nodes(n, readout).shape[0], 2))
        b, a = F.tree_noise(readout, z)
        np.testing.assert_allclose(np.cumsum(a, axis=0), b, atol=1e-13)
        np.testing.assert_allclose(a, TreeAggregation(readout).noising_matrix(n) @ z, atol=1e-13)


def test_thm_b1_fails_with_a_constraint_set():
    """Lazy (DP-FTRL) vs greedy (Noisy-SGD) projection: the identity does not survive a constraint (errata 000 §3)."""
    stream = _logistic()
    z = np.random.default_rng(1).standard_normal((stream.steps, 3, stream.p))
    b, a = F.tree_noise("vanilla", z)
    ftrl = F.dp_ftrl(stream, lam=4.0, sigma=1.5, prefix_noise=b, radius=0.3)
    sgd = F.noisy_sgd(stream, eta=0.25, sigma=1.5, increments=a, radius=0.3)
    assert np.all(np.linalg.norm(ftrl.theta, axis=-1) <= 0.3 + 1e-12)
    assert np.abs(ftrl.theta - sgd.theta).max() > 1e-3


def test_lazy_projection_is_the_constrained_argmin():
    """θ_{t+1} = argmin_{‖θ‖≤R} ⟨s_t, θ⟩ + (λ/2)‖θ − θ_1‖², checked against SLSQP on a two-step linear stream."""
    G = np.array([[1.0, -2.0], [0.5, 0.25]])
    lam, radius, theta1 = 0.8, 1.0, np.array([0.2, 0.1])
    prefix = np.array([[0.3, -0.1], [-0.4, 0.6]])  # b_t in node-std units, σ = 0.5, L = 1
    run = F.dp_ftrl(F.LinearLosses(G), lam=lam, sigma=0.5, clip=10.0, radius=radius, theta1=theta1,
                    prefix_noise=prefix)
    for t in range(2):
        s = G[:t + 1].sum(axis=0) + 0.5 * 10.0 * prefix[t]
        obj = lambda th: s @ th + lam / 2 * np.sum((th - theta1) ** 2)
        res = optimize.minimize(obj, np.zeros(2), method="SLSQP", tol=1e-14,
                                constraints=[{"type": "ineq", "fun": lambda th: radius**2 - th @ th}])
        np.testing.assert_allclose(run.theta[t + 1, 0], res.x, atol=1e-6)
        assert np.linalg.norm(theta1 - s / lam) > radius  # the constraint is active
    # mini-batches average the clipped per-example gradients; node std σL/k
    mb = F.dp_ftrl(F.LinearLosses(np.array([[3.0, 4.0], [0.0, 1.0]]), batch=2), lam=1.0, sigma=1.0, clip=1.0,
                   white=np.zeros((1, 1, 2)))
    np.testing.assert_allclose(mb.final[0], -np.array([0.6 / 2, (0.8 + 1.0) / 2]))
    assert mb.node_std == 0.5


def test_restart_and_seeded_runs():
    stream = _logistic(n=40)
    a = F.dp_ftrl(stream, lam=3.0, sigma=1.0, seed=5, restart_every=16)
    b = F.dp_ftrl(stream, lam=3.0, sigma=1.0, seed=5, restart_every=16)
    np.testing.assert_array_equal(a.theta, b.theta)
    # without noise and constraint a restart at the current iterate changes nothing (θ_1 − Σ∇/λ telescopes);
    # with a constraint (or momentum) the re-anchoring matters
    w = np.zeros((40, 3, stream.p))
    plain = F.dp_ftrl(stream, lam=3.0, sigma=1.0, white=w).theta
    np.testing.assert_allclose(F.dp_ftrl(stream, lam=3.0, sigma=1.0, white=w, restart_every=16).theta, plain, atol=1e-13)
    for kw in (dict(radius=0.2), dict(momentum=0.5)):
        base = F.dp_ftrl(stream, lam=3.0, sigma=1.0, white=w, **kw).theta
        r = F.dp_ftrl(stream, lam=3.0, sigma=1.0, white=w, restart_every=16, **kw).theta
        np.testing.assert_allclose(r[:17], base[:17])
        assert np.abs(r - base).max() > 1e-4


def test_restart_schedule_of_equal_sizes_is_the_periodic_restart():
    """restart_every as a schedule of tree sizes (seed 000 D.1; as n=[...] of tree_epsilon): equal sizes give the
    periodic restart's numbers (same seed, the same draws), [16, 16, 8] included (the last tree shorter); another
    schedule restarts elsewhere, and the accounting composes the same trees."""
    from dptheory.treeagg import accounting as ta

    stream = _logistic(n=40)
    kw = dict(lam=3.0, sigma=1.0, seed=5, radius=0.3, momentum=0.5)
    periodic = F.dp_ftrl(stream, restart_every=16, **kw)
    for schedule in ([16, 16, 8], (16, 16, 8), np.array([16, 16, 8])):
        run = F.dp_ftrl(stream, restart_every=schedule, **kw)
        np.testing.assert_array_equal(run.theta, periodic.theta)
        np.testing.assert_array_equal(run.losses, periodic.losses)
        assert run.settings["restart_every"] == [16, 16, 8]
    np.testing.assert_array_equal(F.dp_ftrl(stream, restart_every=[10] * 4, **kw).theta,
                                  F.dp_ftrl(stream, restart_every=10, **kw).theta)
    np.testing.assert_array_equal(F.dp_ftrl(stream, restart_every=[40], **kw).theta, F.dp_ftrl(stream, **kw).theta)
    other = F.dp_ftrl(stream, restart_every=[24, 16], **kw)
    np.testing.assert_array_equal(other.theta[:17], periodic.theta[:17])
    assert np.abs(other.theta - periodic.theta).max() > 1e-6
    assert ta.tree_epsilon(1.0, n=[24, 16], delta=1e-5, scheme="restart") > 0  # the same schedule, accounted


@pytest.mark.parametrize("schedule, match", [
    ([16, 16], r"restart_every as a schedule .* sum to the horizon, steps = 40.*\(sum 32\)"),
    ([16, 16, 16], r"restart_every as a schedule .*\(sum 48\)"),
    ([20, 0, 20], r"restart_every\[1\] must be a positive integer"),
    ([30, -5, 15], r"restart_every\[1\] must be a positive integer"),
    ([20, 20.5], r"restart_every\[1\]"),
    (["20", "20"], r"restart_every\[0\] must be a real number"),
    ("20", r"restart_every must be"),
    ([], r"restart_every must be a positive integer or a non-empty list"),
    (np.ones((2, 20), dtype=int), r"restart_every must be a positive integer or a 1-d list"),
])
def test_bad_restart_schedule_raises_naming_the_parameter(schedule, match):
    with pytest.raises(ValueError, match=match):
        F.dp_ftrl(_logistic(n=40), lam=3.0, sigma=1.0, restart_every=schedule)


def test_dp_ftrl_ls_without_noise_is_the_ridge_solve():
    rng = np.random.default_rng(4)
    n, p, lam = 30, 4, 0.7
    X = rng.standard_normal((n, p))
    X /= 1.2 * np.linalg.norm(X, axis=-1, keepdims=True)
    y = rng.uniform(-1, 1, n)
    run = F.dp_ftrl_ls(X, y, lam=lam, sigma=3.0, white=(np.zeros((n, 1, p)), np.zeros((n, 1, p, p))))
    for t in range(1, n + 1):
        direct = np.linalg.solve(X[:t].T @ X[:t] + lam / 2 * np.eye(p), X[:t].T @ y[:t])
        np.testing.assert_allclose(run.theta[t, 0], direct, atol=1e-12)
    assert not run.projected.any()


def test_dp_ftrl_ls_psd_caveat_is_never_silently_solved():
    """A noisy W_t + (λ/2)I that is not positive definite: raised, or W_t projected to the PSD cone (errata 000 §2.9)."""
    rng = np.random.default_rng(5)
    n, p, lam, sigma = 8, 3, 0.1, 5.0
    X = rng.standard_normal((n, p))
    X /= np.linalg.norm(X, axis=-1, keepdims=True)
    y = rng.uniform(-1, 1, n)
    wb, wc = rng.standard_normal((n, 1, p)), rng.standard_normal((n, 1, p, p))
    with pytest.raises(F.IndefiniteObjectiveError, match="step t = 1"):
        F.dp_ftrl_ls(X, y, lam=lam, sigma=sigma, white=(wb, wc), psd="raise")
    run = F.dp_ftrl_ls(X, y, lam=lam, sigma=sigma, white=(wb, wc), psd="project")
    assert run.projected[0, 0] and run.min_eig[0, 0] <= 0 and np.all(np.isfinite(run.theta))
    # step 1 by hand: W_1 = x xᵀ + σL² sym(wc_0), s_1 = y x + σL wb_0; clip the eigenvalues of W_1 at 0
    up = np.triu(wc[0, 0])
    W1 = np.outer(X[0], X[0]) + sigma * (up + np.triu(up, 1).T)
    ev, V = np.linalg.eigh(W1)
    assert ev[0] + lam / 2 <= 0
    s1 = y[0] * X[0] + sigma * wb[0, 0]
    np.testing.assert_allclose(run.theta[1, 0], V @ ((V.T @ s1) / (np.maximum(ev, 0) + lam / 2)), atol=1e-12)
    assert F.dp_ftrl_ls(X, y, lam=lam, sigma=sigma, white=(wb, wc), psd="always").projected.any()


def test_c1_printed_and_corrected_differ_by_the_factor_L():
    """errata 000 §3, §5 #26."""
    assert R.c1_lambda_star(4096, 10, 2.0, 0.05, 3.0) == pytest.approx(260.741, abs=5e-4)
    assert R.c1_r_star(4096, 10, 2.0, 0.05, 3.0) == pytest.approx(0.57292, abs=5e-6)
    assert R.c1_r_star(65536, 100, 5.0, 0.05, 1.0) == pytest.approx(0.15145, abs=5e-6)
    L, lam = 2.0, 50.0
    args = (1024, 10, 2.0, lam, 0.05, 3.0)
    corr, paper = R.c1_bound(*args, clip=L), R.c1_bound(*args, clip=L, variant="paper")
    quad = lam / (2 * 1024) * 9.0
    radius = R.c1_noise_radius(1024, 10, 2.0, 0.05, clip=L)
    assert (corr - quad - L**2 / lam) / (paper - quad - L**2 / lam) == pytest.approx(L, rel=1e-12)
    assert corr == pytest.approx(L * radius / lam + L**2 / lam + quad, rel=1e-14)
    # at L = 1 the two coincide; the corrected bound scales like L² (the loss scales like L)
    assert R.c1_bound(*args) == pytest.approx(R.c1_bound(*args, variant="paper"), rel=1e-14)
    for ts in (0.5, 3.0):
        lstar = R.c1_lambda_star(1024, 10, 2.0, 0.05, ts)
        assert R.c1_bound(1024, 10, 2.0, lstar, 0.05, ts) == pytest.approx(R.c1_r_star(1024, 10, 2.0, 0.05, ts))
        assert R.c1_bound(1024, 10, 2.0, 1.1 * lstar, 0.05, ts) > R.c1_r_star(1024, 10, 2.0, 0.05, ts)


def test_small_regret_simulation_stays_below_the_corrected_bound():
    run = R.logistic_regret(256, seeds=8, seed=3)
    assert run.lam == pytest.approx(R.c1_lambda_star(256, 10, 2.0, 0.05, 3.0))
    assert np.all(run.regret > 0) and np.all(run.ratio < 1)
    assert run.ratio_estimate.interval()[1] < 1


def test_printed_c1_bound_fails_at_L_10_where_the_corrected_one_holds():
    """errata 000 §3, §7 #3 (C.1's missing factor L), the check of seed000.regret.c1_L10.*: DP-FTRL on ℓ(θ) = L‖θ‖
    at L = 10 (200 seeds, n = 256, p = 10, σ = 2): the interval of the mean regret lies below the corrected bound and
    above the printed one, in every seed; at L = 1 the two bounds coincide. The regret is (L²/λ)Q with Q free of L
    and λ (the same noise: the same Q to rounding), which is why the printed term, degree 1 in L, cannot hold."""
    from dptheory.stats import family_quantile

    run = R.c1_norm_regret(256, 10, 2.0, clip=10.0, seeds=200, seed=11)
    est = run.regret_estimate
    z = family_quantile(2, 199, 0.05)
    low, high = est.value - z * est.stderr, est.value + z * est.stderr
    assert high <= run.corrected and low > run.printed
    assert np.all(run.regret <= run.corrected) and np.all(run.regret > run.printed)
    assert run.printed == pytest.approx(R.c1_bound(256, 10, 2.0, run.lam, 0.05, 0.0, clip=10.0, variant="paper"))
    assert (run.lam, run.corrected / run.printed) == pytest.approx((160.0, 33.2994 / 3.89244), rel=1e-5)
    unit = R.c1_norm_regret(256, 10, 2.0, clip=1.0, lam=3.0, seeds=200, seed=11)
    assert unit.corrected == pytest.approx(unit.printed, rel=1e-15) and np.all(unit.regret <= unit.corrected)
    np.testing.assert_allclose(unit.invariant, run.invariant, rtol=1e-12)
    again = R.c1_norm_regret(256, 10, 2.0, clip=10.0, seeds=200, seed=11)
    np.testing.assert_array_equal(again.regret, run.regret)  # seeded: the same numbers


def test_norm_losses():
    stream = F.NormLosses(np.array([[0.0, 0.0], [3.0, 4.0]]), scale=2.0)
    loss, g = stream(1, np.array([[0.0, 0.0], [3.0, 4.0]]))
    np.testing.assert_allclose(loss, [[10.0], [0.0]])
    np.testing.assert_allclose(g, [[[-1.2, -1.6]], [[0.0, 0.0]]])
    for bad, match in (({"C": [[np.nan, 0.0]]}, "C must be finite"), ({"C": [[0.0]], "scale": 0.0}, "scale")):
        with pytest.raises(ValueError, match=match):
            F.NormLosses(**bad)


def test_concentration_step_fails_at_p1_n2():
    """errata 000 §5 #25: 0.108 > β = 0.05 (exactly 1 − (1 − 2Φ(−r))², the two prefix noises are independent)."""
    est = R.concentration_failure(2, 1, 0.05, reps=20000, seed=7)
    exact = 1 - (1 - 2 * stats.norm.sf(math.sqrt(math.log(40)))) ** 2
    lo, hi = est.interval(0.999)
    assert lo <= exact <= hi and lo > 0.05
    assert R.concentration_failure(8, 1, 0.05, reps=20000, seed=8).interval(0.999)[1] < 0.05


@pytest.mark.parametrize("call, name", [
    (lambda: R.c1_bound(0, 10, 2.0, 1.0, 0.05, 3.0), "n"),
    (lambda: R.c1_r_star(10.5, 10, 2.0, 0.05, 3.0), "n"),
    (lambda: R.concentration_failure(2.5, 1), "n"),
    (lambda: R.logistic_regret(-4), "n"),
    (lambda: F.dp_ftrl(_logistic(), lam=1.0, sigma=1.0, steps=0), "steps"),
    (lambda: F.dp_ftrl(_logistic(), lam=1.0, sigma=1.0, steps=2.5), "steps"),
    (lambda: F.noisy_sgd(_logistic(), eta=1.0, sigma=1.0, steps=1000), "steps"),
    (lambda: F.dp_ftrl(_logistic(), lam=1.0, sigma=0.0), "sigma"),
    (lambda: F.dp_ftrl(_logistic(), lam=1.0, sigma=-1.0), "sigma"),
    (lambda: F.noisy_sgd(_logistic(), eta=1.0, sigma=float("nan")), "sigma"),
    (lambda: F.dp_ftrl_ls(np.zeros((3, 2)), np.zeros(3), lam=1.0, sigma=float("inf")), "sigma"),
    (lambda: R.c1_bound(16, 10, 0.0, 1.0, 0.05, 3.0), "sigma"),
    (lambda: F.dp_ftrl(_logistic(), lam=1.0, sigma=1.0, readout="full"), "readout"),
    (lambda: F.noisy_sgd(_logistic(), eta=1.0, sigma=1.0, readout="bogus"), "readout"),
    (lambda: F.tree_noise("full", np.zeros((4, 1))), "readout"),
    (lambda: R.concentration_failure(4, 1, readout="full"), "readout"),
    (lambda: F.dp_ftrl_ls(np.zeros((3, 2)), np.zeros(3), lam=1.0, sigma=1.0, psd="ignore"), "psd"),
    (lambda: F.dp_ftrl(_logistic(), lam=0.0, sigma=1.0), "lam"),
    (lambda: F.dp_ftrl(_logistic(), lam=1.0, sigma=1.0, momentum=1.0), "momentum"),
    (lambda: R.c1_bound(16, 10, 1.0, 1.0, 0.05, 3.0, variant="printed"), "variant"),
])
def test_bad_inputs_raise_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        call()
