"""The machinery shared by the papers: symbolic rates (:mod:`dptheory.symbolic`, seed 004's Tables 1, 2, 4 and
seed 002's registry) and theorem hypotheses (:mod:`dptheory.hypotheses`, seed 001's theorems and seed 002's
rate conditions). The papers' own numbers are tested in test_rates.py, test_isrl_rates.py and test_proactive.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from dptheory.hypotheses import Condition, ConditionError, TheoremCheck
from dptheory.symbolic import SymbolTable, branch, check_hypotheses, elasticity, elasticity_at, log, numeric

x, y = sp.symbols("x y", positive=True)
TABLE = SymbolTable(x, y, noun="parameter")


def test_symbol_table_declares_only_positive_symbols_and_checks_names_and_values():
    assert list(TABLE) == ["x", "y"] and TABLE["x"] is x and TABLE.symbol("y") is y and TABLE.symbol(x) is x
    with pytest.raises(ValueError, match="positive=True"):
        SymbolTable(sp.Symbol("z"))
    with pytest.raises(ValueError, match=r"var must be one of the symbols \['x', 'y'\]"):
        TABLE.symbol(sp.Symbol("x"))  # same name, not declared positive: another symbol
    with pytest.raises(ValueError, match=r"expr may only contain the symbols \['x', 'y'\], got \['z'\]"):
        TABLE.expression(x * sp.Symbol("z", positive=True))
    with pytest.raises(ValueError, match=r"unknown parameter name\(s\) \['z'\]; the parameters are"):
        TABLE.numbers({"x": 1, "z": 2})
    with pytest.raises(ValueError, match=r"y must lie in \(0, inf\) \(every parameter is positive\)"):
        TABLE.numbers({"y": 0})
    assert TABLE.numbers({"x": [1, 2]}, arrays=True)[x].shape == (2,)
    subs = TABLE.substitution({"x": 1, "y": x / 2})
    assert subs[x] == sp.Integer(1) and subs[y] == x / 2  # numbers stay exact


def test_numeric_log_elasticity_and_branch():
    f = x**2 * log(1 / y)
    assert str(f) == "x**2*log(1/y)"  # kept as printed
    assert numeric(f, {x: np.array([1.0, 2.0]), y: 0.5}) == pytest.approx([math.log(2), 4 * math.log(2)], rel=1e-15)
    assert numeric(f, {x: 3.0, y: 0.5}, modules="math") == pytest.approx(9 * math.log(2), rel=1e-15)
    assert elasticity(x**2 / sp.sqrt(y), y) == sp.Rational(-1, 2) and elasticity(f, x) == 2
    assert elasticity(x + y, sp.Symbol("w")) == 0
    bounded = sp.Min(1, x / y)
    assert branch(bounded) == x / y  # the non-trivial branch of min{1, ·}
    assert branch(bounded, {x: 3.0, y: 1.0}) == 1 and elasticity_at(bounded, x, {x: 3.0, y: 1.0}) == 0.0
    assert elasticity_at(x**2 + y, x, {x: 1.0, y: 1.0}) == pytest.approx(1.0)  # 2x²/(x² + y)


def test_check_hypotheses_decides_relations_and_lists_the_rest():
    hyps = (sp.Le(x, 2 * y), sp.Eq(x, y), sp.Gt(y, sp.Symbol("w", positive=True)), "x is an integer")
    check = check_hypotheses("Thm 0", hyps, {x: 3.0, y: 1.0}, labels={hyps[1]: "x = y"})
    assert [c.label for c in check.conditions] == ["x <= 2*y", "x = y"] and not check.holds
    assert check["x = y"].statement == "x == y" and check["x = y"].slack == pytest.approx(-2.0)
    assert check.unchecked == ("y > w", "x is an integer")
    assert "not checked: x is an integer" in str(check)
    with pytest.raises(ConditionError, match=r"Thm 0 does not apply:\nFAIL x <= 2\*y: 3 <= 2"):
        check.require()


def test_condition_slack_sign_and_ops():
    assert Condition("a", "a ≥ 1", 2.0, ">=", 1.0).slack == pytest.approx(1.0)
    assert Condition("a", "a ≤ 1", 2.0, "<=", 1.0).slack == pytest.approx(-0.5)
    assert Condition("a", "a = 1", 1.0, "==", 1.0).slack == 0.0 and Condition("a", "a = 1", 1.0, "==", 1.0).holds
    assert Condition("a", "a ≤ ∞", 2.0, "<=", math.inf).slack == math.inf
    with pytest.raises(ValueError, match="op must be one of"):
        Condition("a", "a ≠ 1", 2.0, "!=", 1.0)
    check = TheoremCheck("Thm 0", (Condition("(1)", "a ≥ 1", 2.0, ">=", 1.0),), {"gamma": 2.0})
    assert check.require() is check and str(check).splitlines() == [
        "Thm 0: all conditions hold", "  ok      (1) a ≥ 1: 2 >= 1 (slack +100.000%)", "  gamma = 2"]
    with pytest.raises(KeyError, match=r"has no condition '\(2\)'"):
        check["(2)"]
