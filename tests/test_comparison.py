"""The cross-mechanism comparison (dptheory.comparison): every cell a number with its route or a reason; every exact number
against an independent route — the learning suboptimality F_n against simulate with the mechanism's own noise stream,
the prefix-sum losses against a Monte-Carlo of the same stream — and F_n → F∞ where F∞ exists."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import dptheory as dpt
from dptheory import comparison as cmp
from dptheory.mechanisms.base import Mechanism
from dptheory.simulation import simulate_prefix_errors
from dptheory.stats import family_quantile

MEAN = dpt.MeanEstimation(eta=0.1, sigma_sgd=0.3)
LINREG = dpt.LinearRegression(0.2, 1.0 / np.arange(1, 5), sigma_sgd=0.3)
MULTI = dpt.Participation(max_participations=2, min_sep=32)


@pytest.fixture(scope="module")
def mean_table():
    return dpt.compare(None, MEAN, horizon=64, participation=MULTI, rho=0.5, timing=False)


@pytest.fixture(scope="module")
def linreg_table():
    return dpt.compare(None, LINREG, horizon=48, participation=MULTI, rho=0.5, timing=False)


def test_every_family_is_in_the_table_and_every_cell_is_a_number_or_says_why(mean_table):
    assert {r.family for r in mean_table.rows} == set(cmp.DEFAULT_FAMILIES) == set(cmp.FAMILIES) - {"blt_learned"}
    labels = mean_table.labels
    assert {"DP-SGD", "nu-FTRL tuned", "nu-FTRL eta*mu", "sqrt (Optimal-CC)", "BLT d=1", "BLT d=4", "BLT d=4, n/10",
            "BLT d=4, k=1", "tree vanilla", "tree honaker", "tree full", "seed-004 optimum"} <= set(labels)
    for row in mean_table.rows:
        for column in cmp.COLUMNS:
            cell = row.cells[column]
            assert (cell.value is not None and cell.route) or (cell.value is None and cell.why), (row.label, column)
    # what cannot apply says so
    assert mean_table["tree honaker"].cells["F_inf"].why == "not stationary"
    assert mean_table["DP-SGD"].cells["bound"].why == "strongly convex problems only"
    assert mean_table["sqrt (Optimal-CC)"].value("F_inf") == math.inf


def test_the_tuned_nu_is_no_worse_than_the_papers_choice_and_dpsgd(mean_table, linreg_table):
    for table in (mean_table, linreg_table):
        tuned = table["nu-FTRL tuned"].value("F_n")
        assert tuned <= table["nu-FTRL eta*mu"].value("F_n") * (1 + 1e-6)
        assert tuned <= table["DP-SGD"].value("F_n")


def test_sigma_is_the_sensitivity_over_root_two_rho(mean_table):
    for row in mean_table.rows:
        if row.value("sensitivity") is not None:
            assert row.value("sigma") == pytest.approx(row.value("sensitivity") / math.sqrt(2 * 0.5), rel=1e-15)


def test_the_table_agrees_with_the_direct_calls(mean_table):
    """The table is assembled from the library's own functions (a bookkeeping check, not an independent route)."""
    row = mean_table["BLT d=2"]
    mech = dpt.blt.optimize(64, MULTI, buffers=2, loss="max").blt
    assert row.value("sensitivity") == pytest.approx(mech.sensitivity(64, MULTI), rel=1e-12)
    assert row.value("F_n") == pytest.approx(dpt.F_inf(mech, MEAN, rho=0.5, horizon=64, participation=MULTI), rel=1e-12)
    loss = dpt.mechanisms.prefix_loss(mech, 64, MULTI)
    assert (row.value("max_loss"), row.value("rms_loss")) == pytest.approx((loss.max_loss, loss.rms_loss), rel=1e-12)


def _simulated_rows(table):
    return [r for r in table.rows if r.value("F_n") is not None and math.isfinite(r.value("F_n"))]


@pytest.mark.parametrize("which", ["mean", "linreg"])
def test_every_F_n_lies_in_the_interval_of_a_simulation_with_the_mechanisms_own_stream(which, mean_table, linreg_table):
    """simulate(horizon=n) runs the mechanism's noise stream (BLT buffers, tree stack, FFT, banded recursion) with the
    calibrated σ; Bonferroni over the rows at 1 % family-wise."""
    table, problem, n = (mean_table, MEAN, 64) if which == "mean" else (linreg_table, LINREG, 48)
    rows = _simulated_rows(table)
    assert len(rows) >= 12
    z = family_quantile(len(rows), 3999, alpha=0.01)
    for i, row in enumerate(rows):
        sim = dpt.simulate(row.mechanism, problem, rho=0.5, horizon=n, participation=MULTI,
                           seeds=4000, seed=100 + i)
        assert abs(sim.mean - row.value("F_n")) <= z * sim.stderr, (row.label, sim.mean, sim.stderr, row.value("F_n"))


