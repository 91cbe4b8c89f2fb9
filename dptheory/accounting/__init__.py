r"""Privacy accounting shared by every paper of the toolkit.

* :mod:`.models`: the sampling model and neighbouring relation of a result as values (:class:`Sampling`,
  :class:`Neighbouring`) and :class:`EpsilonResult`, an accountant's ε with its model;
* :mod:`.zcdp`: seed 004, Thm 1.1 noise multiplier and ρ-zCDP ↔ (ε, δ) (App. A.2, Bun–Steinke Prop. 1.3);
* :mod:`.classic`: the classic Gaussian mechanism, advanced composition and amplification by subsampling
  (Dwork–Roth Thms A.1, 3.20);
* :mod:`.gdp`: Gaussian DP (Dong–Roth–Su Cor. 2.13, seed 001 eq. (64)) and the CLT μ of DP-SGD (eq. (65));
* :mod:`.dpsgd`: PLD, RDP, CLT, Monte-Carlo and fixed-batch replace-one accountants of DP-SGD, the
  ``dp_accounting`` adapters, the fewest rounds and the smallest σ that certify a target;
* :mod:`.montecarlo`: δ(ε) and ε(δ) of DP-SGD from importance-sampled privacy losses, with a CI.

A public function whose arguments include two numbers or more takes its first argument positionally and the
others by keyword only, so that two numbers of the same kind (ε and δ, σ and q, ...) cannot be swapped.

>>> from dptheory import accounting
>>> round(accounting.zcdp_to_epsilon(0.5, delta=1e-5), 4)
4.7284
>>> accounting.exact_epsilon(2.0, q=1.0, T=1, delta=1e-5, accountant="clt_poisson").sampling
<Sampling.POISSON: 'Poisson sampling with rate q'>
"""

from . import classic, dpsgd, gdp, models, montecarlo, zcdp
from .classic import *  # noqa: F401,F403
from .dpsgd import *  # noqa: F401,F403
from .gdp import *  # noqa: F401,F403
from .models import *  # noqa: F401,F403
from .montecarlo import *  # noqa: F401,F403
from .zcdp import *  # noqa: F401,F403

__all__ = [*models.__all__, *zcdp.__all__, *classic.__all__, *gdp.__all__, *dpsgd.__all__, *montecarlo.__all__]
