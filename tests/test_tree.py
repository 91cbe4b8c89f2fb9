"""Binary-tree aggregation (``dptheory.TreeAggregation``): seed 000's vanilla and Honaker read-outs and seed 003's
TreeAgg-Full, against the exact values of errata 000 §5 and errata 003 C9, C15."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import dptheory as dpt
from dptheory.data import golden
from dptheory.mechanisms import (
    TreeAggregation, dense_sensitivity, increment_variance, prefix_loss, prefix_variance, remark32_loss, tree_depth,
    tree_nodes,
)

READOUTS = ("vanilla", "honaker", "full")
P = dpt.Participation


@pytest.mark.parametrize("readout", READOUTS)
@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 8, 13, 16, 31, 32, 33, 64, 100])
def test_decoder_times_strategy_is_the_prefix_workload(readout, n):
    mech = TreeAggregation(readout)
    C, B, N = mech.strategy_matrix(n), mech.decoder_matrix(n), mech.noising_matrix(n)
    m = 2 * n - n.bit_count() if readout != "vanilla" else n
    assert C.shape == (m, n) and B.shape == (n, m) and N.shape == (n, m)
    np.testing.assert_allclose(B @ C, np.tril(np.ones((n, n))), rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.cumsum(N, axis=0), B, rtol=0, atol=1e-12)  # N = A⁻¹B
    assert np.all(C >= 0) and set(np.unique(C)) <= {0.0, 1.0}


def test_vanilla_strategy_is_square_lower_triangular_with_unit_diagonal():
    C = TreeAggregation("vanilla").strategy_matrix(37)
    assert np.all(np.triu(C, 1) == 0) and np.all(np.diag(C) == 1)
    assert np.all(tree_nodes(37, "vanilla")[:, 2] == np.arange(37))  # one released node per step


def test_vanilla_prefix_variance_is_popcount():
    """errata 000 §5 #2."""
    assert [int(prefix_variance(t, "vanilla")) for t in range(1, 17)] == [1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 1]


def test_honaker_prefix_variance_exact_fractions():
    """errata 000 §5 #3, §2.3 (corrected divisor)."""
    expected = ["1", "2/3", "5/3", "4/7", "11/7", "26/21", "47/21", "8/15", "23/15", "6/5", "11/5", "116/105",
                "221/105", "62/35", "97/35", "16/31"]
    assert [prefix_variance(t, "honaker") for t in range(1, 17)] == [Fraction(x) for x in expected]


@pytest.mark.parametrize("readout", ["vanilla", "honaker"])
def test_variances_agree_with_row_energies_and_the_dense_decoder(readout):
    n = 100
    mech = TreeAggregation(readout)
    exact = np.array([float(prefix_variance(t, readout)) for t in range(1, n + 1)])
    np.testing.assert_allclose(mech.row_energies(1.0, n), exact, rtol=1e-14)
    np.testing.assert_allclose(np.sum(mech.decoder_matrix(n) ** 2, axis=1), exact, rtol=1e-13)
    # the dense route of the base class at q = 1 (the closed form is bypassed by passing q as an array)
    np.testing.assert_allclose(mech.row_energies(np.array([1.0]), n)[0], exact, rtol=1e-12)
    inc = np.array([float(increment_variance(t, readout)) for t in range(1, n + 1)])
    np.testing.assert_allclose(mech.row_energies(0.0, n), inc, rtol=1e-12)  # q = 0: ‖N_t‖²


def test_honaker_node_weights_and_increments():
    """errata 000 §5 #4, #9, #10."""
    B = TreeAggregation("honaker").decoder_matrix(16)
    nodes = tree_nodes(16, "honaker")
    row = B[15]  # t = 16: one chosen node of height 4, weights 2^{−d}/(2 − 2^{−4})
    for (lvl, _, _), w in zip(nodes, row):
        assert w == pytest.approx(2.0 ** -(4 - lvl) / (2 - 2.0**-4), rel=1e-15)
    assert [int(increment_variance(t, "vanilla")) for t in range(1, 17)] == [1, 2, 1, 3, 1, 2, 1, 4, 1, 2, 1, 3, 1, 2, 1, 5]
    assert sum(increment_variance(t, "vanilla") for t in range(1, 65)) / 64 == Fraction(127, 64)
    h = {t: float(increment_variance(t, "honaker")) for t in range(1, 65)}
    assert all(h[t] == pytest.approx(1.0, abs=1e-15) for t in (1, 2, 3, 5, 6, 7))
    for ts, v in (((4, 12), 1.3810), ((8, 24), 1.8381), ((16, 48), 2.3198), ((32,), 2.8114), ((64,), 3.3073)):
        assert all(h[t] == pytest.approx(v, abs=5e-5) for t in ts)
    assert sum(h.values()) / 64 == pytest.approx(1.2056, abs=5e-5)


