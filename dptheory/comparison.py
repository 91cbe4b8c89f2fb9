r"""Which mechanism for which job: every mechanism of the five papers side by side on one problem, horizon,
participation and privacy level (the toolkit's own contribution; ``docs/choosing_a_mechanism.md``).

Each paper measures a few mechanisms on its own yardstick: seed 004 on the stationary suboptimality ``F∞`` of a
learning problem, seed 003 on the prefix-sum MaxLoss/RmsLoss under min-separated participation, seed 000 on
learning curves. :func:`compare` evaluates all of them for one setting — ``n`` steps, a
:class:`~dptheory.Participation` ``Π_{b,k}``, one privacy target — and returns a :class:`Comparison` table with,
per mechanism (every value is a number with its route, or a cell that says why there is none):

* ``sensitivity`` — ``sens_Π(C; n)`` (seed 003 eq. 6), exact by the mechanism's own route, or the upper end of
  bounds where no exact route exists (the cell says so, and every column using it is then an upper bound);
* ``sigma`` — the noise multiplier ``σ_dp = sens/√(2ρ)`` meeting the target (seed 004 Thm 1.1);
* ``max_loss``, ``rms_loss`` — seed 003's prefix-sum losses (Eq. 10), **unsquared**;
* ``F_n`` — the exact suboptimality of the last iterate after ``n`` steps from ``θ⋆`` (mean estimation; Gaussian
  linear regression by the exact second-moment recursion), :func:`dptheory.F_inf` at ``horizon=n``;
* ``F_inf`` — the stationary ``F∞`` with the streaming-limit sensitivity (stationary mechanisms only);
* ``bound`` — seed 004's Thm 3.1 bound on ``F∞`` (strongly convex problems, stationary mechanisms only);
* ``buffers`` — past values per coordinate its noise stream holds; ``us_per_step`` — measured time per step of that
  stream for a ``d``-dimensional model (NumPy, this machine; informational).

The families (:data:`FAMILIES`; :func:`candidates` builds them for the setting): DP-SGD; ν-DP-FTRL with ``ν``
minimising ``F_n`` and with the paper's ``ν = ημ`` (seed 004); the square root (Optimal-CC, Fichtenberger et al.;
``ν = 0``); BLTs with ``d = 1…4`` buffers optimised for ``(n, Π)`` (seed 003 Alg. 4, MaxLoss) and two mismatched
ones, and (family ``"blt_learned"``, not in the default set) ``d = 1, 2`` BLTs optimised for ``F_n`` itself; the tree with its three read-outs (seed 000; seed 003's TreeAgg-Full); seed 004's optimised correlation
(Thm 2.1's ``β*`` for mean estimation, the Thm C.18 minimiser ``|B|² ∝ h^{−1/2}`` for linear regression, the
alternating SOCP of Fig. 3 for a strongly convex loss); the banded square root (BSR, Kalinin & Lampert 2024) with
the band count minimising MaxLoss, and BandMF (Choquette-Choo et al. 2023) where ``n`` is small enough for its
``O(n³)`` optimiser.

**As trained** (``compare(…, eps=, delta=, dataset_size=N, batch_size=B, epochs=E)``): the horizon is
``n = E·⌊N/B⌋`` and each row is calibrated to the one ``(ε, δ)`` by the tightest accountant valid for it
(:mod:`dptheory.training`: Poisson sampling for DP-SGD, cyclic Poisson for a strategy with at most ``⌊N/B⌋`` bands,
fixed-order epochs otherwise); ``row.privacy`` says which, with the noise multiplier and the ε charged, ``sigma`` is
the calibrated noise std and ``max_loss``/``rms_loss`` the prefix errors at it. Rows that repeat every value of an
earlier row are marked as its alias (``row.alias_of``) and left out of rankings.

Cost: closed forms and ``O(n)``–``O(n log n)`` routes; dense ``n × n`` work only up to :data:`DENSE_LIMIT` steps
(above it a cell says which mechanism would need it); TreeAgg-Full by the Haar basis of its Gram matrix at any ``n``.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import math
import time
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize_scalar

from ._cli_support import jsonable
from ._validation import check_in_interval, check_int
from .accounting.conversions import epsilon_from_rho, rho_from_epsilon
from .accounting.zcdp import noise_multiplier
from .mechanisms import (
    BLT, BandedToeplitz, FiniteToeplitz, Mechanism, Participation, ToeplitzMechanism,
    TreeAggregation, banded_sqrt_toeplitz, dpsgd, mean_estimation_optimal, nu_ftrl, optimal_cc, optimize_banded,
)
from .mechanisms.base import SINGLE_PARTICIPATION, _check_participation
from .mechanisms.losses import max_error, rms_error
from .mechanisms.toeplitz import _theorem_3_1_applies
from .problems import LinearRegression, MeanEstimation, StronglyConvex
from .suboptimality import F_inf

__all__ = ["FAMILIES", "DEFAULT_FAMILIES", "COLUMNS", "DENSE_LIMIT", "BANDMF_LIMIT", "Candidate", "Cell", "Row", "Comparison", "candidates",
           "compare", "resolve_privacy"]

#: Mechanism families :func:`candidates` knows, in the order of the table.
FAMILIES = ("dpsgd", "nu_ftrl", "sqrt", "blt", "blt_learned", "tree", "optimised", "banded")
#: The families of ``compare(None, …)``: all but ``"blt_learned"`` (BLTs optimised for ``F_n`` by a derivative-free
#: search, 1–15 s each at ``n = 10⁴``).
DEFAULT_FAMILIES = tuple(f for f in FAMILIES if f != "blt_learned")
#: Columns of a :class:`Comparison` (``docs/choosing_a_mechanism.md`` defines each).
COLUMNS = ("sensitivity", "sigma", "max_loss", "rms_loss", "F_n", "F_inf", "bound", "buffers", "us_per_step")
#: Largest horizon at which a dense ``n × n`` (or ``n × m``) route is used; above it the cell says why not.
DENSE_LIMIT = 2048
#: Largest horizon at which BandMF is optimised (its objective costs ``O(n³)`` per evaluation).
BANDMF_LIMIT = 256
#: Relative tolerance to which a row repeating every value of an earlier row is its alias (:attr:`Row.alias_of`):
#: the same mechanism by two routes agrees to rounding (1e-15–1e-13), distinct optimised mechanisms differ by more.
ALIAS_RTOL = 1e-10
_PROBLEMS = (MeanEstimation, LinearRegression, StronglyConvex)


# -- the table's parts -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Cell:
    """One entry: a ``value`` with the ``route`` that gave it, or ``value = None`` and ``why`` there is none.

    ``upper`` marks a value that is an upper bound (the sensitivity was only bounded).

    Attributes
    ----------
    value : float, int or None
        The value; ``None`` where there is none.
    route : str, default ""
        How the value was computed.
    why : str, default ""
        Why there is no value.
    upper : bool, default False
        Whether the value is only an upper bound.
    """

    value: float | None
    route: str = ""
    why: str = ""
    upper: bool = False

    @classmethod
    def absent(cls, why: str) -> "Cell":
        """A cell with no value.

        Parameters
        ----------
        why : str
            Why there is none.

        Returns
        -------
        Cell
            ``Cell(None, why=why)``.
        """
        return cls(None, why=why)

    def text(self, digits: int = 4) -> str:
        """The cell as the table prints it (``"≤ "`` before an upper bound, ``"n/a (why)"`` without a value).

        Parameters
        ----------
        digits : int, default 4
            Significant digits of a float.

        Returns
        -------
        str
            The rendered cell.
        """
        if self.value is None:
            return f"n/a ({self.why})"
        if isinstance(self.value, int) or math.isinf(self.value):
            return str(self.value)
        return ("≤ " if self.upper else "") + f"{self.value:.{digits}g}"

    def to_dict(self) -> dict:
        """The cell as a dict (the JSON export).

        Returns
        -------
        dict
            ``value``, ``route``, ``why`` and ``upper_bound``.
        """
        return {"value": self.value, "route": self.route, "why": self.why, "upper_bound": self.upper}


@dataclass(frozen=True)
class Candidate:
    """A mechanism of one family and how it was chosen for the setting.

    ``mechanism = None`` with ``why`` when the family has no member at this setting (e.g. BandMF above
    :data:`BANDMF_LIMIT`).

    Attributes
    ----------
    label : str
        The row label.
    family : str
        The family (one of :data:`FAMILIES`, or ``"given"``).
    mechanism : Mechanism or None
        The mechanism; ``None`` where the family has no member at this setting.
    how : str, default ""
        How it was chosen.
    why : str, default ""
        Why there is no mechanism.
    """

    label: str
    family: str
    mechanism: Mechanism | None
    how: str = ""
    why: str = ""


@dataclass(frozen=True)
class Row:
    """One mechanism's cells (keys :data:`COLUMNS`) and the mechanism itself.

    The mechanism (``None`` where the family had none) is kept e.g. to simulate it; it is not part of the exports.

    Attributes
    ----------
    label : str
        The row label.
    family : str
        The family.
    how : str
        How the mechanism was chosen.
    cells : dict of str to Cell
        One cell per column of :data:`COLUMNS`.
    mechanism : Mechanism or None, default None
        The mechanism.
    privacy : RowPrivacy or None, default None
        In a table at matched ``(ε, δ)`` as trained (``compare(…, dataset_size=…)``): the scheme, accountant, noise
        multiplier and ε charged (:class:`dptheory.training.RowPrivacy`); ``None`` in a ``ρ``-matched table.
    alias_of : str, default ""
        The label of an earlier row whose every value this row repeats (to ``ALIAS_RTOL``): the same mechanism
        reached by two families (e.g. BSR with one band is DP-SGD; ν-DP-FTRL at ``ν = η`` is seed 004's optimum for
        mean estimation). Rankings leave aliases out, so that a tie is not broken by the order of the rows.
    """

    label: str
    family: str
    how: str
    cells: dict
    mechanism: Mechanism | None = field(default=None, repr=False, compare=False)
    privacy: object = field(default=None, repr=False, compare=False)
    alias_of: str = ""

    def value(self, column: str) -> float | None:
        """The value of one cell.

        Parameters
        ----------
        column : str
            One of :data:`COLUMNS`.

        Returns
        -------
        float or None
            The cell's value, ``None`` where there is none.
        """
        return self.cells[column].value


@dataclass(frozen=True)
class Comparison:
    """The table :func:`compare` returns.

    Rows of :class:`Row`, the setting, and renderings (:meth:`to_markdown`, :meth:`to_text` — also ``str()`` —
    :meth:`to_json`, :meth:`to_csv`). ``comparison[label]`` is the row of that label.

    Attributes
    ----------
    rows : tuple of Row
        One row per mechanism.
    setting : dict, default {}
        The problem, horizon, participation, ``ρ``, ``(ε, δ)``, conversion and ``G``.
    """

    rows: tuple
    setting: dict = field(default_factory=dict)

    def __getitem__(self, label: str) -> Row:
        for row in self.rows:
            if row.label == label:
                return row
        raise KeyError(f"no row {label!r}; rows are {[r.label for r in self.rows]}")

    @property
    def labels(self) -> list[str]:
        """The row labels, in order."""
        return [row.label for row in self.rows]

    def ranking(self, column: str, *, include_upper: bool = False, include_aliases: bool = False) -> list[str]:
        """Labels ordered by ``column`` (smaller is better).

        Absent and infinite cells are left out, upper bounds unless ``include_upper``, and aliases (rows that repeat an
        earlier row, :attr:`Row.alias_of`) unless ``include_aliases``.

        Parameters
        ----------
        column : str
            One of :data:`COLUMNS`.
        include_upper : bool, default False
            Whether to rank upper bounds too.
        include_aliases : bool, default False
            Whether to rank aliases too.

        Returns
        -------
        list of str
            The labels, best first.
        """
        _check_column(column)
        keyed = [(row.cells[column].value, row.label) for row in self.rows
                 if row.cells[column].value is not None and math.isfinite(row.cells[column].value)
                 and (include_upper or not row.cells[column].upper) and (include_aliases or not row.alias_of)]
        return [label for _, label in sorted(keyed)]

    def best(self, column: str) -> str:
        """The label with the smallest value of ``column`` (exact values only).

        Parameters
        ----------
        column : str
            One of :data:`COLUMNS`.

        Returns
        -------
        str
            The best label.

        Raises
        ------
        ValueError
            If no mechanism has an exact value of ``column``.
        """
        ranked = self.ranking(column)
        if not ranked:
            raise ValueError(f"no mechanism has an exact value of {column!r} in this comparison")
        return ranked[0]

    def to_dict(self) -> dict:
        """The table as a dict: the setting, the columns and per row every cell (:meth:`Cell.to_dict`).

        Returns
        -------
        dict
            ``setting``, ``columns`` and ``rows``.
        """
        return {
            "setting": self.setting,
            "columns": list(COLUMNS),
            "rows": [{"label": r.label, "family": r.family, "how": r.how, "alias_of": r.alias_of,
                      "cells": {c: r.cells[c].to_dict() for c in COLUMNS},
                      **({} if r.privacy is None else {"privacy": _privacy_dict(r.privacy)})} for r in self.rows],
        }

    def plot(self, columns=("max_loss", "F_n", "F_inf", "bound"), *, ax=None):
        """Draw the table's yardsticks: one panel of horizontal bars per column, smaller is better.

        Each panel shows the rows with an exact, finite value of its column on a log scale (aliases and upper
        bounds left out, as :meth:`ranking` does), best at the top; in a table as trained, a filled bar is a row
        charged with amplification and a hatched one a row charged unamplified. Columns absent from every row are
        skipped.

        Parameters
        ----------
        columns : sequence of str, default ("max_loss", "F_n", "F_inf", "bound")
            The columns to draw, from :data:`COLUMNS`.
        ax : sequence of matplotlib.axes.Axes, optional
            One axes per drawn column; by default a new figure with one row of panels.

        Returns
        -------
        matplotlib.figure.Figure
            The figure drawn on.

        Raises
        ------
        ValueError
            For an unknown column, no column with a value, or ``ax`` of the wrong length.
        """
        import matplotlib.pyplot as plt

        columns = [_check_column(c) for c in ((columns,) if isinstance(columns, str) else columns)]
        drawn = [c for c in columns if self.ranking(c)]
        if not drawn:
            raise ValueError(f"no row has an exact, finite value of any of {columns}")
        if ax is None:
            fig, axes = plt.subplots(1, len(drawn), figsize=(4.2 * len(drawn), 0.3 * len(self.rows) + 1.5),
                                     constrained_layout=True, squeeze=False)
            axes = list(axes[0])
        else:
            axes = list(ax) if not hasattr(ax, "barh") else [ax]
            if len(axes) != len(drawn):
                raise ValueError(f"ax must hold one axes per drawn column {drawn}, got {len(axes)}")
            fig = axes[0].figure
        for axis, column in zip(axes, drawn):
            labels = self.ranking(column)[::-1]
            values = [self[l].value(column) for l in labels]
            amplified = [self[l].privacy is not None and self[l].privacy.scheme.amplified for l in labels]
            bars = axis.barh(labels, values, color=["C0" if a else "C1" for a in amplified])
            for bar, a in zip(bars, amplified):
                if not a and self[labels[0]].privacy is not None:
                    bar.set_hatch("//")
            axis.set(xscale="log", title=column, xlabel="smaller is better")
            axis.grid(alpha=0.3, axis="x", which="both")
        fig.suptitle(self._title(), fontsize=8)
        return fig

    def to_json(self, **kwargs) -> str:
        """The table as JSON: the setting, and per row every cell's value, route, reason and upper-bound flag.

        ``±inf`` and ``NaN`` are written as the strings ``"inf"``, ``"-inf"`` and ``"nan"``
        (:func:`dptheory._cli_support.jsonable`, as the command line writes them): strict JSON.

        Parameters
        ----------
        **kwargs
            Passed to :func:`json.dumps` (default ``indent=1``).

        Returns
        -------
        str
            The JSON text.
        """
        return json.dumps(jsonable(self.to_dict()), **({"indent": 1, "allow_nan": False} | kwargs))

    def to_csv(self) -> str:
        """The table as CSV: one line per mechanism.

        Each line has the label, family, and each column's value (empty when absent) and note.

        Returns
        -------
        str
            The CSV text, with a header line.
        """
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["label", "family", *[x for c in COLUMNS for x in (c, f"{c}_note")]])
        for r in self.rows:
            cells = [r.cells[c] for c in COLUMNS]
            writer.writerow([r.label, r.family, *[x for cell in cells
                                                  for x in ("" if cell.value is None else repr(cell.value),
                                                            cell.why if cell.value is None else ("upper bound; " if cell.upper else "") + cell.route)]])
        return out.getvalue()

    def _grid(self) -> tuple[list[str], list[list[str]], list[str]]:
        """Header, body and legend of the rendered table: columns absent in every row are left out (the legend says
        why), an absent cell reads ``n/a [i]`` with reason ``i`` in the legend, ``*`` marks the best exact value."""
        shown = [c for c in COLUMNS if any(r.cells[c].value is not None for r in self.rows)]
        reasons: list[str] = []
        legend = [f"{c}: n/a for every mechanism ({self.rows[0].cells[c].why})" for c in COLUMNS if c not in shown and self.rows]

        def text(cell: Cell, star: bool) -> str:
            if cell.value is not None:
                return cell.text() + (" *" if star else "")
            if cell.why not in reasons:
                reasons.append(cell.why)
            return f"n/a [{reasons.index(cell.why) + 1}]"

        best = {c: (self.best(c) if self.ranking(c) else None) for c in shown if c not in ("buffers", "us_per_step")}
        body = [[r.label + (f" (= {r.alias_of})" if r.alias_of else ""),
                 *[text(r.cells[c], best.get(c) == r.label) for c in shown]] for r in self.rows]
        legend += [f"[{i + 1}] {why}" for i, why in enumerate(reasons)]
        if not any(r.privacy is not None for r in self.rows):
            return ["mechanism", *shown], body, legend
        body = [[row[0], *_privacy_text(r.privacy), *row[1:]] for row, r in zip(body, self.rows)]
        return ["mechanism", "scheme", "eps charged", *shown], body, legend

    def _title(self) -> str:
        s = self.setting
        if "training" in s:
            return (f"{s.get('problem')}, {s['training']}: each row by its tightest valid accountant, "
                    f"G = {s.get('G'):g}")
        return (f"{s.get('problem')}, n = {s.get('horizon')}, {s.get('participation')}, rho = {s.get('rho'):.6g} "
                f"(eps = {s.get('epsilon'):.4g} at delta = {s.get('delta'):g}, {s.get('conversion')}), G = {s.get('G'):g}")

    def to_markdown(self) -> str:
        """The table as markdown, with a legend of the reasons for absent cells and how each mechanism was chosen.

        Returns
        -------
        str
            The markdown text (``*`` marks the best exact value, ``≤`` an upper bound).
        """
        header, body, legend = self._grid()
        lines = [f"**{self._title()}** (`*` = best exact value; `≤` = upper bound; losses unsquared)", "",
                 "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in body]
        lines += ["", *[f"- {line}" for line in legend], *[f"- **{r.label}**: {r.how}" for r in self.rows if r.how]]
        return "\n".join(lines)

    def to_text(self) -> str:
        """The table as aligned plain text (also ``str()``).

        Returns
        -------
        str
            The text.
        """
        header, body, legend = self._grid()
        widths = [max(len(x) for x in col) for col in zip(header, *body)]
        fmt = lambda row: "  ".join(x.ljust(w) for x, w in zip(row, widths)).rstrip()
        return "\n".join([self._title(), fmt(header), fmt(["-" * w for w in widths]), *map(fmt, body), *legend])

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"Comparison({len(self.rows)} mechanisms; {self._title()})"

    def _repr_markdown_(self) -> str:
        return self.to_markdown()


def _same_values(a: Row, b: Row) -> bool:
    """Every finite-horizon value equal to ``ALIAS_RTOL`` (``F_inf`` too where both have one: a dense strategy has none)."""
    values = [(a.cells[c].value, b.cells[c].value) for c in ("sensitivity", "sigma", "max_loss", "rms_loss", "F_n")]
    if None not in (a.cells["F_inf"].value, b.cells["F_inf"].value):
        values.append((a.cells["F_inf"].value, b.cells["F_inf"].value))
    if all(x is None for pair in values for x in pair):
        return False
    return all((x is None and y is None) or (x is not None and y is not None and
                                             (x == y or abs(x - y) <= ALIAS_RTOL * max(abs(x), abs(y))))
               for x, y in values)


def _mark_aliases(rows: tuple) -> tuple:
    """Each row that repeats every value of an earlier, unaliased row, marked with that row's label."""
    out: list[Row] = []
    for row in rows:
        first = next((r for r in out if not r.alias_of and r.mechanism is not None and row.mechanism is not None
                      and _same_values(r, row)), None)
        out.append(row if first is None else Row(row.label, row.family, row.how, row.cells, row.mechanism,
                                                  row.privacy, first.label))
    return tuple(out)


