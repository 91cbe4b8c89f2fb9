r"""Every excess-risk rate and round complexity of seed 002 (Lowy & Razaviyayn, ICLR 2023, ISRL-DP FL) as
sympy expressions, split into statistical / privacy / heterogeneity terms, with the conditions under which
the paper states them and the corrections of errata 002 §8.

The registry (:func:`rates`, :func:`rate`) holds Theorems 2.1, 2.2, 3.1, 4.1 (F.1/F.2), F.3 (Fig. 3's
"Thm 4.2"), 5.1, 5.2 (G.2), H.1, the cross-device hybrid of App. D.3.5, the explicit-constant form of the
proof of Thm D.1, and the prior-work rates Fig. 3 compares against (central DP of Bassily et al. 2019,
LDP of Duchi et al. 2013, Wu et al. 2019). :func:`round_complexities` holds the round counts ``R`` (Thms
2.1, 3.1, 4.1/F.1/F.2, 5.1, G.2 and Girgis et al. 2021). :func:`figure3_table` rebuilds Fig. 3 from them.

Conventions (errata 002 §2, §4):

* every symbol is a positive sympy symbol (:data:`SYMBOLS`); ``M`` is the harmonic-mean participation
  (``1/M = E[1/M_r]``), ``Mp`` is ``M'`` of Assumption 2, ``C`` the compositionality constant (``C = 1``
  for the class ``A``), ``kappa = beta/mu`` is its own symbol;
* ``logs="paper"`` keeps the log factors the theorem prints (``ln(1/δ0)``, ``ln(d/δ)``, …) as unevaluated
  logs; ``logs="none"`` drops them (Fig. 3 "omit logs"). ``Õ``/``Ω̃`` hide further log² factors: an
  attribute :attr:`Rate.notation` says which, and :attr:`Rate.constants_hidden` whether absolute constants
  are dropped (everything but the explicit form of Thm D.1's proof);
* ``variant="corrected"`` (default) encodes the corrections of docs/errata.md (seed 002), listed in :attr:`Rate.corrections`;
  ``variant="paper"`` keeps the printed form where it differs;
* each lower bound's ``LD·min{1, x}`` keeps the ``min``: :meth:`Rate.evaluate` uses it, while the symbolic
  slopes and :func:`crossover` work on the non-trivial branch ``x`` (footnote 8: beyond it any ``w0`` is
  optimal);
* a theorem's conditions are sympy relations (checked at a point) or assumptions in words:
  :meth:`Rate.check` and :attr:`RateValue.hypotheses` return them as a :class:`dptheory.hypotheses.TheoremCheck`.
  Symbols, evaluation and slopes are the shared machinery of :mod:`dptheory.symbolic`.

>>> from dptheory import isrl   # the registry is re-exported by dptheory.isrl
>>> r = isrl.rate("isrl_iid_cvx_up", logs="none")
>>> r.terms["priv"]
D*L*sqrt(d)/(sqrt(M)*eps0*n)
>>> r.slope("n", term="priv"), r.slope("M")
(-1, -1/2)
>>> v = r.evaluate(n=1000, M=100, N=100, d=100, eps0=1, L=1, D=1)        # errata 002 C5, point P1
>>> round(float(v), 10), v.dominant
(0.0041622777, 'stat')
>>> isrl.crossover("isrl_iid_cvx_up", "stat", "priv", solve_for="d", logs="none")   # privacy for free below
eps0**2*n
>>> isrl.rate("isrl_iid_cvx_up").evaluate(n=1000, M=100, N=100, d=100, eps0=30, delta0=1e-6, L=1, D=1).violated
('Thm 2.1 (D.1, D.2): FAIL eps0 <= 2*log(2/delta0): 30 <= 29.0173 (slack -3.276%)',)
"""

from __future__ import annotations

import functools
import math
import types
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
import sympy as sp
from scipy import optimize

from .._validation import check_variant
from ..hypotheses import TheoremCheck
from ..symbolic import SymbolicRate, SymbolTable, branch, check_hypotheses, log, numeric

__all__ = [
    "SYMBOLS", "LOGS",
    "n", "N", "M", "d", "eps0", "delta0", "eps", "delta", "L", "D", "mu", "beta", "kappa", "phi", "v", "R", "K",
    "C", "Delta", "Mp", "Xi", "xi_max", "n_min",
    "Rate", "RoundComplexity", "RateValue", "Figure3Row", "Figure3Table",
    "rates", "rate", "round_complexities", "rounds", "smoothing_beta",
    "crossover", "dominant_term", "figure3_table", "FIGURE3_CONVENTIONS",
]

# -- symbols (one set for the whole seed) ----------------------------------------------------------------------
n = sp.Symbol("n", positive=True)  #: records per silo
N = sp.Symbol("N", positive=True)  #: number of silos
M = sp.Symbol("M", positive=True)  #: harmonic-mean number of participating silos, 1/M = E[1/M_r]
d = sp.Symbol("d", positive=True)  #: dimension
eps0 = sp.Symbol("eps0", positive=True)  #: ISRL-DP ε0 (per silo)
delta0 = sp.Symbol("delta0", positive=True)  #: ISRL-DP δ0
eps = sp.Symbol("eps", positive=True)  #: central / shuffle / user-level ε
delta = sp.Symbol("delta", positive=True)  #: central / shuffle / user-level δ
L = sp.Symbol("L", positive=True)  #: Lipschitz constant
D = sp.Symbol("D", positive=True)  #: diameter of W
mu = sp.Symbol("mu", positive=True)  #: strong-convexity modulus
beta = sp.Symbol("beta", positive=True)  #: smoothness
kappa = sp.Symbol("kappa", positive=True)  #: condition number β/μ (a symbol of its own)
phi = sp.Symbol("phi", positive=True)  #: within-silo gradient standard deviation (Assumption 1.3)
v = sp.Symbol("v", positive=True)  #: heterogeneity, eq. (29)
R = sp.Symbol("R", positive=True)  #: communication rounds
K = sp.Symbol("K", positive=True)  #: local minibatch size
C = sp.Symbol("C", positive=True)  #: compositionality constant (Def. 7); C = 1 for the class A
Delta = sp.Symbol("Delta", positive=True)  #: Δ ≥ F(w0) − F*
Mp = sp.Symbol("Mp", positive=True)  #: M' of Assumption 2, 1/M' = sqrt(E[1/M_r²])
Xi = sp.Symbol("Xi", positive=True)  #: Ξ of App. H.1
xi_max = sp.Symbol("xi_max", positive=True)  #: ξ_max of App. H.1
n_min = sp.Symbol("n_min", positive=True)  #: min_i n_i

#: Every symbol by name: the keyword names of ``evaluate``, ``slope``, ``substitute`` and ``crossover``.
SYMBOLS = SymbolTable(n, N, M, d, eps0, delta0, eps, delta, L, D, mu, beta, kappa, phi, v, R, K, C, Delta, Mp, Xi,
                      xi_max, n_min, noun="parameter")

#: ``logs=`` values: the log factors as printed in the theorem, or none (Fig. 3).
LOGS = ("paper", "none")

TERMS = ("stat", "priv", "hetero")
_KINDS = ("upper", "lower")
_PAPER = "seed 002"

#: Fig. 3's conventions: M = N and unit constants ("we fix M = N, omit logs"; L = D = μ = φ = β = 1
#: implicitly), full batches K = n (ERM rounds) and Δ = 1; κ stays.
FIGURE3_CONVENTIONS: dict[sp.Symbol, sp.Expr] = {M: N, L: 1, D: 1, mu: 1, phi: 1, beta: 1, K: n, Delta: 1}

# Human-readable labels for conditions whose sympy form is a proxy of the printed one.
_LABELS: dict[sp.Basic, str] = {}


def _cond(rel, label: str | None = None):
    if label is not None:
        _LABELS[rel] = label
    return rel


def _check_logs(logs: str) -> str:
    if logs not in LOGS:
        raise ValueError(f"logs must be one of {LOGS}, got {logs!r}")
    return logs


def _num(expr: sp.Expr, values: Mapping[sp.Symbol, float]) -> float:
    """``expr`` at ``values`` as a float (scalar ``math`` functions): ``nan`` outside their domain, ``inf`` on overflow."""
    try:
        return float(numeric(expr, values, modules="math"))
    except (ValueError, ZeroDivisionError, TypeError):
        return math.nan
    except OverflowError:
        return math.inf


def _fmt_num(x: float) -> str:
    return f"{x:.6g}"


# -- evaluation results ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RateValue:
    r"""A rate (or round count) evaluated at one point.

    ``value`` is the sum of the terms (``float(rv)`` gives it); ``terms`` their values; ``hypotheses`` the
    theorem's conditions at the point (a :class:`~dptheory.hypotheses.TheoremCheck`: a value outside the
    theorem's regime is returned, never silently, and ``rv.hypotheses.require()`` raises there).

    Attributes
    ----------
    key : str
        Registry key of the rate or round complexity.
    value : float
        The sum of the terms (``float(rv)``).
    terms : mapping of str to float
        The value of each term, by name.
    hypotheses : TheoremCheck
        The theorem's conditions at the point.
    params : mapping of str to float
        The point: the values given, by symbol name.
    """

    key: str
    value: float
    terms: Mapping[str, float]
    hypotheses: TheoremCheck = field(repr=False)
    params: Mapping[str, float] = field(repr=False)

    def __float__(self) -> float:
        return self.value

    @property
    def violated(self) -> tuple[str, ...]:
        """Each condition of the theorem that fails at the point, with both sides' values."""
        return tuple(f"{self.hypotheses.theorem}: {c}" for c in self.hypotheses.failed)

    @property
    def unchecked(self) -> tuple[str, ...]:
        """The conditions that could not be checked.

        An assumption in words, or a relation whose symbols were not given.
        """
        return self.hypotheses.unchecked

    @property
    def ok(self) -> bool:
        """True when no checked condition of the theorem fails."""
        return self.hypotheses.holds

    @property
    def dominant(self) -> str:
        """Name of the largest term."""
        return max(self.terms, key=lambda k: self.terms[k])

    def __repr__(self) -> str:
        terms = ", ".join(f"{k} {_fmt_num(x)}" for k, x in self.terms.items())
        viol = "; ".join(self.violated) if self.violated else "none"
        return (f"RateValue({self.key} = {_fmt_num(self.value)} [{terms}]; violated: {viol}; "
                f"{len(self.unchecked)} condition(s) not checked)")


