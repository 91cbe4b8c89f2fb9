"""An independent exact route to the tree's multi-participation S², kept for the tests only: the dynamic programme
over dyadic subtrees that ``dptheory.treeagg.accounting.worst_case_sensitivity_sq`` used before the mechanism's
faster programmes (``dptheory.mechanisms.tree``) replaced it."""

import functools

import numpy as np

from dptheory._validation import check_int
from dptheory.treeagg import accounting as ta


def subtree_dp_sensitivity_sq(steps, *, max_participations, min_separation, readout: str = "all") -> int:
    """``worst_case_sensitivity_sq`` by a dynamic programme over the dyadic subtrees (the package's former route).

    For a subtree, ``G[m, s, t]`` is the best sum inside it with
    exactly ``m`` participations, the first at offset ≥ s from its left end and the last at offset ≥ t from its
    right end (``s, t ≤ min_separation``); children combine with ``t_left + s_right ≥ min_separation``.
    Cost ``O(lg(steps)·m²·min_separation³)``: the tests' independent route (the mechanism's
    ``_subtree_pattern_energies`` is its faster successor, with the participations capped per subtree).
    """
    N = ta._check_n("steps", steps)
    M = ta._check_n("max_participations", max_participations)
    sep = check_int("min_separation", min_separation, 0)
    readout = ta._check_choice("readout", readout, ta.READOUTS)
    M = min(M, (N - 1) // (sep + 1) + 1)  # the most that fit
    H = (N - 1).bit_length()
    S = sep + 1
    neg = -np.inf

    @functools.lru_cache(maxsize=None)
    def table(k: int, j: int, full: bool) -> np.ndarray:
        # full subtrees of one level and one parity are identical: key (k, parity, True); partial ones by (k, j)
        size = 1 << k
        if full:
            own = 1.0 if (readout == "all" or j % 2 == 0) else 0.0
        else:
            own = 1.0 if ((j + 1) << k <= N and (readout == "all" or j % 2 == 0)) else 0.0
        G = np.full((M + 1, S, S), neg)
        G[0] = 0.0
        if k == 0:
            if j < N:
                G[1, 0, 0] = own
            return G
        half = size >> 1
        lj, rj = 2 * j, 2 * j + 1
        left = _child(k - 1, lj)
        right = _child(k - 1, rj)
        s_idx = np.arange(S)
        for m in range(1, M + 1):
            best = np.full((S, S), neg)
            # all m in the right child: its first is at offset >= half from our left end
            best = np.maximum(best, right[m][np.maximum(s_idx - half, 0)])
            # all m in the left child
            best = np.maximum(best, left[m][:, np.maximum(s_idx - half, 0)])
            for m1 in range(1, m):
                L = left[m1]        # [s, t1]
                R = right[m - m1]   # [s2, t]
                # t1 = sep - s2 (the least constraint that keeps the gap), s2 = 0..sep
                Lc = L[:, sep - s_idx]              # [s, s2]
                cand = np.max(Lc[:, :, None] + R[None, :, :], axis=1)
                best = np.maximum(best, cand)
            G[m] = best + own * m * m
        return G

    def _child(k: int, j: int) -> np.ndarray:
        full = (j + 1) << k <= N
        return table(k, j % 2, True) if full else table(k, j, False)

    root = _child(H, 0)
    return int(round(max(float(np.max(root[m, 0, 0])) for m in range(1, M + 1))))
