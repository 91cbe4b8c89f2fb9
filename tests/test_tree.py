"""Binary-tree aggregation (``dptheory.TreeAggregation``): seed 000's vanilla and Honaker read-outs and seed 003's
TreeAgg-Full, against the exact values of errata 000 §5 and errata 003 C9, C15."""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.linalg

import dptheory as dpt
from dptheory.data import golden
from dptheory.mechanisms import (
    TreeAggregation, dense_sensitivity, increment_variance, prefix_loss, prefix_variance, remark32_loss, tree_depth,
    tree_nodes,
)
from dptheory.mechanisms.base import MAX_PATTERNS
from dptheory.mechanisms.tree import (
    DENSE_CACHE_BYTES, _DENSE, _level_bound, _max_pattern_energy, _pattern_energy, _subtree_cost,
    _subtree_pattern_energies,
)
from dptheory.treeagg import accounting as ta
from tests.tree_oracles import subtree_dp_sensitivity_sq

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
    """errata 003 C15: (2052, 342, 6) sens² = 118, MaxLoss 14.9809, RmsLoss 12.4715; the exact sens_Π (beyond
    enumeration, by the dynamic programme) is the same 118, so seed 003's Table 3 entry is exact."""
    mech, part = TreeAggregation("full"), P(max_participations=6, min_sep=342)
    loss = remark32_loss(mech, 2052, part)
    rec = golden("003", "seed003.table3.recomputed")
    assert loss.sensitivity**2 == pytest.approx(118.0, rel=1e-12)
    assert loss.max_loss == pytest.approx(rec.value["TreeAgg-Full"][0], abs=5e-5)
    assert loss.rms_loss == pytest.approx(rec.value["TreeAgg-Full"][1], abs=5e-5)
    assert "Remark 3.2" in loss.mechanism
    assert part.count_patterns(2052) > MAX_PATTERNS
    report = mech.sensitivity_report(2052, part)
    assert report.exact and report.value == pytest.approx(loss.sensitivity, rel=1e-15)
    assert "dynamic programme" in report.route
    exact = prefix_loss(mech, 2052, part)
    assert (exact.max_loss, exact.rms_loss) == pytest.approx((loss.max_loss, loss.rms_loss), rel=1e-14)
    assert mech.sensitivity(2052) ** 2 == pytest.approx(12.0)


def test_c15_other_settings():
    mech = TreeAggregation("full")
    assert remark32_loss(mech, 2000, P(max_participations=3, min_sep=400)).rms_loss == pytest.approx(8.0965, abs=5e-5)
    five = remark32_loss(mech, 2000, P(max_participations=5, min_sep=400))
    assert (five.max_loss, five.rms_loss) == pytest.approx((14.7578, 9.7945), abs=5e-5)


# -- structured routes: the last row energy and the multi-participation sensitivity without dense matrices --------

_SMALL_N = [*range(1, 71), 100, 127, 128, 129, 255, 300, 1000]
_QS = np.array([-1.0, -0.5, 0.0, 0.3, 0.9, 0.99, 1.0 - 1e-9, 1.0])


@pytest.mark.parametrize("readout", ["vanilla", "honaker"])
def test_final_row_energy_equals_the_last_dense_row_energy(readout):
    """‖e_{n−1}ᵀ F_q N‖² from the node ranges of the decoder, against the dense route on N (1-D q bypasses the q = 1
    closed form), to 1e-12 relative."""
    mech = TreeAggregation(readout)
    for n in _SMALL_N:
        np.testing.assert_allclose(mech.final_row_energy(_QS, n), mech.row_energies(_QS, n)[:, -1], rtol=1e-12, atol=0)


