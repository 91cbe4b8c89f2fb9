r"""Seed 000's privacy accounting of tree aggregation (App. B.2, C.3, D.1, D.2), exact and as printed.

Normalisation (errata 000 §2.11, §2.6): σ is the noise multiplier, each tree node gets noise of standard
deviation σ·L (σ·L/b with mini-batches of b, whose per-leaf sensitivity is L/b), so every squared sensitivity
below is in units of the per-leaf sensitivity squared and **ρ = S²/(2σ²)**.

The tree over N leaves (steps) has the dyadic nodes ``(k, j)``, covering leaves ``[j·2^k, (j + 1)·2^k)``
(0-based), ``k = 0 … ⌈lg N⌉``. A node is *complete* when all its leaves are ≤ N. Which nodes are *released*
depends on the read-out (``readout=``):

* ``"vanilla"`` (B.1's GetSum): the complete nodes with ``j`` even (left children, and the root when N is a
  power of two) — exactly the dyadic decomposition of every prefix [1, t];
* ``"all"`` (the Honaker read-out GetSumReducedVariance, and TensorFlow Privacy's accountant): every complete node.

Sensitivities (errata 000 §2.11, §3):

* one pass: the most released nodes containing a leaf is ``⌊lg n⌋ + 1 = ⌈lg(n + 1)⌉`` for both read-outs
  (:func:`tree_depth`); the paper's ``⌈lg n⌉`` (``variant="paper"``) is one short when n is a power of two
  (errata 000 §2.11, §5 #11);
* restarts (DP-FTRL-TR, D.1): a fresh tree per epoch, ``S² = Σ_e (⌊lg n_e⌋ + 1)`` (:func:`tr_sensitivity_sq`;
  trees of different sizes: ``n=[n_1, n_2, …]`` in :func:`tree_rho`, :func:`tree_epsilon`, :func:`tree_sigma`);
* no restart (DP-FTRL-NTR, D.2): one tree over ``nE`` leaves, the example at leaves ``i, i + n, …`` (the same
  order every epoch); ``S² = max_i Σ_released nodes c_node²``, ``c_node`` the number of the example's leaves in
  the node, computed by a sweep over the levels (:func:`ntr_sensitivity_sq`), and over every participation
  pattern with at most ``m`` participations ``min_separation`` apart (:func:`worst_case_sensitivity_sq`, the
  quantity of TensorFlow Privacy's ``compute_rdp_single_tree``; the front ends' ``order="any"``, for data whose
  order is not the same every epoch: 211 against the fixed order's 205 at n = 30, E = 10, ``readout="all"``;
  :func:`tree_sensitivity_sq`). D.2 prints ``E⌈lg(nE)⌉``
  (``variant="paper"``), an under-count by up to ~40× (errata 000 §3, §5 #20, #21).

σ formulas: D.1's ``σ = √(E k ln(1/δ))/ε`` delivers ``ε' = √2·ε + ε²/(2 ln(1/δ)) > ε`` under the classic
conversion (:func:`d1_achieved_epsilon`); ``2√(E k ln(1/δ))/ε`` is the correction (valid for ε ≤ 2.34 ln(1/δ));
C.3's ``σ = 2√k ln(1/δ)/ε`` (two trees, ρ = k/σ²) is valid (errata 000 §3, §5 #22, #23).

>>> from dptheory.treeagg import accounting as ta
>>> ta.single_pass_sensitivity_sq(1024), ta.tr_sensitivity_sq([1024], variant="paper")   # ⌊lg n⌋ + 1 vs ⌈lg n⌉
(11, 10)
>>> ta.ntr_sensitivity_sq(100, epochs=100, readout="vanilla"), ta.ntr_sensitivity_sq(100, epochs=100, variant="paper")
(10784, 1400)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from .._validation import check_in_interval, check_int, check_positive_int, check_size
from ..accounting.conversions import epsilon_from_rho, sigma_for_epsilon
from ..mechanisms.base import Participation
from ..mechanisms.tree import TreeAggregation, tree_depth, tree_nodes  # the one definition of the tree (errata 000 §2.11)

__all__ = [
    "READOUTS", "NTR_VARIANTS", "SCHEMES", "ORDERS",
    "released_nodes", "pattern_sensitivity_sq", "single_pass_sensitivity_sq", "tr_sensitivity_sq",
    "ntr_sensitivity_sq", "ntr_per_example_sq", "worst_case_sensitivity_sq", "brute_force_sensitivity_sq",
    "tree_sensitivity_sq", "tree_rho", "tree_epsilon", "tree_sigma",
    "d1_sigma", "d1_achieved_epsilon", "c3_sigma", "c3_achieved_epsilon", "undercount_table",
]

#: ``readout=``: which nodes are released (module docstring).
READOUTS = ("vanilla", "all")
#: The :class:`~dptheory.mechanisms.TreeAggregation` read-out releasing the same nodes as each of :data:`READOUTS`
#: (``"full"`` releases the same nodes as ``"honaker"``: the same strategy ``C``, another decoder).
_MECHANISM_READOUT = {"vanilla": "vanilla", "all": "honaker"}
#: ``variant=`` of the no-restart sensitivity: ``"exact"`` (sweep), ``"paper"`` E⌈lg nE⌉ (D.2),
#: ``"upper"`` E²(⌊lg nE⌋ + 1) (a valid simple bound).
NTR_VARIANTS = ("exact", "paper", "upper")
#: ``scheme=``: one pass, restart every epoch (D.1), no restart (D.2).
SCHEMES = ("single", "restart", "no_restart")
#: ``order=`` of ``scheme="no_restart"``: ``"fixed"`` (the same data order every epoch, example i at leaves
#: i, i + n, …; :func:`ntr_sensitivity_sq`) or ``"any"`` (the worst case over every pattern of at most E
#: participations at least n steps apart; :func:`worst_case_sensitivity_sq`, TF-Privacy's accounting).
ORDERS = ("fixed", "any")


def _check_choice(name: str, value, choices) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


#: Bytes per leaf of :func:`ntr_per_example_sq`'s layer sweep (the ``n × E`` int64 table and five temporaries)
_SWEEP_BYTES = 48.0


def _check_n(name: str, n) -> int:
    return check_positive_int(name, n)


def _schedule(n, name: str = "n") -> list[int] | None:
    """``n`` as a restart schedule (a list, tuple, other sequence or 1-d array of tree sizes), or None for one count.

    ``name`` is the caller's parameter, for the messages (``"n"`` here, ``"restart_every"`` of
    :func:`~dptheory.treeagg.ftrl.dp_ftrl`)."""
    if isinstance(n, np.ndarray) and n.ndim > 0:
        if n.ndim != 1:
            raise ValueError(f"{name} must be a positive integer or a 1-d list of tree sizes, got shape {n.shape}")
        n = n.tolist()
    if not isinstance(n, Sequence) or isinstance(n, (str, bytes)):
        return None
    n = list(n)
    if not n:
        raise ValueError(f"{name} must be a positive integer or a non-empty list of tree sizes (one per restart), "
                         f"got {n!r}")
    return [_check_n(f"{name}[{i}]", v) for i, v in enumerate(n)]


# -- node counts --------------------------------------------------------------------------------------------------


def released_nodes(n_leaves, *, readout: str = "vanilla") -> list[tuple[int, int]]:
    """The released nodes ``(k, j)`` (leaves ``[j·2^k, (j + 1)·2^k)``, 0-based) of a tree over ``n_leaves`` steps.

    Parameters
    ----------
    n_leaves : int
        Number of leaves (steps), at least 1.
    readout : {"vanilla", "all"}, default "vanilla"
        Which nodes are released (:data:`READOUTS`): the left children (GetSum) or every complete node (Honaker).

    Returns
    -------
    list of tuple of int
        The released nodes ``(k, j)``, sorted.

    Raises
    ------
    ValueError
        If an argument lies outside its range or a choice is unknown.
    """
    N = _check_n("n_leaves", n_leaves)
    readout = _check_choice("readout", readout, READOUTS)
    nodes = tree_nodes(N, "vanilla" if readout == "vanilla" else "honaker")  # "all": every complete node
    return sorted((int(level), int(j)) for level, j, _ in nodes)


def _released(j: np.ndarray, k: int, N: int, readout: str) -> np.ndarray:
    complete = (j + 1) << k <= N
    return complete if readout == "all" else complete & (j % 2 == 0)


def pattern_sensitivity_sq(leaves, *, n_leaves, readout: str = "vanilla") -> int:
    """``Σ_released nodes c_node²`` for one example at the given 0-based ``leaves`` of a tree over ``n_leaves``.

    Parameters
    ----------
    leaves : iterable of int
        The example's distinct 0-based leaves, in ``[0, n_leaves − 1]``.
    n_leaves : int
        Number of leaves of the tree, at least 1.
    readout : {"vanilla", "all"}, default "vanilla"
        Which nodes are released (:data:`READOUTS`): the left children (GetSum) or every complete node (Honaker).

    Returns
    -------
    int
        ``Σ_released nodes c_node²``, ``c_node`` the number of the example's leaves in the node.

    Raises
    ------
    ValueError
        If an argument lies outside its range or a choice is unknown.
    """
    N = _check_n("n_leaves", n_leaves)
    readout = _check_choice("readout", readout, READOUTS)
    pos = np.asarray(sorted(int(x) for x in leaves), dtype=np.int64)
    if pos.size and (pos[0] < 0 or pos[-1] >= N or np.any(np.diff(pos) == 0)):
        raise ValueError(f"leaves must be distinct integers in [0, {N - 1}], got {list(pos)!r:.80}")
    total = 0
    for k in range(N.bit_length()):
        j, c = np.unique(pos >> k, return_counts=True)
        total += int(np.sum(c[_released(j, k, N, readout)] ** 2))
    return total


def ntr_per_example_sq(n, *, epochs, readout: str = "vanilla") -> np.ndarray:
    """``Σ_released nodes c_node²`` for each example ``i = 0 … n − 1`` of DP-FTRL-NTR.

    The example ``i`` sits at leaves ``i + e·n``,
    ``e < epochs``, of one tree over ``n·epochs`` leaves (the same order every epoch; errata 000 §2.7, §2.11).

    The layer sweep: at level k the example's leaves fall into nodes ``(i + e n) >> k``, non-decreasing in e, so
    ``c²`` summed over a run of equal nodes is ``Σ_e (2·(rank of e in its run) + 1)``; O(n·E·lg(nE)).

    Parameters
    ----------
    n : int
        Steps per epoch, at least 1.
    epochs : int
        Number of epochs ``E``, at least 1.
    readout : {"vanilla", "all"}, default "vanilla"
        Which nodes are released (:data:`READOUTS`): the left children (GetSum) or every complete node (Honaker).

    Returns
    -------
    numpy.ndarray
        One ``int64`` per example ``i = 0 … n − 1``.

    Raises
    ------
    ValueError
        If an argument lies outside its range or a choice is unknown.
    """
    n = _check_n("n", n)
    E = _check_n("epochs", epochs)
    readout = _check_choice("readout", readout, READOUTS)
    check_size("n", n, lambda m: _SWEEP_BYTES * m, what="the layer sweep's leaf table")
    check_size("epochs", E, lambda e: _SWEEP_BYTES * n * e, what=f"the layer sweep's n x epochs leaf table (n = {n})")
    N = n * E
    leaves = np.arange(n, dtype=np.int64)[:, None] + n * np.arange(E, dtype=np.int64)[None, :]
    out = np.zeros(n, dtype=np.int64)
    idx = np.arange(E)
    for k in range(N.bit_length()):
        j = leaves >> k
        start = np.ones_like(j, dtype=bool)
        start[:, 1:] = j[:, 1:] != j[:, :-1]
        run_start = np.maximum.accumulate(np.where(start, idx, 0), axis=1)
        weight = 2 * (idx - run_start) + 1
        out += np.sum(np.where(_released(j, k, N, readout), weight, 0), axis=1)
    return out


def single_pass_sensitivity_sq(n, *, readout: str = "vanilla") -> int:
    """The most released nodes containing one leaf of a tree over ``n`` steps, by the layer sweep (= ⌊lg n⌋ + 1).

    Parameters
    ----------
    n : int
        Number of steps, at least 1.
    readout : {"vanilla", "all"}, default "vanilla"
        Which nodes are released (:data:`READOUTS`): the left children (GetSum) or every complete node (Honaker).

    Returns
    -------
    int
        ``⌊lg n⌋ + 1``.

    Raises
    ------
    ValueError
        If an argument lies outside its range or a choice is unknown.
    """
    return int(ntr_per_example_sq(n, epochs=1, readout=readout).max())


def tr_sensitivity_sq(steps, *, epochs: int | None = None, variant: str = "exact") -> int:
    """DP-FTRL-TR (D.1): ``Σ_e tree_depth(n_e)`` over the trees.

    ``steps`` is one count per tree, or one count repeated ``epochs`` times (errata 000 §2.11).

    Parameters
    ----------
    steps : int or sequence of int
        Steps per tree: one positive count per tree, or a single count repeated ``epochs`` times.
    epochs : int, optional
        Number of trees when ``steps`` is a single count (default 1); not allowed with a sequence.
    variant : {"exact", "paper"}, default "exact"
        Depth of one tree: ``⌊lg n⌋ + 1`` (``"exact"``) or the printed ``⌈lg n⌉`` (``"paper"``).

    Returns
    -------
    int
        ``Σ_e tree_depth(n_e)``.

    Raises
    ------
    ValueError
        If ``epochs`` is given with a sequence, ``steps`` is empty, or a count or ``variant`` is invalid.
    """
    if isinstance(steps, (int, np.integer)):  # E equal trees: E times one depth, whatever E
        return _check_n("epochs", 1 if epochs is None else epochs) * tree_depth(steps, variant=variant)
    if epochs is not None:
        raise ValueError(f"epochs applies to a single steps count, got steps={steps!r:.40} and epochs={epochs!r}")
    steps = list(steps)
    if not steps:
        raise ValueError("steps must be a positive integer or a non-empty sequence of them, got []")
    return sum(tree_depth(s, variant=variant) for s in steps)


def ntr_sensitivity_sq(n, *, epochs, readout: str = "vanilla", variant: str = "exact") -> int:
    """DP-FTRL-NTR (D.2) squared sensitivity over ``n`` steps per epoch and ``epochs`` epochs.

    ``"exact"``: ``max_i`` of :func:`ntr_per_example_sq`; ``"paper"``: D.2's ``E⌈lg(nE)⌉`` (wrong, errata 000 §3);
    ``"upper"``: ``E²(⌊lg nE⌋ + 1)`` (valid: ``Σc² ≤ max c · Σc``).

    Parameters
    ----------
    n : int
        Steps per epoch, at least 1.
    epochs : int
        Number of epochs ``E``, at least 1.
    readout : {"vanilla", "all"}, default "vanilla"
        Which nodes are released (:data:`READOUTS`): the left children (GetSum) or every complete node (Honaker).
    variant : {"exact", "paper", "upper"}, default "exact"
        One of :data:`NTR_VARIANTS`, as above.

    Returns
    -------
    int
        The squared sensitivity ``S²``.

    Raises
    ------
    ValueError
        If an argument lies outside its range or a choice is unknown.
    """
    n = _check_n("n", n)
    E = _check_n("epochs", epochs)
    variant = _check_choice("variant", variant, NTR_VARIANTS)
    readout = _check_choice("readout", readout, READOUTS)
    if variant == "paper":
        return E * tree_depth(n * E, variant="paper")
    if variant == "upper":
        return E * E * tree_depth(n * E)
    return int(ntr_per_example_sq(n, epochs=E, readout=readout).max())


# -- worst case over participation patterns -----------------------------------------------------------------------


def worst_case_sensitivity_sq(steps, *, max_participations, min_separation, readout: str = "all") -> int:
    """``max Σ_released nodes c_node²`` over every participation pattern allowed among ``steps`` leaves.

    The maximum is over every pattern of at most ``max_participations`` leaves among ``steps``,
    consecutive ones at least ``min_separation`` leaves apart (``min_separation = y − x − 1`` for leaves x < y):
    the quantity of TensorFlow Privacy's ``compute_rdp_single_tree`` (D.2's corrected accounting, errata 000 §2.11),
    with its signature and conventions.

    It is the squared sensitivity of :class:`~dptheory.mechanisms.TreeAggregation` and is computed there:
    ``TreeAggregation(r).sensitivity_sq(steps, Participation.from_min_separation(min_separation,
    max_participations=max_participations))`` with ``r = "honaker"`` for ``readout="all"`` (``"full"`` releases
    the same nodes) and ``r = "vanilla"`` for ``"vanilla"``; ``Participation``'s ``min_sep = b`` is
    ``min_separation + 1`` (docs/notation.md, "Tree accounting: TF-Privacy's conventions"). There one of two exact
    dynamic programmes answers: over the patterns left to right, or over the dyadic subtrees (the vanilla read-out
    at TF-Privacy's MNIST scale, ``(4800, 80, 59)``: 7552 in about two seconds; ``_subtree_pattern_energies`` of
    :mod:`dptheory.mechanisms.tree`, the faster successor of the former subtree programme, now the tests' oracle
    in ``tests/tree_oracles.py``, which caps the participations per subtree). Beyond both budgets only bounds are known and this raises.

    Parameters
    ----------
    steps : int
        Number of leaves (steps), at least 1.
    max_participations : int
        Most participations of one example, at least 1.
    min_separation : int
        Least number of leaves strictly between two consecutive participations, at least 0.
    readout : {"vanilla", "all"}, default "all"
        Which nodes are released (:data:`READOUTS`): the left children (GetSum) or every complete node (Honaker).

    Returns
    -------
    int
        The largest ``Σ_released nodes c_node²`` over the allowed patterns.

    Raises
    ------
    ValueError
        If an argument lies outside its range or a choice is unknown, or beyond both programmes' budgets (the
        message gives the bounds; :meth:`~dptheory.mechanisms.TreeAggregation.sensitivity_report`).

    Examples
    --------
    >>> worst_case_sensitivity_sq(513, max_participations=5, min_separation=99)
    82
    """
    N = _check_n("steps", steps)
    M = _check_n("max_participations", max_participations)
    sep = check_int("min_separation", min_separation, 0)
    readout = _check_choice("readout", readout, READOUTS)
    participation = Participation.from_min_separation(sep, max_participations=M)
    return TreeAggregation(_MECHANISM_READOUT[readout]).sensitivity_sq(N, participation)


def brute_force_sensitivity_sq(steps, *, max_participations, min_separation, readout: str = "all") -> int:
    """:func:`worst_case_sensitivity_sq` by enumerating every pattern (tiny cases; the tests' independent route).

    Parameters
    ----------
    steps : int
        Number of leaves (steps), at least 1.
    max_participations : int
        Most participations of one example, at least 1.
    min_separation : int
        Least number of leaves strictly between two consecutive participations, at least 0.
    readout : {"vanilla", "all"}, default "all"
        Which nodes are released (:data:`READOUTS`): the left children (GetSum) or every complete node (Honaker).

    Returns
    -------
    int
        The largest ``Σ_released nodes c_node²`` over the allowed patterns.

    Raises
    ------
    ValueError
        If an argument lies outside its range or a choice is unknown.
    """
    N = _check_n("steps", steps)
    M = _check_n("max_participations", max_participations)
    sep = check_int("min_separation", min_separation, 0)
    best = 0
    for m in range(1, M + 1):
        for pos in itertools.combinations(range(N), m):
            if all(b - a > sep for a, b in zip(pos, pos[1:])):
                best = max(best, pattern_sensitivity_sq(pos, n_leaves=N, readout=readout))
    return best


# -- ρ, ε and σ -----------------------------------------------------------------------------------------------------


def tree_sensitivity_sq(n, *, epochs=None, scheme: str = "single", readout: str = "vanilla", variant: str = "exact",
                        order: str = "fixed") -> int:
    """S² of a scheme: ``"single"`` (one pass, B.2), ``"restart"`` (D.1), ``"no_restart"`` (D.2).

    ``variant="paper"`` gives the paper's count (⌈lg n⌉, E⌈lg n⌉, E⌈lg nE⌉); ``"upper"`` exists for
    ``"no_restart"`` only. ``readout`` matters for ``"no_restart"`` only (one pass: both give ⌊lg n⌋ + 1).

    Restarts with trees of different sizes: ``n`` a schedule, one size per tree, with ``scheme="restart"``; the
    trees compose (ρ adds), so ``S² = Σ_e (⌊lg n_e⌋ + 1)`` (:func:`tr_sensitivity_sq`), and ``n = [m] * E`` gives
    exactly ``n = m, epochs = E``.

    **Data order (``"no_restart"``).** The default ``order="fixed"`` assumes the same data order every epoch:
    example i sits at steps i, i + n, …, i + (E − 1)n of the one tree over nE steps (:func:`ntr_sensitivity_sq`).
    ``order="any"`` drops that assumption: the worst case over every pattern of at most E participations at least
    n steps apart, ``TreeAggregation(r).sensitivity_sq(nE, Participation(max_participations=E, min_sep=n))``
    (:func:`worst_case_sensitivity_sq` with ``min_separation = n − 1``, TF-Privacy's ``compute_rdp_single_tree``;
    ``r = "honaker"`` for ``readout="all"``, ``"vanilla"`` for ``"vanilla"``). At n = 30, E = 10 with
    ``readout="all"`` the fixed order gives 205 and ``"any"`` 211. Use ``"any"`` when the order may change
    between epochs but an example's participations stay at least n steps apart; use ``"fixed"`` only when the
    order is the same every epoch. Reshuffling independently every epoch can put two participations of one example
    on adjacent steps, which neither covers (e.g. n = 5, E = 3, ``"all"``: 13 fixed, 13 any, 17 reshuffled): then
    use ``variant="upper"``, ``E²(⌊lg nE⌋ + 1)``, valid for every pattern of at most E participations, or
    ``TreeAggregation(r).sensitivity_sq(nE, Participation(max_participations=E, min_sep=1))``. ``order`` changes
    ``variant="exact"`` only.

    Parameters
    ----------
    n : int or sequence of int
        Steps per epoch (per tree for ``"restart"``), at least 1; with ``scheme="restart"`` also a schedule: a
        non-empty list or tuple of tree sizes, one tree per restart (``[1000, 1000, 500]``), each a positive integer.
    epochs : int, optional
        Number of epochs ``E`` (default 1, or ``len(n)`` for a schedule, which it must then equal); must be 1
        for ``"single"``.
    scheme : {"single", "restart", "no_restart"}, default "single"
        One pass, a tree restart every epoch, or one tree over all epochs (:data:`SCHEMES`).
    readout : {"vanilla", "all"}, default "vanilla"
        Which nodes are released (:data:`READOUTS`): the left children (GetSum) or every complete node (Honaker).
    variant : {"exact", "paper", "upper"}, default "exact"
        The exact count, the paper's, or (``"no_restart"`` only) the simple upper bound.
    order : {"fixed", "any"}, default "fixed"
        ``"no_restart"`` only (:data:`ORDERS`): the same data order every epoch, or the worst case over every
        order keeping an example's participations at least n steps apart (above: reshuffled epochs are covered by
        neither).

    Returns
    -------
    int
        The squared sensitivity ``S²``, in units of the per-leaf sensitivity squared.

    Raises
    ------
    ValueError
        If an argument lies outside its range or a choice is unknown.

    Examples
    --------
    >>> tree_sensitivity_sq([1000, 1000, 500], scheme="restart")    # 10 + 10 + 9
    29
    >>> [tree_sensitivity_sq(30, epochs=10, scheme="no_restart", readout="all", order=o) for o in ORDERS]
    [205, 211]
    """
    scheme = _check_choice("scheme", scheme, SCHEMES)
    order = _check_choice("order", order, ORDERS)
    schedule = _schedule(n)
    if schedule is not None:
        if scheme != "restart":
            raise ValueError(f"n as a list of tree sizes (a restart schedule) needs scheme='restart', got "
                             f"scheme={scheme!r}")
        if epochs is not None and _check_n("epochs", epochs) != len(schedule):
            raise ValueError(f"epochs must equal len(n) = {len(schedule)} with a schedule n (one tree per restart), "
                             f"got {epochs!r}")
        return tr_sensitivity_sq(schedule, variant=_check_choice("variant", variant, ("exact", "paper")))
    n = _check_n("n", n)
    E = _check_n("epochs", 1 if epochs is None else epochs)
    if scheme == "single":
        if E != 1:
            raise ValueError(f"epochs must be 1 for scheme='single', got {epochs!r}")
        return tree_depth(n, variant=_check_choice("variant", variant, ("exact", "paper")))
    if scheme == "restart":
        return tr_sensitivity_sq(n, epochs=E, variant=_check_choice("variant", variant, ("exact", "paper")))
    if order == "any" and _check_choice("variant", variant, NTR_VARIANTS) == "exact":
        return worst_case_sensitivity_sq(n * E, max_participations=E, min_separation=n - 1,
                                         readout=_check_choice("readout", readout, READOUTS))
    return ntr_sensitivity_sq(n, epochs=E, readout=readout, variant=variant)


def tree_rho(sigma, *, n, epochs=None, scheme: str = "single", readout: str = "vanilla", variant: str = "exact",
             order: str = "fixed") -> float:
    """ρ-zCDP of tree aggregation with noise multiplier σ: ``ρ = S²/(2σ²)`` (errata 000 §2.11).

    S² is :func:`tree_sensitivity_sq`'s: a restart schedule ``n = [n_1, n_2, …]`` composes its trees
    (``ρ = Σ_e ρ_e``); ``scheme="no_restart"`` assumes the same data order every epoch unless ``order="any"``
    (see there: ``"any"`` still assumes participations at least n steps apart; reshuffled epochs need
    ``variant="upper"``).

    Parameters
    ----------
    sigma : float in (0, inf)
        Noise multiplier σ.
    n : int or sequence of int
        Steps per epoch (per tree for ``"restart"``), at least 1; with ``scheme="restart"`` also a schedule: a
        non-empty list or tuple of tree sizes, one tree per restart (``[1000, 1000, 500]``), each a positive integer.
    epochs : int, optional
        Number of epochs ``E`` (default 1, or ``len(n)`` for a schedule, which it must then equal); must be 1
        for ``"single"``.
    scheme : {"single", "restart", "no_restart"}, default "single"
        One pass, a tree restart every epoch, or one tree over all epochs (:data:`SCHEMES`).
    readout : {"vanilla", "all"}, default "vanilla"
        Which nodes are released (:data:`READOUTS`): the left children (GetSum) or every complete node (Honaker).
    variant : {"exact", "paper", "upper"}, default "exact"
        The exact count, the paper's, or (``"no_restart"`` only) the simple upper bound.
    order : {"fixed", "any"}, default "fixed"
        ``"no_restart"`` only (:data:`ORDERS`): the same data order every epoch, or the worst case over every
        order keeping an example's participations at least n steps apart (:func:`tree_sensitivity_sq`).

    Returns
    -------
    float
        ρ.

    Raises
    ------
    ValueError
        If an argument lies outside its range or a choice is unknown.
    """
    sigma = check_in_interval("sigma", sigma, 0.0, math.inf)
    s2 = tree_sensitivity_sq(n, epochs=epochs, scheme=scheme, readout=readout, variant=variant, order=order)
    return s2 / (2.0 * sigma * sigma)


def tree_epsilon(sigma, *, n, delta, epochs=None, scheme: str = "single", readout: str = "vanilla",
                 variant: str = "exact", conversion: str = "exact", orders=None, order: str = "fixed") -> float:
    """ε at δ of :func:`tree_rho` through :func:`~dptheory.accounting.epsilon_from_rho`.

    ``conversion`` and ``orders`` (Rényi orders) are as there; the default ``"exact"`` is the Gaussian curve with
    ``μ = S/σ``. ``n`` may be a restart schedule (``[1000, 1000, 500]`` with ``scheme="restart"``: the trees'
    ρ add); ``scheme="no_restart"`` assumes the same data order every epoch unless ``order="any"``
    (:func:`tree_sensitivity_sq`: ``"any"`` still assumes participations at least n steps apart).

    Parameters
    ----------
    sigma : float in (0, inf)
        Noise multiplier σ.
    n : int or sequence of int
        Steps per epoch (per tree for ``"restart"``), at least 1; with ``scheme="restart"`` also a schedule: a
        non-empty list or tuple of tree sizes, one tree per restart (``[1000, 1000, 500]``), each a positive integer.
    delta : float in (0, 1)
        The target δ.
    epochs : int, optional
        Number of epochs ``E`` (default 1, or ``len(n)`` for a schedule, which it must then equal); must be 1
        for ``"single"``.
    scheme : {"single", "restart", "no_restart"}, default "single"
        One pass, a tree restart every epoch, or one tree over all epochs (:data:`SCHEMES`).
    readout : {"vanilla", "all"}, default "vanilla"
        Which nodes are released (:data:`READOUTS`): the left children (GetSum) or every complete node (Honaker).
    variant : {"exact", "paper", "upper"}, default "exact"
        The exact count, the paper's, or (``"no_restart"`` only) the simple upper bound.
    conversion : {"classic", "improved", "exact"}, default "exact"
        The ρ → ε conversion of :func:`~dptheory.accounting.epsilon_from_rho`.
    orders : None, "paper" or sequence of float, optional
        Rényi orders of the ``"improved"`` conversion, as in :func:`~dptheory.accounting.epsilon_from_rho`.
    order : {"fixed", "any"}, default "fixed"
        ``"no_restart"`` only (:data:`ORDERS`): the same data order every epoch, or the worst case over every
        order keeping an example's participations at least n steps apart (:func:`tree_sensitivity_sq`).

    Returns
    -------
    float
        ε at ``delta``.

    Raises
    ------
    ValueError
        If an argument lies outside its range or a choice is unknown.
    """
    rho = tree_rho(sigma, n=n, epochs=epochs, scheme=scheme, readout=readout, variant=variant, order=order)
    return epsilon_from_rho(rho, delta=delta, conversion=conversion, orders=orders)


def tree_sigma(epsilon, *, n, delta, epochs=None, scheme: str = "single", readout: str = "vanilla",
               variant: str = "exact", conversion: str = "exact", orders=None, order: str = "fixed") -> float:
    """The smallest σ meeting ``(ε, δ)`` exactly.

    By root finding through :func:`~dptheory.accounting.conversions.sigma_for_epsilon`; errata 000 §5 #24.
    ``n`` may be a restart schedule (``[1000, 1000, 500]`` with ``scheme="restart"``); ``scheme="no_restart"``
    assumes the same data order every epoch unless ``order="any"`` (:func:`tree_sensitivity_sq`: ``"any"``
    still assumes participations at least n steps apart).

    Parameters
    ----------
    epsilon : float in (0, inf)
        The target ε.
    n : int or sequence of int
        Steps per epoch (per tree for ``"restart"``), at least 1; with ``scheme="restart"`` also a schedule: a
        non-empty list or tuple of tree sizes, one tree per restart (``[1000, 1000, 500]``), each a positive integer.
    delta : float in (0, 1)
        The target δ.
    epochs : int, optional
        Number of epochs ``E`` (default 1, or ``len(n)`` for a schedule, which it must then equal); must be 1
        for ``"single"``.
    scheme : {"single", "restart", "no_restart"}, default "single"
        One pass, a tree restart every epoch, or one tree over all epochs (:data:`SCHEMES`).
    readout : {"vanilla", "all"}, default "vanilla"
        Which nodes are released (:data:`READOUTS`): the left children (GetSum) or every complete node (Honaker).
    variant : {"exact", "paper", "upper"}, default "exact"
        The exact count, the paper's, or (``"no_restart"`` only) the simple upper bound.
    conversion : {"classic", "improved", "exact"}, default "exact"
        The ρ → ε conversion of :func:`~dptheory.accounting.epsilon_from_rho`.
    orders : None, "paper" or sequence of float, optional
        Rényi orders of the ``"improved"`` conversion, as in :func:`~dptheory.accounting.epsilon_from_rho`.
    order : {"fixed", "any"}, default "fixed"
        ``"no_restart"`` only (:data:`ORDERS`): the same data order every epoch, or the worst case over every
        order keeping an example's participations at least n steps apart (:func:`tree_sensitivity_sq`).

    Returns
    -------
    float
        The smallest noise multiplier σ.

    Raises
    ------
    ValueError
        If an argument lies outside its range or a choice is unknown.
    """
    s2 = tree_sensitivity_sq(n, epochs=epochs, scheme=scheme, readout=readout, variant=variant, order=order)
    return sigma_for_epsilon(epsilon, delta=delta, sensitivity_sq=s2, conversion=conversion, orders=orders)


def _log_inv_delta(delta) -> float:
    return -math.log(check_in_interval("delta", delta, 0.0, 1.0))


def d1_sigma(epsilon, *, n, delta, epochs=1, variant: str = "paper") -> float:
    """D.1's noise multiplier (also Thm 3.1 at E = 1), as printed or corrected.

    ``"paper"`` ``σ = √(E⌈lg n⌉ ln(1/δ))/ε`` as printed (the L² dropped: σ is a
    noise multiplier); ``"corrected"`` ``σ = 2√(E(⌊lg n⌋ + 1) ln(1/δ))/ε`` (errata 000 §3).

    Parameters
    ----------
    epsilon : float in (0, inf)
        The target ε.
    n : int
        Steps per epoch, at least 1.
    delta : float in (0, 1)
        The target δ.
    epochs : int, default 1
        Number of epochs ``E``.
    variant : {"paper", "corrected"}, default "paper"
        The printed formula or the corrected one.

    Returns
    -------
    float
        The noise multiplier σ.

    Raises
    ------
    ValueError
        If an argument lies outside its range or a choice is unknown.
    """
    epsilon = check_in_interval("epsilon", epsilon, 0.0, math.inf)
    variant = _check_choice("variant", variant, ("paper", "corrected"))
    E = _check_n("epochs", epochs)
    k = tree_depth(n, variant="paper" if variant == "paper" else "exact")
    return (1.0 if variant == "paper" else 2.0) * math.sqrt(E * k * _log_inv_delta(delta)) / epsilon


def d1_achieved_epsilon(epsilon, *, n, delta, epochs=1, variant: str = "paper", count: str = "paper",
                        conversion: str = "classic") -> float:
    """The ε that D.1's σ (:func:`d1_sigma`, ``variant``) actually gives for a target ``epsilon``.

    The TR sensitivity is counted as ``count`` (``"paper"``: the σ-formula's own ⌈lg n⌉, so that only the formula is
    tested; ``"exact"``: ⌊lg n⌋ + 1). Paper σ, paper count, classic: exactly ``√2·ε + ε²/(2 ln(1/δ))``
    (errata 000 §5 #22).

    Parameters
    ----------
    epsilon : float in (0, inf)
        The target ε that D.1's σ is computed for.
    n : int
        Steps per epoch, at least 1.
    delta : float in (0, 1)
        The target δ.
    epochs : int, default 1
        Number of epochs ``E``.
    variant : {"paper", "corrected"}, default "paper"
        Which σ formula of :func:`d1_sigma`.
    count : {"paper", "exact"}, default "paper"
        The tree depth used for the sensitivity: the printed ``⌈lg n⌉`` or ``⌊lg n⌋ + 1``.
    conversion : {"classic", "improved", "exact"}, default "classic"
        The ρ → ε conversion of :func:`~dptheory.accounting.epsilon_from_rho`.

    Returns
    -------
    float
        The ε achieved at ``delta``.

    Raises
    ------
    ValueError
        If an argument lies outside its range or a choice is unknown.
    """
    sigma = d1_sigma(epsilon, n=n, delta=delta, epochs=epochs, variant=variant)
    rho = tree_rho(sigma, n=n, epochs=epochs, scheme="restart", variant=count)
    return epsilon_from_rho(rho, delta=delta, conversion=conversion)


def c3_sigma(epsilon, *, n, delta, variant: str = "paper") -> float:
    """C.3 (least squares, two trees): ``σ = 2√k ln(1/δ)/ε`` with ``k = ⌈lg n⌉`` (``"paper"``) or ⌊lg n⌋ + 1.

    Parameters
    ----------
    epsilon : float in (0, inf)
        The target ε.
    n : int
        Number of steps, at least 1.
    delta : float in (0, 1)
        The target δ.
    variant : {"paper", "corrected"}, default "paper"
        ``k = ⌈lg n⌉`` as printed, or ``⌊lg n⌋ + 1``.

    Returns
    -------
    float
        The noise multiplier σ.

    Raises
    ------
    ValueError
        If an argument lies outside its range or a choice is unknown.
    """
    epsilon = check_in_interval("epsilon", epsilon, 0.0, math.inf)
    variant = _check_choice("variant", variant, ("paper", "corrected"))
    k = tree_depth(n, variant="paper" if variant == "paper" else "exact")
    return 2.0 * math.sqrt(k) * _log_inv_delta(delta) / epsilon


def c3_achieved_epsilon(epsilon, *, n, delta, variant: str = "paper", count: str = "paper",
                        conversion: str = "classic") -> float:
    """The ε that C.3's σ gives: two trees, ``ρ = k/σ²`` (errata 000 §5 #23; valid, conservative).

    Parameters
    ----------
    epsilon : float in (0, inf)
        The target ε that C.3's σ is computed for.
    n : int
        Number of steps, at least 1.
    delta : float in (0, 1)
        The target δ.
    variant : {"paper", "corrected"}, default "paper"
        Which σ formula of :func:`c3_sigma`.
    count : {"paper", "exact"}, default "paper"
        The tree depth used for the sensitivity: the printed ``⌈lg n⌉`` or ``⌊lg n⌋ + 1``.
    conversion : {"classic", "improved", "exact"}, default "classic"
        The ρ → ε conversion of :func:`~dptheory.accounting.epsilon_from_rho`.

    Returns
    -------
    float
        The ε achieved at ``delta``.

    Raises
    ------
    ValueError
        If an argument lies outside its range or a choice is unknown.
    """
    sigma = c3_sigma(epsilon, n=n, delta=delta, variant=variant)
    rho = tree_depth(n, variant=count) / sigma**2
    return epsilon_from_rho(rho, delta=delta, conversion=conversion)


def undercount_table(cases: Sequence[tuple[int, int]] = ((4, 2), (8, 4), (240, 20), (60, 80), (100, 100), (25, 400))
                     ) -> list[dict]:
    """D.2's under-count (errata 000 §3), one row per ``(n, E)``.

    Per ``(n, E)``: the printed ``E⌈lg nE⌉``, the exact NTR S² for both
    read-outs, TR's ``E(⌊lg n⌋ + 1)``, the bound ``E²(⌊lg nE⌋ + 1)`` and the ratios exact / printed.

    Parameters
    ----------
    cases : sequence of (int, int), optional
        The ``(n, E)`` pairs, one row each.

    Returns
    -------
    list of dict
        One dict per case with keys ``n``, ``epochs``, ``printed``, ``vanilla``, ``all``, ``restart``, ``upper``,
        ``ratio_vanilla`` and ``ratio_all``.
    """
    rows = []
    for n, E in cases:
        printed = ntr_sensitivity_sq(n, epochs=E, variant="paper")
        vanilla = ntr_sensitivity_sq(n, epochs=E, readout="vanilla")
        all_ = ntr_sensitivity_sq(n, epochs=E, readout="all")
        rows.append({"n": n, "epochs": E, "printed": printed, "vanilla": vanilla, "all": all_,
                     "restart": tr_sensitivity_sq(n, epochs=E), "upper": ntr_sensitivity_sq(n, epochs=E, variant="upper"),
                     "ratio_vanilla": vanilla / printed, "ratio_all": all_ / printed})
    return rows

