"""Claims whose two sides agree to the last bit come from two code paths: perturbing one route moves only its side.

* ``compare.F_n_to_F_inf.*`` (verify/comparison.py): the stationary side is the mechanism's ``filtered_energy`` (pole
  integrals, closed forms) with the streaming-limit sensitivity, the finite side its ``final_row_energy`` at
  ``n = 10⁵`` with the ``n``-step sensitivity;
* ``compare.oracle.*`` and ``compare_trained.oracle.*`` (verify/_oracle.py): the oracle is the mechanism's dense
  matrices read by the base-class routes (pattern enumeration by ``dense_sensitivity``, the dense noising matrix),
  the table the mechanism's own structured routes.
"""

from __future__ import annotations

import pytest

import dptheory as dpt
from dptheory.mechanisms import banded_sqrt_toeplitz
from verify import _oracle

MEAN = dpt.MeanEstimation(eta=0.05, sigma_sgd=0.5)
MECHANISMS = [dpt.dpsgd(), dpt.nu_ftrl(0.05), banded_sqrt_toeplitz(8), dpt.BLT([0.9, 0.5], [0.2, 0.1])]


def _scaled(method, factor):
    def wrapped(self, *args, **kwargs):
        return method(self, *args, **kwargs) * factor
    return wrapped


@pytest.mark.parametrize("mech", MECHANISMS, ids=repr)
def test_the_limit_claims_two_sides_move_apart(mech, monkeypatch):
    dp_only = dpt.MeanEstimation(eta=0.05)  # no gradient noise: F is the DP part, linear in the energy
    stationary = lambda: dpt.F_inf(mech, dp_only, rho=1.0)
    finite = lambda: dpt.F_inf(mech, dp_only, rho=1.0, horizon=100_000)
    s0, f0 = stationary(), finite()
    cls = type(mech)
    with monkeypatch.context() as m:
        m.setattr(cls, "filtered_energy", _scaled(cls.filtered_energy, 1 + 1e-6))
        assert stationary() == pytest.approx(s0 * (1 + 1e-6), rel=1e-12) and finite() == f0
    with monkeypatch.context() as m:
        m.setattr(cls, "final_row_energy", _scaled(cls.final_row_energy, 1 + 1e-6))
        assert finite() == pytest.approx(f0 * (1 + 1e-6), rel=1e-12) and stationary() == s0


def test_the_oracle_and_the_table_are_two_routes(monkeypatch):
    n, participation = 64, dpt.Participation(max_participations=2, min_sep=32)
    table = dpt.compare(["dpsgd", "blt", "tree", "banded"], MEAN, horizon=n, participation=participation, rho=1.0,
                        timing=False)
    labels = [l for l in table.labels if table[l].mechanism is not None and not table[l].alias_of]
    measure = lambda label, column: _oracle.measure(table[label].mechanism, MEAN, column, n=n, rho=1.0,
                                                    participation=participation, scale=1.0)[0]
    before = {(l, c): measure(l, c) for l in labels for c in ("F_n", "max_loss")}
    for (label, column), value in before.items():
        assert value == pytest.approx(table[label].value(column), rel=1e-9), (label, column)
    # the oracle's sensitivity is the dense enumeration: scaling it moves the oracle, not the table
    with monkeypatch.context() as m:
        m.setattr(_oracle, "dense_sensitivity", _scaled_function(_oracle.dense_sensitivity, 1 + 1e-6))
        for label in labels:
            assert measure(label, "max_loss") == pytest.approx(before[label, "max_loss"] * (1 + 1e-6), rel=1e-12)
    again = dpt.compare(["dpsgd", "blt", "tree", "banded"], MEAN, horizon=n, participation=participation, rho=1.0,
                        timing=False)
    assert [again[l].value("max_loss") for l in labels] == [table[l].value("max_loss") for l in labels]
    # the table's structured last-row energy (the class that defines it: Toeplitz, BLT, the tree, ...): scaling it
    # moves the table's F_n, not the oracle's (its dense view reads the base class's route)
    checked = 0
    for label in labels:
        mech = table[label].mechanism
        owner = next(c for c in type(mech).__mro__ if "final_row_energy" in c.__dict__)
        if owner is dpt.Mechanism:
            continue
        with monkeypatch.context() as m:
            m.setattr(owner, "final_row_energy", _scaled(owner.final_row_energy, 2.0))
            assert measure(label, "F_n") == before[label, "F_n"], label
            assert dpt.F_inf(mech, MEAN, rho=1.0, horizon=n, participation=participation) != before[label, "F_n"]
        checked += 1
    assert checked == len(labels) - 1  # all but BandMF, a dense strategy itself


def _scaled_function(function, factor):
    def wrapped(*args, **kwargs):
        return function(*args, **kwargs) * factor
    return wrapped
