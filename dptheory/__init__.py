r"""dptheory: the theory of differentially private learning as executable, verified numbers.

Seed 004 (Choquette-Choo et al., *Correlated Noise Provably Beats Independent Noise*, ICLR 2024): noise
correlations and their sensitivities (:mod:`dptheory.correlations`), privacy calibration
(:mod:`dptheory.accounting`), the asymptotic suboptimality ``F∞`` (:mod:`dptheory.suboptimality`), the rate
tables (:mod:`dptheory.rates`), the Monte-Carlo engine (:mod:`dptheory.simulation`) and the
frequency-domain bound for strongly convex losses (:mod:`dptheory.iqc`). Notation: ``docs/notation.md``.
"""

from .accounting import *  # noqa: F401,F403
from .mechanisms import *  # noqa: F401,F403
from .problems import *  # noqa: F401,F403
from .suboptimality import *  # noqa: F401,F403
from .simulation import *  # noqa: F401,F403
from .iqc import *  # noqa: F401,F403
from . import isrl, proactive  # noqa: F401  (seed 002: dpt.isrl.*, seed 001: dpt.proactive.*)
from . import accounting, backend, claims, iqc, mechanisms, problems, rates, simulation, special, suboptimality  # noqa: F401

__version__ = "0.1.0"
