r"""Privacy accounting shared by every paper of the toolkit.

* :mod:`.zcdp`: seed 004, Thm 1.1 noise multiplier and ρ-zCDP ↔ (ε, δ) (App. A.2, Bun–Steinke Prop. 1.3).

Every public function takes its first argument positionally and the others by keyword only, so that two
numbers of the same kind (ε and δ, σ and q, ...) cannot be swapped.

>>> from dptheory import accounting
>>> round(accounting.zcdp_to_epsilon(0.5, delta=1e-5), 4)
4.7284
"""

from . import zcdp
from .zcdp import *  # noqa: F401,F403

__all__ = [*zcdp.__all__]