@pytest.mark.parametrize("readout", ["vanilla", "honaker"])
def test_final_row_energy_at_q_1_and_0_is_the_last_prefix_and_increment_variance(readout):
    """q = 1: prefix_variance(n) (errata 000 §5 #2, #3); q = 0: increment_variance(n) = ‖N_{n−1}‖² (§5 #9, #10)."""
    mech = TreeAggregation(readout)
    for n in (1, 2, 3, 12, 64, 100, 1000):
        assert isinstance(mech.final_row_energy(0.5, n), float)
        assert mech.final_row_energy(1.0, n) == pytest.approx(float(prefix_variance(n, readout)), rel=1e-13)
        assert mech.final_row_energy(0.0, n) == pytest.approx(float(increment_variance(n, readout)), rel=1e-13)
    n = 100_000  # no n × m matrix: the closed forms at a size the dense route cannot reach
    e = mech.final_row_energy(np.array([1.0, 0.0, -0.5]), n)
    assert e[0] == pytest.approx(float(prefix_variance(n, readout)), rel=1e-12)
    if readout == "vanilla":
        assert e[1] == pytest.approx(_tz_plus_one(n))
    assert np.all(np.isfinite(e)) and e.shape == (3,)


def _tz_plus_one(t: int) -> int:
    return (t & -t).bit_length()


# -- TreeAgg-Full by the Haar basis of CᵀC (no n × n or n × m matrix), against the dense routes kept as oracles ------

_FULL_N = [*range(1, 41), 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1023, 1025, 2048,
           *(int(n) for n in np.random.default_rng(35).integers(258, 1000, 3))]


def test_full_prefix_variances_equal_the_dense_inverse_gram():
    """q = 1 (seed 003 Eq. 9's per-step errors): diag(A (CᵀC)⁻¹ Aᵀ) by LAPACK potri, to 1e-10 relative."""
    mech = TreeAggregation("full")
    for n in _FULL_N:
        np.testing.assert_allclose(mech.row_energies(1.0, n), mech._full_energies(n), rtol=1e-10, atol=0, err_msg=str(n))


def test_full_row_energies_at_every_q_equal_the_dense_noising_matrix():
    """‖e_tᵀ F_q N‖² for every t (and the last row alone) against the base class's dense route on N = C⁺."""
    mech = TreeAggregation("full")
    for n in [n for n in _FULL_N if n <= 257] + [300]:
        dense = dpt.Mechanism.row_energies(mech, _QS, n)
        np.testing.assert_allclose(mech.row_energies(_QS, n), dense, rtol=1e-10, atol=0, err_msg=str(n))
        np.testing.assert_allclose(mech.final_row_energy(_QS, n), dense[:, -1], rtol=1e-10, atol=0, err_msg=str(n))
    assert isinstance(mech.final_row_energy(0.9, 40), float) and mech.row_energies(0.9, 40).shape == (40,)


def test_full_final_row_energy_is_the_quadratic_form_of_the_inverse_gram():
    """The last row of F_q N has the energy hᵀ(CᵀC)⁻¹h with h_t = q^{n−1−t} (N Nᵀ = (CᵀC)⁻¹): one dense solve."""
    mech = TreeAggregation("full")
    for n in (513, 2047, 2048):
        h = _QS[:, None] ** np.arange(n - 1, -1, -1)
        X = scipy.linalg.cho_factor(mech.gram_matrix(n))
        dense = np.einsum("qt,tq->q", h, scipy.linalg.cho_solve(X, h.T))
        np.testing.assert_allclose(mech.final_row_energy(_QS, n), dense, rtol=1e-10, atol=0, err_msg=str(n))


def test_full_at_a_block_boundary_reads_the_roots_as_honaker_does():
    """Where t + 1 ends a tree of the binary expansion of n, the least-squares prefix is the sum of the roots' own
    subtree estimates: honaker's exact variance, here at n = 10⁵ (no dense route reaches it)."""
    mech, n = TreeAggregation("full"), 100_000
    e = mech.row_energies(1.0, n)
    for t in (n >> k << k for k in range(n.bit_length()) if n >> k):
        assert e[t - 1] == pytest.approx(float(prefix_variance(t, "honaker")), rel=1e-13), t
    assert mech.final_row_energy(1.0, n) == pytest.approx(float(prefix_variance(n, "honaker")), rel=1e-13)
    assert np.all(e <= TreeAggregation("honaker").row_energies(1.0, n) * (1 + 1e-13))