def _privacy_dict(privacy) -> dict:
    charged = privacy.charged
    return {"scheme": str(privacy.scheme), "amplified": privacy.scheme.amplified,
            "accountant": privacy.scheme.accountant, "noise_multiplier": privacy.noise_multiplier,
            "sensitivity": privacy.sensitivity, "noise_std": privacy.noise_std,
            "eps_charged": None if charged is None else charged.eps,
            "why_not_amplified": privacy.why_not_amplified,
            "alternatives": [{"scheme": name, "noise_std": std} for name, std in privacy.alternatives]}


def _privacy_text(privacy) -> list[str]:
    if privacy is None:
        return ["", ""]
    scheme = privacy.scheme
    name = (f"cyclic Poisson c={scheme.cycle_length}" if scheme.amplified and scheme.cycle_length > 1
            else "Poisson" if scheme.amplified else "fixed order")
    return [name, "n/a" if privacy.charged is None else f"{privacy.charged.eps:.4g}"]


def _check_column(column: str) -> str:
    if column not in COLUMNS:
        raise ValueError(f"column must be one of {COLUMNS}, got {column!r}")
    return column


# -- the setting -------------------------------------------------------------------------------------------------

def resolve_privacy(*, rho=None, epsilon=None, delta=None, conversion: str = "exact") -> tuple[float, float | None, float | None]:
    r"""The zCDP level ``ρ`` of a target given as ``rho`` or as ``(epsilon, delta)`` (exactly one).

    Every mechanism here is a Gaussian mechanism on ``C x`` (adaptively, seed 004 Thm 1.1), hence
    ``μ``-GDP with ``μ = √(2ρ)``, so ``conversion="exact"`` (the Gaussian curve,
    :func:`~dptheory.accounting.epsilon_from_rho`) is valid; one ``ρ`` for all mechanisms makes the ranking
    independent of the conversion.

    Parameters
    ----------
    rho : float in (0, inf), optional
        The target as ``ρ``-zCDP.
    epsilon : float, optional
        The target's ``ε``, given with ``delta``.
    delta : float, optional
        The target's ``δ``, given with ``epsilon``.
    conversion : {"classic", "improved", "exact"}, default "exact"
        The conversion inverted for an ``(ε, δ)`` target (:func:`~dptheory.accounting.rho_from_epsilon`).

    Returns
    -------
    rho : float
        The zCDP level.
    epsilon : float or None
        The ``ε`` of the target (``None`` for a ``rho`` target).
    delta : float or None
        The ``δ`` of the target (``None`` for a ``rho`` target).

    Raises
    ------
    ValueError
        For a target given both ways, or neither.
    """
    if rho is not None and (epsilon is not None or delta is not None):
        raise ValueError("give the privacy target either as rho or as (epsilon, delta), not both")
    if rho is None:
        if epsilon is None or delta is None:
            raise ValueError("a privacy target is needed: rho, or epsilon together with delta")
        rho = rho_from_epsilon(epsilon, delta=delta, conversion=conversion)
        return rho, float(epsilon), float(delta)
    rho = check_in_interval("rho", rho, 0.0)
    return rho, None, None