def test_honaker_is_at_most_vanilla_at_every_step_and_full_at_most_honaker():
    n = 300
    v, h, f = (TreeAggregation(r).row_energies(1.0, n) for r in READOUTS)
    assert np.all(h <= v + 1e-15) and np.all(f <= h + 1e-12)


def test_totals_for_powers_of_two():
    """errata 000 §5 #6, #7."""
    for k, tot in enumerate([1, 2, 5, 13, 33, 81, 193, 449, 1025, 2305, 5121]):
        assert sum(prefix_variance(t, "vanilla") for t in range(1, 2**k + 1)) == tot == Fraction(k * 2**k, 2) + 1
    assert sum(prefix_variance(t, "honaker") for t in range(1, 9)) == Fraction(332, 35)
    assert TreeAggregation("honaker").row_energies(1.0, 1024).sum() == pytest.approx(2971.5641, abs=5e-5)


@pytest.mark.parametrize("readout", READOUTS)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 60, 100, 128, 240])
def test_single_participation_sensitivity_is_floor_lg_n_plus_one(readout, n):
    """errata 000 §2.11, §5 #11: √(⌊lg n⌋ + 1); the paper's ⌈lg n⌉ is one short at powers of two."""
    mech = TreeAggregation(readout)
    assert mech.sensitivity(n) ** 2 == pytest.approx(tree_depth(n))
    assert dense_sensitivity(mech.strategy_matrix(n)) == pytest.approx(math.sqrt(tree_depth(n)), rel=1e-15)
    assert tree_depth(n, variant="paper") == tree_depth(n) - (1 if n & (n - 1) == 0 else 0)


def test_tree_depth_conventions():
    assert [tree_depth(n) for n in (1, 1000, 1024, 1600)] == [1, 10, 11, 11]
    assert [tree_depth(n, variant="paper") for n in (1, 1000, 1024, 1600)] == [0, 10, 10, 11]
    assert [tree_depth(n, variant="path") for n in (1, 1000, 1024)] == [1, 11, 11]


def _c9_cases():
    return [(n, b, k) for n in (16, 24, 32, 40) for b in (1, 2, 3, 5, 7, 8, 11) for k in (2, 3, 4)]


def test_remark_3_2_lower_bound_is_tight_for_the_complete_dyadic_tree():
    """errata 003 C9 (84 cases: every complete node released, as in TreeAgg-Full and Honaker)."""
    mech = TreeAggregation("full")
    for n, b, k in _c9_cases():
        part = P(max_participations=k, min_sep=b)
        assert mech.remark32_sensitivity(n, part) == pytest.approx(mech.sensitivity(n, part), rel=1e-14), (n, b, k)


def test_remark_3_2_lower_bound_is_not_tight_for_the_vanilla_released_nodes():
    """Only left children are released by GetSum: there the bound is below the brute force in some cases
    (n = 16, b = 11, k = 2: sens² 10 vs 9), and never above."""
    mech = TreeAggregation("vanilla")
    gaps = []
    for n, b, k in _c9_cases():
        part = P(max_participations=k, min_sep=b)
        lb, exact = mech.remark32_sensitivity(n, part), mech.sensitivity(n, part)
        assert lb <= exact + 1e-12
        gaps.append(exact - lb > 1e-9)
    assert 0 < sum(gaps) < len(gaps)
    assert mech.sensitivity(16, P(max_participations=2, min_sep=11)) ** 2 == pytest.approx(10.0)


def test_table3_treeagg_full_with_the_remark_3_2_sensitivity():
    """errata 003 C15: (2052, 342, 6) sens² = 118, MaxLoss 14.9809, RmsLoss 12.4715; exact sens_Π is out of reach."""
    mech, part = TreeAggregation("full"), P(max_participations=6, min_sep=342)
    loss = remark32_loss(mech, 2052, part)
    rec = golden("003", "seed003.table3.recomputed")
    assert loss.sensitivity**2 == pytest.approx(118.0, rel=1e-12)
    assert loss.max_loss == pytest.approx(rec.value["TreeAgg-Full"][0], abs=5e-5)
    assert loss.rms_loss == pytest.approx(rec.value["TreeAgg-Full"][1], abs=5e-5)
    assert "Remark 3.2" in loss.mechanism
    with pytest.raises(ValueError, match="participation patterns"):
        prefix_loss(mech, 2052, part)  # the exact route refuses; it never returns the bound as if exact
    report = mech.sensitivity_report(2052, part)
    assert not report.exact and report.lower == pytest.approx(loss.sensitivity) and report.upper > report.lower
    assert mech.sensitivity(2052) ** 2 == pytest.approx(12.0)


def test_c15_other_settings():
    mech = TreeAggregation("full")
    assert remark32_loss(mech, 2000, P(max_participations=3, min_sep=400)).rms_loss == pytest.approx(8.0965, abs=5e-5)
    five = remark32_loss(mech, 2000, P(max_participations=5, min_sep=400))
    assert (five.max_loss, five.rms_loss) == pytest.approx((14.7578, 9.7945), abs=5e-5)


