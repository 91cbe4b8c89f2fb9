r"""The one calibration of a mechanism to a zCDP target, used by every consumer (``F_inf``, ``simulate``,
``F_inf_bound``).

seed 004, Thm 1.1 (Denisov et al. 2022; Bun & Steinke 2016) and seed 003 §3.1: a mechanism with strategy
``C`` run for ``n`` steps under a participation schema ``Π`` is ``ρ``-zCDP when the noise multiplier is
``σ_dp = sens_Π(C)/√(2ρ)``. The sensitivity is the mechanism's own (:meth:`dptheory.Mechanism.sensitivity`):
``horizon = None`` is the streaming limit ``n → ∞`` (seed 004's ``γ∞``), which is right for a mechanism meant to
run forever and wrong for one built for ``n`` steps (a BLT of seed 003 can have ``γ_n ≈ 1.8`` and
``γ∞ ≈ 1.8·10³``).
"""

from __future__ import annotations

from .._validation import check_choice
from .zcdp import noise_multiplier

__all__ = ["calibrate_noise"]

#: The routes of a Toeplitz mechanism's limiting sensitivity (:meth:`dptheory.ToeplitzMechanism.limiting_sensitivity`).
_METHODS = ("auto", "closed_form", "time", "frequency")


def calibrate_noise(mechanism, *, rho, horizon=None, participation=None, method: str | None = None) -> float:
    r"""Noise multiplier that makes ``mechanism`` ``ρ``-zCDP over a horizon under a participation schema.

    Returns ``σ_dp = sens_Π(C; n)/√(2ρ)`` for ``mechanism`` over ``horizon = n`` steps (``None``: the streaming
    limit) under ``participation`` (``None``: single participation); ``math.inf`` where the sensitivity is
    infinite.

    Parameters
    ----------
    mechanism : Mechanism
        The mechanism whose sensitivity (:meth:`dptheory.Mechanism.sensitivity`) is calibrated to.
    rho : float in (0, inf)
        The zCDP target ``ρ``.
    horizon : int, optional
        The number of steps ``n``; ``None`` (default) is the streaming limit ``n → ∞``.
    participation : Participation, optional
        The participation schema ``Π``; ``None`` (default) is single participation.
    method : {"auto", "closed_form", "time", "frequency"}, optional
        Selects the route of a Toeplitz mechanism's limiting sensitivity
        (:meth:`dptheory.ToeplitzMechanism.limiting_sensitivity`); ``None`` (default) is the mechanism's own
        default.

    Returns
    -------
    float
        The noise multiplier ``σ_dp``, ``math.inf`` where the sensitivity is infinite.
    """
    routes = {} if method is None else {"method": check_choice("method", method, _METHODS)}
    return noise_multiplier(mechanism.sensitivity(horizon, participation, **routes), rho=rho)