def _check_setting(problem, horizon, participation) -> tuple[int, Participation]:
    if not isinstance(problem, _PROBLEMS):
        raise ValueError(f"problem must be one of {[p.__name__ for p in _PROBLEMS]}, got {type(problem).__name__}")
    n = check_int("horizon", horizon, 1)
    participation = _check_participation(participation)
    k, b = participation.max_participations, participation.min_sep
    if (k - 1) * b >= n:
        raise ValueError(
            f"participation {participation} cannot occur within horizon = {n} steps: k = {k} participations "
            f"b = {b} apart need (k - 1)b + 1 = {(k - 1) * b + 1} steps; use max_participations <= "
            f"{participation.participations(n)} (= ceil(n/b)) or a longer horizon"
        )
    return n, participation


# -- the families ------------------------------------------------------------------------------------------------

def _mu(problem) -> float:
    return float(problem.mu) if isinstance(problem, (LinearRegression, StronglyConvex)) else 1.0


_NU_MAX = 0.999


def _paper_nu(problem) -> float:
    """Seed 004's ``ν = ημ`` (``μ`` the smallest curvature), kept inside ``nu_ftrl``'s ``(0, 1)``."""
    return min(problem.eta * _mu(problem), _NU_MAX)


def _tuned_nu(problem, n: int, participation: Participation, rho: float) -> float:
    """``ν`` minimising ``F_n`` of ν-DP-FTRL over ``[10⁻⁶, 0.999]`` (``nu_ftrl`` takes ``0 < ν < 1``): the best of a grid of
    25 values of ``log ν`` and the paper's ``ημ``, then bounded Brent between its neighbours (``F_n`` need not be
    unimodal in ``ν``)."""
    f = lambda u: F_inf(nu_ftrl(math.exp(u)), problem, rho=rho, horizon=n, participation=participation)
    grid = np.linspace(math.log(1e-6), math.log(_NU_MAX), 25)
    paper = math.log(_paper_nu(problem))
    points = np.sort(np.append(grid, paper))
    values = [f(u) for u in points]
    i = int(np.argmin(values))
    lo, hi = points[max(i - 1, 0)], points[min(i + 1, points.size - 1)]
    res = minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-4})
    return math.exp(res.x if res.fun < values[i] else points[i])