class _Formula(SymbolicRate):
    """What :class:`Rate` and :class:`RoundComplexity` share beyond :class:`~dptheory.symbolic.SymbolicRate`:
    named terms, the theorem's conditions, evaluation."""

    SYMBOLS = SYMBOLS
    key: str
    theorem: str
    conditions: tuple

    def _terms(self) -> Mapping[str, sp.Expr]:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def expr(self) -> sp.Expr:
        """The sum of the terms."""
        return sp.Add(*self._terms().values())

    @property
    def source(self) -> str:
        """Where the paper states it: the seed, the theorem and, if any, the equation."""
        eq = getattr(self, "equation", "")
        return f"{_PAPER}, {self.theorem}" + (f", eq. {eq}" if eq else "")

    def check(self, **params) -> TheoremCheck:
        """The theorem's conditions at ``params``.

        Relations whose symbols are all given are checked, the rest listed as unchecked.

        Parameters
        ----------
        **params : float
            Positive numbers, by symbol name (names as in :data:`SYMBOLS`).

        Returns
        -------
        TheoremCheck
            The checked, failed and unchecked conditions.
        """
        return check_hypotheses(self.theorem, self.conditions, SYMBOLS.numbers(params), _LABELS)

    def evaluate(self, **params) -> RateValue:
        r"""The terms and their sum at ``params``, with the theorem's conditions there.

        The conditions are in :attr:`RateValue.hypotheses` and :attr:`RateValue.violated`.
        Raises :class:`ValueError` naming any unknown or missing parameter and any non-positive value.
        Parameters the expression does not contain are allowed (they serve the conditions, e.g. ``delta0``
        for ``ε0 ≤ 2 ln(2/δ0)`` when ``logs="none"``).

        Parameters
        ----------
        **params : float
            Positive numbers, by symbol name (:data:`SYMBOLS`).

        Returns
        -------
        RateValue
            The sum, the terms and the conditions at the point.

        Raises
        ------
        ValueError
            If a parameter is unknown, missing or not positive.
        """
        values = SYMBOLS.numbers(params)
        terms, missing = {}, set()
        for k, e in self._terms().items():
            if e.free_symbols - set(values):  # e.g. v in a heterogeneity term that vanishes at M = N
                e = e.subs(values)
                if e.free_symbols:
                    missing |= {s.name for s in e.free_symbols}
                    continue
            terms[k] = _num(e, values)
        if missing:
            raise ValueError(f"missing value(s) for {sorted(missing)} to evaluate {self.key} "
                             f"(it needs {list(self.symbols)})")
        return RateValue(self.key, float(sum(terms.values())), types.MappingProxyType(terms),
                         check_hypotheses(self.theorem, self.conditions, values, _LABELS),
                         types.MappingProxyType(dict(params)))

    def slope(self, var, term: str | None = None, **params):
        r"""The local log-log slope (elasticity) ``d ln f / d ln var`` of the sum (or of one ``term``).

        Without ``params``: a simplified sympy expression on the non-trivial branch of every
        ``min{1, ·}`` (an exact ``Rational`` for a power law). With ``params`` (all the symbols it needs): a
        float at that point, on the active branch of every ``min``/``max``.

        Parameters
        ----------
        var : str or sympy.Symbol
            The variable, a name or one of :data:`SYMBOLS`.
        term : str, optional
            A term name (``"stat"``, ``"priv"``, ``"hetero"``); default: the sum of the terms.
        **params : float
            Positive numbers, by symbol name: the point (every symbol the expression needs).

        Returns
        -------
        sympy.Expr or float
            The symbolic elasticity, or its value at ``params``.

        Raises
        ------
        ValueError
            If ``var`` or ``term`` is unknown, or a value is missing at a point.
        """
        return self._slope(self._terms()[self._term_name(term)] if term is not None else self.expr, var, params)

    def _term_name(self, term: str) -> str:
        if term not in self._terms():
            raise ValueError(f"term must be one of {list(self._terms())} for {self.key}, got {term!r}")
        return term


# -- the Rate ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Rate(_Formula):
    r"""One excess-risk rate of seed 002: ``excess risk = notation(Σ terms)`` under ``conditions``.

    Attributes
    ----------
    key : str
        Registry key, e.g. ``"isrl_iid_cvx_up"``.
    theorem : str
        Where the paper states it (``"Thm 2.1 (D.1, D.2)"``).
    equation : str
        The equation(s) it is printed in (``"(4); (17), (19)"``).
    setting : str
        ``isrl_iid``, ``isrl_noniid``, ``isrl_erm``, ``sdp_iid``, ``sdp_noniid``, ``cdp``, ``ldp``,
        ``user_isrl`` or ``unbalanced``.
    loss : str
        ``convex``, ``sc``, ``smooth_convex`` or ``smooth_sc``.
    kind : {"upper", "lower"}
        An upper or a lower bound.
    terms : mapping of str to sympy.Expr
        Name -> sympy expression, names among ``stat`` (non-private / generalisation), ``priv``
        (privacy) and ``hetero`` (silo heterogeneity, zero at ``M = N``).
    conditions : tuple, default ()
        Sympy relations (checked by :meth:`evaluate`) and strings (assumptions in words).
    notation : str, default "O~"
        ``"O~"``, ``"Omega~"``, ``"lesssim"``, ``"O"``, ``"Theta"`` or ``"explicit"``.
    constants_hidden : bool, default True
        Whether absolute constants are dropped (``False`` only for explicit constants).
    logs : {"paper", "none"}, default "paper"
        The ``logs=`` it was built with.
    variant : {"corrected", "paper"}, default "corrected"
        The ``variant=`` it was built with.
    corrections : tuple of str, default ()
        Each errata 002 §8 correction the corrected form applies (the printed form: ``variant="paper"``).
    notes : str, default ""
        Remarks (what the terms mean, reductions, caveats).
    """

    key: str
    theorem: str
    equation: str
    setting: str
    loss: str
    kind: str
    terms: Mapping[str, sp.Expr]
    conditions: tuple = ()
    notation: str = "O~"
    constants_hidden: bool = True
    logs: str = "paper"
    variant: str = "corrected"
    corrections: tuple[str, ...] = ()
    notes: str = ""

    def __post_init__(self):
        if self.kind not in _KINDS:
            raise ValueError(f"kind must be one of {_KINDS}, got {self.kind!r}")
        bad = [t for t in self.terms if t not in TERMS]
        if bad:
            raise ValueError(f"term names must be among {TERMS}, got {bad}")
        terms = {k: SYMBOLS.expression(e, f"term {k!r}") for k, e in self.terms.items()}
        object.__setattr__(self, "terms", types.MappingProxyType(terms))
        object.__setattr__(self, "conditions", tuple(self.conditions))
        object.__setattr__(self, "corrections", tuple(self.corrections))

    def _terms(self):
        return self.terms

    def term_slopes(self, var) -> dict[str, sp.Expr]:
        """Symbolic elasticity of each term in ``var`` (non-trivial branch).

        Parameters
        ----------
        var : str or sympy.Symbol
            The variable, a name or one of :data:`SYMBOLS`.

        Returns
        -------
        dict of str to sympy.Expr
            The elasticity of each term, by term name.
        """
        return {k: self.slope(var, term=k) for k in self.terms}

    def dominant_term(self, **params) -> str:
        """Name of the largest term at ``params``.

        Parameters
        ----------
        **params : float
            Positive numbers, by symbol name (:data:`SYMBOLS`).

        Returns
        -------
        str
            The name of the largest term (``"stat"``, ``"priv"`` or ``"hetero"``).
        """
        return self.evaluate(**params).dominant

    def substitute(self, **values) -> "Rate":
        r"""A copy with symbols replaced (numbers or sympy expressions, e.g. ``M=N`` or ``L=1``).

        Conditions are substituted too; those that become true are dropped, and those that become false are
        kept as a string saying so.

        Parameters
        ----------
        **values : float or sympy.Expr
            The replacement of each symbol, by name: a positive number or an expression in :data:`SYMBOLS`.

        Returns
        -------
        Rate
            The rate with the symbols replaced.
        """
        subs = SYMBOLS.substitution(values)
        conds = []
        for c in self.conditions:
            if isinstance(c, str):
                conds.append(c)
                continue
            new = c.subs(subs)
            if new == sp.true:
                continue
            if new == sp.false:
                conds.append(f"{_LABELS.get(c, sp.sstr(c))} fails after substituting {values}")
                continue
            if c in _LABELS:
                _LABELS.setdefault(new, _LABELS[c])
            conds.append(new)
        terms = {k: sp.sympify(e).subs(subs) for k, e in self.terms.items()}
        return Rate(self.key, self.theorem, self.equation, self.setting, self.loss, self.kind, terms, tuple(conds),
                    self.notation, self.constants_hidden, self.logs, self.variant, self.corrections, self.notes)

    def __str__(self) -> str:
        body = " + ".join(sp.sstr(e) for e in self.terms.values())
        return f"{self.key} = {self.notation}({body})  [{self.source}]"

    def __repr__(self) -> str:
        terms = ", ".join(f"{k}={sp.sstr(e)}" for k, e in self.terms.items())
        extra = f", {len(self.corrections)} correction(s)" if self.corrections else ""
        return (f"Rate({self.key!r}, {self.theorem}, {self.kind} {self.notation}: {terms}; logs={self.logs!r}, "
                f"variant={self.variant!r}{extra})")


