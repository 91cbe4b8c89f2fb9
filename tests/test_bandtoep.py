"""BandToep (McKenna 2024; seed 003 Table 1 ref. [27]): the banded Toeplitz strategy optimised for the RmsLoss or
MaxLoss under min-separation participation (dptheory.mechanisms.bandtoep), against a dense oracle, finite
differences and jax_privacy 2.0's ``toeplitz.optimize_banded_toeplitz`` (tests/peer_values/jax_privacy_banded.json).
Losses are unsquared; jax's are squared (errata 003 C11)."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from dptheory.mechanisms import BandedToeplitz, Participation, dense_sensitivity, momentum_workload, prefix_loss
from dptheory.mechanisms.bandtoep import banded_toeplitz_objective, optimize_banded_toeplitz

PEER = json.loads((Path(__file__).parent / "peer_values" / "jax_privacy_banded.json").read_text())


def _dense_strategy(c, n):
    C = np.zeros((n, n))
    for o, v in enumerate(c):
        C[np.arange(o, n), np.arange(n - o)] = v
    return C


@pytest.mark.parametrize("loss", ["rms", "max"])
@pytest.mark.parametrize("beta", [0.0, 0.7])
def test_objective_is_sens_squared_times_the_dense_error_squared(loss, beta):
    # dense oracle: W (its definition) @ inv(C), and the dense enumeration of the sensitivity; 1e-12 relative
    n, c = 40, np.array([1.0, 0.4, -0.2, 0.15, 0.05])
    part = Participation(max_participations=3, min_sep=7)
    k = np.arange(n)
    W = np.tril(np.cumsum(beta ** np.clip(k[:, None] - k[None, :], 0, None) * (k[:, None] >= k[None, :]), axis=0))
    C = _dense_strategy(c, n)
    energies = np.sum((W @ np.linalg.inv(C)) ** 2, axis=1)
    error_sq = energies.mean() if loss == "rms" else energies.max()
    sens = dense_sensitivity(C, part)
    f, _ = banded_toeplitz_objective(c, n, part, loss=loss, workload=momentum_workload(beta))
    assert f == pytest.approx(sens**2 * error_sq, rel=1e-12)


@pytest.mark.parametrize("loss", ["rms", "max"])
def test_gradient_matches_central_finite_differences(loss):
    n, c = 60, np.array([1.0, 0.5, 0.3, -0.1, 0.2, 0.05])
    part, wl = Participation(max_participations=4, min_sep=15), momentum_workload(0.5)
    _, g = banded_toeplitz_objective(c, n, part, loss=loss, workload=wl)
    h = 1e-6
    fd = np.array([(banded_toeplitz_objective(c + h * e, n, part, loss=loss, workload=wl)[0]
                    - banded_toeplitz_objective(c - h * e, n, part, loss=loss, workload=wl)[0]) / (2 * h)
                   for e in np.eye(c.size)])
    assert np.max(np.abs(fd - g)) <= 1e-7 * np.max(np.abs(g))


@pytest.mark.parametrize("case", PEER["bandtoep"], ids=lambda c: f"n{c['n']}-b{c['bands']}-{c['reduction']}")
def test_loss_at_jax_optimum_agrees_and_the_optimum_is_no_worse(case):
    # jax's loss: error^2 x max column norm^2 (single participation). dptheory's loss at jax's coefficients agrees
    # to 1e-10 relative (two float64 routes: jax's banded solve vs lfilter + FFT convolution), and dptheory's own
    # optimum is at most jax's (1 + 1e-9).
    n, bands, loss = case["n"], case["bands"], "rms" if case["reduction"] == "mean" else "max"
    jax_coeffs = np.asarray(case["coeffs"])
    at_jax = prefix_loss(BandedToeplitz(jax_coeffs), n)
    ours_at_jax = at_jax.rms_loss if loss == "rms" else at_jax.max_loss
    assert ours_at_jax**2 == pytest.approx(case["loss_squared"], rel=1e-10)
    res = optimize_banded_toeplitz(n, bands=bands, loss=loss)
    ours = res.rms_loss if loss == "rms" else res.max_loss
    assert ours**2 <= case["loss_squared"] * (1 + 1e-9)
    assert res.mechanism.strategy_coeffs(bands) == pytest.approx(jax_coeffs, abs=1e-4)
    assert math.isclose(np.linalg.norm(res.mechanism.strategy_coeffs(bands)), 1.0, rel_tol=1e-12)


def test_participation_scales_the_loss_by_sqrt_k_and_keeps_the_optimum():
    single = optimize_banded_toeplitz(500, bands=20)
    multi = optimize_banded_toeplitz(500, bands=20, participation=Participation(max_participations=5, min_sep=100))
    assert multi.sensitivity == pytest.approx(math.sqrt(5), rel=1e-12)
    assert multi.rms_loss == pytest.approx(math.sqrt(5) * single.rms_loss, rel=1e-8)


def test_momentum_workload_result_reports_the_workload_errors():
    wl = momentum_workload(0.9)
    res = optimize_banded_toeplitz(256, bands=16, workload=wl)
    report = prefix_loss(res.mechanism, 256, workload=wl)
    assert res.workload == wl and res.rms_error == report.rms_error
    # optimised for the momentum workload, it beats the prefix-sum optimum on that workload
    prefix_optimum = optimize_banded_toeplitz(256, bands=16).mechanism
    assert res.rms_loss < prefix_loss(prefix_optimum, 256, workload=wl).rms_loss


@pytest.mark.parametrize("kwargs, match", [
    (dict(workload=momentum_workload(0.5, np.linspace(1, 0.1, 100))), "^workload must be Toeplitz"),
    (dict(workload="momentum"), "^workload must be a dptheory"),
    (dict(participation=Participation(max_participations=3, min_sep=5)), "^participation must have min_sep >= bands = 10"),
    (dict(init=[1.0, 0.5]), "^init must hold bands = 10 coefficients"),
    (dict(init=[0.0] * 10), r"^init\[0\] must be positive"),
    (dict(loss="mean"), "^loss must be one of"),
    (dict(steps=-1), r"^steps must lie in \[0, inf\)"),
    (dict(bands=0), r"^bands must lie in \[1, 100\]"),
])
def test_bad_input_is_refused_naming_the_parameter(kwargs, match):
    args = dict(bands=10) | kwargs
    with pytest.raises(ValueError, match=match):
        optimize_banded_toeplitz(100, **args)


@pytest.mark.parametrize("kwargs, match", [
    (dict(coeffs=[0.0, 0.5]), r"^coeffs\[0\] must be positive"),
    (dict(coeffs=[[1.0, 0.5]]), "^coeffs must be a non-empty 1-D sequence"),
    (dict(coeffs=3.0), "^coeffs must be a 1-D sequence"),
    (dict(coeffs=[1.0, float("nan")]), "^coeffs must be finite"),
    (dict(n=0), r"^n must lie in \[1, inf\)"),
    (dict(loss="mean"), "^loss must be one of"),
    (dict(participation=Participation(max_participations=2, min_sep=1)), "^participation must have min_sep >= bands = 2"),
])
def test_objective_refuses_bad_input_naming_the_parameter(kwargs, match):
    args = dict(coeffs=[1.0, 0.5], n=10) | kwargs
    with pytest.raises(ValueError, match=match):
        banded_toeplitz_objective(args.pop("coeffs"), args.pop("n"), **args)
