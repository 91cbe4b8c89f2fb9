r"""Binary-tree aggregation (seed 000 B.1; seed 003 §2.3): the first mechanism whose strategy is not square.

The tree releases one noisy value per **complete dyadic node** ``[j2^ℓ, (j+1)2^ℓ) ⊆ [0, n)`` (0-based steps; a node
is *complete* at step ``(j+1)2^ℓ − 1``, when its last leaf arrives, and no partial node is ever released). The
strategy ``C`` has one row per released node and ``n`` columns (``C_{ν,i} = 1`` iff leaf ``i`` lies in node ``ν``),
the decoder ``B`` (``n × m``) satisfies ``B C = A`` exactly, and every gradient receives the noise
``(B z)_t − (B z)_{t−1}``: the noising matrix is ``N = A⁻¹B`` (``n × m``). Three read-outs
(:class:`TreeAggregation`):

* ``"vanilla"`` — GetSum (seed 000 B.1): the prefix ``[0, t]`` is the sum of the dyadic nodes of the binary expansion
  of ``t + 1``. Those are left children (or the root), so only the nodes with ``j`` even are released: **exactly one
  per step** (level ``tz(t + 1)``), ``C`` is square, lower-triangular with a unit diagonal in completion order, and
  the prefix variance is ``popcount(t + 1)`` (errata 000 §5 #2, root treated as itself: errata 000 §7 #2);
* ``"honaker"`` — GetSumReducedVariance (Honaker 2015) with the **corrected** divisor ``2 − (z − x + 1)⁻¹``
  (errata 000 §2.3): a node at depth ``d`` below a chosen node of height ``k`` gets weight ``2^{−d}/(2 − 2^{−k})``;
  every complete node is released (right children too); prefix variance ``Σ_{bit k of t+1} 2^k/(2^{k+1} − 1)``
  (errata 000 §5 #3, #4);
* ``"full"`` — least squares over every complete node of ``[0, n)``: ``B = A C⁺`` (Moore–Penrose), seed 003's
  **TreeAgg-Full** as evaluated in its Table 3 (errata 003 §2.3, C15). Its decoder reads nodes completed *after*
  ``t`` (it is not causal in the node draws), so it has no tree stream (below).

Node order (the columns of ``N``, the rows of ``C``): by completion step, then by level. Step ``t`` completes the
nodes of levels ``0 … tz(t + 1)``, so ``m = Σ_ℓ ⌊n/2^ℓ⌋ = 2n − popcount(n)`` nodes for ``"honaker"``/``"full"``
and ``m = n`` for ``"vanilla"``.

Sensitivity (errata 000 §2.11): a leaf lies in at most ``⌊lg n⌋ + 1`` released nodes, attained at leaf 0, so the
single-participation sensitivity is ``√(⌊lg n⌋ + 1)`` — the paper's ``⌈lg n⌉`` is one short at powers of two
(:func:`tree_depth` keeps both). ``C`` is a 0/1 matrix, so ``CᵀC ≥ 0`` and under ``k`` participations ``b`` apart the
squared sensitivity (seed 003 eq. 6) is the largest **pattern energy** ``Σ_ν #(π ∩ ν)²`` over the patterns ``π`` of
``k' = min(k, ⌈n/b⌉)`` steps pairwise ``≥ b`` apart, the sum running over the released nodes ``ν``. Routes, cheapest
exact one first (:meth:`TreeAggregation.sensitivity_report` names the one used):

* the dense enumeration over ``CᵀC`` (:func:`~dptheory.mechanisms.dense_sensitivity`), kept where it is cheap: at
  most ``MAX_PATTERNS`` patterns and ``n ≤ 4096``; the oracle of the two below;
* Remark 3.2's lower bound (seed 003), the energy of the earliest pattern ``π* = (0, b, …, (k'−1)b)`` counted node by
  node in ``O(k' log n)`` (:meth:`TreeAggregation.remark32_sensitivity`), against a per-level upper bound
  (:func:`_level_bound`): where they meet the value is exact;
* otherwise one of two exact dynamic programmes, each within a work budget: over the patterns left to right
  (:func:`_max_pattern_energy`; states: the counts of the open ancestors, cheap for few participations far apart)
  or over the dyadic subtrees (:func:`_subtree_pattern_energies`; states: the participations in a subtree and its
  first and last offsets clipped at ``b − 1``, cost ``Σ M_L M_R b³`` known in advance, cheap for small ``b``: the
  vanilla read-out at TF-Privacy's MNIST scale ``n = 4800, k = 80, b = 60``, whose bounds are ``[7547, 8062]``, is
  exactly ``7552`` in about two seconds). The pattern programme goes first, where the subtree programme is
  affordable within a budget of about the latter's time; beyond both budgets only the two bounds are reported.

Remark 3.2's bound is tight in every small brute-force case for the complete-dyadic tree (errata 003 C9) but **not in
general**: at ``n = 10⁴, k = 10, b = 1000`` it gives ``sens² = 255`` (honaker and full) where the pattern
``(0, 1000, 2000, 3072, 4072, 5120, 6144, 7168, 8168, 9168)`` reaches the exact ``261``; on the vanilla tree it
gives ``185``, that pattern ``194``, and the exact ``203`` is reached by another one,
``(0, 1024, 2048, 3072, 4096, 5120, 6144, 7168, 8168, 9216)`` (``254`` on the complete tree): the maximising
pattern depends on the read-out. At seed 003's Table 3 setting (``n = 2052, k = 6, b = 342``) it is exact,
``sens² = 118``.
:func:`remark32_loss` is seed 003's loss with that lower bound, labelled as such.

Noise stream (:class:`TreeStream`), ``O(log n)`` memory, one white draw per step:

* vanilla: the binary counter of the authors' ``CummuNoise``: at step ``t`` drop the stored nodes of levels
  ``< L = tz(t + 1)``, draw the node of level ``L``; the output is ``a_t = z_new − Σ dropped``. The step's draw *is*
  the node's draw, so the stream returns ``N z`` exactly.
* honaker: the stack of ``CummuNoiseEff``. The nodes completed at step ``t`` (levels ``0 … L``) enter every later
  output only through the top node's estimate ``r'_L = Σ_{ℓ≤L} 2^{ℓ−L} z_ℓ + Σ_{ℓ<L} 2^{ℓ−L} r'_{left sibling, ℓ}``
  (the lower right-spine estimates are merged at once and never read again), i.e. through the single Gaussian
  ``g_t = Σ_{ℓ≤L} 2^{ℓ−L} z_ℓ`` of variance ``v_L = (4 − 4^{−L})/3``. The ``g_t`` of different steps are independent,
  so the stream takes ``g_t = √v_L · w_t`` from the step's white draw ``w_t``: ``N = N_step M`` with the ``n × m``
  *step mixing* matrix ``M`` (row ``t``: ``2^{ℓ−L}/√v_L`` on the nodes completed at ``t``; ``M Mᵀ = I``), so the
  stream's output has exactly the law of ``N z``, and for node draws ``z`` fed as ``w = M z`` it *equals* ``N z``
  (:meth:`TreeAggregation.step_mixing_matrix`, tested).
* full: no causal tree stream exists (``N = C⁺`` reads future nodes); the stream realises the same Gaussian law
  ``N Nᵀ = (CᵀC)⁻¹`` with its lower Cholesky factor, ``O(n²)`` memory.

Row energies of ``"full"`` without any ``n × n`` or ``n × m`` matrix (:func:`_full_row_energies`). The complete
nodes of ``[0, n)`` are the perfect binary trees over the blocks of the binary expansion of ``n``, largest first (a
dyadic node strictly above a block would reach past ``n``), so ``CᵀC`` is block diagonal, one block per tree
(:func:`_dyadic_forest`). On a tree ``T`` of height ``K`` it is diagonalised by the **Haar basis**: the tree's
indicator ``1_T/2^{K/2}`` with eigenvalue ``2^{K+1} − 1`` (each leaf lies in nodes of sizes ``1, 2, …, 2^K``) and, per
internal node ``v`` of height ``h ≥ 1``, ``ψ_v = (1_{left(v)} − 1_{right(v)})/2^{h/2}`` with eigenvalue ``2^h − 1``
(a node containing ``v`` or disjoint from it sums ``ψ_v`` to zero; a leaf of one half lies in the nodes of heights
``0 … h−1`` inside that half, of total size ``2^h − 1``). With ``N = C⁺``, ``F_q N (F_q N)ᵀ = F_q (CᵀC)⁻¹ F_qᵀ``,
so row ``t`` has the energy ``g_tᵀ(CᵀC)⁻¹g_t`` of ``g_{t,s} = q^{t−s}`` (``s ≤ t``):

``‖e_tᵀ F_q N‖² = Σ_T S_T(g_t)²/(2^K(2^{K+1} − 1)) + Σ_v δ_v(g_t)²/(2^h(2^h − 1))``,

``S_T`` the sum of ``g_t`` over ``T``, ``δ_v`` its sum over ``left(v)`` minus that over ``right(v)``. A node ending at
``e ≤ t`` contributes ``q^{2(t−e)}`` times its term at ``t = e`` (a first-order recursion over ``t``); the at most one
node per level that contains ``t`` but ends after it has ``S`` or ``δ`` from the geometric sums ``Σ_{j<L} q^j``. At
``q = 1`` (seed 003 Eq. 9's per-step errors) this is ``Σ_{trees before t} 2^K/(2^{K+1} − 1) + s²/(2^K(2^{K+1} − 1))
+ Σ_{h=1}^{K} min(r_h, 2^h − r_h)²/(2^h(2^h − 1))`` with ``s`` the leaves of ``t``'s tree in ``[0, t]`` and ``r_h = s
mod 2^h``. ``O(len(q)·n log n)`` time, ``O(len(q)·n)`` memory (linear: no budget needed); the last row
(:func:`_full_final_row_energy`) has every node complete, ``O(len(q)·n)``. The dense ``(CᵀC)⁻¹`` route
(:meth:`TreeAggregation._full_energies`, ``O(n³/3)``) is kept as the oracle.

A node's value is created at its completion step and never before, so no read of an incomplete node (the
implementation trap of seed 000 B.1, errata 000 §7 #2) is possible in the stream.
"""

