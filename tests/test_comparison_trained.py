"""The comparison at matched (ε, δ) as trained (``compare(…, dataset_size=, batch_size=, epochs=)``, dptheory.training).

Independent routes: each row's noise std against the dense strategy matrix (largest column norm, or the dense
pattern enumeration under the fixed-order participation); the ε charged against the reduction by hand (amplified
rows) or scipy's Gaussian δ(ε) (unamplified rows); F_n against the dense-matrix route of ``DenseMechanism`` and
against a simulation with the mechanism's own noise stream at the row's calibrated noise.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dptheory as dpt
from dptheory.accounting import exact_epsilon
from dptheory.mechanisms import DenseMechanism, dense_sensitivity
from dptheory.stats import family_quantile
from dptheory.training import TrainingRun, tightest_privacy

MEAN = dpt.MeanEstimation(eta=0.1, sigma_sgd=0.3)
RUN = dict(dataset_size=640, batch_size=20, epochs=2)  # 32 steps an epoch, n = 64, fixed order (k = 2, b = 32)
EPS, DELTA = 2.0, 1e-5


@pytest.fixture(scope="module")
def table():
    return dpt.compare(None, MEAN, eps=EPS, delta=DELTA, timing=False, **RUN)


def _dense_rows(table):
    return [r for r in table.rows if r.mechanism is not None and r.mechanism.strategy_matrix(64).shape == (64, 64)]


def test_every_row_states_its_scheme_accountant_and_the_eps_it_is_charged(table):
    assert table.setting["horizon"] == 64 and table.setting["epochs"] == 2
    for row in table.rows:
        if row.mechanism is None:
            continue
        p = row.privacy
        assert p.charged.eps <= EPS * (1 + 1e-12) and p.charged.eps >= EPS * (1 - 2e-3), row.label
        assert p.scheme.amplified == (p.why_not_amplified == ""), row.label
        # the chosen scheme is the one with the smallest noise std among the valid ones
        assert p.noise_std == pytest.approx(min(std for _, std in p.alternatives), rel=1e-15)
    assert table["DP-SGD"].privacy.scheme == dpt.accounting.PoissonSampling(dataset_size=640, batch_size=20)
    assert not table["nu-FTRL tuned"].privacy.scheme.amplified
    assert "bands" in table["nu-FTRL tuned"].privacy.why_not_amplified


def test_the_noise_std_against_the_dense_strategy(table):
    fixed = dpt.Participation(max_participations=2, min_sep=32)
    for row in _dense_rows(table):
        C = row.mechanism.strategy_matrix(64)
        p = row.privacy
        dense = float(np.max(np.linalg.norm(C, axis=0))) if p.scheme.amplified else dense_sensitivity(C, fixed)
        assert p.sensitivity == pytest.approx(dense, rel=1e-9), row.label
        assert row.value("sigma") == pytest.approx(p.noise_multiplier * dense, rel=1e-9), row.label


def test_the_eps_charged_by_a_second_route(table):
    for row in table.rows:
        p = row.privacy
        if p is None:
            continue
        if p.scheme.amplified:
            c = p.scheme.cycle_length
            by_hand = exact_epsilon(p.noise_multiplier, q=20 / (640 // c), T=math.ceil(64 / c), delta=DELTA).eps
            assert p.charged.eps == by_hand, row.label
        else:  # δ(ε) of the Gaussian mechanism with μ = 1/σ (Balle & Wang 2018, Thm 8)
            mu = 1.0 / p.noise_multiplier
            delta = stats.norm.cdf(-EPS / mu + mu / 2) - math.exp(EPS) * stats.norm.cdf(-EPS / mu - mu / 2)
            assert delta == pytest.approx(DELTA, rel=1e-6), row.label


def test_F_n_against_the_dense_oracle(table):
    rows = [r for r in _dense_rows(table) if r.value("F_n") is not None]
    assert len(rows) >= 10
    for row in rows:
        p = row.privacy
        dense = dpt.F_inf(DenseMechanism(row.mechanism.strategy_matrix(64)), MEAN, rho=p.rho, horizon=64,
                          participation=p.participation(64))
        assert row.value("F_n") == pytest.approx(dense, rel=1e-9), row.label


def test_F_n_lies_in_the_interval_of_a_simulation_with_the_rows_calibrated_noise(table):
    rows = [r for r in table.rows if r.value("F_n") is not None and r.label in
            ("DP-SGD", "nu-FTRL tuned", "BLT d=2", "tree honaker", table.rows[-2].label)]
    assert len(rows) == 5
    z = family_quantile(len(rows), 3999, alpha=0.01)
    for i, row in enumerate(rows):
        p = row.privacy
        sim = dpt.simulate(row.mechanism, MEAN, rho=p.rho, horizon=64, participation=p.participation(64), seeds=4000,
                           seed=700 + i)
        assert abs(sim.mean - row.value("F_n")) <= z * sim.stderr, (row.label, sim.mean, sim.stderr)


def test_losses_are_the_prefix_errors_at_the_calibrated_std(table):
    for row in _dense_rows(table):
        if row.value("max_loss") is None:
            continue
        energies = row.mechanism.row_energies(1.0, 64)
        assert row.value("max_loss") == pytest.approx(math.sqrt(np.max(energies)) * row.value("sigma"), rel=1e-9)


def test_the_rho_matched_table_is_unchanged_by_the_new_arguments():
    multi = dpt.Participation(max_participations=2, min_sep=32)
    a = dpt.compare(["dpsgd", "sqrt"], MEAN, horizon=64, participation=multi, rho=0.5, timing=False)
    assert all(r.privacy is None for r in a.rows)
    assert a["DP-SGD"].value("sigma") == pytest.approx(math.sqrt(2) / 1.0, rel=1e-15)


def test_renderings_show_the_scheme_and_the_eps_charged(table):
    text = table.to_text()
    assert "scheme" in text and "eps charged" in text and "Poisson" in text and "fixed order" in text
    row = table.to_dict()["rows"][0]
    assert row["privacy"]["scheme"].startswith("Poisson sampling") and row["privacy"]["amplified"] is True
    assert table.to_json() == dpt.compare(None, MEAN, eps=EPS, delta=DELTA, timing=False, **RUN).to_json()


@pytest.mark.parametrize("kwargs, message", [
    (dict(dataset_size=10, batch_size=20, epochs=1, eps=1.0, delta=1e-5), "batch_size"),
    (dict(dataset_size=640, batch_size=20, epochs=0, eps=1.0, delta=1e-5), "epochs"),
    (dict(dataset_size=640, batch_size=20, epochs=1.5, eps=1.0, delta=1e-5), "epochs"),
    (dict(dataset_size=640, batch_size=20, epochs=1, eps=1.0, delta=1e-5, rho=0.5), "not rho"),
    (dict(dataset_size=640, batch_size=20, epochs=1, eps=1.0, delta=1.0), "delta"),
    (dict(dataset_size=640, batch_size=20, epochs=1, eps=1.0, delta=0.0), "delta"),
    (dict(dataset_size=640, batch_size=20, epochs=1, eps=-1.0, delta=1e-5), "eps"),
    (dict(dataset_size=640, batch_size=20, eps=1.0, delta=1e-5), "epochs"),
    (dict(dataset_size=640, batch_size=20, epochs=1, eps=1.0), "delta"),
    (dict(dataset_size=640, batch_size=20, epochs=1, eps=1.0, delta=1e-5, horizon=50), "horizon"),
    (dict(dataset_size=640, batch_size=20, epochs=1, eps=1.0, delta=1e-5,
          participation=dpt.Participation(max_participations=2, min_sep=8)), "participation"),
])
def test_bad_settings_are_refused_naming_them(kwargs, message):
    with pytest.raises(ValueError, match=message):
        dpt.compare(["dpsgd"], MEAN, timing=False, **kwargs)


def test_a_training_run_validates_what_it_takes():
    assert TrainingRun(dataset_size=1000, batch_size=30, epochs=3, eps=1.0, delta=1e-6).steps == 99
    with pytest.raises(ValueError, match="dataset_size"):
        TrainingRun(dataset_size=True, batch_size=1, epochs=1, eps=1.0, delta=1e-6)


def test_a_strategy_with_more_bands_than_an_epoch_is_not_amplified():
    run = TrainingRun(dataset_size=640, batch_size=20, epochs=2, eps=EPS, delta=DELTA)
    p = tightest_privacy(dpt.mechanisms.banded_sqrt_toeplitz(40), run)
    assert not p.scheme.amplified and "floor(N/B) = 32" in p.why_not_amplified


def test_plot_draws_one_bar_per_ranked_row_and_marks_the_unamplified(table):
    import matplotlib

    matplotlib.use("Agg")
    fig = table.plot(("max_loss", "F_n"))
    axes = fig.axes
    assert len(axes) == 2
    for ax, column in zip(axes, ("max_loss", "F_n")):
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert labels == table.ranking(column)[::-1]
        hatched = {label for label, bar in zip(labels, ax.patches) if bar.get_hatch()}
        assert hatched == {l for l in labels if not table[l].privacy.scheme.amplified}
    with pytest.raises(ValueError, match="column"):
        table.plot(("nonsense",))
    with pytest.raises(ValueError, match="no row"):
        table.plot(("bound",))
