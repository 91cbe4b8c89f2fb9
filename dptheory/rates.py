r"""The rate tables of seed 004 as evaluable symbolic expressions (Tables 1, 2 and 4).

Each cell of a table is a :class:`Rate`: a sympy expression for the order of growth with the constants
dropped, the kind of bound (``"Theta"``, ``"O"`` or ``"Omega"``), the conditions under which the paper states
it, and its source. A user can print a table, substitute numbers (:meth:`Rate.evaluate`) and hold the orders
against the exact ``F∞`` of :func:`dptheory.F_inf`:

>>> from dptheory import rates
>>> r = rates.table2()["nu-Noisy-FTRL"]["F_inf"]
>>> print(r)
F_inf = O(G**2*eta**2*trace_H*log(1/nu)**2/rho)  [0 < nu <= eta*mu; eta <= c/Tr H; Gaussian inputs]

A :class:`Rate` is a :class:`dptheory.symbolic.SymbolicRate`, the machinery it shares with seed 002's registry:
its log-log slope in one symbol is exact, or taken at a point (Table 4's FTRL/SGD ratio for ``λ_k = 1/k``
falls like ``d^{-0.67}``, not ``d^{-1}``, at ``d = 100``, ``η = 0.01``):

>>> r.slope("eta"), round(rates.table4()["inverse"]["ratio"].slope("d", eta=0.01, d=100), 4)
(2, -0.6743)

The rows follow the digest of the paper (``notes/004.md`` §6), which reconstructs the OCR-garbled log
arguments of Table 4. Nothing numeric is computed here: the exact values live in
:mod:`dptheory.suboptimality` and :mod:`dptheory.mechanisms`, and the orders are only checked against them
(``tests/test_rates.py``).

All symbols are positive (``positive=True``); ``trace_H`` is ``Tr H``, ``d_eff = Tr H/‖H‖₂`` (App. C.6).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from ._validation import check_in_interval, check_positive_int, check_variant
from .symbolic import SymbolicRate, SymbolTable, log, numeric

__all__ = [
    "eta",
    "rho",
    "d",
    "d_eff",
    "nu",
    "T",
    "a",
    "trace_H",
    "mu",
    "G",
    "SYMBOLS",
    "BOUNDS",
    "TABLE4_SPECTRA",
    "Rate",
    "table1",
    "table2",
    "table4",
    "spectrum",
]

# -- symbols ---------------------------------------------------------------------------------------------
eta = sp.Symbol("eta", positive=True)  #: learning rate η
rho = sp.Symbol("rho", positive=True)  #: zCDP level ρ (ρ⁻¹ is the "noise variance" of every rate)
d = sp.Symbol("d", positive=True)  #: dimension
d_eff = sp.Symbol("d_eff", positive=True)  #: effective dimension Tr H / ‖H‖₂
nu = sp.Symbol("nu", positive=True)  #: damping ν of ν-Noisy-FTRL (eq. 7) and of damped anti-PGD
T = sp.Symbol("T", positive=True)  #: number of steps
a = sp.Symbol("a", positive=True)  #: decay exponent of the spectrum λ_k = k^{-a} (Table 4)
trace_H = sp.Symbol("trace_H", positive=True)  #: Tr H
mu = sp.Symbol("mu", positive=True)  #: λ_min(H)
G = sp.Symbol("G", positive=True)  #: clip norm

#: Every symbol a :class:`Rate` may contain, by name (the keyword names of :meth:`Rate.evaluate`).
SYMBOLS = SymbolTable(eta, rho, d, d_eff, nu, T, a, trace_H, mu, G, noun="symbol")

#: Kinds of bound: matching upper and lower (``Theta``), upper only (``O``), lower only (``Omega``).
BOUNDS = ("Theta", "O", "Omega")


@dataclass(frozen=True)
class Rate(SymbolicRate):
    r"""One cell of a rate table of seed 004: ``quantity = bound(expr)`` under ``conditions``.

    Attributes
    ----------
    table : {1, 2, 4}
        The table number of the paper.
    row : str
        The row (an algorithm for Tables 1–2, a spectrum id of :data:`TABLE4_SPECTRA` for Table 4).
    quantity : str
        The column, e.g. ``"F_inf"``, ``"sensitivity^2"``, ``"ratio"``, ``"d_eff"``.
    expr : sympy.Expr
        The order as a sympy expression, constants dropped; ``sympy.oo`` for a divergent quantity.
    bound : {"Theta", "O", "Omega"}
        The kind of bound.
    conditions : str
        The conditions under which the paper states the order (not checked by :meth:`evaluate`).
    source : str
        Where it comes from, e.g. ``"seed 004, Table 2; Thm 2.2"``.
    """

    table: int
    row: str
    quantity: str
    expr: sp.Expr
    bound: str
    conditions: str
    source: str

    SYMBOLS = SYMBOLS

    def __post_init__(self):
        if self.bound not in BOUNDS:
            raise ValueError(f"bound must be one of {BOUNDS}, got {self.bound!r}")
        object.__setattr__(self, "expr", SYMBOLS.expression(self.expr))

    def evaluate(self, **values):
        r"""The expression at the given values (constants dropped, so only ratios and slopes are meaningful).

        Keywords are symbol names (:data:`SYMBOLS`); values are positive reals or arrays, broadcast together
        (an array in gives an array out, also for a quantity that does not depend on it). Symbols that the
        expression does not contain are otherwise ignored, so one dict can serve a whole table.

        Parameters
        ----------
        **values : float or array_like
            Positive values of the symbols, by name (:data:`SYMBOLS`).

        Returns
        -------
        float or numpy.ndarray
            The expression's value (an array if any value is one). Divergent quantities give ``inf``.

        Raises
        ------
        ValueError
            Naming any missing symbol, any unknown name, any non-positive value, or when the expression is
            negative or undefined there (outside its conditions, e.g. ``a > 1`` in a row that needs ``a < 1``;
            the conditions are not otherwise checked).
        """
        point = SYMBOLS.numbers(values, arrays=True)
        missing = [n for n in self.symbols if n not in values]
        if missing:
            raise ValueError(f"missing value(s) for {missing} to evaluate {self}")
        out = np.asarray(numeric(self.expr, point), dtype=float)
        out = np.broadcast_to(out, np.broadcast_shapes(out.shape, *(v.shape for v in point.values())))
        if np.any(np.isnan(out) | (out < 0)):
            raise ValueError(
                f"{self} is negative or undefined at {values}: outside its conditions ({self.conditions})"
            )
        return float(out) if out.ndim == 0 else out.copy()

    def __str__(self) -> str:
        body = "oo" if self.expr == sp.oo else f"{self.bound}({sp.sstr(self.expr)})"
        return f"{self.quantity} = {body}  [{self.conditions}]"

    def __repr__(self) -> str:
        body = "oo" if self.expr == sp.oo else f"{self.bound}({sp.sstr(self.expr)})"
        return f"Rate(table {self.table}, {self.row!r}, {self.quantity} = {body})"


# -- Table 1 -----------------------------------------------------------------------------------------------
def table1() -> dict[str, dict[str, Rate]]:
    r"""Table 1 of seed 004: linear regression with Gaussian inputs.

    ``σ_dp² = γ∞(β)²/(2ρ)``, ``G = 1``, ``λ_max(H) = 1`` (so ``d_eff = Tr H``), only the ρ-term (``σ_sgd = 0``)
    shown.

    Rows ``"Lower bound"`` (Ω(η²ρ⁻¹d_eff), all ``β`` with ``‖β‖₁ < ∞``; Thm 2.2 / C.18),
    ``"Noisy-SGD"`` (Θ(ηρ⁻¹d); Thm 2.2) and ``"nu-Noisy-FTRL"`` (O(η²ρ⁻¹d_eff log²(1/(ημ))), ``ν = ημ``;
    Thm 2.2 / Prop. C.22), each with the columns ``"F_inf"`` and ``"ratio"`` (ratio with the lower bound:
    1, ``η⁻¹d/d_eff``, ``log²(1/(ημ))``).

    Returns
    -------
    dict of str to dict of str to Rate
        ``table[row][column]``.
    """
    src = "seed 004, Table 1; Thm 2.2"
    base = "G = 1, lambda_max(H) = 1; eta <= c/Tr H; Gaussian inputs"
    log2 = log(1 / (eta * mu)) ** 2
    rows = {  # row: (F_inf, its bound, ratio with the lower bound, its bound, conditions, extra source)
        "Lower bound": (
            eta**2 * d_eff / rho, "Omega", sp.Integer(1), "Theta", "all beta with ||beta||_1 < inf", "; Thm C.18"
        ),
        "Noisy-SGD": (eta * d / rho, "Theta", d / (eta * d_eff), "Theta", "beta = (1, 0, 0, ...)", ""),
        "nu-Noisy-FTRL": (eta**2 * d_eff * log2 / rho, "O", log2, "O", "nu = eta*mu (eq. 7)", "; Prop. C.22"),
    }
    return {
        row: {
            "F_inf": Rate(1, row, "F_inf", f, fb, f"{cond}; {base}", src + extra),
            "ratio": Rate(1, row, "ratio", r, rb, f"F_inf / lower bound; {cond}; {base}", src + extra),
        }
        for row, (f, fb, r, rb, cond, extra) in rows.items()
    }


# -- Table 2 -----------------------------------------------------------------------------------------------
def table2() -> dict[str, dict[str, Rate]]:
    r"""Table 2 of seed 004: prior noise correlations through the paper's theory (linear regression).

    Columns ``"sensitivity^2"`` (``γ_T(β)²``, Thm 1.1; for ``ν > 0`` its limit ``γ∞²``, eq. 5) and
    ``"F_inf"`` (eq. 4). Rows:

    * ``"Optimal-CC"`` (Fichtenberger et al. 2023; eq. 7 with ν = 0): ``log T``, ``F∞ = ∞``;
      errata 004 §6: ``γ_T² = (1/π)(ln T + γ_E + 4 ln 2) + o(1)``.
    * ``"nu-Noisy-FTRL"`` (eq. 7, ``0 < ν ≤ ημ``): ``log(1/ν)`` (``γ∞² = (2/π)K(1−ν) ≈ (1/π)ln(8/ν)``) and
      ``O(η²G²ρ⁻¹Tr[H] log²(1/ν))`` (Thm 2.2).
    * ``"anti-PGD"`` (Orvieto et al. 2022, ``β = (1, −1)``): ``T`` (exactly), ``F∞ = ∞``.
    * ``"damped anti-PGD"`` (``β = (1, −(1−ν))``): ``1/ν`` (``γ∞² = 1/(ν(2−ν))``) and, at the optimal
      ``ν = Θ(√(η Tr H/d))``, ``Θ(η^{3/2}G²ρ⁻¹√(d Tr[H]))`` (Prop. C.24): the geometric mean of the lower
      bound and Noisy-SGD.

    Returns
    -------
    dict of str to dict of str to Rate
        ``table[row][column]``.
    """
    src = "seed 004, Table 2"
    lti = "linear regression, Gaussian inputs; eta <= c/Tr H"
    rows = {
        "Optimal-CC": [
            ("sensitivity^2", log(T), "Theta", "nu = 0 in eq. (7); T steps", ""),
            ("F_inf", sp.oo, "Theta", f"gamma_inf = oo; {lti}", ""),
        ],
        "nu-Noisy-FTRL": [
            ("sensitivity^2", log(1 / nu), "Theta", "0 < nu <= eta*mu; limit T -> oo", "; eq. (5)"),
            ("F_inf", eta**2 * G**2 * trace_H * log(1 / nu) ** 2 / rho, "O",
             "0 < nu <= eta*mu; eta <= c/Tr H; Gaussian inputs", "; Thm 2.2"),
        ],
        "anti-PGD": [
            ("sensitivity^2", T, "Theta", "beta = (1, -1); T steps (gamma_T^2 = T exactly)", ""),
            ("F_inf", sp.oo, "Theta", f"gamma_inf = oo; {lti}", ""),
        ],
        "damped anti-PGD": [
            ("sensitivity^2", 1 / nu, "Theta", "beta = (1, -(1 - nu)), 0 < nu < 1; limit T -> oo", ""),
            ("F_inf", eta ** sp.Rational(3, 2) * G**2 * sp.sqrt(d * trace_H) / rho, "Theta",
             f"at the optimal nu = Theta(sqrt(eta*Tr H/d)); {lti}", "; Prop. C.24"),
        ],
    }
    return {
        row: {q: Rate(2, row, q, e, b, cond, src + extra) for q, e, b, cond, extra in cells}
        for row, cells in rows.items()
    }


# -- Table 4 -----------------------------------------------------------------------------------------------
#: Table 4's spectra: row id -> the paper's ``λ_k`` (``k = 1..d``, normalised so that ``λ_1 = ‖H‖ = 1``).
TABLE4_SPECTRA: dict[str, str] = {
    "constant": "lambda_k = 1",
    "inverse_sqrt": "lambda_k = k^(-1/2)",
    "power_lt1": "lambda_k = k^(-a), 0 < a < 1",
    "inverse": "lambda_k = 1/k",
    "inverse_square": "lambda_k = 1/k^2",
    "power_gt1": "lambda_k = k^(-a), a > 1",
}


def table4(variant: str = "corrected") -> dict[str, dict[str, Rate]]:
    r"""Table 4 of seed 004: Noisy-SGD vs ν-Noisy-FTRL (``ν = ημ``) for linear regression by spectrum.

    ``G = 1``, ``‖H‖ = 1``.

    Rows are the ids of :data:`TABLE4_SPECTRA`; columns ``"d_eff"``, ``"F_inf_sgd"`` (Noisy-SGD, Θ(ηdρ⁻¹)
    in every row), ``"F_inf_ftrl"`` (ν-Noisy-FTRL, O) and ``"ratio"`` (FTRL/SGD, O). With ``ℓ = log(d/η)``:

    ============== ============== ========================== ========================
    λ_k            d_eff          Noisy-FTRL                 ratio FTRL/SGD
    ============== ============== ========================== ========================
    1              d              η²dρ⁻¹log²(1/η)            η log²(1/η)
    k^{-1/2}       √d             η²√d ρ⁻¹ℓ²                 (η/√d)ℓ²
    k^{-a}, a<1    d^{1−a}/(1−a)  η²d^{1−a}ρ⁻¹ℓ²/(1−a)       ηℓ²/((1−a)d^a)
    1/k            log d          η²ρ⁻¹ℓ³                    (η/d)ℓ³
    1/k²           constant (1)   η²ρ⁻¹ℓ²                    (η/d)ℓ²
    k^{-a}, a>1    a/(a−1)        (a/(a−1))η²ρ⁻¹ℓ²           (a/(a−1))(η/d)ℓ²
    ============== ============== ========================== ========================

    The OCR of Table 4 is partly garbled (errata 004 §6 and §10.11); the log arguments ``d/η`` and the blank
    ``d_eff`` of row ``k^{-a}, a<1`` are the digest's reconstruction. The printed ratio of row ``1/k²``
    reads ``(η/d)log³(d/η)``, inconsistent with its own FTRL and SGD columns (``η²ℓ²/(ηd)``);
    ``variant="corrected"`` (default) encodes the digest's ``log²`` reading, ``variant="paper"`` the
    printed ``log³``. The ``d_eff`` of row ``k^{-a}, a>1`` is printed as "constant"; it is encoded as the
    constant ``a/(a−1) ≥ ζ(a)`` that the row's FTRL column carries.

    Parameters
    ----------
    variant : {"corrected", "paper"}, default "corrected"
        The ratio of row ``1/k²``: the digest's ``log²`` reading or the printed ``log³``.

    Returns
    -------
    dict of str to dict of str to Rate
        ``table[row][column]``.
    """
    check_variant(variant)
    ell = log(d / eta)
    c_gt1 = a / (a - 1)
    rows = {
        "constant": (d, eta**2 * d * log(1 / eta) ** 2 / rho, eta * log(1 / eta) ** 2),
        "inverse_sqrt": (sp.sqrt(d), eta**2 * sp.sqrt(d) * ell**2 / rho, eta * ell**2 / sp.sqrt(d)),
        "power_lt1": (d ** (1 - a) / (1 - a), eta**2 * d ** (1 - a) * ell**2 / ((1 - a) * rho),
                      eta * ell**2 / ((1 - a) * d**a)),
        "inverse": (log(d), eta**2 * ell**3 / rho, eta * ell**3 / d),
        "inverse_square": (sp.Integer(1), eta**2 * ell**2 / rho,
                           eta * ell ** (3 if variant == "paper" else 2) / d),
        "power_gt1": (c_gt1, c_gt1 * eta**2 * ell**2 / rho, c_gt1 * eta * ell**2 / d),
    }
    src = "seed 004, Table 4 (as reconstructed in errata 004 §6)"
    out = {}
    for row, (deff, ftrl, ratio) in rows.items():
        cond = f"{TABLE4_SPECTRA[row]}, k = 1..d; G = 1, ||H|| = 1"
        ratio_src = src
        if row == "inverse_square":
            ratio_src += "; printed log^3, " + ("digest reads log^2" if variant == "corrected" else "kept as printed")
        out[row] = {
            "d_eff": Rate(4, row, "d_eff", deff, "Theta", cond, src),
            "F_inf_sgd": Rate(4, row, "F_inf_sgd", eta * d / rho, "Theta", f"{cond}; Noisy-SGD", src),
            "F_inf_ftrl": Rate(4, row, "F_inf_ftrl", ftrl, "O", f"{cond}; nu-Noisy-FTRL, nu = eta*mu", src),
            "ratio": Rate(4, row, "ratio", ratio, "O", f"{cond}; F_inf(nu-Noisy-FTRL) / F_inf(Noisy-SGD)", ratio_src),
        }
    return out


def spectrum(kind: str, d: int, a: float | None = None) -> np.ndarray:
    r"""Eigenvalues ``λ_1 ≥ … ≥ λ_d`` of ``H`` for a row of Table 4 (seed 004), normalised so ``λ_1 = 1``.

    ``kind`` is a row id of :data:`TABLE4_SPECTRA`: ``λ_k = 1, k^{-1/2}, k^{-a} (0<a<1), 1/k, 1/k²,
    k^{-a} (a>1)``.

    Parameters
    ----------
    kind : str
        A row id of :data:`TABLE4_SPECTRA`.
    d : int
        The dimension (positive integer).
    a : float, optional
        The exponent: required for ``"power_lt1"`` (``0 < a < 1``) and ``"power_gt1"`` (``a > 1``), and must be
        left out otherwise.

    Returns
    -------
    numpy.ndarray
        ``λ_1, …, λ_d``.

    Raises
    ------
    ValueError
        For an unknown ``kind``, a missing or superfluous ``a``, or an ``a`` outside the row's range.
    """
    exponents = {"constant": 0.0, "inverse_sqrt": 0.5, "inverse": 1.0, "inverse_square": 2.0}
    if kind not in TABLE4_SPECTRA:
        raise ValueError(f"kind must be one of {list(TABLE4_SPECTRA)}, got {kind!r}")
    d = check_positive_int("d", d)
    if kind in exponents:
        if a is not None:
            raise ValueError(
                f"a is only used by the power-law rows ('power_lt1', 'power_gt1'), got a={a!r} for {kind!r}"
            )
        p = exponents[kind]
    else:
        if a is None:
            raise ValueError(f"kind {kind!r} ({TABLE4_SPECTRA[kind]}) needs the exponent a")
        p = check_in_interval("a", a, *((0.0, 1.0) if kind == "power_lt1" else (1.0, np.inf)), why=f"row {kind!r}")
    return np.arange(1, d + 1, dtype=float) ** (-p)