def _lti_optimum(problem: LinearRegression) -> FiniteToeplitz:
    r"""The minimiser of the LTI part of ``F∞`` over ``β`` (seed 004 Thm C.18): the minimum-phase factor of
    ``|B|² = h^{−1/2}``, ``h(ω) = Σ_j λ_j/|1 − ηλ_j − e^{iω}|²``, on a grid resolving the narrowest pole."""
    from .iqc import minimum_phase_factor  # cvxpy stays unloaded for the other families

    gaps = problem.eta * problem.eigs
    n_fft = 1 << max(15, math.ceil(math.log2(64.0 / float(np.min(gaps)))))
    h = lambda w: np.sum(problem.eigs[:, None] / np.abs(1.0 - gaps[:, None] - np.exp(1j * w)[None, :]) ** 2, axis=0)
    beta = minimum_phase_factor(lambda w: h(w) ** -0.5, n_fft=min(n_fft, 1 << 22))
    return FiniteToeplitz(beta.beta, name=f"lti_optimum[{beta.beta.size} taps]")


def _optimised(problem) -> Candidate:
    if isinstance(problem, MeanEstimation):
        return Candidate("seed-004 optimum", "optimised", mean_estimation_optimal(problem.eta),
                         f"Thm 2.1's beta* (= nu-DP-FTRL at nu = eta = {problem.eta:g}): the exact minimiser of F_inf")
    if isinstance(problem, LinearRegression):
        mech = _lti_optimum(problem)
        return Candidate("seed-004 optimum", "optimised", mech,
                         f"|B|^2 = h^(-1/2), the minimiser of the LTI part of F_inf (Thm C.18), {mech.beta.size} taps")
    from .iqc import optimize_correlation

    result = optimize_correlation(problem)
    return Candidate("seed-004 optimum", "optimised", result.beta,
                     f"alternating SOCP of seed 004 Fig. 3 (Thm 3.1's J = {result.history[-1]:.4g} after "
                     f"{len(result.history) - 1} steps), {result.beta.beta.size} taps")