@dataclass(frozen=True, eq=False)
class RoundComplexity(_Formula):
    r"""A number of communication rounds ``R`` prescribed (or required) by a theorem.

    :attr:`expr` with conditions, constants/log conventions and corrections as for :class:`Rate`.

    Attributes
    ----------
    key : str
        Registry key, e.g. ``"isrl_iid_cvx"``.
    theorem : str
        Where the paper states it.
    equation : str
        The equation or statement it is printed in.
    rounds : sympy.Expr
        The number of rounds ``R``.
    conditions : tuple, default ()
        Sympy relations (checked by :meth:`evaluate`) and strings (assumptions in words).
    notation : str, default "="
        ``"="`` (prescribed exactly), ``"O~"`` or ``"Omega~"``.
    constants_hidden : bool, default False
        Whether absolute constants are dropped.
    logs : {"paper", "none"}, default "paper"
        The ``logs=`` it was built with.
    variant : {"corrected", "paper"}, default "corrected"
        The ``variant=`` it was built with.
    corrections : tuple of str, default ()
        Each errata 002 §8 correction the corrected form applies.
    notes : str, default ""
        Remarks.
    """

    key: str
    theorem: str
    equation: str
    rounds: sp.Expr
    conditions: tuple = ()
    notation: str = "="
    constants_hidden: bool = False
    logs: str = "paper"
    variant: str = "corrected"
    corrections: tuple[str, ...] = ()
    notes: str = ""

    def __post_init__(self):
        object.__setattr__(self, "rounds", SYMBOLS.expression(self.rounds, "rounds"))
        object.__setattr__(self, "conditions", tuple(self.conditions))
        object.__setattr__(self, "corrections", tuple(self.corrections))

    def _terms(self):
        return {"rounds": self.rounds}

    def substitute(self, **values) -> "RoundComplexity":
        """A copy with symbols replaced (numbers or sympy expressions).

        Conditions are substituted too; those that become true are dropped.

        Parameters
        ----------
        **values : float or sympy.Expr
            The replacement of each symbol, by name: a positive number or an expression in :data:`SYMBOLS`.

        Returns
        -------
        RoundComplexity
            The round complexity with the symbols replaced.
        """
        subs = SYMBOLS.substitution(values)
        conds = [c if isinstance(c, str) else c.subs(subs) for c in self.conditions]
        conds = [c for c in conds if not (isinstance(c, sp.Basic) and c == sp.true)]
        return RoundComplexity(self.key, self.theorem, self.equation, self.rounds.subs(subs), tuple(conds),
                               self.notation, self.constants_hidden, self.logs, self.variant, self.corrections,
                               self.notes)

    def __repr__(self) -> str:
        return (f"RoundComplexity({self.key!r}, {self.theorem}: R {self.notation} {sp.sstr(self.rounds)}; "
                f"logs={self.logs!r}, variant={self.variant!r})")


# -- the registry ---------------------------------------------------------------------------------------------
def _lg_factory(logs: str):
    return log if logs == "paper" else lambda x: sp.Integer(1)


def _indicator(cond) -> sp.Expr:
    return sp.Piecewise((1, cond), (0, True))


def _hetero(expr) -> sp.Expr:
    """``expr`` (which carries ``(N − M)/(N − 1)``) with the paper's ``1{N>1}``: zero when every silo takes part."""
    return sp.Piecewise((0, sp.Eq(M, N)), (expr, True))


# shared conditions
def _iid_up_conditions():
    return (
        _cond(sp.Le(eps0, 2 * log(2 / delta0))),
        _cond(sp.Lt(delta0, 1), "delta0 < 1"),
        _cond(sp.Le(M, N), "M <= N"),
        _cond(sp.Lt(d, eps0**2 * n**2 * M), "non-trivial regime d < eps0^2 n^2 M (else output w0: O(LD), footnote 8)"),
        "f(.,x) convex and L-Lipschitz on W of diameter D (Assumption 1); i.i.d. silos (D_i = D)",
        "sigma^2 = 256 L^2 R ln(2.5R/delta0) ln(2/delta0)/(n^2 eps0^2), K >= eps0 n/(4 sqrt(2R ln(2/delta0))) (Thm D.1)",
    )


def _lower_conditions(C_sym=C, erm=False):
    return (
        _cond(sp.Le(eps0, sp.sqrt(N)), "eps0 in (0, sqrt(N)]"),
        _cond(sp.Lt(delta0, 1 / (n * N)), "delta0 = o(1/(nN)) (checked as delta0 < 1/(nN))"),
        _cond(sp.Eq(M, N), "M = N"),
        _cond(sp.Lt(d, eps0**2 * n**2 * N * C_sym**4),
              "non-trivial regime d < eps0^2 n^2 N C^4 (else the bound is LD, footnote 8)"),
        ("A in B_(eps0,delta0),C (silo-symmetric; C = 1 for B)" if erm else
         "A in A_(eps0,delta0),C: sequentially interactive, or fully interactive C-compositional (C = 1 for A)"),
        "complete version (Thm D.3/F.3): every round (eps0^r, delta0^r)-DP with eps0^r <~ 1/n, "
        "delta0^r = o(1/(nNR)), N >= 16 ln(2/(delta0^r n)) (errata 002 §8 #22)",
    )


def _sdp_iid_conditions():
    return (
        _cond(sp.Le(eps, log(2 / delta))),
        _cond(sp.Lt(delta, 1), "delta < 1"),
        _cond(sp.Le(M, N), "M <= N"),
        _cond(sp.Ge(M, 16 * log(18 * R * M**2 / (N * delta)))),
        "M_r = M fixed; a secure shuffler permutes the M reports each round (Def. 3)",
    )


def _sdp_noniid_conditions(general_M: bool):
    return (
        _cond(sp.Le(eps, 15), "eps <= 15"),
        _cond(sp.Lt(delta, sp.Rational(1, 2)), "delta < 1/2"),
        _cond(sp.Le(M, N), "M <= N") if general_M else _cond(sp.Eq(M, N), "M = N"),
        "f(.,x) beta-smooth; P_vec shuffle summation of Cheu et al. (2021), Lemma G.1",
    )


def _noniid_conditions():
    return (
        _cond(sp.Le(eps0, 8 * log(1 / delta0))),
        _cond(sp.Lt(delta0, 1), "delta0 < 1"),
        _cond(sp.Le(M, N), "M <= N"),
        "f(.,x) beta-smooth; arbitrary heterogeneous silo distributions D_i (v of eq. (29))",
        "sigma^2 = 32 L^2 ln(1.25/delta0)/(eps0^2 K^2), one pass, disjoint batches (Thm E.1)",
    )


_C_NONIID_CVX = (eps0 * n * sp.sqrt(N) / sp.sqrt(d)) ** sp.Rational(2, 5)  # Fig. 3's C²


