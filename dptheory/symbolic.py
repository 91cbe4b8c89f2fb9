r"""Symbolic rates: orders of growth as sympy expressions over one paper's declared positive symbols.

Shared by seed 004's rate tables (:mod:`dptheory.rates`, Tables 1, 2, 4) and seed 002's rate registry
(:mod:`dptheory.isrl.registry`, Thms 2.1–5.2 and Fig. 3). Each paper declares its symbols once in a
:class:`SymbolTable` (names, the check that an expression uses only them, the check of the values it is
evaluated at) and builds its rate type on :class:`SymbolicRate` (the symbols a rate needs and its log-log
slope). Around them:

* :func:`log`, a logarithm kept as printed (sympy would rewrite ``log(1/x)`` as ``-log(x)``);
* :func:`numeric`, an expression at numbers or arrays through a cached ``lambdify``;
* :func:`elasticity` / :func:`elasticity_at`, the slope ``d ln f / d ln x``, exact (a ``Rational`` for a
  power law) or at a point;
* :func:`branch`, which resolves ``min``/``max`` (an order ``LD·min{1, x}`` on its non-trivial branch ``x``);
* :func:`check_hypotheses`, a theorem's hypotheses written as sympy relations (or words) decided at a point,
  as a :class:`dptheory.hypotheses.TheoremCheck`.

>>> import sympy as sp
>>> x, y = sp.symbols("x y", positive=True)
>>> table = SymbolTable(x, y)
>>> elasticity(x**2 / sp.sqrt(y), table.symbol("y"))
-1/2
>>> check_hypotheses("Thm 0", (sp.Le(x, 2 * y), "y is an integer"), table.numbers({"x": 3, "y": 1})).failed
(Condition(label='x <= 2*y', statement='x <= 2*y', lhs=3.0, op='<=', rhs=2.0),)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping
from typing import ClassVar

import numpy as np
import sympy as sp

from ._validation import check_in_interval, check_real_values
from .hypotheses import Condition, TheoremCheck

__all__ = [
    "SymbolTable",
    "SymbolicRate",
    "log",
    "numeric",
    "elasticity",
    "elasticity_at",
    "branch",
    "check_hypotheses",
]


def log(x) -> sp.Expr:
    """``log(x)`` kept as printed (sympy would rewrite ``log(1/x)`` as ``-log(x)``).

    Parameters
    ----------
    x : sympy.Expr or number
        The argument.

    Returns
    -------
    sympy.Expr
        ``sympy.log(x, evaluate=False)``.
    """
    return sp.log(x, evaluate=False)


class SymbolTable(Mapping):
    """The positive sympy symbols one paper's rates may contain, by name (a read-only mapping name -> symbol).

    ``noun`` is what messages call them (seed 004: ``"symbol"``, seed 002: ``"parameter"``).

    Parameters
    ----------
    *symbols : sympy.Symbol
        The symbols, each declared ``positive=True``.
    noun : str, default "symbol"
        What messages call them.

    Raises
    ------
    ValueError
        For a symbol that is not a sympy symbol declared positive.
    """

    def __init__(self, *symbols: sp.Symbol, noun: str = "symbol"):
        for s in symbols:
            if not (isinstance(s, sp.Symbol) and s.is_positive):
                raise ValueError(f"symbols must be sympy symbols declared positive=True, got {s!r}")
        self._by_name = {s.name: s for s in symbols}
        self.noun = noun

    def __getitem__(self, name: str) -> sp.Symbol:
        return self._by_name[name]

    def __iter__(self):
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def __repr__(self) -> str:
        return f"SymbolTable({', '.join(self._by_name)})"

    def symbol(self, var) -> sp.Symbol:
        """``var`` (a name or one of the symbols) as its symbol.

        Parameters
        ----------
        var : str or sympy.Symbol
            A name, or one of the symbols.

        Returns
        -------
        sympy.Symbol
            The symbol.

        Raises
        ------
        ValueError
            Listing the symbols, for anything else.
        """
        if isinstance(var, sp.Symbol) and self._by_name.get(var.name) == var:
            return var
        if isinstance(var, str) and var in self._by_name:
            return self._by_name[var]
        raise ValueError(f"var must be one of the symbols {sorted(self)}, got {var!r}")

    def expression(self, expr, what: str = "expr") -> sp.Expr:
        """``expr`` sympified, checked to be an expression in these symbols.

        Parameters
        ----------
        expr : sympy.Expr, str or number
            The expression.
        what : str, default "expr"
            What the error message calls it.

        Returns
        -------
        sympy.Expr
            The sympified expression.

        Raises
        ------
        ValueError
            Naming ``what`` unless it is an expression in these symbols.
        """
        try:
            expr = sp.sympify(expr)
        except (sp.SympifyError, TypeError, SyntaxError):
            raise ValueError(f"{what} must be a sympy expression, got {expr!r:.80}") from None
        unknown = sorted(s.name for s in expr.free_symbols if self._by_name.get(s.name) != s)
        if unknown:
            raise ValueError(f"{what} may only contain the symbols {sorted(self)}, got {unknown}")
        return expr

    def _check_names(self, values: Mapping) -> None:
        unknown = sorted(set(values) - set(self._by_name))
        if unknown:
            raise ValueError(f"unknown {self.noun} name(s) {unknown}; the {self.noun}s are {sorted(self)}")

    def numbers(self, values: Mapping, *, arrays: bool = False) -> dict:
        """Names -> symbols, each value a positive finite float.

        Parameters
        ----------
        values : Mapping
            Symbol name -> value.
        arrays : bool, default False
            Accept arrays: each value becomes a float array of positive finite entries, of its own shape.

        Returns
        -------
        dict
            Symbol -> float (or array).

        Raises
        ------
        ValueError
            Naming any unknown name or bad value.
        """
        self._check_names(values)
        why = f"every {self.noun} is positive"
        if arrays:
            return {self[k]: check_real_values(k, v, 0.0, why=why) for k, v in values.items()}
        return {self[k]: check_in_interval(k, v, 0.0, why=why) for k, v in values.items()}

    def substitution(self, values: Mapping) -> dict:
        """Names -> symbols for ``expr.subs``: expressions in these symbols, or positive numbers kept exact.

        ``1`` and ``sympy.Rational(1, 2)`` stay exact.

        Parameters
        ----------
        values : Mapping
            Symbol name -> expression in these symbols, or positive number.

        Returns
        -------
        dict
            Symbol -> sympy expression.

        Raises
        ------
        ValueError
            Naming any bad entry.
        """
        self._check_names(values)
        out = {}
        for k, v in values.items():
            if isinstance(v, sp.Basic) and v.free_symbols:
                out[self[k]] = self.expression(v, k)
            else:
                check_in_interval(k, v, 0.0, why=f"every {self.noun} is positive")
                out[self[k]] = sp.sympify(v)
        return out


@functools.lru_cache(maxsize=None)
def _compiled(expr: sp.Expr, symbols: tuple, modules: str):
    return sp.lambdify(symbols, expr, modules=modules)


def numeric(expr: sp.Expr, values: Mapping, modules: str = "numpy"):
    """``expr`` at ``values`` through a ``lambdify`` cached per expression.

    Errors of the numeric functions propagate.

    Parameters
    ----------
    expr : sympy.Expr
        The expression.
    values : Mapping
        Symbol -> number, or array with ``modules="numpy"``; symbols it does not contain are ignored.
    modules : str, default "numpy"
        The ``modules`` of :func:`sympy.lambdify`.

    Returns
    -------
    float or numpy.ndarray
        The value.
    """
    symbols = tuple(sorted(expr.free_symbols, key=lambda s: s.name))
    return _compiled(expr, symbols, modules)(*(values[s] for s in symbols))


def elasticity(expr: sp.Expr, x: sp.Symbol) -> sp.Expr:
    """``d ln f / d ln x``, simplified: an exact ``Rational`` for a product of powers, ``0`` if ``x`` is absent.

    Parameters
    ----------
    expr : sympy.Expr
        The expression ``f``.
    x : sympy.Symbol
        The variable.

    Returns
    -------
    sympy.Expr
        The elasticity.
    """
    if x not in expr.free_symbols:
        return sp.Integer(0)
    if expr.is_Mul or expr.is_Pow or expr.is_Symbol:
        return sp.simplify(sp.expand_log(sp.log(expr), force=True).diff(x) * x)
    return sp.simplify(sp.diff(expr, x) * x / expr)


def elasticity_at(expr: sp.Expr, x: sp.Symbol, values: Mapping) -> float:
    """``d ln f / d ln x`` at ``values``, on the active branch of every ``min``/``max``.

    Parameters
    ----------
    expr : sympy.Expr
        The expression ``f``.
    x : sympy.Symbol
        The variable.
    values : Mapping
        Symbol -> number, every symbol of ``expr``.

    Returns
    -------
    float
        The elasticity at the point.
    """
    f = branch(expr, values)
    if x not in f.free_symbols:
        return 0.0
    return float((sp.diff(f, x) * x / f).subs(values))


def branch(expr: sp.Expr, values: Mapping | None = None) -> sp.Expr:
    """Resolve ``Min``/``Max``: at ``values`` the active argument.

    Without values ``Min(1, x) -> x`` (the non-trivial branch of a bound ``min{1, x}``) and other ``Min``/``Max``
    are kept.

    Parameters
    ----------
    expr : sympy.Expr
        The expression.
    values : Mapping, optional
        Symbol -> number.

    Returns
    -------
    sympy.Expr
        The expression with ``Min``/``Max`` resolved.
    """

    def pick(fn, *args):
        if values is None:
            if fn is sp.Min:
                rest = [a for a in args if a != 1]
                return rest[0] if len(rest) == 1 else fn(*args)
            return fn(*args)
        vals = [float(sp.sympify(a).subs(values)) for a in args]
        return args[int(np.argmin(vals) if fn is sp.Min else np.argmax(vals))]

    expr = sp.sympify(expr)
    expr = expr.replace(sp.Min, lambda *a: pick(sp.Min, *a))
    return expr.replace(sp.Max, lambda *a: pick(sp.Max, *a))


def _statement(relation) -> str:
    return f"{sp.sstr(relation.lhs)} {relation.rel_op} {sp.sstr(relation.rhs)}"


def _condition(relation, values: Mapping, label: str) -> Condition | None:
    """``relation`` with both sides at ``values``, or ``None`` when it cannot be decided there (a symbol
    without a value, a side that is not a real number)."""
    if relation.free_symbols - set(values):
        return None
    try:
        lhs, rhs = (float(side.subs(values)) for side in (relation.lhs, relation.rhs))
    except TypeError:  # a complex side
        return None
    if math.isnan(lhs) or math.isnan(rhs):
        return None
    return Condition(label, _statement(relation), lhs, relation.rel_op, rhs)


def check_hypotheses(theorem: str, hypotheses: Iterable, values: Mapping,
                     labels: Mapping | None = None) -> TheoremCheck:
    """A theorem's ``hypotheses`` decided at ``values``.

    Each sympy relation (``<=``, ``<``, ``>=``, ``>``, ``==``) becomes a :class:`~dptheory.hypotheses.Condition`
    with both sides evaluated; a hypothesis in words, or a relation whose symbols are not all given, is listed as
    unchecked.

    Parameters
    ----------
    theorem : str
        The theorem's name.
    hypotheses : iterable of sympy.Rel or str
        The hypotheses: sympy relations, or words.
    values : Mapping
        Symbol -> number.
    labels : Mapping, optional
        ``labels[relation]`` labels a relation where the printed condition is worded differently (else it is
        labelled by the relation itself).

    Returns
    -------
    TheoremCheck
        The checked conditions and the unchecked hypotheses.
    """
    labels = labels or {}
    checked, unchecked = [], []
    for h in hypotheses:
        if isinstance(h, str):
            unchecked.append(h)
            continue
        label = labels.get(h) or _statement(h)
        cond = _condition(h, values, label)
        if cond is None:
            unchecked.append(label)
        else:
            checked.append(cond)
    return TheoremCheck(theorem, tuple(checked), unchecked=tuple(unchecked))


class SymbolicRate:
    """A rate whose value is the sympy expression :attr:`~SymbolicRate.expr` over :attr:`~SymbolicRate.SYMBOLS`.

    The common part of seed 004's table cells and seed 002's rates and round complexities (a mixin: each
    concrete class sets ``SYMBOLS`` and provides ``expr``).
    """

    SYMBOLS: ClassVar[SymbolTable]
    expr: sp.Expr

    @property
    def symbols(self) -> tuple[str, ...]:
        """Names of the free symbols of :attr:`expr`, sorted: the values an evaluation needs."""
        return tuple(sorted(s.name for s in self.expr.free_symbols))

    def slope(self, var, **values):
        r"""The local log-log slope (elasticity) ``d ln f / d ln var`` of :attr:`expr`.

        Without ``values``: a simplified sympy expression on the non-trivial branch of every ``min{1, ·}`` (an
        exact ``Rational`` for a power law). With values for every symbol of the expression: a float at that
        point, on the active branch of every ``min``/``max``.

        Parameters
        ----------
        var : str or sympy.Symbol
            The variable, one of :attr:`SYMBOLS`.
        **values : float
            Values for every symbol of the expression, by name (none for the symbolic slope).

        Returns
        -------
        sympy.Expr or float
            The slope.

        Raises
        ------
        ValueError
            For an unknown variable, or values missing some symbol of the expression.
        """
        return self._slope(self.expr, var, values)

    def _slope(self, expr: sp.Expr, var, values: Mapping):
        x = self.SYMBOLS.symbol(var)
        if not values:
            return elasticity(branch(expr), x)
        point = self.SYMBOLS.numbers(values)
        missing = sorted(s.name for s in expr.free_symbols if s not in point)
        if missing:
            raise ValueError(f"missing value(s) for {missing} to take the slope of {self!r} at a point")
        return elasticity_at(expr, x, point)
