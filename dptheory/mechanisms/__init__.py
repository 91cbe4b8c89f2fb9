r"""What noise is added, for every paper: one :class:`Mechanism` type (strategy ``C``, noising matrix
``N = C⁻¹``, sensitivity under a :class:`Participation`, row energies, its own noise stream) and its families.

* :mod:`.base` — :class:`Mechanism`, :class:`Participation`, :class:`DenseMechanism` and the dense routes that
  serve as oracles;
* :mod:`.toeplitz` — the Toeplitz family (seed 004's ``β``), with :mod:`.spectral` (inverse series, pole
  integrals, minimum-phase test) and :mod:`.streaming` (FIR / FFT noise, BLT buffers) beside it;
* :mod:`.workloads` — the workload ``W`` (prefix sums; momentum and learning-rate schedules) and its structure;
* :mod:`.losses` — seed 003's MaxError/RmsError and MaxLoss/RmsLoss of any mechanism (unsquared);
* :mod:`.blt` — Buffered Linear Toeplitz strategies (seed 003), a Toeplitz mechanism with closed forms;
* :mod:`.banded` — banded strategies (BandMF, Choquette-Choo et al. 2023; seed 003's baseline) and their optimiser,
  with :mod:`.banded_inverse` (``‖M⁻¹‖_F²`` of a banded ``M`` in ``O(n b̂²)``) beside it;
* :mod:`.bandtoep` — BandToep (McKenna 2024): the banded Toeplitz strategy optimised for a loss;
* :mod:`.tree` — binary-tree aggregation (seed 000; seed 003's TreeAgg-Full): a strategy with more rows than columns.
"""

from .base import *  # noqa: F401,F403
from .toeplitz import *  # noqa: F401,F403
from .blt import *  # noqa: F401,F403
from .workloads import *  # noqa: F401,F403
from .losses import *  # noqa: F401,F403
from .banded import *  # noqa: F401,F403
from .bandtoep import *  # noqa: F401,F403
from .tree import *  # noqa: F401,F403
from .base import __all__ as _base_all
from .toeplitz import __all__ as _toeplitz_all
from .blt import __all__ as _blt_all
from .workloads import __all__ as _workloads_all
from .losses import __all__ as _losses_all
from .banded import __all__ as _banded_all
from .bandtoep import __all__ as _bandtoep_all
from .tree import __all__ as _tree_all

__all__ = [*_base_all, *_toeplitz_all, *_blt_all, *_workloads_all, *_losses_all, *_banded_all, *_bandtoep_all, *_tree_all]
