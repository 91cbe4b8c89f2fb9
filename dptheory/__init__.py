r"""dptheory: the theory of differentially private learning as executable, verified numbers.

The package face (every name below is loaded on first use, so ``import dptheory`` pays for no sub-package,
and none for sympy or cvxpy until a rate table or an SOCP bound is asked for):

* what noise is added — :mod:`dptheory.mechanisms`: one :class:`Mechanism` type (strategy ``C``, noising matrix
  ``N = C⁻¹``, sensitivity under a :class:`Participation`), the Toeplitz family of seed 004 and a
  :class:`DenseMechanism` for any explicit strategy;
* how privacy is counted — :mod:`dptheory.accounting`: zCDP ↔ (ε, δ), Gaussian DP, the DP-SGD accountants,
  and :func:`calibrate_noise`, the one calibration every consumer uses;
* what is optimised — :mod:`dptheory.problems`;
* the theory — :func:`F_inf` (seed 004 eq. 4, any horizon), :func:`F_inf_bound` (seed 004 Thm 3.1, an SOCP),
  the mean-estimation closed forms (Thm 2.1) and the rate tables (:mod:`dptheory.rates`);
* the simulation — :func:`simulate` (seed 004 Alg. 1, vectorised over chains, NumPy or CuPy);
* the statistics every result speaks — :mod:`dptheory.stats`;
* every mechanism side by side on one problem, horizon, participation and privacy — :func:`compare`
  (:mod:`dptheory.comparison`);
* the papers' own content — :mod:`dptheory.proactive` (seed 001) and :mod:`dptheory.isrl` (seed 002).

Notation and the words shared by the five papers: ``docs/notation.md``; errata: ``docs/errata.md``.
"""

from __future__ import annotations

from ._lazy import lazy_exports

__version__ = "0.2.0"

# name -> the submodule that defines it (each listed in that submodule's __all__; tests/test_architecture.py)
_EXPORTS = {
    "mechanisms": (
        "Mechanism", "Participation", "SINGLE_PARTICIPATION", "DenseMechanism", "dense_sensitivity", "ToeplitzMechanism",
        "FiniteToeplitz", "DampedAntiPGD", "SqrtToeplitz", "as_mechanism", "toeplitz", "dpsgd", "nu_ftrl", "optimal_cc",
        "anti_pgd", "damped_anti_pgd", "mean_estimation_optimal", "BLT", "nu_ftrl_blt", "TreeAggregation",
    ),
    "accounting": (
        "CONVERSION_METHODS", "noise_multiplier", "zcdp_to_epsilon", "epsilon_to_zcdp", "noise_multiplier_for", "calibrate_noise",
        "epsilon_from_rho",
    ),
    "problems": ("MeanEstimation", "LinearRegression", "StronglyConvex", "LOSSES"),
    "suboptimality": ("F_inf", "F_inf_lti_infimum", "mean_estimation_dpsgd", "mean_estimation_optimum", "mean_estimation_ratio"),
    "simulation": ("SimulationResult", "Truncation", "simulate", "simulate_common", "default_taps"),
    "iqc": ("BoundResult", "F_inf_bound", "OptimizedCorrelation", "optimize_correlation", "minimum_phase_factor"),
    "stats": ("Estimate",),
    "comparison": ("compare", "Comparison"),
}
_SUBMODULES = (
    "accounting", "backend", "claims", "hypotheses", "iqc", "isrl", "mechanisms", "problems", "proactive", "rates",
    "simulation", "special", "stats", "suboptimality", "symbolic", "blt", "treeagg", "comparison",
)
__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, _SUBMODULES)
