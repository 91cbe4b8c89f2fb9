"""Seed 000's learning comparison (dptheory.treeagg.experiment) at tiny sizes: the data set, calibration, determinism,
Thm B.1 without noise, bad inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dptheory.treeagg import experiment as ex
from dptheory.treeagg.accounting import tree_epsilon

SMALL = dict(n_train=400, n_test=300, p=8)


def test_dataset_is_deterministic_for_a_seed_and_differs_across_seeds():
    a, b, c = ex.make_dataset(3, **SMALL), ex.make_dataset(3, **SMALL), ex.make_dataset(4, **SMALL)
    for f in ("X_train", "y_train", "X_test", "y_test", "w_star"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    assert not np.array_equal(a.X_train, c.X_train)
    assert a.X_train.shape == (400, 8) and a.X_test.shape == (300, 8)
    assert set(np.unique(a.y_train)) == {-1.0, 1.0}
    assert np.linalg.norm(a.w_star) == pytest.approx(4.0)
    # the documented recipe, redone by hand
    rng = np.random.default_rng(3)
    u = rng.standard_normal(8)
    w = 4.0 * u / np.linalg.norm(u)
    X = rng.standard_normal((400, 8))
    y = np.where(rng.random(400) < 1 / (1 + np.exp(-X @ w)), 1.0, -1.0)
    np.testing.assert_array_equal(a.X_train, X)
    np.testing.assert_array_equal(a.y_train, y)
    assert 0.5 < a.bayes_accuracy < 1.0


@pytest.mark.parametrize("method", ["DP-FTRL-honaker", "DP-SGD-unamplified", "DP-SGD-amplified"])
@pytest.mark.parametrize("eps", [1.0, 4.0])
def test_calibration_hits_the_target_epsilon(method, eps):
    kw = dict(n_train=400, batch=40, epochs=2, delta=1e-5)
    s = ex.method_sigma(method, eps, **kw)
    got = ex.method_epsilon(method, s, **kw, discretization=ex.CALIBRATION_DISCRETIZATION)
    assert got <= eps * (1 + 1e-9)
    assert got == pytest.approx(eps, rel=1e-6)


def test_calibration_routes_and_infinity():
    kw = dict(n_train=400, batch=40, epochs=2, delta=1e-5)
    s = ex.method_sigma("DP-FTRL-vanilla", 2.0, **kw)
    assert tree_epsilon(s, n=10, delta=1e-5, epochs=2, scheme="restart") == pytest.approx(2.0, rel=1e-9)
    # same sensitivity (⌊lg 10⌋ + 1 = 4 per epoch) for both read-outs under restarts
    assert s == ex.method_sigma("DP-FTRLM-honaker", 2.0, **kw)
    assert ex.method_sigma("DP-SGD-amplified", math.inf, **kw) == 0.0
    assert ex.method_epsilon("DP-SGD-unamplified", 0.0, **kw) == math.inf
    # amplification buys a much smaller σ than the tree at the same ε
    assert ex.method_sigma("DP-SGD-amplified", 2.0, **kw) < ex.method_sigma("DP-SGD-unamplified", 2.0, **kw) < s


@pytest.mark.parametrize("method", ex.METHODS)
def test_same_seed_same_numbers(method):
    data = ex.make_dataset(1, **SMALL)
    a = ex.train(method, data, sigma=2.0, batch=40, epochs=2, chains=3, seed=5)
    b = ex.train(method, data, sigma=2.0, batch=40, epochs=2, chains=3, seed=5)
    c = ex.train(method, data, sigma=2.0, batch=40, epochs=2, chains=3, seed=6)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (3, 8)
    assert not np.array_equal(a, c)
    assert not np.array_equal(a[0], a[1])  # chains are independent


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_noiseless_ftrl_with_eta_one_over_lambda_is_sgd_on_the_same_batches(momentum):
    """A consequence of Thm B.1 (errata 000 §2.5): no noise, λ = 1/η, C = R^p, the same batches. One epoch for
    momentum (a restart resets DP-FTRLM's momentum; heavy-ball SGD keeps it), three epochs without."""
    data = ex.make_dataset(2, **SMALL)
    epochs = 1 if momentum else 3
    f = ex.train("DP-FTRL-vanilla", data, sigma=0.0, batch=20, epochs=epochs, eta=0.3, momentum=momentum)
    g = ex.train("DP-FTRL-honaker", data, sigma=0.0, batch=20, epochs=epochs, eta=0.3, momentum=momentum)
    s = ex.train("DP-SGD-unamplified", data, sigma=0.0, batch=20, epochs=epochs, eta=0.3, momentum=momentum)
    np.testing.assert_allclose(f, s, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(f, g)
    assert np.linalg.norm(s) > 0.1


def test_run_experiment_reports_intervals_and_a_table():
    data = ex.make_dataset(0, **SMALL)
    res = ex.run_experiment(data, epsilons=(2.0, math.inf), batch=40, epochs=1, seeds=2,
                            methods=("DP-FTRL-vanilla", "DP-SGD-unamplified"))
    est = res.estimate("DP-FTRL-vanilla", 2.0)
    lo, hi = est.interval()
    assert lo <= est.value <= hi and est.n == 2
    assert "| DP-SGD-unamplified |" in res.table() and "ε = ∞" in res.table()
    assert res.sigma["DP-FTRL-vanilla"][math.inf] == 0.0


@pytest.mark.parametrize("call, name", [
    (lambda: ex.method_sigma("DP-SGD-amplified", 0.0, n_train=400, batch=40, epochs=2, delta=1e-5), "epsilon"),
    (lambda: ex.method_sigma("DP-SGD-amplified", -1.0, n_train=400, batch=40, epochs=2, delta=1e-5), "epsilon"),
    (lambda: ex.method_sigma("DP-FTRL-vanilla", 1.0, n_train=400, batch=40, epochs=0, delta=1e-5), "epochs"),
    (lambda: ex.method_sigma("DP-Adam", 1.0, n_train=400, batch=40, epochs=1, delta=1e-5), "method"),
    (lambda: ex.method_epsilon("DP-Adam", 1.0, n_train=400, batch=40, epochs=1, delta=1e-5), "method"),
    (lambda: ex.train("DP-Adam", ex.make_dataset(0, **SMALL), sigma=1.0, batch=40, epochs=1), "method"),
    (lambda: ex.train("DP-SGD-amplified", ex.make_dataset(0, **SMALL), sigma=1.0, batch=40, epochs=0), "epochs"),
    (lambda: ex.train("DP-SGD-amplified", ex.make_dataset(0, **SMALL), sigma=-1.0, batch=40, epochs=1), "sigma"),
    (lambda: ex.run_experiment(ex.make_dataset(0, **SMALL), epsilons=(0.0,), epochs=1, batch=40), "epsilon"),
    (lambda: ex.run_experiment(ex.make_dataset(0, **SMALL), epsilons=(1.0,), epochs=1, batch=40, seeds=1), "seeds"),
    (lambda: ex.make_dataset(-1), "seed"),
])
def test_bad_inputs_raise_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()
