"""The route independent of ``dptheory.compare`` that the comparison's findings are measured by.

For a square strategy ``C`` (at ``n ≤ 256`` in the scripts): ``DenseMechanism(C)``, whose sensitivity enumerates the
participation patterns over ``CᵀC`` and whose row energies come from the dense noising matrix, never from a
mechanism's structured route (Toeplitz closed forms, Thm 3.1, the tree's Haar basis, BLT recurrences). For a strategy
that is not square (the tree's node strategy), or whose ``CᵀC`` has negative entries on the patterns (no exact
enumeration): ``simulate`` with the mechanism's own noise stream for ``F_n``, and the dense decoder ``B`` (``B C = A``)
for the prefix error.
"""

from __future__ import annotations

import numpy as np

import dptheory as dpt
from dptheory.mechanisms import DenseMechanism, dense_sensitivity

#: chains of the simulation used where the dense route does not apply
SIM_SEEDS = 4000


def _max_prefix_error(decoder: np.ndarray) -> float:
    return float(np.sqrt(np.max(np.einsum("ij,ij->i", decoder, decoder))))


def measure(mechanism, problem, column: str, *, n: int, rho: float, participation, scale: float, seed: int):
    """``column`` (``"F_n"`` or ``"max_loss"``) of ``mechanism`` by the independent route: ``(value, se, route)``.

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
    seed : int
        The simulation's seed.

    Returns
    -------
    tuple
        ``(value, standard error, route)``; the standard error is 0 for a deterministic route.
    """
    C = mechanism.strategy_matrix(n)
    try:
        sens = dense_sensitivity(C, participation)
    except ValueError:  # CᵀC has negative entries on the patterns: no exact enumeration
        sens = None
    if C.shape == (n, n) and sens is not None:
        dense = DenseMechanism(C)
        if column == "F_n":
            return (dpt.F_inf(dense, problem, rho=rho, horizon=n, participation=participation), 0.0,
                    "dense oracle (DenseMechanism: pattern enumeration, dense row energies)")
        return (_max_prefix_error(dense.decoder_matrix(n)) * sens * scale, 0.0,
                "dense oracle (pattern enumeration, rows of A C^-1)")
    if column == "F_n":
        sim = dpt.simulate(mechanism, problem, rho=rho, horizon=n, participation=participation, seeds=SIM_SEEDS,
                           seed=seed)
        return sim.mean, sim.stderr, f"simulate with the mechanism's own stream ({SIM_SEEDS} chains)"
    sens = mechanism.sensitivity(n, participation) if sens is None else sens
    return _max_prefix_error(mechanism.decoder_matrix(n)) * sens * scale, 0.0, "dense decoder B (B C = A)"
