"""The route independent of ``dptheory.compare`` that the comparison's findings are measured by: dense matrices.

Every mechanism is rebuilt as its dense matrices (:class:`DenseView`) and evaluated by the routes of the base class
``Mechanism`` alone: the sensitivity by enumerating the participation patterns over ``CᵀC``
(``dense_sensitivity``), the row energies and the last row energy from the dense noising matrix, the prefix errors
from its cumulative sums. None of the structured routes the table uses is reached: Toeplitz closed forms and FFTs,
seed 003's Thm 3.1, the BLT recurrences, the tree's node counts and Haar basis. The noising matrix is ``C⁻¹`` by a
dense triangular inversion for a square strategy (``DenseMechanism``), the tree's own dense ``N`` (its pseudo-inverse
read-out for TreeAgg-Full) otherwise. Where ``CᵀC`` has negative entries on the patterns the enumeration is not exact
and the mechanism's own sensitivity is used (the route says so).
"""

from __future__ import annotations

import numpy as np

import dptheory as dpt
from dptheory.mechanisms import DenseMechanism, Mechanism, dense_sensitivity


class DenseView(Mechanism):
    """A mechanism's strategy and noising matrix over ``n`` steps as dense arrays, read by the base-class routes only.

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism.
    n : int
        The horizon.
    participation : Participation or None
        The participation its sensitivity is taken under.
    """

    stationary = False
    exact_stream = False

    def __init__(self, mechanism, n: int, participation):
        C = mechanism.strategy_matrix(n)
        self._C = C
        self._N = DenseMechanism(C).noising_matrix(n) if C.shape == (n, n) else mechanism.noising_matrix(n)
        try:
            self._sens = dense_sensitivity(C, participation)
            self.route = "dense oracle (pattern enumeration over C^T C, dense noising matrix)"
        except ValueError:  # CᵀC has negative entries on the patterns: no exact enumeration
            self._sens = mechanism.sensitivity(n, participation)
            self.route = "dense noising matrix, the mechanism's own sensitivity (C^T C not >= 0 on the patterns)"
        self._n, self._participation = n, participation
        self.name = f"DenseView({mechanism.name}, n={n})"

    def strategy_matrix(self, n: int) -> np.ndarray:
        """The dense strategy (``n`` must be the view's horizon)."""
        return self._C

    def noising_matrix(self, n: int) -> np.ndarray:
        """The dense noising matrix (``n`` must be the view's horizon)."""
        return self._N

    def sensitivity(self, n=None, participation=None) -> float:
        """The sensitivity under the view's participation (the only one it was built for)."""
        return self._sens

    def cache_key(self) -> str:
        """Not cached: a view lives for one measurement."""
        return self.name

    def max_prefix_error(self) -> float:
        """``max_t ‖(A N)_t‖``: the largest prefix error per unit noise, from the cumulative sums of ``N``'s rows."""
        prefix = np.cumsum(self._N, axis=0)
        return float(np.sqrt(np.max(np.einsum("ij,ij->i", prefix, prefix))))


def measure(mechanism, problem, column: str, *, n: int, rho: float, participation, scale: float) -> tuple[float, str]:
    """``column`` (``"F_n"`` or ``"max_loss"``) of ``mechanism`` by the dense route: ``(value, route)``.

    ``F_n`` is at the noise ``sens/√(2ρ)``; ``max_loss`` is the largest prefix error times ``sens·scale``
    (``scale = 1``: seed 003's loss; the row's noise multiplier: the prefix error at the calibrated std).

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism.
    problem : MeanEstimation or LinearRegression
        The problem (``F_n`` only).
    column : {"F_n", "max_loss"}
        The yardstick.
    n : int
        The horizon.
    rho : float
        The zCDP level of the row.
    participation : Participation or None
        The row's participation.
    scale : float
        The factor of ``max_loss`` beyond the sensitivity.

    Returns
    -------
    tuple
        ``(value, route)``.
    """
    view = DenseView(mechanism, n, participation)
    if column == "F_n":
        return dpt.F_inf(view, problem, rho=rho, horizon=n, participation=participation), view.route
    return view.max_prefix_error() * view.sensitivity() * scale, view.route


def family_best(table, column: str) -> dict:
    """The best row of each family by ``column``, ``family -> label``, best family first (the table's ranking order:
    aliases and upper bounds left out). A finding's winner is the first, the "next family" the second.

    Parameters
    ----------
    table : Comparison
        The table.
    column : str
        The yardstick.

    Returns
    -------
    dict
        ``family -> label``, in the order of ``table.ranking(column)``.
    """
    best: dict = {}
    for label in table.ranking(column):
        best.setdefault(table[label].family, label)
    return best