def _build_rates(logs: str, variant: str) -> dict[str, Rate]:
    lg = _lg_factory(logs)
    paper = variant == "paper"
    r: dict[str, Rate] = {}

    def add(**kw):
        kw.setdefault("logs", logs)
        kw.setdefault("variant", variant)
        r[kw["key"]] = Rate(**kw)

    # Theorem 2.1 -------------------------------------------------------------------------------------
    add(key="isrl_iid_cvx_up", theorem="Thm 2.1 (D.1, D.2)", equation="(4); (17), (19)", setting="isrl_iid",
        loss="convex", kind="upper",
        terms={"stat": L * D / sp.sqrt(M * n), "priv": L * D * sp.sqrt(d * lg(1 / delta0)) / (eps0 * n * sp.sqrt(M))},
        conditions=_iid_up_conditions(),
        notes="Noisy ISRL-DP MB-SGD (Alg. 2). stat = uniform stability (Lemma D.2); priv = empirical error. "
              "Non-smooth f by Moreau smoothing (Thm D.2).")
    add(key="isrl_iid_sc_up", theorem="Thm 2.1 (D.1, D.2)", equation="(5); (18), (20)", setting="isrl_iid",
        loss="sc", kind="upper",
        terms={"stat": L**2 / (mu * M * n), "priv": L**2 * d * lg(1 / delta0) / (mu * M * eps0**2 * n**2)},
        conditions=_iid_up_conditions() + ("f(.,x) mu-strongly convex",),
        notes="Noisy ISRL-DP MB-SGD (Alg. 2), mu-strongly convex.")
    # explicit constants of the proof of Thm D.1
    add(key="isrl_iid_cvx_explicit", theorem="Thm D.1 (proof; Lemma D.6)", equation="(explicit, eta* <= 1/beta)",
        setting="isrl_iid", loss="smooth_convex", kind="upper", notation="explicit", constants_hidden=False,
        terms={"stat": 2 * L * D / sp.sqrt(n * M),
               "priv": 16 * L * D * sp.sqrt(d * lg(sp.Rational(5, 2) * R / delta0) * lg(2 / delta0)) / (eps0 * n * sp.sqrt(M))},
        conditions=_iid_up_conditions()[:3] + ("optimal eta* <= 1/beta; R >> nM (the 1/(2R) term dropped)",),
        corrections=("Thm D.1's proof prints the gradient-norm term eta L^2/(2M); Lemma D.6 (used here) has "
                     "eta L^2/2 (errata 002 §8 #16; no effect on this R >> nM form)",),
        notes="Large-R form of sqrt(2) LD sqrt(2/(nM) + 1/(2R) + 128 d ln(2.5R/delta0) ln(2/delta0)/(M n^2 eps0^2)) "
              "(errata 002 §4.1).")

    # Theorem 2.2 -------------------------------------------------------------------------------------
    add(key="isrl_iid_cvx_lo", theorem="Thm 2.2 (D.3)", equation="Thm 2.2 part 1", setting="isrl_iid",
        loss="convex", kind="lower", notation="Omega~",
        terms={"stat": phi * D / sp.sqrt(N * n), "priv": L * D * sp.Min(1, sp.sqrt(d) / (eps0 * n * sp.sqrt(N) * C**2))},
        conditions=_lower_conditions(),
        notes="Linear f; amplification by shuffling (Thm D.4: eps = O~(eps0 C^2/sqrt(N))) + CDP lower bound of "
              "Bassily et al. (Thm D.6). n = 1 gives the LDP bound, N = 1 the CDP bound.")
    add(key="isrl_iid_sc_lo", theorem="Thm 2.2 (D.3)", equation="Thm 2.2 part 2", setting="isrl_iid",
        loss="sc", kind="lower", notation="Omega~",
        terms={"stat": phi**2 / (mu * n * N), "priv": L * D * sp.Min(1, d / (eps0**2 * n**2 * N * C**4))},
        conditions=_lower_conditions() + ("mu-smooth f in G_(mu,L,D); the LD factor is L^2/mu for L ~ mu D",),
        notes="mu-strongly convex smooth f.")

    # Theorem 3.1 -------------------------------------------------------------------------------------
    add(key="isrl_noniid_cvx_up", theorem="Thm 3.1 (E.1)", equation="(6) [M = N]; (30)", setting="isrl_noniid",
        loss="smooth_convex", kind="upper",
        terms={"stat": phi * D / sp.sqrt(n * M),
               "priv": (beta ** sp.Rational(1, 4) * L * D ** sp.Rational(3, 2) * sp.sqrt(d * lg(1 / delta0))
                        / (eps0 * n * sp.sqrt(M))) ** sp.Rational(4, 5),
               "hetero": _hetero(sp.sqrt((N - M) / (N - 1)) * v * L ** sp.Rational(1, 5) * D ** sp.Rational(4, 5)
                                 / beta ** sp.Rational(1, 5)
                                 * (sp.sqrt(d * lg(1 / delta0)) / (eps0 * n * M**3)) ** sp.Rational(1, 5))},
        conditions=_noniid_conditions(),
        notes="One-Pass Accelerated Noisy MB-SGD (Alg. 1), K = (L/(beta D))^(2/5) n^(3/5) (d ln(1/delta0))^(1/5)"
              "/(eps0^(2/5) M^(1/5)). (6) is stated with <~ (logs shown), (30) with O~. Section 3 states the gap "
              "(6)/(4) as O((sqrt(d)/(eps0 n sqrt(N)))^(1/5)); the multiplicative gap is "
              "(eps0 n sqrt(N)/sqrt(d))^(1/5) (errata 002 §8 #15).")
    add(key="isrl_noniid_sc_up", theorem="Thm 3.1 (E.1)", equation="(7) [M = N]; (31)", setting="isrl_noniid",
        loss="smooth_sc", kind="upper",
        terms={"stat": phi**2 / (n * M) if paper else phi**2 / (mu * n * M),
               "priv": sp.sqrt(kappa) * L**2 * d * lg(1 / delta0) / (mu * eps0**2 * n**2 * M),
               "hetero": _hetero(v**2 / (mu * sp.sqrt(kappa) * M) * (N - M) / (N - 1))},
        conditions=_noniid_conditions() + ("f(.,x) mu-strongly convex, kappa = beta/mu; multi-stage (App. E.1)",),
        corrections=("eq. (31) first term printed phi^2/(nM) -> phi^2/(mu n M) (eq. (7) and the proof have 1/mu; "
                     "errata 002 §8 #14)",
                     "Fig. 3 prints sqrt(kappa d) -> sqrt(kappa)*d (Thm 3.1 eq. (7); errata 002 §8 #4; the printed "
                     "cell: figure3_table(variant='paper'))"),
        notes="Multi-stage One-Pass Accelerated Noisy MB-SGD. (7)/(5) = sqrt(kappa).")
    c2 = _C_NONIID_CVX
    add(key="isrl_noniid_cvx_lo", theorem="Thm 2.2* (Fig. 3)", equation="Fig. 3 row 3",
        setting="isrl_noniid", loss="smooth_convex", kind="lower", notation="Omega~",
        terms={"stat": phi * D / sp.sqrt(N * n),
               "priv": L * D * sp.Min(1, sp.sqrt(d) / (eps0 * n * (sp.sqrt(N * c2) if paper else sp.sqrt(N) * c2)))},
        conditions=_lower_conditions(C_sym=c2 ** sp.Rational(1, 2))
        + ("only for the one-pass algorithm with eps0 = O(1/n) or N = O(1) (Fig. 3 footnote, App. D.3)",),
        corrections=("Fig. 3 prints sqrt(N C^2) -> sqrt(N)*C^2 (Thm 2.2 with C = sqrt(R), errata 002 §8 #4); "
                     "privacy term (sqrt(d)/(eps0 n sqrt(N)))^(7/5)",),
        notes="Thm 2.2 at C^2 = R = (eps0 n sqrt(N)/sqrt(d))^(2/5), the one-pass algorithm's rounds (C >= sqrt(R)).")
    add(key="isrl_noniid_sc_lo", theorem="Thm 2.2* (Fig. 3)", equation="Fig. 3 row 4",
        setting="isrl_noniid", loss="smooth_sc", kind="lower", notation="Omega~",
        terms={"stat": phi**2 / (mu * n * N), "priv": L * D * sp.Min(1, d / (eps0**2 * n**2 * N * kappa))},
        conditions=_lower_conditions(C_sym=kappa ** sp.Rational(1, 4))
        + ("only for the one-pass algorithm with eps0 = O(1/n) or N = O(1) (Fig. 3 footnote, App. D.3)",),
        notes="Thm 2.2 at C^4 = kappa (R ~ sqrt(kappa) rounds, C >= sqrt(R)).")

    # Theorem 4.1 / F.1 / F.2 and F.3 -------------------------------------------------------------------
    erm_up_cond = _iid_up_conditions()[:3] + (
        "excess empirical risk, expectation over the algorithm only (no assumption on the data)",)
    add(key="isrl_erm_cvx_up", theorem="Thm 4.1 (F.1, F.2)", equation="(8); (32), (35)", setting="isrl_erm",
        loss="convex", kind="upper",
        terms={"priv": L * D * sp.sqrt(d * lg(1 / delta0)) / (eps0 * n * sp.sqrt(M))},
        conditions=erm_up_cond,
        notes="Accelerated Noisy MB-SGD (Alg. 1, with replacement). Girgis et al. (2021) nearly match it for "
              "M_r = M, with more rounds (Remark F.1).")
    add(key="isrl_erm_sc_up", theorem="Thm 4.1 (F.1, F.2)", equation="(9); (33), (36)", setting="isrl_erm",
        loss="sc", kind="upper",
        terms={"priv": L**2 * d * lg(1 / delta0) / (mu * eps0**2 * n**2 * M)},
        conditions=erm_up_cond + ("f(.,x) mu-strongly convex",),
        notes="Multi-stage Accelerated Noisy MB-SGD.")
    add(key="isrl_erm_cvx_lo", theorem="Thm F.3 ('Thm 4.2' in Fig. 3)", equation="Thm F.3 part 1",
        setting="isrl_erm", loss="convex", kind="lower", notation="Omega~",
        terms={"priv": L * D * sp.Min(1, sp.sqrt(d) / (eps0 * n * sp.sqrt(N) * C**2))},
        conditions=_lower_conditions(erm=True),
        notes="Linear f; via Thm F.4 (Bassily et al. 2014 CDP ERM).")
    add(key="isrl_erm_sc_lo", theorem="Thm F.3 ('Thm 4.2' in Fig. 3)", equation="Thm F.3 part 2",
        setting="isrl_erm", loss="sc", kind="lower", notation="Omega~",
        terms={"priv": L * D * sp.Min(1, d / (eps0**2 * n**2 * N * C**4))},
        conditions=_lower_conditions(erm=True),
        notes="mu-smooth f in G_(mu,L,D).")
    add(key="wu_erm_sc_up", theorem="Wu et al. (2019)", equation="(errata 002 §4.5)", setting="isrl_erm",
        loss="sc", kind="upper", notation="O",
        terms={"priv": kappa * L**2 * d / (mu * n * N * eps0**2)},
        conditions=("(eps0, 0)-ISRL-DP; their additive eps term is left out",),
        notes="Prior work; Thm 4.1 part 2 is tighter by ln(1/delta0)/(kappa n) at M = N (errata 002 C34).")

    # Theorem 5.1 / G.1 -------------------------------------------------------------------------------
    add(key="sdp_iid_cvx_up", theorem="Thm 5.1 (G.1)", equation="(37)", setting="sdp_iid", loss="convex",
        kind="upper",
        terms={"stat": L * D / sp.sqrt(n * M), "priv": L * D * sp.sqrt(d * lg(1 / delta)) / (eps * n * N)},
        conditions=_sdp_iid_conditions(),
        notes="Shuffled Noisy MB-SGD; the optimal CDP rate at M = N, without a trusted server. The privacy term "
              "depends on N (all silos), the statistical one on M.")
    add(key="sdp_iid_sc_up", theorem="Thm 5.1 (G.1)", equation="(38)", setting="sdp_iid", loss="sc",
        kind="upper",
        terms={"stat": L**2 / (mu * n * M), "priv": L**2 * d * lg(1 / delta) / (mu * eps**2 * n**2 * N**2)},
        conditions=_sdp_iid_conditions() + ("f(.,x) mu-strongly convex",),
        notes="Shuffled Noisy MB-SGD, mu-strongly convex.")

    # Theorem 5.2 / G.2 -------------------------------------------------------------------------------
    sdp_log_cvx = sp.sqrt(d * lg(d / delta)) if paper else sp.sqrt(d) * lg(d / delta)
    add(key="sdp_noniid_cvx_up", theorem="Thm 5.2 (G.2)", equation="(10)", setting="sdp_noniid",
        loss="smooth_convex", kind="upper", notation="lesssim",
        terms={"stat": phi * D / sp.sqrt(N * n),
               "priv": (beta ** sp.Rational(1, 4) * L * D ** sp.Rational(3, 2) * sdp_log_cvx / (eps * n * N)) ** sp.Rational(4, 5)},
        conditions=_sdp_noniid_conditions(False),
        corrections=("eq. (10) prints sqrt(d ln(d/delta)) -> sqrt(d) ln(d/delta) (Lemma G.1's variance and eq. (39); "
                     "errata 002 §8 #14)",),
        notes="SDP One-Pass Accelerated Noisy MB-SGD (Alg. 6), M = N.")
    add(key="sdp_noniid_sc_up", theorem="Thm 5.2 (G.2)", equation="(11)", setting="sdp_noniid",
        loss="smooth_sc", kind="upper",
        terms={"stat": phi**2 / (mu * n * N),
               "priv": (sp.sqrt(kappa) * L**2 * d * lg(1 / delta) / (eps**2 * n**2 * N**2)) if paper else
               (sp.sqrt(kappa) * L**2 * d * lg(d / delta) ** 2 / (mu * eps**2 * n**2 * N**2))},
        conditions=_sdp_noniid_conditions(False) + ("f(.,x) mu-strongly convex, kappa = beta/mu",),
        corrections=("eq. (11) privacy term lacks the 1/mu of eq. (40) (errata 002 §8 #14)",
                     "ln(1/delta) -> ln^2(d/delta) (Lemma G.1's variance; errata 002 §8 #14)",
                     "Fig. 3 prints sqrt(kappa d) -> sqrt(kappa)*d (errata 002 §8 #4; the printed cell: "
                     "figure3_table(variant='paper'))"),
        notes="Multi-stage SDP One-Pass Accelerated Noisy MB-SGD, M = N.")
    add(key="sdp_noniid_cvx_up_M", theorem="Thm G.2", equation="(39)", setting="sdp_noniid",
        loss="smooth_convex", kind="upper", notation="O",
        terms={"stat": phi * D / sp.sqrt(n * M),
               "priv": (beta ** sp.Rational(1, 4) * L * D ** sp.Rational(3, 2) * sp.sqrt(d) * lg(d / delta)
                        / (eps * n * M)) ** sp.Rational(4, 5),
               "hetero": _hetero(sp.sqrt((N - M) / (N - 1)) * v * L ** sp.Rational(1, 5) * D ** sp.Rational(4, 5)
                                 / beta ** sp.Rational(1, 5)
                                 * (sp.sqrt(d) * lg(d / delta) / (eps * n * M ** sp.Rational(7, 2))) ** sp.Rational(1, 5))},
        conditions=_sdp_noniid_conditions(True),
        notes="General M <= N version of (10), as printed (sqrt(d) ln(d/delta) agrees with Lemma G.1).")
    add(key="sdp_noniid_sc_up_M", theorem="Thm G.2", equation="(40)", setting="sdp_noniid",
        loss="smooth_sc", kind="upper",
        terms={"stat": phi**2 / (n * M) if paper else phi**2 / (mu * n * M),
               "priv": L**2 * sp.sqrt(kappa) * d * (lg(1 / delta) if paper else lg(d / delta) ** 2)
               / (mu * eps**2 * n**2 * M**2),
               "hetero": _hetero(v**2 / (mu * sp.sqrt(kappa) * M) * (N - M) / (N - 1))},
        conditions=_sdp_noniid_conditions(True) + ("f(.,x) mu-strongly convex, kappa = beta/mu",),
        corrections=("eq. (40) first term printed phi^2/(nM) -> phi^2/(mu n M) (the omission errata 002 §8 #14 "
                     "notes for (31))",
                     "ln(1/delta) -> ln^2(d/delta) (Lemma G.1's variance; errata 002 §8 #14)"),
        notes="General M <= N version of (11).")

    # prior work: CDP and LDP ---------------------------------------------------------------------------
    cdp_eps = eps0 if paper else eps
    add(key="cdp_cvx_lo", theorem="Bassily et al. (2019) (Thm D.6)", equation="Sec. 2.2; Thm D.6",
        setting="cdp", loss="convex", kind="lower", notation="Theta",
        terms={"stat": (phi**2 if paper else phi * D) / sp.sqrt(N * n),
               "priv": L * D * sp.Min(1, sp.sqrt(d) / (cdp_eps * n * N))},
        conditions=(_cond(sp.Lt(delta, 1 / (n * N)), "delta = o(1/(nN)) (checked as delta < 1/(nN))"),
                    "(eps, delta)-CDP on the pooled nN records; matched by Noisy SGD (Bassily et al. 2019)"),
        corrections=("Sec. 2.2 prints Theta(phi^2/sqrt(Nn) + LD min{1, sqrt(d)/(eps0 nN)}) -> phi D/sqrt(Nn) and the "
                     "central eps (Thm D.6; errata 002 §8 #13)",),
        notes="Central DP rate Fig. 3 uses as the SDP lower bound. ISRL-DP iid = this at eps = eps0/sqrt(N).")
    add(key="cdp_sc_lo", theorem="Bassily et al. (2019) (Thm D.6)", equation="Thm D.6",
        setting="cdp", loss="sc", kind="lower", notation="Theta",
        terms={"stat": phi**2 / (mu * N * n), "priv": L**2 / mu * sp.Min(1, d / (eps**2 * n**2 * N**2))},
        conditions=(_cond(sp.Lt(delta, 1 / (n * N)), "delta = o(1/(nN)) (checked as delta < 1/(nN))"),
                    _cond(sp.Ge(L, mu * D), "L >= mu D"),
                    "(eps, delta)-CDP; mu-smooth f with L ~ mu D"),
        notes="Central DP strongly convex rate.")
    add(key="ldp_cvx_lo", theorem="Duchi et al. (2013)", equation="Sec. 2.2", setting="ldp", loss="convex",
        kind="lower", notation="Theta",
        terms={"priv": L * D * sp.Min(1, sp.sqrt(d) / (eps0 * sp.sqrt(N)))},
        conditions=("n = 1 record per silo (ISRL-DP = LDP); Thm 2.2 extends it to compositional fully interactive "
                    "algorithms",),
        notes="Local DP rate: Thm 2.2 at n = 1.")

    # App. D.3.5 cross-device ---------------------------------------------------------------------------
    add(key="cross_device_cvx_up", theorem="App. D.3.5", equation="(28)", setting="user_isrl", loss="convex",
        kind="upper",
        terms={"stat": L * D / sp.sqrt(N * n), "priv": L * D * sp.sqrt(d * lg(n / delta)) / (eps * sp.sqrt(N))},
        conditions=(_cond(sp.Le(eps, 1), "eps <= 1"), _cond(sp.Lt(delta, 1), "delta < 1"),
                    _cond(sp.Eq(M, N), "M = N"),
                    "Alg. 2 at eps0 = eps/n, delta0 = delta/(4n): (eps0, delta0)-ISRL-DP and (eps, delta)-user-level DP; "
                    "i.i.d. silos"),
        notes="Independent of n up to the log; matching lower bound: Thm 2.2 at n = 1.")

    # Theorem H.1 (unbalanced) ----------------------------------------------------------------------
    unb = (_cond(sp.Le(Xi, xi_max), "Xi <= xi_max"), _cond(sp.Le(Mp, M), "M' <= M (1/M' >= 1/M, Remark H.1)"),
           _cond(sp.Le(M, N), "M <= N"),
           "eps_i <= 2 ln(2/delta_i), delta_i in (0,1) for every silo; xi_i = ln(2.5R/delta_i) ln(2/delta_i)/(n_i eps_i)^2 "
           "carries the logs (logs='none' keeps them)",
           "Alg. 7: sigma_i^2 = 256 L^2 R ln(2.5R/delta_i) ln(2/delta_i)/(n_i^2 eps_i^2), K_i >= eps_i n_i/(4 sqrt(2R ln(2/delta_i)))")
    add(key="unbalanced_cvx_up", theorem="Thm H.1", equation="Thm H.1 part 1", setting="unbalanced",
        loss="convex", kind="upper", notation="lesssim",
        terms={"stat": L * D / sp.sqrt(n_min * M), "priv": L * D * sp.sqrt(d * sp.Min(Xi / Mp, xi_max / M))},
        conditions=unb,
        corrections=("Thm H.1 prints K_i >= eps_i n/...: -> eps_i n_i (errata 002 §8 #8; calibration only)",),
        notes="Balanced data and equal budgets recover Thm 2.1 (Remark H.1).")
    add(key="unbalanced_sc_up", theorem="Thm H.1", equation="(41)", setting="unbalanced", loss="sc",
        kind="upper",
        terms={"stat": L**2 / (mu * M * n_min), "priv": L**2 / mu * d * sp.Min(Xi / Mp, xi_max / M)},
        conditions=unb + ("f(.,x) mu-strongly convex",),
        notes="Balanced data and equal budgets recover Thm 2.1 (Remark H.1).")
    return r