def test_prefix_losses_lie_in_the_interval_of_a_monte_carlo_of_the_noise_stream(mean_table):
    """MaxError² at the worst step and RmsError² by the stream's own prefix sums (seed 003 Eq. 9), times sens²."""
    rows = [r for r in mean_table.rows if r.value("max_loss") is not None]
    z = family_quantile(2 * len(rows), 3999, alpha=0.01)
    for i, row in enumerate(rows):
        mech = row.mechanism
        sens = row.value("sensitivity")
        sim = simulate_prefix_errors(mech, 64, chains=4000, seed=i)
        worst = int(np.argmax(mech.row_energies(1.0, 64)))
        for estimate, loss in ((sim.at(worst), row.value("max_loss")), (sim.mean_over_steps(), row.value("rms_loss"))):
            assert abs(estimate.value - (loss / sens) ** 2) <= z * estimate.stderr, row.label


@pytest.mark.parametrize("mechanism", [dpt.blt.optimize(1000, MULTI, buffers=2).blt, dpt.nu_ftrl(0.05),
                                       dpt.mechanisms.banded_sqrt_toeplitz(16), dpt.dpsgd()], ids=repr)
def test_F_n_tends_to_F_inf_as_the_horizon_grows(mechanism):
    """With k' = k participations fitting, the n-step sensitivity tends to the streaming limit and F_n to F∞."""
    for problem in (MEAN, LINREG):
        stationary = dpt.F_inf(mechanism, problem, rho=0.5, participation=MULTI)
        gaps = [abs(dpt.F_inf(mechanism, problem, rho=0.5, horizon=n, participation=MULTI) / stationary - 1)
                for n in (100, 1000, 100_000)]
        assert gaps[-1] < 1e-6
        assert gaps[-1] <= gaps[0]


def test_renderings_and_exports(mean_table):
    text, markdown = str(mean_table), mean_table.to_markdown()
    assert "n/a [" in text and "bound: n/a for every mechanism (strongly convex problems only)" in text
    assert markdown.splitlines()[2].startswith("| mechanism | sensitivity | sigma | max_loss")
    data = json.loads(mean_table.to_json())
    assert [r["label"] for r in data["rows"]] == mean_table.labels
    assert data["rows"][0]["cells"]["F_inf"]["value"] == pytest.approx(mean_table.rows[0].value("F_inf"))
    assert data["setting"]["horizon"] == 64 and data["setting"]["rho"] == 0.5
    lines = mean_table.to_csv().splitlines()
    assert len(lines) == len(mean_table.rows) + 1 and lines[0].startswith("label,family,sensitivity,sensitivity_note")
    assert mean_table.best("F_n") == mean_table.ranking("F_n")[0]


def test_same_arguments_same_table():
    a = dpt.compare(["dpsgd", "blt", "tree"], MEAN, horizon=40, rho=1.0, timing=False)
    b = dpt.compare(["dpsgd", "blt", "tree"], MEAN, horizon=40, rho=1.0, timing=False)
    assert a.to_json() == b.to_json()


def test_an_epsilon_target_is_the_rho_of_the_exact_gaussian_conversion():
    table = dpt.compare(["dpsgd"], MEAN, horizon=10, eps=2.0, delta=1e-6, timing=False)
    rho = dpt.accounting.rho_from_epsilon(2.0, delta=1e-6, conversion="exact")
    assert table.setting["rho"] == rho
    assert dpt.accounting.epsilon_from_rho(rho, delta=1e-6, conversion="exact") == pytest.approx(2.0, rel=1e-9)


def test_given_mechanisms_are_compared_as_they_are():
    table = dpt.compare([dpt.toeplitz([1.0, -0.5]), dpt.TreeAggregation("vanilla")], MEAN, horizon=16, rho=1.0, timing=False)
    assert table.labels == ["toeplitz([ 1.  -0.5])", "TreeAggregation('vanilla')"]  # their own names
    assert table.rows[0].mechanism.beta.tolist() == [1.0, -0.5]
    assert table.rows[1].value("sensitivity") == pytest.approx(math.sqrt(5))  # floor(lg 16) + 1 nodes hold leaf 0


def test_a_strongly_convex_problem_gets_the_theorem_3_1_bound_where_the_mechanism_is_stationary():
    problem = dpt.StronglyConvex(eta=0.2, mu=0.1, L=1.0, sigma_sgd=0.1, d=2)
    table = dpt.compare(["dpsgd", "tree"], problem, horizon=32, rho=1.0, timing=False)
    assert table["DP-SGD"].value("bound") == pytest.approx(dpt.F_inf_bound(dpt.dpsgd(), problem, rho=1.0).value, rel=1e-9)
    assert table["tree vanilla"].cells["bound"].why == "not stationary"
    assert table["DP-SGD"].cells["F_n"].why == "no exact F_n for a non-quadratic loss"


