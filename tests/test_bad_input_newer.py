"""Bad input to the newer surfaces (issue 36, part 2): BLT, banded, tree, treeagg, the participation patterns, the
dense routes, the noise streams and the DP-SGD accountants. Every case is refused with a ValueError that names the
caller's parameter, and nothing is returned silently (NaN, a negative ε, a coerced value) or raised from deep
inside numpy or scipy.

One parametrized test per module family, as ``tests/test_bad_input_seed004.py`` does for seed 004; each case was,
before the fix, a silent wrong answer, an error naming an internal or derived value, or a TypeError/IndexError.
"""

from __future__ import annotations

import numpy as np
import pytest

import dptheory as dpt
from dptheory import accounting
from dptheory.blt import optimizer
from dptheory.mechanisms import (
    BLT, BandedToeplitz, Participation, TreeAggregation, banded_rms_objective, banded_sqrt, banded_sqrt_toeplitz,
    blt_coeffs, dense_sensitivity, nu_ftrl_blt, output_scales,
)
from dptheory.treeagg import accounting as ta
from dptheory.treeagg import ftrl, tables

NAN = float("nan")
P = Participation
Z = np.zeros(1)


def _cases(*rows):
    return pytest.mark.parametrize("call, match", [pytest.param(c, m, id=i) for i, c, m in rows])


