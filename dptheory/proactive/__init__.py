r"""Seed 001, *Proactive DP* (van Dijk et al., ICML 2024): the closed-form DP-SGD guarantee, its DP
calculators, and its tightness against exact accountants.

* :mod:`.closed_form`: eq. (6) ``σ(ε, δ)`` and its inverse, the legacy σ of Tables 3–8, ``h``, ``g``, γ of
  eq. (55) (printed and corrected, one-step and smallest root), ``T_min``, ``s_max`` and the asymptotic pair;
* :mod:`.theorems`: Thms 3.1, B.2, B.4 and Lemma B.3 as checks that return every condition with its value;
* :mod:`.calculators`: the DP calculators of App. D.4 and E.1 (``python -m dptheory.proactive``);
* :mod:`.algorithm1`: what Alg. 1 *as written* (fixed batch, replace-one) spends, as a bracket: the exact ε of a
  realisable pair of data sets (lower) and the replace-one RDP bound (upper), with a verdict that says
  "undetermined" when ε_target lies between them;
* :mod:`dptheory.accounting` (shared with seed 002, re-exported here as ``dpt.proactive.exact_epsilon`` & co.):
  PLD, RDP, Gaussian-DP CLT, Monte-Carlo and fixed-batch replace-one accountants, each stating its sampling
  model and neighbouring relation; the exact minimal ``T``; δ(ε) from importance-sampled privacy losses;
* :mod:`.utility`: the utility graph of §3.3 / App. D.2;
* :mod:`.tables`: the printed Tables 6–11 with the corrections of docs/errata.md (seed 001).

>>> import dptheory as dpt
>>> round(dpt.proactive.sigma_from_eps(0.05, 1e-4), 3)
19.246
>>> r = dpt.proactive.calculator(12.10881, N=60_000, k=6, variant="paper")   # Table 10
>>> round(r.eps, 4), round(r.gamma, 4), int(r.s_max)
(0.1521, 5.2811, 288)
"""

from ..accounting import (  # noqa: F401  (seed 001's accountants, called as dpt.proactive.exact_epsilon & co.)
    ACCOUNTANTS, EpsilonResult, calibrate_sigma, exact_epsilon, exact_minimal_T, mc_delta, mc_epsilon,
    replace_one_sensitivity,
)
from .algorithm1 import *  # noqa: F401,F403
from .calculators import *  # noqa: F401,F403
from .closed_form import *  # noqa: F401,F403
from .theorems import *  # noqa: F401,F403
from .utility import *  # noqa: F401,F403
from . import algorithm1, calculators, closed_form, tables, theorems, utility  # noqa: F401
