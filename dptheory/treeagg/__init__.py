r"""Seed 000, Kairouz, McMahan, Song, Thakkar, Thakurta, Xu, *Practical and Private (Deep) Learning without Sampling
or Shuffling* (ICML 2021, appendix): DP-FTRL with binary-tree aggregation.

The tree mechanism (prefix sums by tree aggregation, vanilla and Honaker read-outs) lives in the shared layer
(``dptheory.mechanisms``); this package holds the paper's own content:

* :mod:`.accounting` — the node counts and squared sensitivities of one pass, tree restarts (D.1) and no restart
  (D.2, exact by a layer sweep and by the worst case over participation patterns), ρ, ε and σ, D.1's and C.3's
  σ formulas (errata 000 §2.11, §3);
* :mod:`.tables` — Tables 3–7 as printed, recomputed with the paper's formulas, and corrected (errata 000 §4);
* :mod:`.ftrl` — DP-FTRL (Alg. 1, with momentum, mini-batches, restarts, lazy projection), its Noisy-SGD form
  (Thm B.1) and DP-FTRL-LS (Alg. 2, with the PSD caveat handled), vectorised over chains (errata 000 §2.4–2.9);
* :mod:`.regret` — Thm C.1 printed and corrected (the missing factor L), λ* and R*, the concentration step's failure
  by Monte Carlo, and online logistic regression under the corrected bound (errata 000 §3, §5 #25, #26).

The ρ → ε conversions (classic, improved on all orders or on the paper's grid, exact Gaussian) are shared:
:func:`dptheory.accounting.epsilon_from_rho`.
"""

from __future__ import annotations

from .._lazy import lazy_exports

_EXPORTS = {
    "accounting": (
        "READOUTS", "NTR_VARIANTS", "SCHEMES", "ORDERS", "released_nodes",
        "pattern_sensitivity_sq", "single_pass_sensitivity_sq", "tr_sensitivity_sq", "ntr_sensitivity_sq",
        "ntr_per_example_sq", "worst_case_sensitivity_sq", "brute_force_sensitivity_sq", "tree_sensitivity_sq",
        "tree_rho", "tree_epsilon", "tree_sigma", "d1_sigma", "d1_achieved_epsilon", "c3_sigma", "c3_achieved_epsilon",
        "undercount_table",
    ),
    "ftrl": (
        "LinearLosses", "LogisticLosses", "NormLosses", "FTRLResult", "LSResult", "IndefiniteObjectiveError",
        "PSD_MODES", "tree_noise", "dp_ftrl", "noisy_sgd", "dp_ftrl_ls",
    ),
    "regret": (
        "c1_noise_radius", "c1_bound", "c1_lambda_star", "c1_r_star", "concentration_failure", "logistic_data",
        "hindsight_logistic", "RegretRun", "logistic_regret", "NormRegretRun", "c1_norm_regret",
    ),
    "experiment": (
        "METHODS", "HYPERPARAMETERS", "SyntheticData", "make_dataset", "method_sigma", "method_epsilon", "train",
        "test_accuracy", "ExperimentResult", "run_experiment",
    ),
}
_SUBMODULES = ("accounting", "tables")
__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, _SUBMODULES)