@functools.lru_cache(maxsize=None)
def _registry(logs: str, variant: str) -> dict[str, Rate]:
    return _build_rates(logs, variant)


def rates(logs: str = "paper", variant: str = "corrected") -> dict[str, Rate]:
    r"""The registry: registry key -> :class:`Rate` (a fresh dict; the Rate objects are immutable).

    Parameters
    ----------
    logs : {"paper", "none"}, default "paper"
        Log factors as printed in the theorems, or dropped.
    variant : {"corrected", "paper"}, default "corrected"
        The corrected rates, or the printed ones.

    Returns
    -------
    dict of str to Rate
        Every rate, by registry key.

    Raises
    ------
    ValueError
        If ``logs`` or ``variant`` is unknown.
    """
    return dict(_registry(_check_logs(logs), check_variant(variant)))


def _lookup(table: Mapping, key: str, what: str):
    if key not in table:
        raise ValueError(f"unknown {what} key {key!r}; the keys are {sorted(table)}")
    return table[key]


def rate(key: str, logs: str = "paper", variant: str = "corrected") -> Rate:
    r"""One rate by registry key (:func:`rates` lists them).

    With the log factors as printed (``logs="paper"``) or dropped (``"none"``), corrected (default) or as
    printed (``variant="paper"``).

    Parameters
    ----------
    key : str
        Registry key, e.g. ``"isrl_iid_cvx_up"``.
    logs : {"paper", "none"}, default "paper"
        Log factors as printed, or dropped.
    variant : {"corrected", "paper"}, default "corrected"
        The corrected rate, or the printed one.

    Returns
    -------
    Rate
        The rate.

    Raises
    ------
    ValueError
        If ``key``, ``logs`` or ``variant`` is unknown.
    """
    return _lookup(_registry(_check_logs(logs), check_variant(variant)), key, "rate")