def test_full_mean_estimation_f_n_at_n_4096_beats_the_seed_004_optimum():
    """Issue 35: TreeAgg-Full's F_n 0.004584 at n = 4096 (η = 0.05, σ_sgd = 0.5, ρ = 1, G = 1, single participation)
    is below seed 004's β* (0.004904), so the full read-out must stay in the comparison above n = 2048."""
    prob = dpt.MeanEstimation(eta=0.05, sigma_sgd=0.5)
    full = dpt.F_inf(TreeAggregation("full"), prob, rho=1.0, G=1.0, horizon=4096)
    optimum = dpt.F_inf(dpt.mean_estimation_optimal(0.05), prob, rho=1.0, G=1.0, horizon=4096)
    assert full == pytest.approx(0.004584, abs=5e-7) and optimum == pytest.approx(0.004904, abs=5e-7)


def test_full_stays_in_the_comparison_above_the_dense_limit(monkeypatch):
    """At n = 10⁴ the full read-out has its sensitivity, losses and F_n (mean estimation and linear regression)
    without any dense tree matrix: every dense builder raises if reached; its dense stream stays absent."""
    def refuse(*args, **kwargs):
        raise AssertionError("dense route reached at n = 10^4")
    for name in ("_build_strategy", "_build_decoder", "_build_gram", "noising_matrix"):
        monkeypatch.setattr(TreeAggregation, name, refuse)
    monkeypatch.setattr(dpt.mechanisms.base, "dense_sensitivity", refuse)
    n, part = 10_000, P(max_participations=4, min_sep=2500)
    for prob in (dpt.MeanEstimation(eta=0.05, sigma_sgd=0.5), dpt.LinearRegression(eta=0.02, eigs=1 / np.arange(1, 9))):
        row = dpt.compare(["tree"], prob, horizon=n, participation=part, rho=1.0)["tree full"]
        assert all(math.isfinite(row.value(c)) for c in ("sensitivity", "max_loss", "rms_loss", "F_n")), prob
        assert row.value("us_per_step") is None and "dense stream" in row.cells["us_per_step"].why


def _node_count_energy(pattern, n, readout):
    """The pattern energy Σ_ν #(π ∩ ν)² by a scan of tree_nodes (an oracle independent of _pattern_energy)."""
    pattern = np.sort(np.asarray(pattern))
    nodes = tree_nodes(n, readout)
    lo, hi = nodes[:, 1] << nodes[:, 0], (nodes[:, 1] + 1) << nodes[:, 0]
    counts = np.searchsorted(pattern, hi) - np.searchsorted(pattern, lo)
    return int(np.sum(counts**2))


@pytest.mark.parametrize("readout", READOUTS)
def test_pattern_energy_is_the_norm_of_C_times_the_pattern_indicator(readout):
    rng = np.random.default_rng(4)
    for n in (1, 2, 7, 16, 33, 100, 129):
        C = TreeAggregation(readout).strategy_matrix(n)
        for size in (1, 2, 5):
            pattern = rng.choice(n, size=min(size, n), replace=False)
            assert _pattern_energy(pattern, n, readout) == pytest.approx(np.sum(C[:, pattern].sum(axis=1) ** 2))


@pytest.mark.parametrize("readout", READOUTS)
def test_remark32_counted_per_node_equals_the_dense_formula(readout):
    """Seed 003 Remark 3.2: ‖C u(π*)‖ without C equals the column sum of the dense strategy."""
    mech = TreeAggregation(readout)
    for n in (1, 5, 16, 40, 100, 129, 300):
        C = mech.strategy_matrix(n)
        for k, b in ((2, 1), (3, 7), (4, 13), (6, 50)):
            part = P(max_participations=k, min_sep=b)
            dense = float(np.linalg.norm(C[:, part.earliest(n)].sum(axis=1)))
            assert mech.remark32_sensitivity(n, part) == pytest.approx(dense, rel=1e-15), (n, k, b)


