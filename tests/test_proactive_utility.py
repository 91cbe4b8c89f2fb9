"""The utility graph of seed 001 (§3.3, App. D.2): training, perturbation, the exact per-point oracle, R_C."""

import numpy as np
import pytest
from scipy import optimize, special

from dptheory.proactive.utility import (
    UtilityGraph,
    expected_accuracy,
    final_round_step,
    regularized_loss,
    synthetic_classification,
    train_clipped,
    utility_graph,
)

DATA = synthetic_classification(2000, 1000, 10, seed=3)
TRAIN = dict(K=4000, s=10)
C_VALUES = [0.05, 0.1]
SIGMAS = [0.0, 2.0, 5.0, 10.0, 20.0, 40.0]


@pytest.fixture(scope="module")
def graph():
    return utility_graph(DATA, C_VALUES, SIGMAS, draws=100, seed=7, **TRAIN)


def test_ratio_is_exactly_one_without_noise(graph):
    assert np.all(graph.ratio_draws[:, 0, :] == 1.0)
    assert np.all(graph.lo[:, 0] == 1.0) and np.all(graph.hi[:, 0] == 1.0)
    assert np.all(graph.base_accuracy > 0.85)  # w*(C) is near the Bayes accuracy 0.9 (App. D.2: "near optimal")


def test_mean_ratio_decreases_in_sigma_and_tends_to_chance():
    g = utility_graph(DATA, C_VALUES, [0.0, 5.0, 10.0, 20.0, 50.0, 1e3, 1e6], draws=60, seed=1, **TRAIN)
    assert np.all(g.ratio[:, 1:] <= g.hi[:, :-1])  # non-increasing within the CI
    assert np.all(g.ratio[:, -1] < 0.7 * g.ratio[:, 1])  # and clearly decreasing
    lo, hi = g.interval(0.999)
    chance = 0.5 / g.base_accuracy  # a random direction classifies half the points correctly
    assert np.all((lo[:, -1] <= chance) & (chance <= hi[:, -1]))
    assert np.allclose(g.ratio[:, -1], chance, atol=0.05)


def test_simulated_ratio_matches_the_exact_per_point_expectation(graph):
    """Given x, y(w + τz)ᵀx ~ N(y wᵀx, τ²‖x‖²): E[acc] = mean Φ(y wᵀx/(τ‖x‖)), evaluated deterministically."""
    lo, hi = graph.interval(0.999)
    for c, (C, w) in enumerate(zip(graph.C_values, graph.weights)):
        taus = graph.step * C * graph.sigmas
        exact = expected_accuracy(w, DATA.X_test, DATA.y_test, taus) / graph.base_accuracy[c]
        assert exact[0] == 1.0
        assert np.all((lo[c] <= exact) & (exact <= hi[c])), (C, lo[c], exact, hi[c])
        # the comparison has teeth: a 50% larger noise scale is rejected at σ = 5 and 10 (drops of 1–10%)
        wrong = expected_accuracy(w, DATA.X_test, DATA.y_test, 1.5 * taus[2:4]) / graph.base_accuracy[c]
        assert np.all(wrong < lo[c, 2:4])


def test_expected_accuracy_agrees_with_a_direct_monte_carlo_per_point():
    rng = np.random.default_rng(0)
    w = np.array([1.0, -0.5, 0.2])
    X = rng.standard_normal((5, 3))
    y = np.array([1.0, -1.0, 1.0, 1.0, -1.0])
    z = rng.standard_normal((200_000, 3))
    mc = np.mean((y * ((w + 0.7 * z) @ X.T)) > 0)
    assert expected_accuracy(w, X, y, 0.7)[0] == pytest.approx(mc, abs=4e-3)
    assert expected_accuracy(w, X, y, 0.0)[0] == np.mean(y * (X @ w) > 0)
    assert expected_accuracy(w, X, y, 1e12)[0] == pytest.approx(0.5, abs=1e-9)