# -- round complexities -----------------------------------------------------------------------------------
def _build_rounds(logs: str, variant: str) -> dict[str, RoundComplexity]:
    lg = _lg_factory(logs)
    paper = variant == "paper"
    out: dict[str, RoundComplexity] = {}

    def add(**kw):
        kw.setdefault("logs", logs)
        kw.setdefault("variant", variant)
        out[kw["key"]] = RoundComplexity(**kw)

    isrl_priv = (_cond(sp.Le(eps0, 2 * log(2 / delta0))), _cond(sp.Lt(delta0, 1), "delta0 < 1"))
    mnm = sp.Min(n * M, eps0**2 * n**2 * M / d)
    add(key="isrl_iid_cvx_smooth", theorem="Thm 2.1 (D.1)", equation="Thm D.1",
        rounds=beta * D * sp.sqrt(M) / L * sp.Min(sp.sqrt(n), eps0 * n / sp.sqrt(d)) + mnm,
        conditions=isrl_priv + ("beta-smooth f",), notes="Noisy MB-SGD, smooth convex.")
    add(key="isrl_iid_cvx", theorem="Thm 2.1 (D.2)", equation="Thm D.2", rounds=2 * mnm, conditions=isrl_priv,
        notes="Non-smooth convex: the smooth R at the Moreau parameter smoothing_beta('isrl_iid_cvx').")
    add(key="isrl_iid_sc_smooth", theorem="Thm 2.1 (D.1)", equation="Thm D.1",
        rounds=sp.Max(2 * kappa * lg(beta * D**2 * mu * M * eps0**2 * n**2 / (d * L**2)),
                      sp.Min(M * n, M * eps0**2 * n**2 / d)),
        conditions=isrl_priv + ("beta-smooth, mu-strongly convex f, kappa = beta/mu",),
        notes="With logs='none' the ln of the first argument is dropped.")
    add(key="isrl_iid_sc", theorem="Thm 2.1 (D.2)", equation="Thm D.2", rounds=mnm, notation="O~",
        constants_hidden=True, conditions=isrl_priv,
        notes="Non-smooth strongly convex: 2 kappa ln(.) at beta = smoothing_beta('isrl_iid_sc').")
    onepass = (_cond(sp.Le(eps0, 8 * log(1 / delta0))), _cond(sp.Lt(delta0, 1), "delta0 < 1"))
    add(key="isrl_noniid_cvx", theorem="Thm 3.1 (E.1)", equation="R = n/K",
        rounds=(beta * D / L) ** sp.Rational(2, 5) * n ** sp.Rational(2, 5) * eps0 ** sp.Rational(2, 5)
        * M ** sp.Rational(1, 5) / (d * lg(1 / delta0)) ** sp.Rational(1, 5),
        conditions=onepass, notes="One pass: K = (L/(beta D))^(2/5) n^(3/5) (d ln(1/delta0))^(1/5)/(eps0^(2/5) M^(1/5)); "
                                  "at Fig. 3's conventions R = C^2.")
    add(key="isrl_noniid_sc", theorem="Thm 3.1 (E.1)", equation="R = n/K",
        rounds=sp.sqrt(kappa) * lg(mu * Delta * sp.Min(eps0**2 * n**2 * M / (L**2 * d * lg(1 / delta0)), n * M / phi**2)),
        conditions=onepass, notes="Multi-stage, K = n/(sqrt(kappa) ln(.)); with logs='none' R = sqrt(kappa).")
    ind = _indicator(M * K < n * N)
    erm_tail = ind * eps0**2 * n**2 / (K * d * lg(1 / delta0))
    smooth_first = (sp.sqrt(beta * D / L) * sp.sqrt(M) * eps0 * n / sp.sqrt(d * lg(1 / delta0))) ** sp.Rational(1, 2) \
        if paper else ((beta * D / L) * sp.sqrt(M) * eps0 * n / sp.sqrt(d * lg(1 / delta0))) ** sp.Rational(1, 2)
    add(key="isrl_erm_cvx_smooth", theorem="Thm 4.1 (F.1)", equation="Thm F.1", rounds=sp.Max(smooth_first, erm_tail),
        conditions=isrl_priv + ("beta-smooth f",),
        corrections=("Thm F.1 prints (sqrt(beta D/L) sqrt(M) eps0 n/sqrt(d ln))^(1/2) -> ((beta D/L) sqrt(M) eps0 n/"
                     "sqrt(d ln))^(1/2) (balancing beta D^2/R^2; errata 002 §8 #7)",))
    nonsmooth_first = sp.sqrt(M * eps0 * n) / sp.sqrt(d * lg(1 / delta0)) if paper else \
        sp.sqrt(M) * eps0 * n / sp.sqrt(d * lg(1 / delta0))
    f2_corr = ("Thm F.2 prints sqrt(M eps0 n)/sqrt(d ln(1/delta0)) -> sqrt(M) eps0 n/sqrt(d ln(1/delta0)) (Remark F.1's "
               "speed-up factor; errata 002 §8 #6)",)
    add(key="isrl_erm_cvx", theorem="Thm 4.1 (F.2)", equation="Thm F.2", rounds=sp.Max(nonsmooth_first, erm_tail),
        conditions=isrl_priv, corrections=f2_corr,
        notes="Non-smooth convex ERM; K = n and M = N: R = sqrt(N) eps0 n/sqrt(d ln(1/delta0)).")
    add(key="isrl_erm_sc_smooth", theorem="Thm 4.1 (F.1)", equation="Thm F.1 part 2",
        rounds=sp.Max(sp.sqrt(beta / mu) * lg(Delta * mu * M * eps0**2 * n**2 / (L**2 * d)), erm_tail),
        conditions=isrl_priv + ("beta-smooth, mu-strongly convex f",))
    add(key="isrl_erm_sc", theorem="Thm 4.1 (F.2)", equation="Thm F.2 part 2", rounds=sp.Max(nonsmooth_first, erm_tail),
        notation="O~", constants_hidden=True, conditions=isrl_priv, corrections=f2_corr)
    add(key="girgis_erm_cvx", theorem="Girgis et al. (2021) (Remark F.1)", equation="Remark F.1",
        rounds=eps0**2 * n**2 * M / d, notation="Omega~", constants_hidden=True,
        notes="Prior work; Alg. 1 is faster by min(sqrt(M) eps0 n/sqrt(d), MK).")
    sdp_cond = (_cond(sp.Le(eps, log(2 / delta))), _cond(sp.Lt(delta, 1), "delta < 1"))
    sdp_min = sp.Min(n, eps**2 * n**2 * N**2 / (d * M)) if paper else sp.Min(n * M, eps**2 * n**2 * N**2 / d)
    sdp_corr = ("Thm G.1 prints min{n, eps^2 n^2 N^2/(dM)} -> min{nM, eps^2 n^2 N^2/d} by analogy with Thm D.1 "
                "(errata 002 §8 #21, suspected)",)
    add(key="sdp_iid_cvx", theorem="Thm 5.1 (G.1)", equation="Thm G.1",
        rounds=sp.Max(n**2 * N**2 * eps**2 / M, N / M, sdp_min,
                      beta * D / L * sp.Min(sp.sqrt(n * M), eps * n * N / sp.sqrt(d))),
        conditions=sdp_cond, corrections=sdp_corr,
        notes="The floor n^2 N^2 eps^2/M (forcing the per-report eps_hat0 <~ 1) is impractically large (errata 002 §8 #21).")
    add(key="sdp_iid_sc", theorem="Thm 5.1 (G.1)", equation="Thm G.1",
        rounds=sp.Max(n**2 * N**2 * eps**2 / M, N / M,
                      8 * beta / mu * lg(beta * D**2 * mu * eps**2 * n**2 * N**2 / (d * L**2)), sdp_min),
        conditions=sdp_cond, corrections=sdp_corr)
    e_, dl_ = (eps0, delta0) if paper else (eps, delta)
    add(key="sdp_noniid_cvx", theorem="Thm 5.2 (G.2)", equation="R = n/K",
        rounds=(beta * D / L) ** sp.Rational(2, 5) * n ** sp.Rational(2, 5) * e_ ** sp.Rational(2, 5)
        * M ** sp.Rational(2, 5) / (d * lg(d / dl_) ** 2) ** sp.Rational(1, 5),
        conditions=(_cond(sp.Le(eps, 15), "eps <= 15"), _cond(sp.Lt(delta, sp.Rational(1, 2)), "delta < 1/2")),
        corrections=("Thm G.2's proof writes K with eps0, delta0 -> eps, delta (errata 002 §8 #10)",),
        notes="One pass, K = (L/(beta D))^(2/5) n^(3/5) (d ln^2(d/delta))^(1/5)/(eps^(2/5) M^(2/5)).")
    add(key="sdp_noniid_sc", theorem="Thm 5.2 (G.2)", equation="R = n/K",
        rounds=sp.sqrt(kappa) * lg(mu * Delta * sp.Min(eps**2 * n**2 * M**2 / (L**2 * d * lg(1 / delta)), n * M / phi**2)),
        conditions=(_cond(sp.Le(eps, 15), "eps <= 15"), _cond(sp.Lt(delta, sp.Rational(1, 2)), "delta < 1/2")),
        notes="Multi-stage; with logs='none' R = sqrt(kappa).")
    return out


@functools.lru_cache(maxsize=None)
def _round_registry(logs: str, variant: str) -> dict[str, RoundComplexity]:
    return _build_rounds(logs, variant)


def round_complexities(logs: str = "paper", variant: str = "corrected") -> dict[str, RoundComplexity]:
    r"""Every round complexity: key -> :class:`RoundComplexity` (errata 002 §3, end of §4.10, C17, C18).

    Parameters
    ----------
    logs : {"paper", "none"}, default "paper"
        Log factors as printed, or dropped.
    variant : {"corrected", "paper"}, default "corrected"
        The corrected round counts, or the printed ones.

    Returns
    -------
    dict of str to RoundComplexity
        Every round complexity, by key (a fresh dict).

    Raises
    ------
    ValueError
        If ``logs`` or ``variant`` is unknown.
    """
    return dict(_round_registry(_check_logs(logs), check_variant(variant)))