def test_an_unbounded_sensitivity_is_a_cell_that_says_so():
    table = dpt.compare([dpt.toeplitz([1.0, -2.0])], MEAN, horizon=2000, rho=1.0, timing=False)
    cell = table.rows[0].cells["sensitivity"]
    assert cell.value == math.inf and "unbounded" in cell.route
    assert table.rows[0].value("F_n") == math.inf


@pytest.mark.parametrize("kwargs, message", [
    (dict(problem="mean"), "problem must be one of"),
    (dict(mechanisms=["dpsgd", "blt-x"]), "families must be a non-empty selection"),
    (dict(mechanisms=[42]), "mechanisms must hold"),
    (dict(mechanisms=[]), "mechanisms must name at least one"),
    (dict(rho=1.0, eps=1.0, delta=1e-6), "either as rho or as \\(epsilon, delta\\), not both"),
    (dict(rho=None, eps=1.0), "a privacy target is needed"),
    (dict(rho=None), "a privacy target is needed"),
    (dict(rho=-1.0), "rho must lie in"),
    (dict(participation=dpt.Participation(max_participations=3, min_sep=50)), "cannot occur within horizon = 100"),
    (dict(horizon=0), "horizon must lie in"),
    (dict(G=0.0), "G must lie in"),
    (dict(timing="yes"), "timing must be True or False"),
])
def test_bad_input_is_refused_naming_the_parameter(kwargs, message):
    args = dict(mechanisms=["dpsgd"], problem=MEAN, horizon=100, rho=1.0) | kwargs
    with pytest.raises(ValueError, match=message):
        dpt.compare(args.pop("mechanisms"), args.pop("problem"), **args)


def test_at_n_10000_no_dense_matrix_is_built(monkeypatch):
    """Seven families at n = 10⁴ (k = 4, b = 2500) without any n × n work, TreeAgg-Full included (its Haar route): every
    dense builder raises if reached."""
    def refuse(*args, **kwargs):
        raise AssertionError("dense route reached at n = 10^4")
    for cls, name in ((Mechanism, "strategy_matrix"), (Mechanism, "noising_matrix"), (dpt.ToeplitzMechanism, "strategy_matrix"),
                      (dpt.ToeplitzMechanism, "noising_matrix"), (dpt.TreeAggregation, "_build_strategy"),
                      (dpt.TreeAggregation, "_build_decoder"), (dpt.TreeAggregation, "_build_gram")):
        monkeypatch.setattr(cls, name, refuse)
    monkeypatch.setattr(dpt.mechanisms.base, "dense_sensitivity", refuse)
    table = dpt.compare(None, MEAN, horizon=10_000, participation=dpt.Participation(max_participations=4, min_sep=2500),
                        rho=1.0, timing=False)
    for label in ("DP-SGD", "nu-FTRL tuned", "sqrt (Optimal-CC)", "BLT d=4", "tree honaker", "tree full", "seed-004 optimum"):
        assert math.isfinite(table[label].value("F_n")) and math.isfinite(table[label].value("max_loss")), label


def test_a_blt_optimised_for_F_n_is_no_worse_than_any_point_of_a_grid_over_its_parameters():
    """d = 1: F_n of BLT(θ, ω) on a 40 × 40 grid of θ ∈ (0, 1), ω ∈ (0, θ) (the optimiser's domain) against the
    Nelder–Mead optimum: an independent search of the same objective."""
    learned = dpt.blt.optimize_for_learning(MEAN, 128, MULTI, rho=0.5, buffers=1)
    best = min(dpt.F_inf(dpt.BLT([th], [w * th]), MEAN, rho=0.5, horizon=128, participation=MULTI)
               for th in np.linspace(0.01, 0.99, 40) for w in np.linspace(0.01, 0.99, 40))
    assert learned.F_n <= best * (1 + 1e-9)
    assert learned.F_n == pytest.approx(dpt.F_inf(learned.blt, MEAN, rho=0.5, horizon=128, participation=MULTI), rel=1e-12)
    assert learned.F_n < learned.start_F_n  # the MaxLoss optimum is not the learning optimum


def test_learned_blts_are_a_family_outside_the_default_set():
    table = dpt.compare(["blt_learned", "optimised"], MEAN, horizon=64, rho=0.5, timing=False)
    assert table.labels == ["BLT d=1, F_n", "BLT d=2, F_n", "seed-004 optimum"]
    # two buffers tuned for F_n come within 1 % of seed 004's optimum (Thm 2.1's beta*) at n = 64
    assert table["BLT d=2, F_n"].value("F_n") < 1.01 * table["seed-004 optimum"].value("F_n")