def test_step_scales_the_noise(graph):
    """step·C·σ is all that matters: step = 2 at σ equals step = 1 at 2σ (same draws)."""
    g2 = utility_graph(DATA, C_VALUES, np.array(SIGMAS) / 2, step=2.0, draws=100, seed=7, **TRAIN)
    np.testing.assert_allclose(g2.ratio_draws, graph.ratio_draws, rtol=0, atol=0)


def _z_scores(g):
    """(simulated − exact)/standard error at every (C, σ > 0): the Monte-Carlo deviation in its own units."""
    sem = g.ratio_draws.std(axis=2, ddof=1) / np.sqrt(g.ratio_draws.shape[2])
    exact = np.array([expected_accuracy(w, DATA.X_test, DATA.y_test, g.step * C * g.sigmas) / g.base_accuracy[c]
                      for c, (C, w) in enumerate(zip(g.C_values, g.weights))])
    return ((g.ratio - exact) / np.where(sem > 0, sem, np.inf))[:, 1:]


def test_fresh_draws_make_each_band_an_independent_interval():
    """Common draws share one deviation across σ (the bands miss the exact curve together or not at all); fresh
    draws per (C, σ) decorrelate neighbouring points, and each band still contains the exact value."""
    sig = np.linspace(0.0, 60.0, 31)
    common = utility_graph(DATA, C_VALUES, sig, draws=60, seed=5, **TRAIN)
    fresh = utility_graph(DATA, C_VALUES, sig, draws=60, seed=5, common_draws=False, **TRAIN)
    assert np.array_equal(fresh.weights, common.weights) and np.all(fresh.ratio_draws[:, 0, :] == 1.0)
    corr = lambda z: np.corrcoef(z[:, 5:-1].ravel(), z[:, 6:].ravel())[0, 1]  # σ_j against σ_{j+1}, past the flat start
    assert corr(_z_scores(common)) > 0.7 and abs(corr(_z_scores(fresh))) < 0.4
    lo, hi = fresh.interval(0.999)
    exact = np.array([expected_accuracy(w, DATA.X_test, DATA.y_test, fresh.step * C * sig) / fresh.base_accuracy[c]
                      for c, (C, w) in enumerate(zip(fresh.C_values, fresh.weights))])
    assert np.mean((lo <= exact) & (exact <= hi)) > 0.95
    again = utility_graph(DATA, C_VALUES, sig, draws=60, seed=5, common_draws=False, **TRAIN)
    assert np.array_equal(again.ratio_draws, fresh.ratio_draws) and fresh.settings["common_draws"] is False


def test_same_seed_same_numbers_other_seed_other_numbers(graph):
    again = utility_graph(DATA, C_VALUES, SIGMAS, draws=100, seed=7, **TRAIN)
    assert np.array_equal(again.ratio_draws, graph.ratio_draws) and np.array_equal(again.weights, graph.weights)
    other = utility_graph(DATA, C_VALUES, SIGMAS, draws=100, seed=8, **TRAIN)
    assert not np.array_equal(other.ratio_draws, graph.ratio_draws)
    d1, d2 = synthetic_classification(50, 20, 4, seed=5), synthetic_classification(50, 20, 4, seed=5)
    assert np.array_equal(d1.X_train, d2.X_train) and np.array_equal(d1.y_test, d2.y_test)


def test_synthetic_data_has_the_stated_bayes_accuracy():
    data = synthetic_classification(20_000, 20_000, 8, margin=1.0, seed=2)
    assert data.bayes_accuracy == pytest.approx(special.ndtr(1.0))
    assert set(np.unique(data.y_train)) == {-1.0, 1.0} and abs(np.mean(data.y_train)) < 0.03
    m_hat = np.mean(data.y_train[:, None] * data.X_train, axis=0)  # estimates m; ‖m‖ = margin
    assert np.linalg.norm(m_hat) == pytest.approx(1.0, abs=0.05)
    acc = np.mean(data.y_test * (data.X_test @ m_hat) > 0)
    assert acc == pytest.approx(data.bayes_accuracy, abs=0.01)