def rounds(key: str, logs: str = "paper", variant: str = "corrected") -> RoundComplexity:
    r"""One round complexity by key (:func:`round_complexities` lists them).

    Parameters
    ----------
    key : str
        Round-complexity key, e.g. ``"isrl_iid_cvx"``.
    logs : {"paper", "none"}, default "paper"
        Log factors as printed, or dropped.
    variant : {"corrected", "paper"}, default "corrected"
        The corrected round count, or the printed one.

    Returns
    -------
    RoundComplexity
        The round complexity.

    Raises
    ------
    ValueError
        If ``key``, ``logs`` or ``variant`` is unknown.
    """
    return _lookup(_round_registry(_check_logs(logs), check_variant(variant)), key, "round-complexity")


def smoothing_beta(key: str, logs: str = "paper") -> sp.Expr:
    r"""The Moreau-smoothing parameter ``β`` the non-smooth proofs choose (errata 002 §3.1, §3.3).

    ``"isrl_iid_cvx"``: ``(L√M/D)·min{√n, ε0 n/√d}`` (solves ``L²/β`` = the rate); ``"isrl_iid_sc"``:
    ``μM/(1/n + d ln(1/δ0)/(ε0²n²))``; ``"isrl_erm_cvx"``: ``ε0 n √M L/(√d D)`` (Thm F.2, printed
    ``ε0 n√(ML)/√(dD)``, errata 002 §8 #6); ``"isrl_erm_sc"``: ``μ M ε0² n²/d``.

    Parameters
    ----------
    key : {"isrl_iid_cvx", "isrl_iid_sc", "isrl_erm_cvx", "isrl_erm_sc"}
        The setting.
    logs : {"paper", "none"}, default "paper"
        Log factors as printed, or dropped.

    Returns
    -------
    sympy.Expr
        The smoothing parameter β.

    Raises
    ------
    ValueError
        If ``key`` or ``logs`` is unknown.
    """
    lg = _lg_factory(_check_logs(logs))
    table = {
        "isrl_iid_cvx": L * sp.sqrt(M) / D * sp.Min(sp.sqrt(n), eps0 * n / sp.sqrt(d)),
        "isrl_iid_sc": mu * M / (1 / n + d * lg(1 / delta0) / (eps0**2 * n**2)),
        "isrl_erm_cvx": eps0 * n * sp.sqrt(M) * L / (sp.sqrt(d) * D),
        "isrl_erm_sc": mu * M * eps0**2 * n**2 / d,
    }
    return _lookup(table, key, "smoothing")


# -- crossovers -------------------------------------------------------------------------------------------
def _as_rate(key_or_rate, logs, variant) -> _Formula:
    if isinstance(key_or_rate, _Formula):
        return key_or_rate
    return rate(key_or_rate, logs=logs, variant=variant)


def _side(r: _Formula, side) -> sp.Expr:
    if isinstance(side, str):
        return sp.sympify(r._terms()[r._term_name(side)])
    return sp.sympify(side)


def crossover(key, a="stat", b="priv", *, solve_for="d", logs: str = "paper", variant: str = "corrected", **params):
    r"""Where two terms of a rate are equal, solved for one parameter.

    For example the dimension below which "privacy is free".

    ``a``/``b`` are term names or sympy expressions/numbers (e.g. ``L*D``, the trivial bound). Work is on
    the non-trivial branch of each ``min{1, ·}``. Without ``params``: the positive symbolic solution; with
    values for every other symbol: a float (the smallest crossing in ``(1e-300, 1e300)``). Raises
    :class:`ValueError` when the terms never cross or when values are missing.

    Parameters
    ----------
    key : str or Rate
        Registry key or a :class:`Rate` (or :class:`RoundComplexity`).
    a : str or sympy.Expr or float, default "stat"
        One side: a term name, or an expression or number.
    b : str or sympy.Expr or float, default "priv"
        The other side.
    solve_for : str, default "d"
        The symbol to solve for (by name).
    logs : {"paper", "none"}, default "paper"
        Log factors as printed, or dropped (for a key).
    variant : {"corrected", "paper"}, default "corrected"
        The corrected rate, or the printed one (for a key).
    **params : float
        Positive values of every other symbol, by name, for a numeric crossing.

    Returns
    -------
    sympy.Expr or list of sympy.Expr or float
        The positive symbolic solution (a list if there are several), or the smallest crossing at ``params``.

    Raises
    ------
    ValueError
        If ``solve_for`` appears in neither side or is given a value, there is no (closed-form) solution, the
        terms never cross, or values are missing.
    """
    r = _as_rate(key, logs, variant)
    x = SYMBOLS.symbol(solve_for)
    A, B = branch(_side(r, a)), branch(_side(r, b))
    if x not in (A.free_symbols | B.free_symbols):
        raise ValueError(f"solve_for={solve_for!r} appears in neither side of the crossover of {r.key}")
    if not params:
        try:
            sols = [s for s in sp.solve(sp.Eq(A, B), x) if s.is_positive is not False]
        except (NotImplementedError, TypeError):  # transcendental in x (a log of it), or roots sympy cannot sign
            raise ValueError(f"no closed-form solution of {sp.sstr(A)} = {sp.sstr(B)} for {solve_for}; give "
                             f"values for the other parameters to locate the crossover numerically") from None
        if not sols:
            raise ValueError(f"no positive solution of {sp.sstr(A)} = {sp.sstr(B)} for {solve_for}")
        return sp.simplify(sols[0]) if len(sols) == 1 else [sp.simplify(s) for s in sols]
    if solve_for in params:
        raise ValueError(f"solve_for={solve_for!r} must not be given a value")
    values = SYMBOLS.numbers(params)
    A, B = A.subs(values), B.subs(values)
    extra = sorted(s.name for s in (A.free_symbols | B.free_symbols) - {x})
    if extra:
        raise ValueError(f"missing value(s) for {extra} to locate the crossover of {r.key}")
    fa = sp.lambdify(x, A, modules="numpy")
    fb = sp.lambdify(x, B, modules="numpy")

    def h(t):
        with np.errstate(all="ignore"):
            xa = np.exp(t)
            return np.log(np.asarray(fa(xa), float) * np.ones_like(xa)) - np.log(np.asarray(fb(xa), float) * np.ones_like(xa))

    grid = np.linspace(-690.0, 690.0, 13801)
    vals = h(grid)
    ok = np.isfinite(vals)
    sign = np.sign(vals)
    idx = np.nonzero(ok[:-1] & ok[1:] & (sign[:-1] * sign[1:] <= 0))[0]
    if idx.size == 0:
        raise ValueError(f"{a!r} and {b!r} of {r.key} never cross for {solve_for} in (1e-300, 1e300) at {params}")
    i = idx[0]
    if vals[i] == 0:
        return float(np.exp(grid[i]))
    t = optimize.brentq(lambda s: float(h(np.array([s]))[0]), grid[i], grid[i + 1], xtol=1e-14, rtol=1e-15)
    return float(np.exp(t))


def dominant_term(key, *, logs: str = "paper", variant: str = "corrected", **params) -> str:
    r"""Name of the largest term of a rate (key or :class:`Rate`) at ``params``.

    Parameters
    ----------
    key : str or Rate
        Registry key or a :class:`Rate`.
    logs : {"paper", "none"}, default "paper"
        Log factors as printed, or dropped (for a key).
    variant : {"corrected", "paper"}, default "corrected"
        The corrected rate, or the printed one (for a key).
    **params : float
        Positive numbers, by symbol name (:data:`SYMBOLS`).

    Returns
    -------
    str
        The name of the largest term.
    """
    return _as_rate(key, logs, variant).evaluate(**params).dominant


# -- Figure 3 ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Figure3Row:
    r"""One row of Fig. 3: upper/lower bound (by term), references, rounds, corrections, values at a point.

    Attributes
    ----------
    problem : str
        The FL problem, e.g. ``"ISRL-DP i.i.d. SCO"``.
    loss : str
        The loss class, e.g. ``"Convex"``.
    upper : sympy.Expr
        The upper bound (sum of its terms) at Fig. 3's conventions.
    lower : sympy.Expr
        The lower bound (sum of its terms), on the non-trivial branch.
    upper_terms : mapping of str to sympy.Expr
        The upper bound's terms, by name.
    lower_terms : mapping of str to sympy.Expr
        The lower bound's terms, by name.
    upper_ref : str
        The reference Fig. 3 gives for the upper bound.
    lower_ref : str
        The reference Fig. 3 gives for the lower bound.
    upper_key : str
        Registry key of the upper bound.
    lower_key : str
        Registry key of the lower bound.
    rounds : sympy.Expr
        The round complexity of the row's algorithm.
    rounds_ref : str
        Its theorem.
    prior_rounds : sympy.Expr or None, default None
        The round complexity of prior work, if Fig. 3 gives one.
    prior_rounds_ref : str, default ""
        Its reference.
    corrections : tuple of str, default ()
        The corrections of the row's printed cells.
    values : mapping of str to float or None, default None
        The cells' values at the table's point (``"upper"``, ``"lower"``, ``"rounds"``, ``"prior_rounds"``).
    """

    problem: str
    loss: str
    upper: sp.Expr
    lower: sp.Expr
    upper_terms: Mapping[str, sp.Expr]
    lower_terms: Mapping[str, sp.Expr]
    upper_ref: str
    lower_ref: str
    upper_key: str
    lower_key: str
    rounds: sp.Expr
    rounds_ref: str
    prior_rounds: sp.Expr | None = None
    prior_rounds_ref: str = ""
    corrections: tuple[str, ...] = ()
    values: Mapping[str, float] | None = None


