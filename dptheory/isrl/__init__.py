r"""Seed 002, Lowy & Razaviyayn, *Private Federated Learning Without a Trusted Server* (ICLR 2023): ISRL-DP.

* :mod:`.registry`: every rate (Thms 2.1, 2.2, 3.1, 4.1, F.3, 5.1, 5.2, H.1, D.3.5 and the prior work of
  Fig. 3) and round complexity as sympy expressions split into statistical / privacy / heterogeneity terms,
  with conditions, log factors as printed or dropped, the corrections of docs/errata.md, elasticities and crossovers;
* :mod:`.calibration`: the noise of Algorithm 2 (Thm D.1) and of the other variants, and the privacy lemmas they
  rest on (silo sampling, ISRL-DP ↔ user level, amplification by shuffling);
* :mod:`.schedules`: the batch sizes, rounds, step sizes and the multi-stage schedule the theorems prescribe
  (printed and corrected);
* :mod:`.spend`: what the calibrations spend: Alg. 2's in its own sampling model (with replacement: a bracket,
  :func:`~dptheory.isrl.spend.spend_bracket`) and in others, the one-pass calibration's exactly;
* :mod:`.problems` and :mod:`.simulation`: Noisy ISRL-DP MB-SGD, its accelerated one-pass and multi-stage
  variants and ISRL-DP local SGD, vectorised over seeds × silos × records on the array backend, on problems
  with exact ``F`` and ``F⋆``.

>>> from dptheory import isrl
>>> isrl.rate("isrl_iid_sc_up", logs="none").slope("n", term="priv")
-2
>>> round(isrl.sigma2_noisy_mbsgd(L=1, R=1000, n=1000, eps0=1, delta0=1e-6), 3)   # errata 002 C1
80.374
>>> isrl.silo_sampling_factor(N=10, M=3)
0.25925925925925924
"""

from .calibration import *  # noqa: F401,F403
from .schedules import *  # noqa: F401,F403
from .spend import *  # noqa: F401,F403
from .problems import *  # noqa: F401,F403
from .simulation import *  # noqa: F401,F403
from .registry import (  # noqa: F401  (not *: the registry's sympy symbols n, N, M, … stay in the module)
    FIGURE3_CONVENTIONS, SYMBOLS, Figure3Table, Rate, RateValue, RoundComplexity, crossover, dominant_term,
    figure3_table, rate, rates, round_complexities, rounds, smoothing_beta,
)
from . import calibration, problems, registry, schedules, simulation, spend  # noqa: F401