def test_clipping_acts_like_a_smaller_step():
    """λ = 0 and every gradient clipped: [g]_C = −C y x/‖x‖ does not depend on w, so w*(C) ∝ C exactly."""
    w1 = train_clipped(DATA, 1e-3, K=200, s=10, lam=0.0, seed=4)
    w2 = train_clipped(DATA, 2e-3, K=200, s=10, lam=0.0, seed=4)
    np.testing.assert_allclose(w2, 2.0 * w1, rtol=1e-12)
    # with a larger C the gradients of well-classified points fall below C: no longer proportional
    w3 = train_clipped(DATA, 0.1, **TRAIN, lam=0.0, seed=4)
    w4 = train_clipped(DATA, 0.2, **TRAIN, lam=0.0, seed=4)
    assert np.linalg.norm(w4 - 2.0 * w3) > 0.1 * np.linalg.norm(w3)


def _huberised_loss(w, C):
    """λ = 0: [∇ℓ_i]_C = h_i'(z) y_i x_i with h_i the logistic loss made linear (slope −C/‖x_i‖) where its
    gradient norm would exceed C, so clipped SGD is plain SGD on mean_i h_i(y_i wᵀx_i) (an independent oracle)."""
    X, y = DATA.X_train, DATA.y_train
    r, z = np.linalg.norm(X, axis=1), y * (X @ w)
    z_star = np.log(np.maximum(r / C - 1.0, 1e-300))  # σ(−z*)·r = C
    linear = np.logaddexp(0.0, -z_star) - (C / r) * (z - z_star)
    return np.mean(np.where((C < r) & (z < z_star), linear, np.logaddexp(0.0, -z)))


def test_clipped_sgd_decreases_the_huberised_loss_with_K():
    C = 0.1
    h = [_huberised_loss(train_clipped(DATA, C, K=K, s=10, lam=0.0, seed=0), C) for K in (10, 100, 1000, 10_000)]
    assert h[0] > h[1] > h[2] > h[3]
    best = optimize.minimize(_huberised_loss, np.zeros(DATA.d), args=(C,), method="BFGS").fun
    assert best < h[3] < best + 0.5 * (h[2] - best)  # and approaches its minimum
    # the unclipped objective F is NOT what clipped SGD minimises: it is not monotone along the same run
    F = [regularized_loss(DATA, train_clipped(DATA, C, K=K, s=10, seed=0)) for K in (1000, 10_000)]
    assert F[1] > F[0]


def test_unclipped_sgd_reaches_the_regularised_optimum():
    losses = [regularized_loss(DATA, train_clipped(DATA, 1e9, K=K, s=1, seed=0)) for K in (100, 1000, 20_000)]
    assert losses[0] > losses[1] > losses[2]
    assert regularized_loss(DATA, np.zeros(DATA.d)) == pytest.approx(np.log(2.0))
    opt = optimize.minimize(lambda w: regularized_loss(DATA, w), np.zeros(DATA.d), method="BFGS")
    w_sgd = train_clipped(DATA, 1e9, K=20_000, s=1, seed=0)
    assert regularized_loss(DATA, w_sgd) - opt.fun < 5e-3
    assert np.linalg.norm(w_sgd - opt.x) < 0.15 * np.linalg.norm(opt.x)


def test_step_rule_mean_divides_the_round_step_by_s():
    w_sum = train_clipped(DATA, 1e-3, K=200, s=10, lam=0.0, seed=4)
    w_mean = train_clipped(DATA, 1e-3, K=200, s=10, lam=0.0, seed=4, step_rule="mean")
    np.testing.assert_allclose(w_mean, w_sum / 10, rtol=1e-12)  # all gradients clipped: exact
    assert final_round_step(50_000, 26) == pytest.approx(0.1 / (1 + 0.001 * 1922 * 26))  # Table 3, T = 1923
    assert final_round_step(50_000, 26, step_rule="mean") == pytest.approx(final_round_step(50_000, 26) / 26)