from __future__ import annotations

import functools
import math
import threading
from fractions import Fraction
from typing import Callable

import cachetools
import numpy as np
import scipy.linalg
from array_api_compat import array_namespace

from .. import _validation
from .._validation import check_choice, check_int, check_shape, check_size, renamed
from .base import (
    MAX_PATTERNS, DenseNoise, Mechanism, Participation, SensitivityReport, _check_dense_n, _check_participation,
    _check_q, dense_sensitivity,
)
from .losses import PrefixLoss

__all__ = [
    "TreeAggregation", "TreeStream", "READOUTS", "tree_depth", "tree_nodes", "prefix_variance", "increment_variance",
    "remark32_loss",
]

#: The read-outs offered by :class:`TreeAggregation`.
READOUTS = ("vanilla", "honaker", "full")
#: ``variant=`` of :func:`tree_depth`.
_DEPTH_VARIANTS = ("exact", "paper", "path")


def _check_readout(readout) -> str:
    return check_choice("readout", readout, READOUTS)


def _tz(x: int) -> int:
    """Trailing zeros of a positive integer."""
    x = int(x)
    return (x & -x).bit_length() - 1


def tree_depth(n: int, *, variant: str = "exact") -> int:
    r"""The number of released nodes one example touches in a one-pass tree over ``n`` steps.

    ``"exact"``: ``⌊lg n⌋ + 1 = ⌈lg(n + 1)⌉`` (errata 000 §2.11, §5 #11; TF-Privacy's ``floor(log2(steps)) + 1``,
    dp_accounting's ``ceil(log2(n + 1))``); ``"paper"``: the printed ``⌈lg n⌉`` of seed 000 Thm 3.1 / B.2 / D.1, one
    short at powers of two (``n = 1 → 0``, ``n = 1024 → 10``), kept for reproducing the paper's accounting (errata 000
    §3); ``"path"``: ``⌈lg n⌉ + 1``, the nodes on a root-to-leaf path of the ``2^{⌈lg n⌉}``-leaf heap (the top one is
    released only at powers of two).

    Parameters
    ----------
    n : int
        The number of steps.
    variant : {"exact", "paper", "path"}, default "exact"
        Which count (above); keyword-only.

    Returns
    -------
    int
        The number of nodes.

    Raises
    ------
    ValueError
        If ``variant`` is not one of the three.
    """
    n = check_int("n", n, 1)
    if variant not in _DEPTH_VARIANTS:
        raise ValueError(f"variant must be one of {_DEPTH_VARIANTS}, got {variant!r}")
    ceil_lg = (n - 1).bit_length()
    return {"exact": n.bit_length(), "paper": ceil_lg, "path": ceil_lg + 1}[variant]


def tree_nodes(n: int, readout: str = "honaker") -> np.ndarray:
    r"""The released nodes over ``n`` steps as rows ``(level ℓ, index j, completion step (j+1)2^ℓ − 1)``.

    In the node order of the module docstring (completion step, then level); ``"vanilla"`` keeps the left children
    (``j`` even).

    Parameters
    ----------
    n : int
        The number of steps.
    readout : {"vanilla", "honaker", "full"}, default "honaker"
        The read-out.

    Returns
    -------
    numpy.ndarray
        Shape ``(m, 3)``, one row per released node.
    """
    n = check_size("n", check_int("n", n, 1), lambda m: _NODE_BYTES * m, what="the node table")
    readout = _check_readout(readout)
    rows = []
    for lvl in range(n.bit_length()):
        j = np.arange(n >> lvl)
        if readout == "vanilla":
            j = j[j % 2 == 0]
        rows.append(np.stack([np.full(j.size, lvl), j, ((j + 1) << lvl) - 1], axis=1))
    nodes = np.concatenate(rows)
    return nodes[np.lexsort((nodes[:, 0], nodes[:, 2]))]


def _honaker_weights(level: int) -> list[Fraction]:
    """Weight of a node at depth ``d = 0 … level`` below a chosen node of height ``level``: ``2^{−d}/(2 − 2^{−k})``."""
    return [Fraction(2 ** (level - d), 2 ** (level + 1) - 1) for d in range(level + 1)]


def _prefix_weights(t: int, readout: str) -> dict[tuple[int, int], Fraction]:
    """The exact decoder row of the prefix of ``t ≥ 1`` gradients (steps ``0 … t−1``): node ``(ℓ, j)`` → weight."""
    out: dict[tuple[int, int], Fraction] = {}
    start = 0
    for k in reversed(range(t.bit_length())):
        if not (t >> k) & 1:
            continue
        if readout == "vanilla":
            out[(k, start >> k)] = Fraction(1)
        else:
            for d, w in enumerate(_honaker_weights(k)):
                lvl = k - d
                for j in range(start >> lvl, (start + (1 << k)) >> lvl):
                    out[(lvl, j)] = w
        start += 1 << k
    return out


def _check_online(readout) -> str:
    readout = _check_readout(readout)
    if readout == "full":
        raise ValueError("readout must be 'vanilla' or 'honaker' here: the 'full' read-out depends on n (B = A C^+ over "
                         "all complete nodes of [0, n)); use TreeAggregation('full').row_energies(1.0, n)")
    return readout


def prefix_variance(t: int, readout: str = "vanilla") -> Fraction:
    r"""The exact variance of the noise on the prefix sum of the first ``t ≥ 1`` gradients.

    In units of the node variance (the digest's 1-based step ``t``; row ``t − 1`` of ``row_energies(1.0, n)``).

    ``"vanilla"``: ``popcount(t)`` (errata 000 §5 #2); ``"honaker"``: ``Σ_{bit k of t} 2^k/(2^{k+1} − 1)`` (errata 000
    §5 #3: 1, 2/3, 5/3, 4/7, …). Both read-outs use only nodes inside the prefix, so the value does not depend on n.

    Parameters
    ----------
    t : int
        The number of gradients, at least 1.
    readout : {"vanilla", "honaker"}, default "vanilla"
        The read-out (``"full"`` depends on ``n`` and is refused).

    Returns
    -------
    fractions.Fraction
        The variance, exactly.

    Raises
    ------
    ValueError
        If ``readout`` is ``"full"`` or unknown.
    """
    t = check_int("t", t, 1)
    readout = _check_online(readout)
    if readout == "vanilla":
        return Fraction(t.bit_count())
    return sum((Fraction(2**k, 2 ** (k + 1) - 1) for k in range(t.bit_length()) if (t >> k) & 1), Fraction(0))


def increment_variance(t: int, readout: str = "vanilla") -> Fraction:
    r"""The exact variance of the per-gradient noise ``a_t = b_t − b_{t−1}`` of the Noisy-SGD form.

    Seed 000 Thm B.1,
    1-based ``t``; row ``t − 1`` of ``row_energies`` at ``q = 0``, i.e. ``‖N_{t−1}‖²``.

    ``"vanilla"``: ``tz(t) + 1`` (errata 000 §5 #9); ``"honaker"``: from the exact decoder rows (errata 000 §5 #10:
    1 at ``t = 1, 2, 3``, 29/21 ≈ 1.3810 at ``t = 4``, …), ``O(t)`` exact rational arithmetic.

    Parameters
    ----------
    t : int
        The 1-based step, at least 1.
    readout : {"vanilla", "honaker"}, default "vanilla"
        The read-out (``"full"`` depends on ``n`` and is refused).

    Returns
    -------
    fractions.Fraction
        The variance, exactly.

    Raises
    ------
    ValueError
        If ``readout`` is ``"full"`` or unknown.
    """
    t = check_int("t", t, 1)
    readout = _check_online(readout)
    if readout == "vanilla":
        return Fraction(_tz(t) + 1)
    cur, prev = _prefix_weights(t, readout), _prefix_weights(t - 1, readout) if t > 1 else {}
    return sum(((cur.get(key, 0) - prev.get(key, 0)) ** 2 for key in cur.keys() | prev.keys()), Fraction(0))