_FIG3_SPEC = (  # problem, loss, upper key, upper ref, lower key, lower ref, rounds key, prior rounds key
    ("ISRL-DP i.i.d. SCO", "Convex", "isrl_iid_cvx_up", "Thm 2.1", "isrl_iid_cvx_lo", "Thm 2.2", "isrl_iid_cvx", None),
    ("ISRL-DP i.i.d. SCO", "Strongly convex", "isrl_iid_sc_up", "Thm 2.1", "isrl_iid_sc_lo", "Thm 2.2", "isrl_iid_sc", None),
    ("ISRL-DP non-i.i.d. SCO", "Smooth convex", "isrl_noniid_cvx_up", "Thm 3.1", "isrl_noniid_cvx_lo", "Thm 2.2*",
     "isrl_noniid_cvx", None),
    ("ISRL-DP non-i.i.d. SCO", "Smooth strongly convex", "isrl_noniid_sc_up", "Thm 3.1", "isrl_noniid_sc_lo", "Thm 2.2*",
     "isrl_noniid_sc", None),
    ("ISRL-DP ERM", "Convex", "isrl_erm_cvx_up", "Girgis et al. 2021 + Thm 4.1", "isrl_erm_cvx_lo", "Thm 4.2 (= Thm F.3)",
     "isrl_erm_cvx", "girgis_erm_cvx"),
    ("ISRL-DP ERM", "Strongly convex", "isrl_erm_sc_up", "Thm 4.1", "isrl_erm_sc_lo", "Thm 4.2 (= Thm F.3)",
     "isrl_erm_sc", None),
    ("SDP i.i.d. SCO", "Convex", "sdp_iid_cvx_up", "Thm 5.1", "cdp_cvx_lo", "Bassily et al. 2019", "sdp_iid_cvx", None),
    ("SDP i.i.d. SCO", "Strongly convex", "sdp_iid_sc_up", "Thm 5.1", "cdp_sc_lo", "Bassily et al. 2019", "sdp_iid_sc", None),
    ("SDP non-i.i.d. SCO", "Smooth convex", "sdp_noniid_cvx_up", "Thm 5.2", "cdp_cvx_lo", "Bassily et al. 2019",
     "sdp_noniid_cvx", None),
    ("SDP non-i.i.d. SCO", "Smooth strongly convex", "sdp_noniid_sc_up", "Thm 5.2", "cdp_sc_lo", "Bassily et al. 2019",
     "sdp_noniid_sc", None),
)

# Fig. 3's printed typos: (row index, 'upper'|'lower', term, printed expression, correction text)
_FIG3_PRINTED = (
    (2, "lower", "priv", sp.sqrt(d) / (eps0 * n * sp.sqrt(N * _C_NONIID_CVX)),
     "lower bound printed sqrt(d)/(eps0 n sqrt(N C^2)) -> sqrt(d)/(eps0 n sqrt(N) C^2) (errata 002 §8 #4)"),
    (3, "upper", "priv", sp.sqrt(kappa * d) / (eps0**2 * n**2 * N),
     "upper bound printed sqrt(kappa d)/(eps0^2 n^2 N) -> sqrt(kappa) d/(eps0^2 n^2 N) (Thm 3.1 eq. (7); errata 002 §8 #4)"),
    (9, "upper", "priv", sp.sqrt(kappa * d) / (eps**2 * n**2 * N**2),
     "upper bound printed sqrt(kappa d)/(eps^2 n^2 N^2) -> sqrt(kappa) d/(eps^2 n^2 N^2) (Thm 5.2 eq. (11); errata 002 §8 #4)"),
)


def _fig_terms(r: Rate, C_one: bool) -> dict[str, sp.Expr]:
    subs = dict(FIGURE3_CONVENTIONS)
    if C_one:
        subs[C] = 1
    out = {k: branch(e.subs(subs)) for k, e in r.terms.items()}
    return {k: e for k, e in out.items() if e != 0}


class Figure3Table:
    r"""Fig. 3 of seed 002 rebuilt from the registry: a sequence of :class:`Figure3Row`.

    Rendered by :meth:`render_markdown`; built by :func:`figure3_table`.

    Parameters
    ----------
    rows : iterable of Figure3Row
        The rows.
    params : dict or None
        The point the rows' values are at, or ``None``.
    logs : {"paper", "none"}
        The ``logs=`` the table was built with.
    variant : {"corrected", "paper"}
        The ``variant=`` the table was built with.
    """

    def __init__(self, rows, params, logs, variant):
        self.rows = tuple(rows)
        self.params = params
        self.logs = logs
        self.variant = variant

    def __iter__(self):
        return iter(self.rows)

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]

    def render_markdown(self) -> str:
        r"""The table as GitHub markdown: cells, references, rounds, corrected cells marked † with footnotes.

        Returns
        -------
        str
            The markdown, ending with a newline.
        """
        head = ("FL problem", "Loss", "Excess-risk upper bound", "Excess-risk lower bound", "Rounds R (ours)",
                "Rounds R (prior)")
        cols = list(head)
        if self.params is not None:
            cols += ["upper @ point", "lower @ point", "R @ point"]
        lines = [
            f"### Seed 002, Figure 3 (M = N, L = D = mu = phi = beta = 1, logs {'omitted' if self.logs == 'none' else 'as printed'}; "
            f"{'corrected' if self.variant == 'corrected' else 'as printed'})",
            "",
            "| " + " | ".join(cols) + " |",
            "|" + "---|" * len(cols),
        ]
        notes: list[str] = []
        for row in self.rows:
            marks = []
            for c in row.corrections:
                notes.append(c)
                marks.append(f"†{len(notes)}")
            up_mark = "".join(m for m, c in zip(marks, row.corrections) if c.startswith("upper")) if marks else ""
            lo_mark = "".join(m for m, c in zip(marks, row.corrections) if c.startswith("lower")) if marks else ""
            cells = [
                row.problem, row.loss,
                f"{_pretty_sum(row.upper_terms)} ({row.upper_ref}){up_mark}",
                f"{_pretty_sum(row.lower_terms)} ({row.lower_ref}){lo_mark}",
                f"{_pretty(row.rounds)} ({row.rounds_ref})",
                f"{_pretty(row.prior_rounds)} ({row.prior_rounds_ref})" if row.prior_rounds is not None else "—",
            ]
            if self.params is not None:
                vals = row.values or {}
                cells += [_fmt_num(vals.get("upper", math.nan)), _fmt_num(vals.get("lower", math.nan)),
                          _fmt_num(vals.get("rounds", math.nan))]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
        lines.append("C² := (ε0 n √N/√d)^(2/5) (= R of the one-pass algorithm); non-i.i.d. lower bounds (Thm 2.2*) "
                     "only apply if ε0 = O(1/n) or N = O(1) (App. D.3). Lower bounds shown on the non-trivial branch "
                     "of LD·min{1, ·}. Rounds at K = n, Δ = 1.")
        if self.params is not None:
            pts = ", ".join(f"{k} = {_fmt_num(float(v))}" for k, v in self.params.items())
            lines.append(f"Values at {pts}.")
        if notes:
            lines += ["", "Corrections (errata 002 §8):", ""]
            lines += [f"- †{i}: {c}" for i, c in enumerate(notes, 1)]
        return "\n".join(lines) + "\n"


_PRETTY = (("**", "^"), ("eps0", "ε0"), ("eps", "ε"), ("delta0", "δ0"), ("delta", "δ"), ("kappa", "κ"),
           ("sqrt", "√"), ("*", "·"), ("Min", "min"), ("Max", "max"), ("log", "ln"))


def _pretty(expr) -> str:
    if expr is None:
        return "—"
    s = sp.sstr(expr)
    for a, b in _PRETTY:
        s = s.replace(a, b)
    return s


def _pretty_sum(terms: Mapping[str, sp.Expr]) -> str:
    return " + ".join(_pretty(terms[k]) for k in TERMS if k in terms)


def figure3_table(params: Mapping | None = None, logs: str = "none", variant: str = "corrected") -> Figure3Table:
    r"""Fig. 3 (rates and round complexity against prior work) rebuilt from the registry.

    Built at Fig. 3's conventions (:data:`FIGURE3_CONVENTIONS`; ``C = 1`` in the i.i.d. and ERM lower bounds).

    ``variant="paper"`` shows the three cells Fig. 3 prints wrongly (``√(κd)`` twice, ``√(NC²)``) as
    printed; every row lists the corrections its corrected cells apply. With ``params`` (values for ``n``,
    ``N``, ``d``, ``eps0``, ``eps``, ``delta0``, ``delta``, ``kappa`` as needed) each row carries the values of
    its cells.

    Parameters
    ----------
    params : mapping of str to float, optional
        Values of the symbols, by name; each row then carries its cells' values.
    logs : {"none", "paper"}, default "none"
        Log factors dropped (Fig. 3 "omit logs"), or as printed.
    variant : {"corrected", "paper"}, default "corrected"
        The corrected cells, or the three wrongly printed cells as printed.

    Returns
    -------
    Figure3Table
        The ten rows.

    Raises
    ------
    ValueError
        If ``logs`` or ``variant`` is unknown, or ``params`` lacks a value a row needs.
    """
    _check_logs(logs)
    check_variant(variant)
    values = SYMBOLS.numbers(params) if params is not None else None
    reg, rnd = _registry(logs, "corrected"), _round_registry(logs, "corrected")
    rows = []
    for i, (prob, loss, uk, uref, lk, lref, rk, pk) in enumerate(_FIG3_SPEC):
        up = _fig_terms(reg[uk], C_one=True)
        lo = _fig_terms(reg[lk], C_one=True)
        corr = []
        for j, side, term, printed, text in _FIG3_PRINTED:
            if j != i:
                continue
            corr.append(text)
            if variant == "paper":
                (up if side == "upper" else lo)[term] = printed
        rr = rnd[rk].rounds.subs(FIGURE3_CONVENTIONS)
        pr = rnd[pk].rounds.subs(FIGURE3_CONVENTIONS) if pk else None
        vals = None
        if values is not None:
            def ev(e):
                e = sp.sympify(e)
                missing = sorted(s.name for s in e.free_symbols if s not in values)
                if missing:
                    raise ValueError(f"figure3_table params miss {missing} for row {prob} / {loss}")
                return _num(branch(e, values), values)
            vals = {"upper": ev(sp.Add(*up.values())), "lower": ev(sp.Add(*lo.values())), "rounds": ev(rr)}
            if pr is not None:
                vals["prior_rounds"] = ev(pr)
        rows.append(Figure3Row(prob, loss, sp.Add(*up.values()), sp.Add(*lo.values()), types.MappingProxyType(up),
                               types.MappingProxyType(lo), uref, lref, uk, lk, rr, rnd[rk].theorem, pr,
                               rnd[pk].theorem if pk else "", tuple(corr),
                               types.MappingProxyType(vals) if vals is not None else None))
    return Figure3Table(rows, dict(params) if params is not None else None, logs, variant)