def test_feasible_range_and_crossing_on_a_hand_made_graph():
    ratio = np.array([[1.0, 0.95, 0.92, 0.85, 0.95], [1.0, 0.99, 0.98, 0.97, 0.96], [0.8, 0.7, 0.6, 0.5, 0.4]])
    draws = np.repeat(ratio[:, :, None], 3, axis=2)
    g = UtilityGraph(np.array([0.1, 0.05, 0.2]), np.array([0.0, 1.0, 2.0, 3.0, 4.0]), draws,
                     np.ones(3), np.zeros((3, 2)), step=1.0)
    assert g.feasible(0.1) == {0.1: (0.0, 2.0), 0.05: (0.0, 4.0), 0.2: None}  # the leading run only
    assert g.feasible(0.025) == {0.1: (0.0, 0.0), 0.05: (0.0, 2.0), 0.2: None}
    c = g.crossing(0.1)
    assert c[0] == pytest.approx(2.0 + 0.02 / 0.07) and c[1] == np.inf and np.isnan(c[2])
    assert "UtilityGraph" in repr(g) and "R_C" in repr(g)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: utility_graph(DATA, [0.1, 0.0], SIGMAS, **TRAIN), "C_values"),
        (lambda: utility_graph(DATA, [0.1], [0.0, -1.0], **TRAIN), "sigmas"),
        (lambda: utility_graph(DATA, [0.1], [2.0, 1.0], **TRAIN), "sigmas"),
        (lambda: utility_graph(DATA, [0.1], SIGMAS, draws=1, **TRAIN), "draws"),
        (lambda: utility_graph(DATA, [0.1], SIGMAS, K=0, s=10), "K"),
        (lambda: utility_graph(DATA, [0.1], SIGMAS, K=100, s=0), "s"),
        (lambda: utility_graph(DATA, [0.1], SIGMAS, K=10_000, s=2001), "s"),
        (lambda: utility_graph(DATA, [0.1], SIGMAS, step=0.0, **TRAIN), "step"),
        (lambda: utility_graph(DATA, [0.1], SIGMAS, level=1.0, **TRAIN), "level"),
        (lambda: train_clipped(DATA, 0.0, **TRAIN), "C"),
        (lambda: train_clipped(DATA, -1.0, **TRAIN), "C"),
        (lambda: train_clipped(DATA, 0.1, K=-5, s=1), "K"),
        (lambda: train_clipped(DATA, 0.1, K=100, s=-1), "s"),
        (lambda: train_clipped(DATA, 0.1, **TRAIN, step_rule="avg"), "step_rule"),
        (lambda: synthetic_classification(0, 10, 2), "n_train"),
        (lambda: synthetic_classification(10, 10, 2, margin=0.0), "margin"),
        (lambda: expected_accuracy([1.0], [[1.0]], [1.0], -0.1), "tau"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name} "):
        call()


@pytest.mark.parametrize("max_drop", [0.0, 1.0, -0.1, 1.5])
def test_bad_max_drop(graph, max_drop):
    with pytest.raises(ValueError, match=r"max_drop must lie in \(0, 1\)"):
        graph.feasible(max_drop)


def test_cupy_backend_matches_the_exact_expectation():
    pytest.importorskip("cupy")
    from dptheory.backend import get_backend

    if get_backend("cupy").name != "cupy":
        pytest.skip("no usable GPU")
    g = utility_graph(DATA, C_VALUES, SIGMAS, draws=100, seed=7, backend="cupy", **TRAIN)
    lo, hi = g.interval(0.999)
    for c, (C, w) in enumerate(zip(g.C_values, g.weights)):
        exact = expected_accuracy(w, DATA.X_test, DATA.y_test, C * g.sigmas) / g.base_accuracy[c]
        assert np.all((lo[c] <= exact) & (exact <= hi[c]))