@pytest.mark.parametrize("readout", ["vanilla", "honaker"])
def test_stream_equals_dense_noise_for_the_same_node_draws(readout):
    """errata 000 §5 #13: the O(log n) stream against N z, the node draws z fed as w = M z (one per step)."""
    n = 200
    mech = TreeAggregation(readout)
    N, M = mech.noising_matrix(n), mech.step_mixing_matrix(n)
    np.testing.assert_allclose(M @ M.T, np.eye(n), atol=1e-15)
    z = np.random.default_rng(1).standard_normal((N.shape[1], 3, 2))
    w = np.einsum("tm,mcd->tcd", M, z)
    stream = mech.noise_stream((3, 2), np.zeros(1), n)
    out = np.concatenate([stream(w[:1]), stream(w[1:77]), stream(w[77:78]), stream(w[78:])])
    np.testing.assert_allclose(out, np.einsum("tm,mcd->tcd", N, z), atol=1e-13)
    with pytest.raises(ValueError, match="holds 200 steps"):
        stream(w[:1])


@pytest.mark.parametrize("readout", ["vanilla", "honaker"])
def test_output_at_step_t_reads_only_nodes_completed_by_t(readout):
    n = 64
    mech = TreeAggregation(readout)
    done = tree_nodes(n, readout)[:, 2]
    N, M = mech.noising_matrix(n), mech.step_mixing_matrix(n)
    t = np.arange(n)[:, None]
    assert np.all(N[done[None, :] > t] == 0.0)  # no read of a node before its completion step
    assert np.all(M[done[None, :] != t] == 0.0)  # each step's draw mixes only the nodes completed at that step
    rng = np.random.default_rng(2)
    z = rng.standard_normal(N.shape[1])
    z2 = np.where(done > 40, rng.standard_normal(N.shape[1]), z)  # new draws for the nodes completed after t = 40
    outs = [mech.noise_stream((1,), np.zeros(1), n)((M @ v)[:, None])[:, 0] for v in (z, z2)]
    np.testing.assert_array_equal(outs[0][:41], outs[1][:41])
    assert np.any(outs[0][41:] != outs[1][41:])


def test_full_reads_future_nodes_and_streams_the_same_law():
    n = 40
    mech = TreeAggregation("full")
    N = mech.noising_matrix(n)
    done = tree_nodes(n, "full")[:, 2]
    assert np.any(np.abs(N[np.arange(n)[:, None] < done[None, :]]) > 1e-3)  # not causal in the node draws
    L = mech.noise_stream((n,), np.zeros(1), n)(np.eye(n))  # row t: the coefficients of the step draws
    assert np.all(np.triu(L, 1) == 0)
    np.testing.assert_allclose(L @ L.T, N @ N.T, atol=1e-13)
    with pytest.raises(ValueError, match="readout"):
        mech.step_mixing_matrix(n)


def test_simulation_runs_on_the_tree_and_matches_f_n():
    n, prob = 64, dpt.MeanEstimation(eta=0.05, sigma_sgd=0.5)
    part = P(max_participations=2, min_sep=16)
    for readout in ("vanilla", "honaker"):
        mech = TreeAggregation(readout)
        theory = dpt.F_inf(mech, prob, rho=1.0, horizon=n, participation=part)
        sim = dpt.simulate(mech, prob, rho=1.0, horizon=n, participation=part, seeds=4000, seed=3)
        assert abs(sim.mean - theory) < 4.5 * sim.stderr, (readout, theory, sim.mean, sim.stderr)
    with pytest.raises(ValueError, match="horizon"):
        dpt.F_inf(TreeAggregation(), prob, rho=1.0)


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="readout"):
        TreeAggregation("completed")
    mech = TreeAggregation("vanilla")
    for bad in (0, -3, 2.5, float("nan")):
        with pytest.raises(ValueError, match="n must"):
            mech.strategy_matrix(bad)
        with pytest.raises(ValueError, match="n must"):
            mech.sensitivity(bad)
    with pytest.raises(ValueError, match="n must"):
        mech.sensitivity(None)
    with pytest.raises(ValueError, match="steps"):
        mech.noise_stream((1,), np.zeros(1), None)
    with pytest.raises(ValueError, match="t must"):
        prefix_variance(0)
    with pytest.raises(ValueError, match="readout"):
        prefix_variance(3, "full")
    with pytest.raises(ValueError, match="variant must be one of"):
        tree_depth(8, variant="ceil")


def test_identity_and_repr():
    assert repr(TreeAggregation("honaker")) == "TreeAggregation('honaker')"
    keys = {TreeAggregation(r).cache_key() for r in READOUTS}
    assert len(keys) == 3 and TreeAggregation("full").cache_key() == TreeAggregation("full").cache_key()
    assert not TreeAggregation().stationary and isinstance(TreeAggregation(), dpt.Mechanism)
    assert dpt.TreeAggregation is TreeAggregation