# -- structured routes: no n × m matrix --------------------------------------------------------------------------

#: The dense enumeration stays the sensitivity route up to this ``n`` (where it has at most ``MAX_PATTERNS`` patterns).
_DENSE_MAX_N = 4096
#: Bytes per step of the node table (``m ≈ 2n`` rows of three int64 and their sort) and of the ``O(n)`` energy routes
_NODE_BYTES = 160.0
_ROW_BYTES = 64.0
#: Budget of :func:`_max_pattern_energy`: blocks scanned, and (state, offset) cells kept over the whole scan.
_DP_MAX_BLOCKS = 1 << 14
_DP_MAX_CELLS = 1 << 24
#: Entries of one ``(len(q), n + 1)`` array of powers in :func:`_final_row_energy` and the ``"full"`` routes.
_POWERS_CHUNK = 1 << 22


def _released(index, level, n: int, readout: str) -> np.ndarray:
    """Whether node ``(level, index)`` is released over ``n`` steps: complete, and a left child (even index) for
    ``"vanilla"`` (module docstring); broadcasts over ``index`` and ``level``."""
    index = np.asarray(index)
    complete = ((index + 1) << level) <= n
    return complete & (index % 2 == 0) if readout == "vanilla" else complete


def _final_row_energy(q: np.ndarray, n: int, readout: str) -> np.ndarray:
    r"""``‖e_{n−1}ᵀ F_q N‖²`` for each ``q`` of a 1-D array, vanilla and honaker, without the ``n × m`` matrix.

    ``Σ_t q^{n−1−t} N_t = Σ_t g_t B_t`` (``N_t = B_t − B_{t−1}``) with ``g_t = h_t − h_{t+1}``, ``h_t = q^{n−1−t}`` and
    ``h_n = 0``. The decoder entry ``B_{t,ν}`` of a node ``ν = (ℓ, j)`` is the Honaker weight ``w_{L−ℓ}(L) =
    2^ℓ/(2^{L+1} − 1)`` (``1`` and ``L = ℓ`` for vanilla) while its ancestor ``(L, J)`` is a chosen node of the prefix
    ``[0, t]``: ``J`` even and ``t ∈ [a, e)``, ``a = (J+1)2^L − 1``, ``e = min(a + 2^L, n)`` (seed 000 B.1). Those
    ranges are disjoint, so entry ``ν`` of the sum is ``Σ_L w_{L−ℓ}(L) (h_a − h_e)``: ``O(m log n)`` per ``q``. A
    difference ``h_a − h_e`` loses relative precision only where it is ``O(1 − q)`` small, so the sum of squares keeps
    it.
    """
    top, out = n.bit_length(), np.zeros(q.size)
    chunk = max(1, _POWERS_CHUNK // (n + 1))
    for first in range(0, q.size, chunk):
        qs = q[first:first + chunk, None]
        h = np.concatenate([qs ** np.arange(n - 1, -1, -1), np.zeros((qs.shape[0], 1))], axis=1)
        for lvl in range(top):
            j = np.flatnonzero(_released(np.arange(n >> lvl), lvl, n, readout))
            v = np.zeros((qs.shape[0], j.size))
            for L in range(lvl, top if readout == "honaker" else lvl + 1):
                J = j >> (L - lvl)
                a = ((J + 1) << L) - 1
                sel = np.flatnonzero((J % 2 == 0) & (a < n))
                weight = 2.0**lvl / (2.0 ** (L + 1) - 1.0) if readout == "honaker" else 1.0
                v[:, sel] += weight * (h[:, a[sel]] - h[:, np.minimum(a[sel] + (1 << L), n)])
            out[first:first + chunk] += np.einsum("qm,qm->q", v, v)
    return out


def _dyadic_forest(n: int) -> list[tuple[int, int]]:
    """``(first leaf, height K)`` of the perfect trees the complete nodes of ``[0, n)`` form: the blocks of the
    binary expansion of ``n``, largest first (module docstring)."""
    out, start = [], 0
    for k in reversed(range(n.bit_length())):
        if (n >> k) & 1:
            out.append((start, k))
            start += 1 << k
    return out


def _geometric_tables(q: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``P[:, j] = q^j`` and ``G[:, L] = Σ_{j<L} q^j`` for ``j, L = 0 … n``, one row per ``q`` (``0⁰ = 1``)."""
    P = q[:, None] ** np.arange(n + 1, dtype=float)
    G = np.zeros_like(P)
    np.cumsum(P[:, :n], axis=1, out=G[:, 1:])
    return P, G


def _full_completed_energy(P: np.ndarray, G: np.ndarray, n: int) -> np.ndarray:
    r"""``u_e``: the Haar terms (module docstring) of the nodes ending at step ``e``, evaluated at ``t = e``.

    An internal node of height ``h`` has ``δ = G(2^{h−1})(q^{2^{h−1}} − 1)`` there (left half ``q^{2^{h−1}}`` times the
    right half), a tree of height ``K`` has ``S = G(2^K)``. Shape ``(len(q), n)``.
    """
    u = np.zeros((P.shape[0], n))
    for h in range(1, n.bit_length()):
        width, half = 1 << h, 1 << (h - 1)
        u[:, width - 1:(n >> h) << h:width] += ((G[:, half] * (1.0 - P[:, half])) ** 2 / (width * (width - 1.0)))[:, None]
    for start, k in _dyadic_forest(n):
        u[:, start + (1 << k) - 1] += G[:, 1 << k] ** 2 / ((1 << k) * ((2 << k) - 1.0))
    return u


def _full_open_energy(P: np.ndarray, G: np.ndarray, n: int) -> np.ndarray:
    r"""The Haar terms (module docstring) at step ``t`` of the nodes containing ``t`` that end after it.

    For the node of height ``h`` at offset ``p = t mod 2^h < 2^h − 1``: ``δ = G(p + 1)`` while ``t`` lies in the left
    half, ``δ = q^{p−2^{h−1}+1} G(2^{h−1}) − G(p − 2^{h−1} + 1)`` in the right half; for the tree (``s = t − start + 1
    < 2^K`` leaves in): ``S = G(s)``. Shape ``(len(q), n)``.
    """
    rows = P.shape[0]
    out = np.zeros((rows, n))
    for h in range(1, n.bit_length()):
        width, half = 1 << h, 1 << (h - 1)
        r = np.arange(1, half)
        delta = np.concatenate([G[:, 1:half + 1], P[:, r] * G[:, half:half + 1] - G[:, r], np.zeros((rows, 1))], axis=1)
        out[:, :(n >> h) << h].reshape(rows, n >> h, width)[...] += (delta**2 / (width * (width - 1.0)))[:, None, :]
    for start, k in _dyadic_forest(n):
        out[:, start:start + (1 << k) - 1] += G[:, 1:1 << k] ** 2 / ((1 << k) * ((2 << k) - 1.0))
    return out


def _full_row_energies(q: np.ndarray, n: int) -> np.ndarray:
    r"""``‖e_tᵀ F_q N‖²`` of the ``"full"`` read-out (``N = C⁺``, seed 003 §2.3's TreeAgg-Full) for every ``t < n``
    and each ``q`` of a 1-D array, by the Haar basis of ``CᵀC`` (module docstring); shape ``(len(q), n)``.

    The nodes ending by ``t`` enter through ``R_t = q² R_{t−1} + u_t`` (:func:`_full_completed_energy`), the others
    through :func:`_full_open_energy`; ``len(q)`` is taken in chunks of at most ``_POWERS_CHUNK`` entries.
    """
    from scipy.signal import lfilter  # here, not at import: scipy.signal takes ~0.45 s to load

    out = np.empty((q.size, n))
    chunk = max(1, _POWERS_CHUNK // (n + 1))
    for first in range(0, q.size, chunk):
        qs = q[first:first + chunk]
        P, G = _geometric_tables(qs, n)
        u = _full_completed_energy(P, G, n)
        done = np.stack([lfilter([1.0], [1.0, -x * x], row) for x, row in zip(qs, u)])
        out[first:first + chunk] = done + _full_open_energy(P, G, n)
    return out


def _full_final_row_energy(q: np.ndarray, n: int) -> np.ndarray:
    r"""``‖e_{n−1}ᵀ F_q N‖²`` of the ``"full"`` read-out for each ``q`` of a 1-D array: at ``t = n − 1`` every node has
    ended, so it is ``Σ_e q^{2(n−1−e)} u_e`` (:func:`_full_completed_energy`), ``O(len(q)·n)``."""
    out = np.empty(q.size)
    chunk = max(1, _POWERS_CHUNK // (n + 1))
    for first in range(0, q.size, chunk):
        qs = q[first:first + chunk]
        P, G = _geometric_tables(qs, n)
        out[first:first + chunk] = np.einsum("qe,qe->q", _full_completed_energy(P, G, n), P[:, n - 1::-1] ** 2)
    return out


def _pattern_energy(pattern, n: int, readout: str) -> int:
    r"""``‖C u(π)‖² = Σ_ν #(π ∩ ν)²`` over the released nodes ``ν`` for a pattern ``π`` of steps (``u(π)`` its
    indicator), counted level by level in ``O(|π| log n)`` without ``C``: the inner value of seed 003 eq. 6 for
    ``C ≥ 0``."""
    pattern = np.asarray(pattern, dtype=np.int64)
    total = 0
    for lvl in range(n.bit_length()):
        index = pattern >> lvl
        _, counts = np.unique(index[_released(index, lvl, n, readout)], return_counts=True)
        total += int(np.sum(counts**2))
    return total


def _level_bound(n: int, k: int, b: int, readout: str) -> int:
    r"""An upper bound on the pattern energy of ``k`` steps of ``[0, n)`` pairwise ``≥ b`` apart, level by level.

    The released nodes of level ``ℓ`` are disjoint, so their counts satisfy ``0 ≤ x_ν ≤ c_ℓ = min(k, ⌈2^ℓ/b⌉)`` (a
    span of ``2^ℓ`` steps holds at most ``⌈2^ℓ/b⌉``) and ``Σ_ν x_ν ≤ k`` over the ``M_ℓ`` released nodes. ``Σ_ν x_ν²``
    is convex, so its maximum over that polytope is at a vertex, where every ``x_ν`` but one is ``0`` or ``c_ℓ``: the
    greedy fill, ``min(M_ℓ, ⌊k/c_ℓ⌋) c_ℓ² + (k mod c_ℓ)²`` (the remainder only where a node is left). Summed over the
    levels, which ignores that one pattern must serve them all.
    """
    total = 0
    for lvl in range(n.bit_length() if k else 0):
        cap = min(k, -(-(1 << lvl) // b))
        nodes = (n >> lvl) if readout != "vanilla" else ((n >> lvl) + 1) // 2
        full, rest = divmod(k, cap)
        total += min(full, nodes) * cap * cap + (rest * rest if full < nodes else 0)
    return total


def _block_choices(counts: np.ndarray, value: np.ndarray, low: np.ndarray, released: np.ndarray, k: int,
                   b: int) -> tuple[np.ndarray, np.ndarray]:
    r"""One block of :func:`_max_pattern_energy`: every state takes ``d = 0, 1, 2`` participations (total ``≤ k``) at
    offsets ``x < y``, ``y − x ≥ b``, each adding ``low`` at its offset and ``2v + 1`` at every released open ancestor
    holding ``v``. The best energies by the next block's first free offset ``a`` are prefix maxima over the last
    offset ``x ≤ a + w − b``."""
    width = low.size
    nxt = np.minimum(np.arange(width) + width - b, width - 1)
    one = np.maximum.accumulate(value + low, axis=1)  # best energy with one participation at an offset <= x
    held, total = counts[:, :-1] @ released, released.sum()
    out_counts, out_value = [counts], [np.repeat(value[:, -1:], width, axis=1)]
    ok = counts[:, -1] < k
    out_counts.append(counts[ok] + 1)
    out_value.append(one[ok][:, nxt] + (2 * held[ok] + total)[:, None])
    ok = counts[:, -1] + 2 <= k
    if b < width and ok.any():
        two = np.full((int(ok.sum()), width), -np.inf)
        two[:, b:] = low[b:] + one[ok, :width - b]
        out_counts.append(counts[ok] + 2)
        out_value.append(np.maximum.accumulate(two, axis=1)[:, nxt] + (4 * held[ok] + 4 * total)[:, None])
    return np.concatenate(out_counts), np.concatenate(out_value)


def _merge_states(counts: np.ndarray, value: np.ndarray, radix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Equal count vectors merged into one state, best energy per offset."""
    code = counts @ radix
    order = np.argsort(code, kind="stable")
    code = code[order]
    starts = np.flatnonzero(np.concatenate(([True], code[1:] != code[:-1])))
    return counts[order[starts]], np.maximum.reduceat(value[order], starts, axis=0)


def _max_pattern_energy(n: int, k: int, b: int, readout: str, max_cells: int = _DP_MAX_CELLS) -> int | None:
    r"""``max_π Σ_ν #(π ∩ ν)²`` over the patterns of ``k`` steps of ``[0, n)`` pairwise ``≥ b`` apart — ``sens²`` of
    seed 003 eq. 6 for ``C ≥ 0`` — exactly, or ``None`` beyond ``_DP_MAX_BLOCKS`` / ``max_cells`` (default
    ``_DP_MAX_CELLS``).

    A dynamic programme over blocks of ``w = 2^β ∈ [b, 2b)`` steps (``β = ⌈lg b⌉``), left to right. A node below level
    ``β`` holds at most one participation and adds ``low(x)`` (the released nodes below ``β`` containing step ``x``);
    the nodes of levels ``≥ β`` containing the block are its *open ancestors*, and a participation adds ``2v + 1`` to
    one holding ``v``. A state is the vector of the open ancestors' counts and the total; per state the programme keeps,
    for every offset ``a`` of the block, the best energy so far of the histories whose next participation may come at
    ``a`` (:func:`_block_choices`). The rest of the energy depends on the past only through that pair, so the programme
    is exact. A state is dropped when even the per-level bound (:func:`_level_bound`) on the rest, plus ``2v`` for
    each later participation an open ancestor can still take, cannot beat the best energy known (Remark 3.2's
    ``π*``, then the completed states'); completed states leave the scan.
    """
    beta = (b - 1).bit_length()
    width, top = 1 << beta, n.bit_length()
    blocks = -(-n // width)
    levels = np.arange(beta, top)  # the block's own node and its ancestors that may be released
    if blocks > _DP_MAX_BLOCKS or (k + 1) ** (levels.size + 1) >= 1 << 62:
        return None
    step = np.arange(blocks * width)
    low = sum((_released(step >> lvl, lvl, n, readout) for lvl in range(min(beta, top))), np.zeros(step.size))
    low = np.where(step < n, low, -np.inf).reshape(blocks, width)
    block = np.arange(blocks + 1)[:, None]
    ancestor = block >> (levels - beta)
    released = _released(ancestor, levels, n, readout).astype(float)
    room = -(-(np.minimum((ancestor + 1) << levels, n) - block * width) // b)  # steps b apart left in the ancestor
    rest = np.array([_level_bound(n, r, b, readout) for r in range(k + 1)], dtype=float)
    best = _pattern_energy(np.arange(k) * b, n, readout)
    radix = (k + 1) ** np.arange(levels.size + 1)
    counts, value = np.zeros((1, levels.size + 1), dtype=np.int64), np.zeros((1, width))
    cells = 0
    for j in range(blocks):
        counts, value = _block_choices(counts, value, low[j], released[j], k, b)
        counts[:, :min(_tz(j + 1) + 1, levels.size)] = 0  # the ancestors that end with block j
        left = k - counts[:, -1]
        later = np.minimum(left[:, None], room[j + 1])  # participations an open ancestor can still take
        bound = value[:, -1] + rest[left] + 2 * (counts[:, :-1] * later @ released[j + 1])
        done = (left == 0) | (j == blocks - 1)
        best = max(best, int(value[done, -1].max(initial=0)))
        keep = ~done & (bound > best)
        if not keep.any():
            break
        counts, value = _merge_states(counts[keep], value[keep], radix)
        cells += value.size
        if cells > max_cells:
            return None
    return best


#: Budget of :func:`_subtree_pattern_energies` in elementary (max, +) operations (about 1 s per 4·10⁸ on one core).
_SUBTREE_MAX_OPS = 8 * 10**9
#: Cells of :func:`_max_pattern_energy` per (max, +) operation of the subtree programme at equal time (a cell costs
#: about a hundred operations, measured at ``(4800, 80, 60)``): where the subtree programme is affordable, the
#: pattern programme, often far cheaper, is tried first within that share of its time, so that its giving up (~4 s
#: on the full budget at the vanilla read-out's ``(4800, 80, 60)``) costs no more than the subtree programme itself.
_CELLS_PER_OP = 1 / 100
#: The "impossible" entry of the subtree tables: far below any energy, and twice it still fits int64.
_NEG = -(1 << 40)


def _subtree_capacity(steps: int, k: int, b: int) -> int:
    """The most participations ``b`` apart in ``steps ≥ 0`` consecutive steps, at most ``k``: ``min(k, ⌈steps/b⌉)``."""
    return min(k, -(-steps // b))


def _subtree_shape(n: int, k: int, b: int) -> list[tuple[int, int, int, int]]:
    """``(level, M_full, M_last_left, M_last_right)`` of :func:`_subtree_pattern_energies` for levels ``1 … H``:
    the participation caps of a full node's children, and of the last node's children (``0`` for an empty child)."""
    out = []
    for lvl in range(1, (n - 1).bit_length() + 1):
        half = 1 << (lvl - 1)
        j = (n - 1) >> lvl  # the last node of the level: it holds leaf n − 1
        left = min(half, n - (j << lvl))
        full = _subtree_capacity(half, k, b) if 1 << lvl <= n else 0  # no full node above n: nothing to combine
        out.append((lvl, full, _subtree_capacity(left, k, b), _subtree_capacity(n - (j << lvl) - left, k, b)))
    return out


def _subtree_cost(n: int, k: int, b: int) -> tuple[float, float]:
    """``(bytes, operations)`` of :func:`_subtree_pattern_energies` at ``(n, k, b)``, from the table shapes alone:
    the ``(M + 1) × b × b`` int64 tables of a level (two children, their parent and two temporaries of each pair, all
    with at most twice the children's cap), and ``M_L·M_R·b³`` (max, +) operations per combined pair of children."""
    S = min(b, n)
    nbytes, ops = 0.0, 0.0
    for _, full, last_left, last_right in _subtree_shape(n, k, b):
        widest = max(full, last_left, last_right)
        nbytes = max(nbytes, 2 * 5 * 8.0 * (2 * widest + 2) * S * S)  # this level's and the one below it
        ops += float(full) * full * S**3 + float(last_left) * last_right * S**3
    return nbytes, ops


def _subtree_combine(left: np.ndarray, right: np.ndarray, half: int, b: int, cap: int) -> np.ndarray:
    r"""The table of a node from its children's (:func:`_subtree_pattern_energies`), without the node's own term.

    ``T[m, s, t]`` is the best energy inside a subtree of exactly ``m`` participations, the first at offset ``≥ s``
    from its left edge and the last ``≥ t`` from its right edge (``s, t < b``: the offsets clipped at the separation).
    All ``m`` in the left child: ``L[m, s, max(t − half, 0)]``; all in the right: ``R[m, max(s − half, 0), t]``; split
    ``m = m₁ + m₂``: the gap ``t₁ + s₂ + 1 ≥ b`` between the halves, so (``T`` is non-increasing in ``s`` and ``t``)
    ``max_{s₂} L[m₁, s, b − 1 − s₂] + R[m₂, s₂, t]``, a (max, +) product taken one ``s₂`` at a time.
    """
    S = left.shape[1]
    out = np.full((cap + 1, S, S), _NEG, dtype=np.int64)
    out[0] = 0
    shift = np.maximum(np.arange(S) - half, 0)
    ml, mr = min(left.shape[0] - 1, cap), min(right.shape[0] - 1, cap)
    out[1:ml + 1] = np.maximum(out[1:ml + 1], left[1:ml + 1][:, :, shift])
    out[1:mr + 1] = np.maximum(out[1:mr + 1], right[1:mr + 1][:, shift, :])
    if mr and cap > 1:  # a split needs two participations, so S = b here
        flipped = left[:, :, ::-1]  # L[m₁, s, b − 1 − s₂] at [m₁, s, s₂]
        for m1 in range(1, min(ml, cap - 1) + 1):
            top = min(mr, cap - m1)
            if top < 1:
                break
            R = right[1:top + 1]  # (m₂, s₂, t)
            best = np.full((top, S, S), _NEG, dtype=np.int64)
            cand = np.empty_like(best)
            for s2 in range(S):  # one s₂ at a time: the temporaries stay in cache
                np.add(flipped[m1, None, :, s2, None], R[:, None, s2, :], out=cand)  # (m₂, s, t)
                np.maximum(best, cand, out=best)
            block = out[m1 + 1:m1 + top + 1]
            np.maximum(block, best, out=block)
    return np.maximum(out, _NEG)


def _subtree_pattern_energies(n: int, k: int, b: int, readout: str) -> np.ndarray:
    r"""``E[m] = max_π Σ_ν #(π ∩ ν)²`` over the patterns ``π`` of exactly ``m = 0 … k'`` steps of ``[0, n)`` pairwise
    ``≥ b`` apart (``_NEG`` where none fits), the sum over the released nodes: seed 003 eq. 6 for ``C ≥ 0``, exactly,
    in integers, for any read-out — the route for the vanilla read-out (GetSum, seed 000 B.1) at TF-Privacy's MNIST
    scale (``n = 4800, k = 80, b = 60``), where :func:`_max_pattern_energy`'s states (one count per open ancestor)
    are too many.

    A dynamic programme over the dyadic subtrees, bottom up (the tests' ``subtree_dp_sensitivity_sq``,
    ``tests/tree_oracles.py``, counts the same way, without the per-subtree caps, in floats): a subtree's table ``T[m, s, t]``
    (:func:`_subtree_combine`) holds its best energy with ``m`` participations, the first ``≥ s`` from its left edge
    and the last ``≥ t`` from its right edge, both clipped at ``b − 1``; a released node adds ``m²``. The full
    subtrees of a level share one table (the node's own term depends only on whether it is released), and the one
    partial node per level (the one holding step ``n − 1``; never released) has its own, so ``2⌈lg n⌉`` tables are
    combined. ``m`` is capped per subtree by the participations its steps hold (:func:`_subtree_capacity`), so the
    cost, ``Σ M_L M_R b³`` (:func:`_subtree_cost`, estimated and checked before any table is allocated), is set by
    the top levels: ``≈ 5·10⁸`` at ``(4800, 80, 60)``.

    Raises
    ------
    ValueError
        If the tables do not fit in the size budget (``check_size``, naming ``n``).
    """
    check_size("n", n, lambda m: _subtree_cost(m, k, b)[0], what="the subtree programme's tables")
    S = min(b, n)  # offsets clipped at b − 1; a subtree of fewer than b steps has no offset ≥ n (S = n covers it)
    released = (lambda lvl, j: 1 if _released(j, lvl, n, readout) else 0)
    square = np.arange(k + 1, dtype=np.int64)[:, None, None] ** 2

    def own(table: np.ndarray, lvl: int, j: int) -> np.ndarray:
        return table + released(lvl, j) * square[:table.shape[0]]

    leaf = np.full((2, S, S), _NEG, dtype=np.int64)
    leaf[0], leaf[1, 0, 0] = 0, 0
    full, last = leaf, own(leaf, 0, n - 1)  # the full subtree's table without its own term; the last node's with it
    for lvl, full_children, cap_left, _ in _subtree_shape(n, k, b):
        half, j = 1 << (lvl - 1), (n - 1) >> lvl
        even, odd = own(full, lvl - 1, 0), own(full, lvl - 1, 1)  # a full node's children: even, then odd index
        if 2 * j + 1 == (n - 1) >> (lvl - 1):  # the last node's left child is full, its right child the last one
            inner_last = _subtree_combine(even, last, half, b, _subtree_capacity(n - (j << lvl), k, b))
        else:  # its left child is the last one, its right child empty
            inner_last = _subtree_combine(last, leaf[:1], half, b, cap_left)
        if full_children:  # a full node exists at this level
            full = _subtree_combine(even, odd, half, b, _subtree_capacity(1 << lvl, k, b))
        last = own(inner_last, lvl, j)
    return last[:, 0, 0]


@functools.lru_cache(maxsize=64)
def _structured_sensitivity_squared(n: int, k: int, b: int, readout: str) -> tuple[int, int, str]:
    r"""``(lower, upper, route)`` for ``sens²`` under ``k ≥ 2`` participations ``b`` apart over ``n`` steps, without a
    dense matrix; ``lower == upper`` (integers) where the value is exact."""
    lower = _pattern_energy(np.arange(k) * b, n, readout)
    upper = _level_bound(n, k, b, readout)
    if lower == upper:
        return lower, upper, "Remark 3.2 lower bound ||C u(pi*)|| (seed 003) meets the per-level upper bound"
    nbytes, ops = _subtree_cost(n, k, b)
    subtree = nbytes <= _validation.SIZE_BUDGET and ops <= _SUBTREE_MAX_OPS
    exact = _max_pattern_energy(n, k, b, readout, min(_DP_MAX_CELLS, int(ops * _CELLS_PER_OP)) if subtree else
                                _DP_MAX_CELLS)
    if exact is not None:
        return exact, exact, ("exact dynamic programme over the participation patterns (seed 003 eq. 6 with C >= 0: "
                              "the largest sum over released nodes of #(pattern in node)^2)")
    if subtree:
        exact = int(_subtree_pattern_energies(n, k, b, readout).max())
        return exact, exact, ("exact dynamic programme over the dyadic subtrees (seed 003 eq. 6 with C >= 0: the "
                              "largest sum over released nodes of #(pattern in node)^2; states: participations in "
                              "the subtree, first and last offsets clipped at b - 1)")
    return lower, upper, ("bounds: seed 003 Remark 3.2 below, the per-level upper bound above (both exact dynamic "
                          "programmes are beyond their budgets)")


#: Bytes of dense tree matrices (strategy, decoder, Gram, noising matrix) kept at once, shared by every
#: :class:`TreeAggregation`: they depend only on the read-out and ``n``. Least recently used out first. A per-instance
#: cache kept them for as long as any instance lived, 0.87 GB in the cross-mechanism comparison's tables.
DENSE_CACHE_BYTES = 256 * 2**20
_DENSE: cachetools.LRUCache = cachetools.LRUCache(maxsize=DENSE_CACHE_BYTES, getsizeof=lambda a: a.nbytes)
_DENSE_LOCK = threading.Lock()


class TreeAggregation(Mechanism):
    r"""Binary-tree aggregation over complete dyadic nodes with one of three read-outs.

    The read-outs are ``"vanilla"`` (GetSum),
    ``"honaker"`` (GetSumReducedVariance, corrected divisor) or ``"full"`` (least squares, seed 003's TreeAgg-Full);
    see the module docstring.

    Not a square strategy: :meth:`strategy_matrix` is ``m × n`` (one row per released node), :meth:`decoder_matrix`
    ``B`` is ``n × m`` with ``B C = A``, :meth:`noising_matrix` is ``N = A⁻¹B`` (``n × m``). These three override the
    base class's triangular solves, which do not apply; ``row_energies`` (vanilla/honaker: the dense route on ``N``,
    with the exact ``q = 1`` closed forms), the losses, ``F_inf(horizon=n)`` and ``simulate(horizon=n)`` then work
    unchanged. Structured routes without any ``n × m`` matrix: :meth:`final_row_energy` in ``O(m log n)`` per ``q``
    (vanilla/honaker) or ``O(n)`` (full), full's :meth:`row_energies` by the Haar basis of ``CᵀC`` in ``O(n log n)``
    per ``q``, :meth:`sensitivity` under multiple participations and :meth:`remark32_sensitivity` (module
    docstring). ``stationary`` is False (no ``horizon=None``).

    Parameters
    ----------
    readout : {"vanilla", "honaker", "full"}, default "honaker"
        The read-out.

    Raises
    ------
    ValueError
        If ``readout`` is not one of the three.
    """

    stationary = False
    exact_stream = False

    def __init__(self, readout: str = "honaker"):
        self.readout = _check_readout(readout)
        self.name = f"TreeAggregation({self.readout!r})"

    # -- matrices --------------------------------------------------------------------------------------------------

    def _cached(self, what: str, n: int, build: Callable[[int], np.ndarray]) -> np.ndarray:
        """The read-only dense matrix ``what`` at ``n`` steps from :data:`_DENSE`, built by ``build(n)`` if absent."""
        key = (self.readout, what, n)
        with _DENSE_LOCK:
            arr = _DENSE.get(key)
        if arr is None:
            _check_dense_n(n, 6)  # the m × n matrices (m ≈ 2n) and their temporaries
            arr = build(n)  # outside the lock: a build may read another cached matrix (N from B)
            arr.setflags(write=False)
            with _DENSE_LOCK:
                if arr.nbytes <= _DENSE.maxsize:  # a matrix larger than the whole budget is not kept
                    _DENSE[key] = arr
        return arr

    def nodes(self, n: int) -> np.ndarray:
        """The released nodes, :func:`tree_nodes` of this read-out: rows ``(level, index, completion step)``.

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            Shape ``(m, 3)``, in node order.
        """
        return tree_nodes(n, self.readout)

    def strategy_matrix(self, n: int) -> np.ndarray:
        """The ``m × n`` strategy: ``C_{ν,i} = 1`` iff leaf ``i`` lies in released node ``ν`` (node order).

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            ``C``, shape ``(m, n)``.
        """
        n = check_int("n", n, 1)
        return self._cached("C", n, self._build_strategy).copy()

    def _build_strategy(self, n: int) -> np.ndarray:
        nodes = self.nodes(n)
        C = np.zeros((nodes.shape[0], n))
        for r, (lvl, j, _) in enumerate(nodes):
            C[r, j << lvl:(j + 1) << lvl] = 1.0
        return C

    def decoder_matrix(self, n: int) -> np.ndarray:
        """The ``n × m`` decoder ``B`` with ``B C = A``: row ``t`` reads the prefix ``[0, t]``.

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            ``B``, shape ``(n, m)``.
        """
        n = check_int("n", n, 1)
        return self._cached("B", n, self._build_decoder).copy()

    def _build_decoder(self, n: int) -> np.ndarray:
        if self.readout == "full":
            return np.cumsum(self._full_noising(n), axis=0)
        nodes = self.nodes(n)
        index = {(int(lvl), int(j)): r for r, (lvl, j, _) in enumerate(nodes)}
        B = np.zeros((n, nodes.shape[0]))
        for t in range(n):
            L = _tz(t + 1)
            start = t + 1 - (1 << L)  # the new chosen node (L, start >> L); the rest is the prefix [0, start)
            if start:
                B[t] = B[start - 1]
            if self.readout == "vanilla":
                B[t, index[(L, start >> L)]] = 1.0
            else:
                for d, w in enumerate(_honaker_weights(L)):
                    lvl = L - d
                    cols = [index[(lvl, j)] for j in range(start >> lvl, (t + 1) >> lvl)]
                    B[t, cols] = float(w)
        return B

    def _full_noising(self, n: int) -> np.ndarray:
        """``N = C⁺ = (CᵀC)⁻¹Cᵀ`` (``C`` has full column rank: it contains every leaf)."""
        C = self._cached("C", n, self._build_strategy)
        return scipy.linalg.cho_solve(scipy.linalg.cho_factor(self._cached("X", n, self._build_gram)), C.T)

    def gram_matrix(self, n: int) -> np.ndarray:
        """The Gram matrix ``CᵀC`` (``n × n``), built block by block (``O(n²)``, no ``m × n`` product).

        Entry ``(i, j)`` counts the released nodes containing both leaves.

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            ``CᵀC``, shape ``(n, n)``.
        """
        n = check_int("n", n, 1)
        return self._cached("X", n, self._build_gram).copy()

    def _build_gram(self, n: int) -> np.ndarray:
        X = np.zeros((n, n))
        for lvl, j, _ in self.nodes(n):
            X[j << lvl:(j + 1) << lvl, j << lvl:(j + 1) << lvl] += 1.0
        return X

    def _full_energies(self, n: int) -> np.ndarray:
        """``‖e_tᵀ A C⁺‖² = (A (CᵀC)⁻¹ Aᵀ)_{tt}``: the 2-D prefix sums of ``(CᵀC)⁻¹`` on the diagonal (LAPACK
        ``potrf``/``potri``, ``O(n³/3)``, without forming the ``n × m`` decoder). The dense oracle of
        :func:`_full_row_energies` at ``q = 1`` (``tests/test_tree.py``)."""
        factor, info = scipy.linalg.lapack.dpotrf(self._cached("X", n, self._build_gram), lower=True)
        if info == 0:
            inv, info = scipy.linalg.lapack.dpotri(factor, lower=True)
        if info != 0:
            raise np.linalg.LinAlgError(f"C^T C is not positive definite at n = {n} (LAPACK info {info})")
        inv = np.tril(inv) + np.tril(inv, -1).T
        return np.diagonal(np.cumsum(np.cumsum(inv, axis=0), axis=1)).copy()

    def noising_matrix(self, n: int) -> np.ndarray:
        """The noising matrix ``N = A⁻¹B`` (``n × m``).

        The noise of gradient ``t`` is ``(N z)_t = (B z)_t − (B z)_{t−1}``.

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            ``N``, shape ``(n, m)``.
        """
        n = check_int("n", n, 1)
        return self._cached("N", n, lambda k: np.diff(self._cached("B", k, self._build_decoder), axis=0, prepend=0.0)).copy()

    def step_mixing_matrix(self, n: int) -> np.ndarray:
        r"""The step mixing matrix: the ``n × m`` matrix ``M`` with ``M Mᵀ = I`` and ``N = (N Mᵀ) M``.

        Through it :meth:`noise_stream` takes its
        one white draw per step (module docstring): vanilla ``I``; honaker row ``t`` ``2^{ℓ−L}/√v_L`` on the nodes
        completed at step ``t``. Feeding ``w = M z`` to the stream returns ``N z``. Not defined for ``"full"``.

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            ``M``, shape ``(n, m)``.

        Raises
        ------
        ValueError
            For the ``"full"`` read-out.
        """
        n = check_int("n", n, 1)
        _check_online(self.readout)
        nodes = self.nodes(n)
        M = np.zeros((n, nodes.shape[0]))
        for r, (lvl, _, t) in enumerate(nodes):
            L = _tz(t + 1)
            M[t, r] = 1.0 if self.readout == "vanilla" else 2.0 ** (lvl - L) / math.sqrt((4.0 - 4.0**-L) / 3.0)
        return M

    # -- sensitivity -----------------------------------------------------------------------------------------------

    def sensitivity(self, n: int | None = None, participation: Participation | None = None) -> float:
        r"""The sensitivity ``sens_Π(C)`` over ``n`` steps by the cheapest exact route of the module docstring.

        ``sens_Π(C)`` of seed 003 eq. 6:
        ``√(⌊lg n⌋ + 1)`` for one participation (errata 000 §2.11); the dense enumeration where cheap; seed 003
        Remark 3.2's lower bound where it meets the per-level upper bound; the exact dynamic programme within its budget. Beyond
        that it refuses (:meth:`sensitivity_report` gives the bounds).

        Parameters
        ----------
        n : int or None, optional
            The number of steps; ``None`` (the default) is refused: no streaming limit.
        participation : Participation or None, optional
            The participation schema; ``None`` (the default) is single participation.

        Returns
        -------
        float
            ``sens_Π(C)``.

        Raises
        ------
        ValueError
            If ``n`` is ``None``, or only bounds are known (beyond both dynamic programmes' budgets).
        """
        if n is None:
            raise ValueError(f"n must be a number of steps: {self.name} has no streaming limit (n = None)")
        report = self.sensitivity_report(n, participation)
        if not report.exact:
            raise ValueError(
                f"the sensitivity of {self.name} under {report.participation} over n = {report.n} steps is only "
                f"bounded: the bounds [{report.lower:.6g}, {report.upper:.6g}] do not meet and both exact dynamic "
                f"programmes are beyond their budgets; sensitivity_report(n, participation) returns them"
            )
        return report.value

    def sensitivity_sq(self, n: int, participation: Participation | None = None) -> int:
        r"""The squared sensitivity ``sens_Π(C)²`` as an exact integer, by the routes of :meth:`sensitivity`.

        ``C`` is a 0/1 matrix, so ``sens²`` is the largest pattern energy ``Σ_ν #(π ∩ ν)²``, an integer: use this
        rather than squaring :meth:`sensitivity` (``√944`` squared is ``943.9999999999999``). One participation:
        ``⌊lg n⌋ + 1``; one pattern, Remark 3.2's bound meeting the per-level one, or the dynamic programme: the
        integer itself; the dense enumeration: its sum of integer Gram entries (exact in floating point), rounded.

        Parameters
        ----------
        n : int
            The number of steps.
        participation : Participation or None, optional
            The participation schema; ``None`` (the default) is single participation.

        Returns
        -------
        int
            ``sens_Π(C)²``.

        Raises
        ------
        ValueError
            If only bounds are known (beyond both dynamic programmes' budgets; :meth:`sensitivity_report` gives them).

        Examples
        --------
        >>> TreeAggregation("honaker").sensitivity_sq(513, Participation(max_participations=5, min_sep=100))
        82
        """
        n = check_int("n", n, 1)
        participation = _check_participation(participation)
        k = participation.participations(n)
        if k == 1:
            return tree_depth(n)
        if participation.count_patterns(n) == 1:
            return _pattern_energy(participation.earliest(n), n, self.readout)
        if self._enumerates(n, participation):
            # the enumeration's maximum is a sum of integer Gram entries, exact in binary64; sqrt then square moves
            # it by a few ulps, far less than 1/2 while sens² < 2^50
            return int(round(dense_sensitivity(self._cached("C", n, self._build_strategy), participation) ** 2))
        lower, upper, _ = _structured_sensitivity_squared(n, k, participation.min_sep, self.readout)
        if lower != upper:
            raise ValueError(
                f"the squared sensitivity of {self.name} under {participation} over n = {n} steps is only bounded: "
                f"the bounds [{lower}, {upper}] do not meet and both exact dynamic programmes are beyond their "
                f"budgets; sensitivity_report(n, participation) returns them"
            )
        return int(lower)

    def _enumerates(self, n: int, participation: Participation) -> bool:
        """Whether the dense enumeration (the oracle) is the route: few patterns and ``n ≤ 4096``."""
        return participation.count_patterns(n) <= MAX_PATTERNS and n <= _DENSE_MAX_N

    def sensitivity_route(self, n: int, participation: Participation) -> str:
        """Which theorem or route :meth:`sensitivity` uses for ``n`` steps under ``participation`` (for reports).

        Parameters
        ----------
        n : int
            The number of steps.
        participation : Participation
            The participation schema.

        Returns
        -------
        str
            A description of the route.
        """
        if participation.participations(n) == 1:
            return "floor(lg n) + 1 released nodes contain leaf 0 (errata 000 §2.11): the largest column norm of C"
        if participation.count_patterns(n) == 1:
            return ("the one pattern that fits, pi* = (0, b, ..., (k'-1)b) (every step when b = 1): ||C u(pi*)|| "
                    "counted node by node (C >= 0)")
        if self._enumerates(n, participation):
            return super().sensitivity_route(n, participation) + "; the tree's C >= 0 makes C^T C >= 0"
        k = participation.participations(n)
        return _structured_sensitivity_squared(n, k, participation.min_sep, self.readout)[2]

    def sensitivity_report(self, n: int, participation: Participation | None = None) -> SensitivityReport:
        r"""The sensitivity with its route, or bounds beyond the dynamic programmes' budgets.

        The route is that of :meth:`sensitivity`; beyond both dynamic programmes' budgets the report holds
        seed 003 Remark 3.2's lower bound and the per-level upper bound. Never builds a dense strategy above ``n = 4096``.

        Parameters
        ----------
        n : int
            The number of steps.
        participation : Participation or None, optional
            The participation schema; ``None`` (the default) is single participation.

        Returns
        -------
        SensitivityReport
            The exact value or the bounds, with the route.
        """
        n = check_int("n", n, 1)
        participation = _check_participation(participation)
        k = participation.participations(n)
        route = self.sensitivity_route(n, participation)
        if k == 1:
            value = math.sqrt(tree_depth(n))
        elif participation.count_patterns(n) == 1:  # n = (k' − 1)b + 1: nothing to enumerate, no dense C
            value = math.sqrt(_pattern_energy(participation.earliest(n), n, self.readout))
        elif self._enumerates(n, participation):
            value = dense_sensitivity(self._cached("C", n, self._build_strategy), participation)
        else:
            lower, upper, _ = _structured_sensitivity_squared(n, k, participation.min_sep, self.readout)
            return SensitivityReport(math.sqrt(lower), math.sqrt(upper), route, n, participation, k)
        return SensitivityReport(value, value, route, n, participation, k)

    def remark32_sensitivity(self, n: int, participation: Participation | None = None) -> float:
        r"""Seed 003 Remark 3.2's lower bound ``‖C u(π*)‖₂`` with ``π* = (0, b, …, (k'−1)b)``.

        The sensitivity seed 003
        uses for its TreeAgg baselines, counted node by node in ``O(k' log n)``. Equal to the exact value in every
        small brute-force case (errata 003 C9), below it in general (module docstring).

        Parameters
        ----------
        n : int
            The number of steps.
        participation : Participation or None, optional
            The participation schema; ``None`` (the default) is single participation.

        Returns
        -------
        float
            ``‖C u(π*)‖₂``.
        """
        n = check_int("n", n, 1)
        participation = _check_participation(participation)
        return math.sqrt(_pattern_energy(participation.earliest(n), n, self.readout))

    # -- energies and noise ----------------------------------------------------------------------------------------

    def row_energies(self, q, n: int) -> np.ndarray:
        r"""The row energies ``‖e_tᵀ F_q N‖²`` for ``t < n`` (base class), structured for full and at ``q = 1``.

        Full (seed 003 §2.3's TreeAgg-Full): by the Haar basis of ``CᵀC`` for every ``q``
        (:func:`_full_row_energies`, module docstring), ``O(n log n)`` per ``q``. Vanilla and honaker: at ``q = 1``
        the prefix variances (seed 003 Eq. 9's per-step errors) in closed form, ``popcount(t+1)`` and
        ``Σ_{bit k of t+1} 2^k/(2^{k+1}−1)``, in ``O(n log n)``; otherwise the dense route on the ``n × m`` noising
        matrix.

        Parameters
        ----------
        q : float or array_like
            The contraction, ``q ∈ [−1, 1]``: a scalar or a 1-D array.
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            The energies, shape ``(n,)`` for scalar ``q``, ``(len(q), n)`` for 1-D ``q``.

        Raises
        ------
        ValueError
            If some ``q`` lies outside ``[−1, 1]``.
        """
        qs, scalar = _check_q(q)
        if self.readout == "full":
            n = check_size("n", check_int("n", n, 1), lambda m: 8.0 * (qs.size + 8) * m, what="the row energies")
            out = _full_row_energies(qs.ravel(), n)
            return out[0] if scalar else out
        if scalar and qs[0] == 1.0:
            n = check_size("n", check_int("n", n, 1), lambda m: _ROW_BYTES * m, what="the row energies")
            t = np.arange(1, n + 1)
            out = np.zeros(n)
            for k in range(n.bit_length()):
                bit = (t >> k) & 1
                out += bit * (1.0 if self.readout == "vanilla" else 2.0**k / (2.0 ** (k + 1) - 1.0))
            return out
        return super().row_energies(q, n)

    def final_row_energy(self, q, n: int):
        r"""The last row energy ``‖e_{n−1}ᵀ F_q N‖²``, the last of :meth:`row_energies`.

        The DP variance of the last iterate of seed 004 eq. 13 (``F_inf(horizon=n)``). For vanilla and honaker from
        the node ranges of the decoder in ``O(m log n)`` per ``q`` (:func:`_final_row_energy`); for full from the Haar
        terms of the nodes, all ended at ``n − 1``, in ``O(n)`` per ``q`` (:func:`_full_final_row_energy`). Neither
        builds the ``n × m`` matrix.

        Parameters
        ----------
        q : float or array_like
            The contraction, ``q ∈ [−1, 1]``: a scalar or a 1-D array.
        n : int
            The number of steps.

        Returns
        -------
        float or numpy.ndarray
            A float for scalar ``q``, an array of shape ``(len(q),)`` for 1-D ``q``.
        """
        qs, scalar = _check_q(q)
        n = check_size("n", check_int("n", n, 1), lambda m: _ROW_BYTES * m, what="the last row's energy")
        out = _full_final_row_energy(qs.ravel(), n) if self.readout == "full" else _final_row_energy(qs.ravel(), n, self.readout)
        return float(out[0]) if scalar else out

    def noise_stream(self, shape: tuple[int, ...], like, steps: int | None) -> Callable:
        """The noise ``N z`` over the next ``K`` steps from blocks of white noise of shape ``(K, *shape)``.

        One draw per
        step (module docstring): a :class:`TreeStream` (vanilla, honaker; exact, ``O(log n)`` memory) or, for
        ``"full"``, the Cholesky factor of ``(CᵀC)⁻¹`` (the same law; ``O(n²)``).

        Parameters
        ----------
        shape : tuple of int
            The shape of one step's noise.
        like : array
            An array whose namespace (NumPy, CuPy, …) the stream computes on.
        steps : int
            The horizon of the stream (``None`` is refused).

        Returns
        -------
        callable
            The stream: a :class:`TreeStream`, or a dense stream for ``"full"``.

        Raises
        ------
        ValueError
            If ``steps`` is ``None``.
        """
        if steps is None:
            raise ValueError(f"steps must be a number of steps: {self.name} streams its noise only over a finite horizon")
        steps = check_int("steps", steps, 1)
        if self.readout == "full":
            with renamed("n", "steps"):
                X = self._cached("X", steps, self._build_gram)
            # (CᵀC)⁻¹ = L Lᵀ with L lower: from the Cholesky factor of the reversed matrix (U Uᵀ, U upper ↔ L lower)
            J = np.arange(steps)[::-1]
            R = np.linalg.cholesky(X[np.ix_(J, J)])  # X_rev = R Rᵀ, R lower
            Linv = scipy.linalg.solve_triangular(R, np.eye(steps), lower=True)  # X_rev⁻¹ = Linvᵀ Linv
            L = Linv.T[np.ix_(J, J)]  # X⁻¹ = L Lᵀ with L lower-triangular
            return DenseNoise(L, shape, like)
        return TreeStream(self.readout, shape, like, steps)

    def strategy_bands(self, n: int) -> int:
        """``n``: the node strategy is ``m × n``, not banded (a leaf's nodes overlap every later leaf's at the root).

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        int
            ``n``.
        """
        return check_int("n", n, 1)

    def stream_history(self, steps: int | None) -> int:
        """The past inputs :meth:`noise_stream` keeps: none for the tree streams (their ``O(log n)`` nodes hold sums,
        not inputs), every past step for ``"full"``'s dense factor.

        Parameters
        ----------
        steps : int
            The horizon of the stream (``None`` is refused).

        Returns
        -------
        int
            ``0`` for ``"vanilla"`` and ``"honaker"``, ``steps − 1`` for ``"full"``.

        Raises
        ------
        ValueError
            If ``steps`` is ``None`` or not an integer ``≥ 1``.
        """
        every_input = super().stream_history(steps)  # the dense route's steps − 1, and its refusal of None
        return every_input if self.readout == "full" else 0

    # -- identity --------------------------------------------------------------------------------------------------

    def cache_key(self) -> str:
        """A stable identifier: the read-out and the node convention.

        Returns
        -------
        str
            ``TreeAggregation:v1:readout=<readout>:nodes=complete-dyadic``.
        """
        return f"TreeAggregation:v1:readout={self.readout}:nodes=complete-dyadic"

    def __repr__(self) -> str:
        return self.name

    def __eq__(self, other) -> bool:
        return isinstance(other, TreeAggregation) and other.readout == self.readout

    def __hash__(self) -> int:
        return hash(("TreeAggregation", self.readout))


class TreeStream:
    r"""The tree's per-gradient noise ``a_t = b_t − b_{t−1}`` from one white draw per step, ``O(log t)`` memory.

    See the module docstring: vanilla the binary counter, honaker the Honaker stack with ``g_t = √v_L · w_t``.

    A node's value is created at its completion step; the stream holds only the chosen nodes of the current prefix
    (the binary expansion of ``t``), so it cannot read a node before its subtree is complete.

    Parameters
    ----------
    readout : {"vanilla", "honaker"}
        The read-out (``"full"`` has no tree stream).
    shape : tuple of int
        The shape of one step's noise.
    like : array
        An array whose namespace (NumPy, CuPy, …) the stream computes on.
    steps : int
        The number of steps the stream holds.
    """

    def __init__(self, readout: str, shape: tuple[int, ...], like, steps: int):
        self.readout = _check_online(readout)
        self.xp = array_namespace(like)
        self.shape = check_shape("shape", shape)
        self.steps = check_int("steps", steps, 1)
        self.t = 0
        self.stack: list[tuple[int, object]] = []  # (level, value): raw node (vanilla) or estimate r' (honaker)

    def __call__(self, z):
        xp = self.xp
        if tuple(z.shape[1:]) != self.shape:
            raise ValueError(f"z must have shape (K, *{self.shape}), got {tuple(z.shape)}")
        K = z.shape[0]
        if self.t + K > self.steps:
            raise ValueError(f"the stream holds {self.steps} steps; {self.t + K} were asked for")
        out = []
        for k in range(K):
            L = _tz(self.t + 1)
            popped = [self.stack.pop() for _ in range(L)]  # levels 0 … L−1: the left siblings of the new node
            if self.readout == "vanilla":
                new = z[k, ...]
                a = new
                for _, v in popped:
                    a = a - v
            else:
                new = math.sqrt((4.0 - 4.0**-L) / 3.0) * z[k, ...]
                a = 0.0
                for lvl, v in popped:
                    new = new + 2.0 ** (lvl - L) * v
                    a = a - v / (2.0 - 2.0**-lvl)
                a = a + new / (2.0 - 2.0**-L)
            self.stack.append((L, new))
            out.append(a)
            self.t += 1
        return xp.stack(out, axis=0) if out else xp.zeros((0, *self.shape), dtype=xp.float64)


def remark32_loss(mechanism: TreeAggregation, n: int, participation: Participation | None = None) -> PrefixLoss:
    r"""Seed 003's MaxLoss/RmsLoss of a tree with the sensitivity it uses for its TreeAgg baselines.

    That sensitivity is **Remark 3.2's
    lower bound** ``‖C u(π*)‖₂`` (errata 003 §2.3, C15), not the exact ``sens_Π`` of :func:`prefix_loss`. The two agree
    at seed 003's Table 3 setting (``n = 2052, k = 6, b = 342``) and in every small brute-force case (errata 003 C9),
    not in general (``n = 10⁴, k = 10, b = 1000``: ``sens² = 255`` vs ``261``, module docstring); the returned
    :class:`PrefixLoss` names the bound in its ``mechanism`` label.

    Parameters
    ----------
    mechanism : TreeAggregation
        The tree.
    n : int
        The number of steps.
    participation : Participation or None, optional
        The participation schema; ``None`` (the default) is single participation.

    Returns
    -------
    PrefixLoss
        The errors, the Remark 3.2 sensitivity and the losses.

    Raises
    ------
    ValueError
        If ``mechanism`` is not a :class:`TreeAggregation`.
    """
    if not isinstance(mechanism, TreeAggregation):
        raise ValueError(f"mechanism must be a TreeAggregation, got {type(mechanism).__name__}")
    n = check_int("n", n, 1)
    participation = _check_participation(participation)
    e = mechanism.row_energies(1.0, n)
    return PrefixLoss(
        mechanism=f"{mechanism.name} [sensitivity: Remark 3.2 lower bound, as seed 003]",
        n=n,
        participation=participation,
        participations=participation.participations(n),
        sensitivity=mechanism.remark32_sensitivity(n, participation),
        max_error=math.sqrt(float(np.max(e))),
        rms_error=math.sqrt(float(np.mean(e))),
    )
