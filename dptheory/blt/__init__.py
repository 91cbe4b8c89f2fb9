r"""Seed 003, McMahan, Xu, Zhang, *A Hassle-free Algorithm for Private Learning in Practice: Don't Use Tree
Aggregation, Use BLTs* (arXiv 2408.08868): Buffered Linear Toeplitz mechanisms under multiple participations.

The mechanism itself lives in the shared layer (:class:`dptheory.BLT`, :mod:`dptheory.mechanisms.blt`), and so do
the prefix-sum losses of any mechanism (:mod:`dptheory.mechanisms.losses`); this package re-exports them beside
the paper's own content:

* :mod:`.optimizer` — Alg. 4 and §3.3: minimise MaxLoss or RmsLoss over the decay pair ``(θ, θ̂)``; and, beyond the
  paper, the BLT minimising a learning problem's ``F_n`` (seed 004's yardstick, :func:`optimize_for_learning`);
* :mod:`.production` — App. A's production BLTs and Table 4 / the launch numbers (ρ-zCDP and ε by the exact
  Gaussian privacy-loss curve).

Every loss here is **unsquared** (seed 003 Eq. 10); jax_privacy's loss is its square.
"""

from __future__ import annotations

from .._lazy import lazy_exports

_EXPORTS = {
    "_mechanisms": (
        "BLT", "output_scales", "blt_coeffs", "Participation", "PrefixLoss", "prefix_loss", "max_error", "rms_error",
        "max_loss", "rms_loss",
    ),
    "production": (
        "ProductionBLT", "PRODUCTION_BLTS", "production_blt", "Table4Row", "TABLE4", "LaunchNumber", "LAUNCH",
        "Table4Accounting", "account", "rho_to_epsilon", "zcdp_rho",
    ),
    "optimizer": ("optimize", "BLTOptimization", "theta_pair_loss", "theta_pair_gradient", "optimize_for_learning", "LearnedBLT"),
}
_SUBMODULES = ("optimizer", "production")
__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, _SUBMODULES)