def _grid():
    return [(n, k, b) for n in range(2, 41) for k in (2, 3, 4) for b in (1, 2, 3, 5, 8, 13)
            if P(max_participations=k, min_sep=b).participations(n) >= 2]


@functools.cache
def _brute_sens2(readout: str, n: int, k: int, b: int) -> int:
    """sens² by enumerating every pattern over the dense C^T C (seed 003 eq. 6): the oracle."""
    C = TreeAggregation(readout).strategy_matrix(n)
    return round(dense_sensitivity(C, P(max_participations=k, min_sep=b)) ** 2)


@pytest.mark.parametrize("readout", ["vanilla", "honaker"])
def test_structured_bounds_bracket_the_brute_force_and_are_exact_where_they_meet(readout):
    """Remark 3.2 below, the per-level bound above; where they meet they are the value. Of the 624 cases of the grid
    they meet in 554 for the complete-dyadic tree (honaker, full) and in 95 for vanilla's left children."""
    meet = 0
    for n, k, b in _grid():
        k1 = P(max_participations=k, min_sep=b).participations(n)
        lower, upper = _pattern_energy(np.arange(k1) * b, n, readout), _level_bound(n, k1, b, readout)
        exact = _brute_sens2(readout, n, k, b)
        assert lower <= exact <= upper, (n, k, b)
        if lower == upper:
            meet += 1
    assert (meet, len(_grid())) == ({"honaker": 554, "vanilla": 95}[readout], 624)


@pytest.mark.parametrize("readout", ["vanilla", "honaker"])
def test_dynamic_programme_equals_the_brute_force(readout):
    """The exact programme against enumeration over every (n ≤ 40, k, b) of the grid and a few larger n."""
    for n, k, b in _grid() + [(n, 2, b) for n in (64, 100, 127, 128, 129) for b in (1, 3, 8, 21)]:
        k1 = P(max_participations=k, min_sep=b).participations(n)
        assert _max_pattern_energy(n, k1, b, readout) == _brute_sens2(readout, n, k, b), (n, k, b)


#: The n of the subtree programme's checks against enumeration: every n ≤ 12, the powers of two and their
#: neighbours up to 64, and a few others.
_SMALL_N = tuple(range(1, 13)) + (15, 16, 17, 24, 31, 32, 33, 40, 48, 63, 64)