@_cases(
    ("from_noising-derived-theta", lambda: BLT.from_noising([0.5], [2.0]), r"^theta_hat and omega_hat define no BLT"),
    ("from_noising-range", lambda: BLT.from_noising([1.5], [-0.2]), r"^theta_hat .*: theta must lie in \[-1, 1\]"),
    ("from_noising-str", lambda: BLT.from_noising("ab", [-0.2]), "^theta_hat .*: theta must be a sequence of real"),
    ("from_noising-nan", lambda: BLT.from_noising([0.5], [NAN]), "^omega_hat .*: omega must be finite"),
    ("from_noising-zero", lambda: BLT.from_noising([0.5], [0.0]), "^omega_hat .*: omega must be nonzero"),
    ("from_noising-length", lambda: BLT.from_noising([0.5, 0.4], [-0.1]), "^theta_hat and omega_hat .*: theta and"),
    ("from_noising-name", lambda: BLT.from_noising([0.5], [-0.2], name=3), "^name must be a string or None"),
    ("signed-str", lambda: BLT([0.9], [0.1], signed="yes"), "^signed must be True or False"),
    ("name-int", lambda: BLT([0.9], [0.1], name=3), "^name must be a string or None"),
    ("sensitivity-method", lambda: BLT([0.9], [0.1]).sensitivity(10, method="bogus"), "^method must be one of"),
    ("limit-method", lambda: BLT([0.9], [0.1]).sensitivity(None, method="bogus"), "^method must be one of"),
    ("method-int", lambda: BLT([0.9], [0.1]).sensitivity(10, P(max_participations=2, min_sep=3), method=3),
     "^method must be one of"),
    ("noise_stream-steps", lambda: BLT([0.9], [0.1]).noise_stream((3,), Z, steps=0), r"^steps must lie in \[1, inf\)"),
    ("noise_stream-shape", lambda: BLT([0.9], [0.1]).noise_stream((2.5,), Z, steps=4), "^shape must be an integer"),
    ("blt_coeffs-str", lambda: blt_coeffs("x", [0.1], 5), "^theta must be a sequence of real numbers"),
    ("blt_coeffs-nan", lambda: blt_coeffs([NAN], [0.1], 5), "^theta must be finite"),
    ("blt_coeffs-lengths", lambda: blt_coeffs([0.9], [0.1, 0.2], 5), "^theta and omega must have the same length"),
    ("blt_coeffs-n", lambda: blt_coeffs([0.9], [0.1], 2.5), r"^n must be an integer in \[0, inf\)"),
    ("output_scales-form", lambda: output_scales([0.9], [0.5], form="x"), "^form must be one of"),
    ("nu_ftrl_blt-nu-high", lambda: nu_ftrl_blt(1 - 1e-12), "^nu = 1 at step = 0.45 is beyond what double precision"),
    ("nu_ftrl_blt-nu-low", lambda: nu_ftrl_blt(1e-300), "^nu = 1e-300 at step = 0.45 gives 1563 buffers"),
    ("nu_ftrl_blt-nu-tiny", lambda: nu_ftrl_blt(1e-12), "^nu = 1e-12 at step = 0.45 is beyond what double"),
    ("nu_ftrl_blt-nu-bool", lambda: nu_ftrl_blt(True), "^nu must be a real number"),
    ("nu_ftrl_blt-step", lambda: nu_ftrl_blt(0.05, step=1e-8), "^nu = 0.05 at step = 1e-08 gives 1469097931 buffers"),
    ("nu_ftrl_blt-step-zero", lambda: nu_ftrl_blt(0.05, step=0.0), r"^step must lie in \(0, 1\]"),
    ("row_energies-q-bool", lambda: BLT([0.9], [0.1]).row_energies(True, 16), "^q must be a sequence of real numbers"),
    ("theta_pair-initial-str", lambda: optimizer.optimize(50, initial="abc"), "^initial must be a decay pair"),
    ("theta_pair-initial-short", lambda: optimizer.optimize(50, initial=[[0.5]]), "^initial must be a decay pair"),
    ("optimize-buffers-bool", lambda: optimizer.optimize(50, buffers=True), "^buffers must be a real number"),
)
def test_blt_refuses_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@_cases(
    ("sensitivity-method", lambda: banded_sqrt_toeplitz(3).sensitivity(10, method="bogus"), "^method must be one of"),
    ("noise_stream-steps", lambda: banded_sqrt_toeplitz(3).noise_stream((3,), Z, steps=0), r"^steps must lie in"),
    ("name-int", lambda: BandedToeplitz([1.0, 0.5], name=3), "^name must be a string or None"),
    ("banded_sqrt-normalise", lambda: banded_sqrt(10, 3, normalise="yes"), "^normalise must be True or False"),
    ("objective-x-length", lambda: banded_rms_objective([0.5, 0.2], 10, 3), "^x must hold the 27 band entries"),
    ("objective-x-nan", lambda: banded_rms_objective([NAN] * 19, 10, 2), "^x must be finite"),
    ("objective-n", lambda: banded_rms_objective([0.5], -1, 2), r"^n must lie in \[1, inf\)"),
    ("objective-bands", lambda: banded_rms_objective([0.5], 10, 0), r"^bands must lie in \[1, 10\]"),
    ("optimize_banded-name", lambda: dpt.mechanisms.optimize_banded(8, bands=2, name=3), "^name must be a string"),
    ("toeplitz-method", lambda: dpt.nu_ftrl(0.1).sensitivity(10, method="bogus"), "^method must be one of"),
    ("two-taps-method", lambda: dpt.toeplitz([1.0, 0.5]).sensitivity(10, method="bogus"), "^method must be one of"),
    ("toeplitz-name", lambda: dpt.FiniteToeplitz([1.0], name=3), "^name must be a string or None"),
    ("sqrt-name", lambda: dpt.SqrtToeplitz(0.1, name=3), "^name must be a string or None"),
    ("toeplitz-steps", lambda: dpt.nu_ftrl(0.1).noise_stream((3,), Z, steps=0), r"^steps must lie in \[1, inf\)"),
    ("finite-steps", lambda: dpt.toeplitz([1.0, 0.5]).noise_stream((3,), Z, steps=0), r"^steps must lie in"),
    ("finite-shape", lambda: dpt.toeplitz([1.0, 0.5]).noise_stream("ab", Z, steps=4), "^shape must be a tuple"),
)
def test_banded_and_toeplitz_refuse_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@_cases(
    ("nan", lambda: dense_sensitivity([[NAN]]), "^C must be finite"),
    ("wide", lambda: dense_sensitivity([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]), "^C must have at least as many rows"),
    ("upper", lambda: dense_sensitivity([[1.0, 1.0], [0.0, 1.0]]), "^C must be lower-triangular"),
    ("str", lambda: dense_sensitivity("abc"), "^C must be a real number or an array"),
    ("complex", lambda: dense_sensitivity([[1j]]), "^C must be a real number or an array"),
    ("empty", lambda: dense_sensitivity([]), "^C must be a 2-D array"),
    ("1-D", lambda: dense_sensitivity([1.0, 2.0]), "^C must be a 2-D array"),
    ("participation", lambda: dense_sensitivity([[1.0]], 3), "^participation must be a dptheory.Participation"),
    ("bounds-upper", lambda: dpt.mechanisms.sensitivity_bounds([[1.0, 1.0], [0.0, 1.0]]),
     "^C must be lower-triangular"),
    ("patterns-float", lambda: P(max_participations=4, min_sep=10).patterns(1e300),
     "^n = 1e[+]300 with .* has about 10\\^1198"),
    ("patterns-n", lambda: P(max_participations=2).patterns(-1), r"^n must lie in \[1, inf\)"),
    ("dense-shape", lambda: dpt.DenseMechanism(np.eye(3)).noise_stream((2,), Z, steps=3)(np.zeros((1, 5))),
     r"^z must have shape"),
)
def test_dense_routes_refuse_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@_cases(
    ("readout-int", lambda: TreeAggregation(3), "^readout must be one of"),
    ("stream-steps", lambda: TreeAggregation().noise_stream((3,), Z, steps=0), r"^steps must lie in \[1, inf\)"),
    ("stream-shape-str", lambda: TreeAggregation().noise_stream("abc", Z, steps=4), "^shape must be a tuple"),
    ("stream-shape-negative", lambda: TreeAggregation().noise_stream((-1,), Z, steps=4), r"^shape must lie in"),
    ("stream-z-shape", lambda: TreeAggregation().noise_stream((3,), Z, steps=4)(np.zeros((2, 4))),
     "^z must have shape"),
    ("row_energies-q-bool", lambda: TreeAggregation().row_energies(True, 16), "^q must be a sequence of real numbers"),
    ("rdp-steps-negative", lambda: tables.rdp_dpsgd_epsilon(1.0, q=0.01, steps=-1, delta=1e-5),
     r"^steps must be a positive integer"),
    ("rdp-steps-float", lambda: tables.rdp_dpsgd_epsilon(1.0, q=0.01, steps=2.5, delta=1e-5),
     "^steps must be a positive"),
    ("rdp-q-high", lambda: tables.rdp_dpsgd_epsilon(1.0, q=1.5, steps=10, delta=1e-5), r"^q must lie in \(0, 1\]"),
    ("rdp-q-zero", lambda: tables.rdp_dpsgd_epsilon(1.0, q=0.0, steps=10, delta=1e-5), r"^q must lie in \(0, 1\]"),
    ("rdp-sigma", lambda: tables.rdp_dpsgd_epsilon(-1.0, q=0.01, steps=10, delta=1e-5),
     r"^sigma must lie in \(0, inf\)"),
    ("rdp-sigma-str", lambda: tables.rdp_dpsgd_epsilon("1", q=0.01, steps=10, delta=1e-5), "^sigma must be a real"),
    ("rdp-delta", lambda: tables.rdp_dpsgd_epsilon(1.0, q=0.01, steps=10, delta=1.5), r"^delta must lie in \(0, 1\)"),
    ("rdp-conversion", lambda: tables.rdp_dpsgd_epsilon(1.0, q=0.01, steps=10, delta=1e-5, conversion=3),
     "^conversion must be one of"),
    ("clip-negative", lambda: ftrl.clip_rows(np.ones((2, 3)), -1.0), r"^clip must lie in \[0, inf\)"),
    ("clip-complex", lambda: ftrl.clip_rows(np.ones((2, 3)), 1j), "^clip must be a real number"),
    ("clip-nan", lambda: ftrl.clip_rows(np.ones((2, 3)), NAN), "^clip must be finite"),
    ("radius-negative", lambda: ftrl.project_ball(np.ones((2, 3)), -1.0), r"^radius must lie in \[0, inf\)"),
    ("radius-complex", lambda: ftrl.project_ball(np.ones((2, 3)), 1j), "^radius must be a real number"),
    ("radius-str", lambda: ftrl.project_ball(np.ones((2, 3)), "a"), "^radius must be a real number"),
    ("tr-epochs", lambda: ta.tr_sensitivity_sq(10, epochs=0), r"^epochs must be a positive integer"),
)
def test_tree_and_treeagg_refuse_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@_cases(
    ("clt-sigma-huge", lambda: accounting.exact_epsilon(1e8, q=0.01, T=100, delta=1e-5, accountant="clt"),
     "^sigma = 1e[+]08 is beyond what the CLT formula resolves"),
    ("pld-rtol", lambda: accounting.exact_epsilon(1.0, q=0.01, T=100, delta=1e-5, rtol=1e-8), "^rtol = 1e-08 is below"),
    ("calibrate_noise-method", lambda: accounting.calibrate_noise(dpt.nu_ftrl(0.05), rho=1.0, method="abc"),
     "^method must be one of"),
    ("pld-T", lambda: accounting.exact_epsilon(1.0, q=0.01, T=10**9, delta=1e-5), "^T = 1000000000 rounds is above"),
)
def test_accountants_refuse_past_their_cost(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_tree_restarts_take_the_closed_form():
    """E equal trees: E times one tree's depth, without a list of E entries (issue 36: 10⁹ epochs)."""
    assert ta.tr_sensitivity_sq(100, epochs=10**9) == 10**9 * 7
    assert ta.tr_sensitivity_sq(100, epochs=3) == ta.tr_sensitivity_sq([100, 100, 100]) == 21


def test_all_participations_take_the_one_pattern():
    """k' b spanning the horizon leaves one pattern, every step (b = 1): served at once, ‖C·1‖ for C ≥ 0."""
    C = np.tril(np.ones((64, 64)))
    assert P(max_participations=64, min_sep=1).patterns(64).tolist() == [list(range(64))]
    assert dense_sensitivity(C, P(max_participations=64, min_sep=1)) == pytest.approx(np.linalg.norm(C.sum(axis=1)))
    tree = TreeAggregation()
    assert tree.sensitivity(64, P(max_participations=64, min_sep=1)) == pytest.approx(
        np.linalg.norm(tree.strategy_matrix(64).sum(axis=1)), rel=1e-14)