@functools.lru_cache(maxsize=256)
def _max_loss_blt(horizon: int, participation: Participation, d: int):
    """Seed 003 Alg. 4's MaxLoss-optimal BLT with ``d`` buffers, or ``None`` at a degenerate optimum (ω → 0).

    Memoised: the optimiser is deterministic, and the tables of one sweep ask for the same ``(n, Π, d)`` again
    (the quick comparison sweep made 112 calls for 35 distinct optimisations).
    """
    from .blt.optimizer import DegenerateOptimum, optimize

    try:
        return optimize(horizon, participation, buffers=d, loss="max").blt
    except DegenerateOptimum:
        return None


def _blt_candidates(n: int, participation: Participation) -> list[Candidate]:
    def optimised(label: str, horizon: int, schema: Participation, d: int, how: str) -> Candidate:
        blt = _max_loss_blt(horizon, schema, d)
        if blt is None:
            return Candidate(label, "blt", None, how, why="Alg. 4 optimum at omega -> 0 (no correlation)")
        return Candidate(label, "blt", blt, how)

    out = [optimised(f"BLT d={d}", n, participation, d, f"seed 003 Alg. 4 for (n = {n}, {participation}), MaxLoss")
           for d in (1, 2, 3, 4)]
    n_short = max(1, n // 10)
    out.append(optimised("BLT d=4, n/10", n_short, _fit(participation, n_short), 4,
                         f"optimised for n = {n_short} (a tenth of the horizon)"))
    if not participation.single:
        out.append(optimised("BLT d=4, k=1", n, SINGLE_PARTICIPATION, 4, "optimised for a single participation"))
    return out


def _learned_blt_candidates(problem, n: int, participation: Participation, rho: float) -> list[Candidate]:
    from .blt.optimizer import optimize_for_learning

    if isinstance(problem, StronglyConvex):
        return [Candidate(f"BLT d={d}, F_n", "blt_learned", None, why="no exact F_n to optimise") for d in (1, 2)]
    out = []
    for d in (1, 2):
        r = optimize_for_learning(problem, n, participation, rho=rho, buffers=d)
        out.append(Candidate(f"BLT d={d}, F_n", "blt_learned", r.blt,
                             f"decay pair minimising F_n (Nelder-Mead from the MaxLoss optimum, {r.evaluations} evaluations)"))
    return out


def _fit(participation: Participation, n: int) -> Participation:
    """``participation`` restricted to what fits in ``n`` steps."""
    return Participation(max_participations=participation.participations(n), min_sep=min(participation.min_sep, n))


def _banded_candidates(n: int, participation: Participation) -> list[Candidate]:
    # BSR: the band count minimising MaxLoss among powers of two up to b (so that b >= bands gives sqrt(k') exactly)
    top = min(n, participation.min_sep if not participation.single else n)
    options = sorted({min(1 << i, top) for i in range(top.bit_length() + 1)})
    scored = []
    for bands in options:
        mech = banded_sqrt_toeplitz(bands)
        scored.append((max_error(mech, n) * mech.sensitivity(n, participation), bands, mech))
    _, bands, mech = min(scored, key=lambda s: s[:2])
    out = [Candidate(f"BSR b={bands}", "banded", mech,
                     f"banded square root, bands = {bands} minimises MaxLoss among powers of two <= {top}")]
    if n > BANDMF_LIMIT:
        out.append(Candidate("BandMF", "banded", None, why=f"O(n^3) optimiser; n > {BANDMF_LIMIT}"))
    else:
        bands_mf = max(1, min(participation.min_sep, n)) if not participation.single else n
        res = optimize_banded(n, bands=bands_mf, participation=participation)
        out.append(Candidate(f"BandMF b={bands_mf}", "banded", res.mechanism,
                             f"BandMF (Choquette-Choo et al. 2023), RmsLoss-optimal with {bands_mf} bands"))
    return out


def candidates(problem, *, horizon: int, participation: Participation | None = None, rho: float = 1.0,
               families=FAMILIES) -> list[Candidate]:
    """The members of ``families`` (:data:`FAMILIES`) chosen for the setting (module docstring).

    Parameters
    ----------
    problem : MeanEstimation, LinearRegression or StronglyConvex
        The learning problem.
    horizon : int
        The number of steps ``n``.
    participation : Participation, optional
        The participation schema; ``None`` (default) is single participation.
    rho : float, default 1.0
        Only enters the tuned ``ν`` of ν-DP-FTRL, which is scale-free in ``ρ`` except through the gradient noise.
    families : str or sequence of str, default FAMILIES
        The families to build, from :data:`FAMILIES`.

    Returns
    -------
    list of Candidate
        The members, in the order of ``families``.

    Raises
    ------
    ValueError
        For an unknown problem or family, or a participation that cannot occur within ``horizon``.
    """
    n, participation = _check_setting(problem, horizon, participation)
    families = _check_families(families)
    out: list[Candidate] = []
    for family in families:
        if family == "dpsgd":
            out.append(Candidate("DP-SGD", family, dpsgd(), "beta = (1): independent noise"))
        elif family == "nu_ftrl":
            nu_paper = _paper_nu(problem)
            if isinstance(problem, StronglyConvex):
                out.append(Candidate("nu-FTRL tuned", family, None, why="no exact F_n to tune on"))
            else:
                nu = _tuned_nu(problem, n, participation, rho)
                out.append(Candidate("nu-FTRL tuned", family, nu_ftrl(nu), f"nu = {nu:.4g} minimises F_n"))
            out.append(Candidate("nu-FTRL eta*mu", family, nu_ftrl(nu_paper), f"nu = eta*mu = {nu_paper:.4g} (seed 004)"))
        elif family == "sqrt":
            out.append(Candidate("sqrt (Optimal-CC)", family, optimal_cc(), "C = N = A^(1/2) (Fichtenberger et al.; nu = 0)"))
        elif family == "blt":
            out.extend(_blt_candidates(n, participation))
        elif family == "blt_learned":
            out.extend(_learned_blt_candidates(problem, n, participation, rho))
        elif family == "tree":
            for readout in ("vanilla", "honaker", "full"):
                out.append(Candidate(f"tree {readout}", family, TreeAggregation(readout), f"seed 000 / seed 003 read-out {readout!r}"))
        elif family == "optimised":
            out.append(_optimised(problem))
        elif family == "banded":
            out.extend(_banded_candidates(n, participation))
    return out


def _check_families(families) -> tuple[str, ...]:
    families = (families,) if isinstance(families, str) else tuple(families)
    unknown = [f for f in families if f not in FAMILIES]
    if unknown or not families:
        raise ValueError(f"families must be a non-empty selection of {FAMILIES}, got {families!r}")
    return families


def _as_candidate(item) -> Candidate:
    if isinstance(item, Candidate):
        return item
    if isinstance(item, Mechanism):
        return Candidate(item.name, "given", item)
    raise ValueError(f"mechanisms must hold dptheory.Mechanism or Candidate objects or family names {FAMILIES}, got {item!r}")


# -- the cells ---------------------------------------------------------------------------------------------------

def _dense_needed(mech: Mechanism, n: int, participation: Participation) -> bool:
    """Whether the sensitivity of ``mech`` over ``n`` steps under ``participation`` needs the dense ``n × n`` strategy."""
    if participation.participations(n) == 1:
        return not isinstance(mech, (ToeplitzMechanism, TreeAggregation))
    if isinstance(mech, BandedToeplitz) and participation.min_sep >= mech.bands:
        return False
    if isinstance(mech, ToeplitzMechanism):
        return not _theorem_3_1_applies(mech.strategy_coeffs(n))
    return not isinstance(mech, TreeAggregation)


def _sensitivity_cell(mech: Mechanism, n: int, participation: Participation) -> Cell:
    if _dense_needed(mech, n, participation) and n > DENSE_LIMIT:
        return Cell.absent(f"dense sensitivity route; n > {DENSE_LIMIT}")
    report = mech.sensitivity_report(n, participation)
    if not math.isfinite(report.upper):
        return Cell(math.inf, route=f"unbounded at n = {n}: the strategy's coefficients overflow ({report.route})")
    if report.exact:
        return Cell(report.value, route=report.route)
    return Cell(report.upper, route=f"bounds [{report.lower:.6g}, {report.upper:.6g}]: {report.route}", upper=True)


def _loss_cells(mech: Mechanism, n: int, sens: Cell) -> tuple[Cell, Cell]:
    if sens.value is None:
        return Cell.absent("no sensitivity"), Cell.absent("no sensitivity")
    if not isinstance(mech, (ToeplitzMechanism, TreeAggregation)) and n > DENSE_LIMIT:
        return Cell.absent(f"dense route; n > {DENSE_LIMIT}"), Cell.absent(f"dense route; n > {DENSE_LIMIT}")
    route = "error from row energies at q = 1 (seed 003 Eq. 9) times sens (Eq. 10)"
    return (Cell(max_error(mech, n) * sens.value, route=route, upper=sens.upper),
            Cell(rms_error(mech, n) * sens.value, route=route, upper=sens.upper))


def _F_n_cell(mech: Mechanism, problem, n: int, participation: Participation, rho: float, G: float, sens: Cell) -> Cell:
    if isinstance(problem, StronglyConvex):
        return Cell.absent("no exact F_n for a non-quadratic loss")
    if sens.value is None:
        return Cell.absent("no sensitivity")
    if sens.upper:
        return Cell.absent("sensitivity only bounded")
    full_tree = isinstance(mech, TreeAggregation) and mech.readout == "full"  # every row by the Haar basis of C^T C
    if not (isinstance(mech, ToeplitzMechanism) or full_tree) and isinstance(problem, LinearRegression) and n > DENSE_LIMIT:
        return Cell.absent(f"every row of F_q N (dense); n > {DENSE_LIMIT}")
    if not isinstance(mech, (ToeplitzMechanism, TreeAggregation)) and n > DENSE_LIMIT:
        return Cell.absent(f"dense route; n > {DENSE_LIMIT}")
    value = F_inf(mech, problem, rho=rho, G=G, horizon=n, participation=participation)
    what = "App. B eq. 18 at n steps" if isinstance(problem, MeanEstimation) else "exact n-step second moments"
    return Cell(value, route=f"F_inf(horizon=n): last iterate from theta*, {what}")


def _F_inf_cell(mech: Mechanism, problem, participation: Participation, rho: float, G: float) -> Cell:
    if isinstance(problem, StronglyConvex):
        return Cell.absent("no exact F_inf for a non-quadratic loss; see bound")
    if not mech.stationary:
        return Cell.absent("not stationary")
    try:
        value = F_inf(mech, problem, rho=rho, G=G, participation=participation)
    except ValueError as exc:  # e.g. eta beyond the stationary range of Gaussian linear regression
        return Cell.absent(str(exc).split(" (")[0][:60])
    route = "stationary F_inf, streaming-limit sensitivity" + ("" if participation.single else " under the participation")
    return Cell(value, route=route if math.isfinite(value) else "gamma_inf = inf: no finite noise is private forever")


def _bound_cell(mech: Mechanism, problem, participation: Participation, rho: float, G: float) -> Cell:
    if not isinstance(problem, StronglyConvex):
        return Cell.absent("strongly convex problems only")
    if not mech.stationary:
        return Cell.absent("not stationary")
    from .iqc import F_inf_bound

    result = F_inf_bound(mech, problem, rho=rho, G=G, participation=participation)
    return Cell(result.value, route="seed 004 Thm 3.1 (SOCP), streaming-limit sensitivity")


def _buffers(mech: Mechanism, n: int) -> Cell:
    r"""Past values per coordinate the mechanism's own noise stream holds over ``n`` steps."""
    if isinstance(mech, BLT):
        return Cell(mech.theta.size, route="d buffers (seed 003 Alg. 3)")
    if isinstance(mech, BandedToeplitz):
        return Cell(mech.bands - 1, route="bands - 1 past outputs (recursive solve of C x = z)")
    if isinstance(mech, FiniteToeplitz):
        return Cell(min(mech.beta.size, n) - 1, route="FIR: len(beta) - 1 past draws")
    if isinstance(mech, ToeplitzMechanism):
        return Cell(n - 1, route="every past draw (infinite beta, FFT overlap-save)")
    if isinstance(mech, TreeAggregation) and mech.readout != "full":
        return Cell(n.bit_length(), route="one node per level, floor(lg n) + 1 (seed 000 B.1)")
    return Cell(n - 1, route="every past draw (dense noising matrix)")


def _us_per_step(mech: Mechanism, n: int, d: int, exact_stream: bool) -> Cell:
    steps = min(n, 512)
    stream = mech.noise_stream((d,), np.zeros(1), None if exact_stream else n)
    z = np.random.default_rng(0).standard_normal((steps, d))
    start = time.perf_counter()
    stream(z)
    return Cell(1e6 * (time.perf_counter() - start) / steps, route=f"first {steps} steps, d = {d}, NumPy (informational)")


def _row(candidate: Candidate, problem, n: int, participation: Participation, rho: float, G: float, timing: bool) -> Row:
    mech = candidate.mechanism
    if mech is None:
        return Row(candidate.label, candidate.family, candidate.how, {c: Cell.absent(candidate.why) for c in COLUMNS})
    sens = _sensitivity_cell(mech, n, participation)
    sigma = (Cell.absent("no sensitivity") if sens.value is None
             else Cell(noise_multiplier(sens.value, rho=rho), route="sens / sqrt(2 rho) (seed 004 Thm 1.1)", upper=sens.upper))
    max_l, rms_l = _loss_cells(mech, n, sens)
    buffers = _buffers(mech, n)
    if not timing:
        speed = Cell.absent("timing off")
    elif buffers.value >= n - 1 and not isinstance(mech, ToeplitzMechanism) and n > DENSE_LIMIT:
        speed = Cell.absent(f"dense stream; n > {DENSE_LIMIT}")
    else:
        speed = _us_per_step(mech, n, problem.d, mech.exact_stream)
    cells = dict(
        sensitivity=sens, sigma=sigma, max_loss=max_l, rms_loss=rms_l,
        F_n=_F_n_cell(mech, problem, n, participation, rho, G, sens),
        F_inf=_F_inf_cell(mech, problem, participation, rho, G),
        bound=_bound_cell(mech, problem, participation, rho, G),
        buffers=buffers, us_per_step=speed,
    )
    return Row(candidate.label, candidate.family, candidate.how, cells, mech)


def compare(mechanisms=None, problem=None, *, horizon: int | None = None, participation: Participation | None = None,
            rho=None, eps=None, delta=None, dataset_size=None, batch_size=None, epochs=None, G: float = 1.0,
            conversion: str = "exact", timing: bool = True) -> Comparison:
    r"""Compare mechanisms side by side on one problem, horizon, participation and privacy target.

    Every mechanism of ``mechanisms`` on ``problem`` over ``horizon = n`` steps under ``participation`` at one
    privacy target (``rho``, or ``eps`` with ``delta``): a :class:`Comparison` (module docstring for the columns).

    Parameters
    ----------
    mechanisms : list, str, Mechanism or Candidate, optional
        ``None`` for the families of :data:`DEFAULT_FAMILIES`, or a list mixing family names of :data:`FAMILIES`
        (built for the setting by :func:`candidates`), :class:`Candidate` objects and
        :class:`~dptheory.Mechanism` objects.
    problem : MeanEstimation, LinearRegression or StronglyConvex
        The learning problem.
    horizon : int, optional
        The number of steps ``n`` (required for a ``ρ``-matched table; as trained it is ``E·⌊N/B⌋``, and a
        ``horizon`` given must equal it).
    participation : Participation, optional
        The participation schema; ``None`` (default) is single participation. Not with ``dataset_size``: as
        trained, the participation follows from the scheme.
    rho : float, optional
        The privacy target as ``ρ``-zCDP (one ``ρ`` for every row).
    eps : float, optional
        The privacy target's ``ε``, given with ``delta`` instead of ``rho``.
    delta : float, optional
        The privacy target's ``δ``, given with ``eps``.
    dataset_size, batch_size, epochs : int, optional
        ``N``, ``B`` and ``E``, all three or none: the table **at matched** ``(ε, δ)`` **as trained**. Each row is
        calibrated to ``(eps, delta)`` by its own tightest valid accountant (:mod:`dptheory.training`): Poisson
        sampling for DP-SGD, cyclic Poisson for a strategy with at most ``⌊N/B⌋`` bands, else fixed-order epochs
        (unamplified, ``k = E`` participations ``⌊N/B⌋`` apart). Each row's ``privacy``
        (:class:`dptheory.training.RowPrivacy`) says which, with its noise multiplier and the ε charged; ``sigma``
        is the noise std per unit clip, and ``max_loss``/``rms_loss`` are the prefix-sum errors at that std
        (``max_error·sigma``, unsquared), so that rows compare at one ``(ε, δ)``. Banded candidates choose their bands
        for that setting.
    G : float in (0, inf), default 1.0
        The clip norm.
    conversion : {"classic", "improved", "exact"}, default "exact"
        The ``ρ`` ↔ ``(ε, δ)`` conversion (:func:`resolve_privacy`).
    timing : bool, default True
        ``False`` leaves out the measured time per step (the only column that is not a pure function of the
        arguments).

    Returns
    -------
    Comparison
        The table.

    Raises
    ------
    ValueError
        For an unknown problem or family, a target given both ways (or neither), and a participation that cannot
        occur within ``n``.

    Examples
    --------
    >>> import dptheory as dpt
    >>> table = dpt.compare(["dpsgd", "sqrt"], dpt.MeanEstimation(eta=0.1), horizon=1000, rho=1.0, timing=False)
    >>> table.best("F_n"), round(table["DP-SGD"].value("F_n") / table["sqrt (Optimal-CC)"].value("F_n"), 3)
    ('sqrt (Optimal-CC)', 1.255)
    """
    if (dataset_size, batch_size, epochs) != (None, None, None):
        return _compare_as_trained(mechanisms, problem, horizon=horizon, participation=participation, rho=rho, eps=eps,
                                   delta=delta, dataset_size=dataset_size, batch_size=batch_size, epochs=epochs, G=G,
                                   timing=timing)
    if horizon is None:
        raise ValueError("horizon is needed (the number of steps n), or dataset_size, batch_size and epochs for the "
                         "table as trained")
    rho, epsilon, delta = resolve_privacy(rho=rho, epsilon=eps, delta=delta, conversion=conversion)
    G = check_in_interval("G", G, 0.0)
    n, participation = _check_setting(problem, horizon, participation)
    if not isinstance(timing, bool):
        raise ValueError(f"timing must be True or False, got {timing!r}")
    items = _items(mechanisms)
    chosen: list[Candidate] = []
    for item in items:
        if isinstance(item, str):
            chosen.extend(candidates(problem, horizon=n, participation=participation, rho=rho, families=(item,)))
        else:
            chosen.append(_as_candidate(item))
    rows = _mark_aliases(tuple(_row(c, problem, n, participation, rho, G, timing) for c in chosen))
    if epsilon is None:
        delta = 1e-6
        epsilon = epsilon_from_rho(rho, delta=delta, conversion=conversion)
    setting = dict(problem=repr(problem), horizon=n, participation=repr(participation), rho=rho, epsilon=epsilon,
                   delta=delta, conversion=conversion, G=G)
    return Comparison(rows, setting)


def _items(mechanisms) -> list:
    items = list(DEFAULT_FAMILIES) if mechanisms is None else ([mechanisms] if isinstance(mechanisms, (str, Mechanism, Candidate)) else list(mechanisms))
    if not items:
        raise ValueError("mechanisms must name at least one family or mechanism")
    return items


# -- at matched (ε, δ), as trained -------------------------------------------------------------------------------

def _trained_run(*, rho, eps, delta, dataset_size, batch_size, epochs, horizon, participation):
    from .training import TrainingRun

    missing = [name for name, x in (("dataset_size", dataset_size), ("batch_size", batch_size), ("epochs", epochs))
               if x is None]
    if missing:
        raise ValueError(f"the table as trained needs dataset_size, batch_size and epochs together; missing {missing}")
    if rho is not None:
        raise ValueError("give the target of the table as trained as eps= and delta=, not rho= (each row gets its own "
                         "accountant; a rho-matched table takes horizon= and participation= instead)")
    if eps is None or delta is None:
        raise ValueError("the table as trained needs eps= and delta=")
    if participation is not None:
        raise ValueError("participation follows from the sampling scheme in the table as trained; leave it out")
    run = TrainingRun(dataset_size=dataset_size, batch_size=batch_size, epochs=epochs, eps=eps, delta=delta)
    if horizon is not None and check_int("horizon", horizon, 1) != run.steps:
        raise ValueError(f"horizon must be epochs * floor(dataset_size / batch_size) = {run.steps} in the table as "
                         f"trained (or left out), got {horizon}")
    return run


def _banded_trained_candidates(run) -> list[Candidate]:
    """BSR and BandMF with the band count that minimises MaxLoss at the run's ``(ε, δ)`` under each count's tightest
    scheme (few bands are amplified by cyclic Poisson; more bands have less error but a larger cycle or none)."""
    from .training import tightest_privacy

    n, top = run.steps, min(run.steps, run.steps_per_epoch)
    options = sorted({min(1 << i, top) for i in range(top.bit_length() + 1)})
    scored = []
    for bands in options:
        mech = banded_sqrt_toeplitz(bands)
        scored.append((max_error(mech, n) * tightest_privacy(mech, run).noise_std, bands, mech))
    _, bands, mech = min(scored, key=lambda s: s[:2])
    how = (f"banded square root, bands = {bands} minimises MaxLoss at ({run.eps:g}, {run.delta:g}) among powers of "
           f"two <= floor(N/B) = {top}, each under its tightest scheme")
    out = [Candidate(f"BSR b={bands}", "banded", mech, how)]
    if n > BANDMF_LIMIT:
        out.append(Candidate("BandMF", "banded", None, why=f"O(n^3) optimiser; n > {BANDMF_LIMIT}"))
    else:
        res = _bandmf(n, bands)
        out.append(Candidate(f"BandMF b={bands}", "banded", res.mechanism,
                             f"BandMF (Choquette-Choo et al. 2023), RmsLoss-optimal with BSR's {bands} bands (its "
                             f"objective is the same under either scheme for bands <= floor(N/B))"))
    return out


@functools.lru_cache(maxsize=64)
def _bandmf(n: int, bands: int):
    """BandMF at ``(n, bands)``, memoised: its optimum does not depend on ε (a sweep over ε asks for it again)."""
    return optimize_banded(n, bands=bands, participation=None)


def _trained_row(candidate: Candidate, problem, run, G: float, timing: bool) -> Row:
    from .training import tightest_privacy

    mech = candidate.mechanism
    if mech is None:
        return _row(candidate, problem, run.steps, SINGLE_PARTICIPATION, 1.0, G, timing)
    privacy = tightest_privacy(mech, run)
    participation = _check_participation(privacy.participation(run.steps))
    row = _row(candidate, problem, run.steps, participation, privacy.rho, G, timing)
    cells = dict(row.cells)
    route = f"max_error * sigma: the prefix-sum error at the calibrated noise std ({privacy.scheme})"
    for column in ("max_loss", "rms_loss"):
        cell = cells[column]
        if cell.value is not None:
            cells[column] = Cell(cell.value * privacy.noise_multiplier, route=route, upper=cell.upper)
    cells["sigma"] = (cells["sigma"] if cells["sigma"].value is None else
                      Cell(cells["sigma"].value, route=f"{privacy.scheme.accountant}: noise multiplier "
                           f"{privacy.noise_multiplier:.6g} x sensitivity {privacy.sensitivity:.6g}",
                           upper=cells["sigma"].upper))
    return Row(row.label, row.family, row.how, cells, mech, privacy)


def _compare_as_trained(mechanisms, problem, *, horizon, participation, rho, eps, delta, dataset_size, batch_size,
                        epochs, G, timing) -> Comparison:
    run = _trained_run(rho=rho, eps=eps, delta=delta, dataset_size=dataset_size, batch_size=batch_size,
                       epochs=epochs, horizon=horizon, participation=participation)
    G = check_in_interval("G", G, 0.0)
    if not isinstance(timing, bool):
        raise ValueError(f"timing must be True or False, got {timing!r}")
    fixed = run.fixed_order
    n, fixed_participation = _check_setting(problem, run.steps, fixed.participation(run.steps))
    rho_fixed = 1.0 / (2.0 * fixed.noise_multiplier(run.eps, steps=n, delta=run.delta) ** 2)
    chosen: list[Candidate] = []
    for item in _items(mechanisms):
        if item == "banded":
            chosen.extend(_banded_trained_candidates(run))
        elif isinstance(item, str):
            chosen.extend(candidates(problem, horizon=n, participation=fixed_participation, rho=rho_fixed,
                                     families=(item,)))
        else:
            chosen.append(_as_candidate(item))
    rows = _mark_aliases(tuple(_trained_row(c, problem, run, G, timing) for c in chosen))
    setting = dict(problem=repr(problem), horizon=n, training=str(run), dataset_size=run.dataset_size,
                   batch_size=run.batch_size, epochs=run.epochs, epsilon=run.eps, delta=run.delta,
                   participation=repr(fixed_participation) + " (fixed order; amplified rows: single)",
                   rho=rho_fixed, conversion="per row", G=G)
    return Comparison(rows, setting)