def _enumerated_energies(n: int, b: int, readout: str, limit: int = 20_000):
    """The best pattern energy by exact count ``m = 0 … ⌈n/b⌉`` by enumerating every pattern (steps ``i + (b − 1)r``
    over the combinations of ``n − (m − 1)(b − 1)`` steps, energies ``‖C u‖²`` on the dense C), or None when there
    are more than ``limit`` patterns."""
    top = -(-n // b)
    if sum(math.comb(n - (m - 1) * (b - 1), m) for m in range(1, top + 1)) > limit:
        return None
    C = TreeAggregation(readout).strategy_matrix(n)
    out = [0]
    for m in range(1, top + 1):
        combos = np.array(list(itertools.combinations(range(n - (m - 1) * (b - 1)), m)), dtype=np.int64).reshape(-1, m)
        steps = combos + (b - 1) * np.arange(m)
        counts = C[:, steps].sum(axis=2)  # (nodes, patterns)
        out.append(int(np.max(np.sum(counts * counts, axis=0))))
    return out


@pytest.mark.parametrize("readout", ["vanilla", "honaker"])
def test_subtree_programme_equals_enumeration_for_every_k_and_b_up_to_n_64(readout):
    """The exact subtree programme (the vanilla read-out's route at MNIST scale) by exact count m, against every
    pattern enumerated where there are at most 20000 of them, else (b = 1) against every step participating or
    against the accounting's former subtree programme (an independent implementation) at the largest k; and its
    "at most k" maximum is the TF-Privacy-shaped brute force for every k at n ≤ 9."""
    enumerated = 0
    accounting = "all" if readout == "honaker" else "vanilla"
    for n in _SMALL_N:
        for b in range(1, n + 1):
            top = -(-n // b)
            energies = _subtree_pattern_energies(n, top, b, readout)
            assert energies.dtype == np.int64 and energies.shape == (top + 1,), (n, b)
            reference = _enumerated_energies(n, b, readout)
            if reference is not None:
                enumerated += 1
                assert energies.tolist() == reference, (n, b)
            elif b == 1:  # every step participating is the maximum
                assert int(energies.max()) == energies[n] == _pattern_energy(np.arange(n), n, readout), n
            else:
                assert int(energies.max()) == subtree_dp_sensitivity_sq(
                    n, max_participations=top, min_separation=b - 1, readout=accounting), (n, b)
            if n <= 9:
                for k in range(1, top + 1):
                    assert int(energies[:k + 1].max()) == ta.brute_force_sensitivity_sq(
                        n, max_participations=k, min_separation=b - 1, readout=accounting), (n, b, k)
    assert enumerated > 250


@pytest.mark.parametrize("readout", ["vanilla", "honaker"])
def test_subtree_programme_equals_the_pattern_programme_at_medium_n(readout):
    """Against the other exact programme (patterns left to right, _max_pattern_energy) on a seeded sample of
    (n ≤ 3000, k, b); 2026 random cases agreed when it was written."""
    rng = np.random.default_rng(0)
    for _ in range(12):
        n, b = int(rng.integers(65, 3000)), int(rng.integers(1, 60))
        k = int(rng.integers(2, max(3, min(20, -(-n // b)) + 1)))
        k = min(k, -(-n // b))
        if k < 2 or _subtree_cost(n, k, b)[1] > 10**8:
            continue
        expected = _max_pattern_energy(n, k, b, readout)
        if expected is not None:
            assert int(_subtree_pattern_energies(n, k, b, readout).max()) == expected, (n, k, b)


def test_vanilla_sensitivity_at_tf_privacy_mnist_scale_is_exact():
    """TF-Privacy's MNIST setting (steps 4800, max_participations 80, min_separation 59, i.e. b = 60): the vanilla
    read-out had only the bounds [7547, 8062] (Remark 3.2, per-level); the subtree programme gives the exact 7552,
    and 10088 for every node released (TF-Privacy's own value, which the pattern programme also gives)."""
    import time

    n, part = 4800, P(max_participations=80, min_sep=60)
    assert (_pattern_energy(np.arange(80) * 60, n, "vanilla"), _level_bound(n, 80, 60, "vanilla")) == (7547, 8062)
    start = time.perf_counter()
    report = TreeAggregation("vanilla").sensitivity_report(n, part)
    assert report.exact and "dyadic subtrees" in report.route
    assert TreeAggregation("vanilla").sensitivity_sq(n, part) == 7552
    assert time.perf_counter() - start < 30.0  # about 1.5 s on one core (the pattern programme gives up first)
    assert int(_subtree_pattern_energies(n, 80, 60, "honaker").max()) == 10088
    assert ta.worst_case_sensitivity_sq(n, max_participations=80, min_separation=59, readout="vanilla") == 7552


def test_subtree_programme_estimates_its_cost_before_allocating(monkeypatch):
    """The tables' bytes are checked against the size budget (a ValueError naming n), and the operation count
    decides whether the route is tried at all."""
    from dptheory import _validation

    nbytes, ops = _subtree_cost(4800, 80, 60)
    assert 10**7 < nbytes < 10**9 and 4 * 10**8 < ops < 7 * 10**8
    monkeypatch.setattr(_validation, "SIZE_BUDGET", int(nbytes) // 2)
    with pytest.raises(ValueError, match=r"n = 4800 needs about .* the subtree programme's tables"):
        _subtree_pattern_energies(4800, 80, 60, "vanilla")


def test_remark32_is_not_tight_for_the_complete_tree_at_n_1e4():
    """Remark 3.2's π* gives sens² = 255 at n = 10⁴, k = 10, b = 1000, but a pattern that waits for dyadic
    boundaries reaches 261, the exact value (honaker and full; vanilla 185 vs 203)."""
    n, part = 10_000, P(max_participations=10, min_sep=1000)
    better = np.array([0, 1000, 2000, 3072, 4072, 5120, 6144, 7168, 8168, 9168])
    assert np.all(np.diff(better) >= 1000)
    for readout, remark, exact in (("honaker", 255, 261), ("full", 255, 261), ("vanilla", 185, 203)):
        mech = TreeAggregation(readout)
        assert mech.remark32_sensitivity(n, part) ** 2 == pytest.approx(remark, rel=1e-14)
        assert _node_count_energy(part.earliest(n), n, readout) == remark
        assert mech.sensitivity(n, part) ** 2 == pytest.approx(exact, rel=1e-14)
        assert "dynamic programme" in mech.sensitivity_route(n, part)
        assert (readout, "C", n) not in _DENSE  # no dense strategy was built
    assert _node_count_energy(better, n, "honaker") == _pattern_energy(better, n, "honaker") == 261
    # the vanilla maximum is reached by another pattern: the one above reaches 194 there
    vanilla_best = np.array([0, 1024, 2048, 3072, 4096, 5120, 6144, 7168, 8168, 9216])
    assert np.all(np.diff(vanilla_best) >= 1000)
    assert _node_count_energy(better, n, "vanilla") == 194
    assert _node_count_energy(vanilla_best, n, "vanilla") == 203 and _node_count_energy(vanilla_best, n, "honaker") == 254
    assert TreeAggregation("vanilla").sensitivity_sq(n, part) == 203


@pytest.mark.parametrize("readout", READOUTS)
def test_sensitivity_sq_is_the_exact_integer_on_every_route(readout):
    """sensitivity_sq is an int equal to round(sensitivity²) (which is off by ulps: 2.0000000000000004 for 2) on
    every route: one participation, one pattern, the dense enumeration, the bounds meeting, the programme."""
    mech = TreeAggregation(readout)
    routes, off = set(), 0
    for n in (1, 2, 7, 16, 33, 100, 129, 300, 1000, 2052):
        for k, b in ((1, 1), (2, 1), (3, 7), (4, 13), (6, 50), (10, max(n // 10, 1)), (6, 342), (5, 100)):
            part = P(max_participations=k, min_sep=b)
            s2 = mech.sensitivity_sq(n, part)
            s = mech.sensitivity(n, part)
            assert type(s2) is int and s2 == round(s * s), (n, k, b)
            off += s * s != s2
            routes.add(mech.sensitivity_route(n, part).split(" ")[0])
            if n <= 40 and part.participations(n) >= 2:
                assert s2 == _brute_sens2(readout, n, k, b)
    assert off > 0 and len(routes) >= 4, routes
    assert mech.sensitivity_sq(1024) == tree_depth(1024) == 11 and mech.sensitivity_sq(2052, P(max_participations=6,
                                                                                             min_sep=342)) == \
        {"vanilla": 98, "honaker": 118, "full": 118}[readout]
    with pytest.raises(ValueError, match=r"n must lie in \[1, inf\)"):
        mech.sensitivity_sq(0)


@pytest.mark.parametrize("readout", ["vanilla", "honaker"])
def test_multi_participation_sensitivity_at_n_1e4_and_prefix_loss(readout):
    """Runs without a dense matrix (the cross-mechanism table's sizes); prefix_loss now has an exact sensitivity."""
    mech, n = TreeAggregation(readout), 10_000
    for k, b in ((10, 1000), (4, 7)):
        part = P(max_participations=k, min_sep=b)
        report = mech.sensitivity_report(n, part)
        assert report.exact and report.lower >= mech.remark32_sensitivity(n, part)
        assert report.value <= math.sqrt(_level_bound(n, part.participations(n), b, readout))
    loss = prefix_loss(mech, n, P(max_participations=10, min_sep=1000))
    assert loss.sensitivity == mech.sensitivity(n, P(max_participations=10, min_sep=1000))
    assert loss.max_error**2 == pytest.approx(max(float(prefix_variance(t, readout)) for t in range(1, n + 1)))
    assert (readout, "C", n) not in _DENSE


def test_routes_where_the_bounds_meet_and_where_only_bounds_remain():
    """n = 40000, three participations, b = 1: the bounds meet for honaker (exact); for vanilla they do not, the
    pattern programme's 40000 blocks are beyond its budget and the subtree programme gives the exact 132 (the former
    subtree programme of the accounting agrees). At n = 10⁶, k = 100, b = 1000 both programmes are beyond their
    budgets: sensitivity refuses and the report gives the bounds."""
    n, part = 40_000, P(max_participations=3, min_sep=1)
    honaker = TreeAggregation("honaker").sensitivity_report(n, part)
    assert honaker.exact and honaker.value**2 == pytest.approx(134)
    assert "meets the per-level upper bound" in honaker.route
    vanilla = TreeAggregation("vanilla")
    report = vanilla.sensitivity_report(n, part)
    assert report.exact and "dyadic subtrees" in report.route and ("vanilla", "C", n) not in _DENSE
    assert vanilla.sensitivity_sq(n, part) == 132 == subtree_dp_sensitivity_sq(n, max_participations=3,
                                                                                   min_separation=0, readout="vanilla")
    n, part = 10**6, P(max_participations=100, min_sep=1000)
    report = vanilla.sensitivity_report(n, part)
    assert not report.exact and (round(report.lower**2), round(report.upper**2)) == (38806, 43340)
    assert "bounds" in report.route and "beyond their budgets" in report.route
    with pytest.raises(ValueError, match=r"bounds \[196\.992, 208\.183\] do not meet.*sensitivity_report"):
        vanilla.sensitivity(n, part)
    with pytest.raises(ValueError, match=r"squared sensitivity .* bounds \[38806, 43340\] do not meet"):
        vanilla.sensitivity_sq(n, part)
    with pytest.raises(ValueError, match="only bounded"):
        prefix_loss(vanilla, n, part)


def test_small_cases_keep_the_dense_enumeration_as_route():
    part = P(max_participations=2, min_sep=5)
    assert "enumeration" in TreeAggregation("vanilla").sensitivity_route(64, part)
    assert "enumeration" not in TreeAggregation("vanilla").sensitivity_route(5000, part)


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


def test_dense_matrices_are_shared_by_instances_and_bounded_in_bytes(monkeypatch):
    """A matrix is built once per (read-out, n) whatever the number of instances, and the cache never holds more
    than DENSE_CACHE_BYTES: a table of many tree rows keeps no matrices of its own."""
    builds = []
    build = TreeAggregation._build_strategy
    monkeypatch.setattr(TreeAggregation, "_build_strategy", lambda self, n: builds.append((self.readout, n)) or build(self, n))
    _DENSE.clear()
    first = [TreeAggregation("honaker").strategy_matrix(64) for _ in range(3)]
    assert builds == [("honaker", 64)] and all(np.array_equal(c, first[0]) for c in first)
    TreeAggregation("vanilla").strategy_matrix(64)
    assert builds == [("honaker", 64), ("vanilla", 64)]
    for readout, n in (("honaker", 512), ("honaker", 1024), ("honaker", 2048), ("vanilla", 2048)):
        TreeAggregation(readout).noising_matrix(n)  # honaker's C, B and N at n = 2048: 67 MB each
        TreeAggregation(readout).strategy_matrix(n)
        assert _DENSE.currsize <= DENSE_CACHE_BYTES
    assert ("vanilla", "N", 2048) in _DENSE and ("honaker", "C", 64) not in _DENSE  # least recently used out first
