r"""``‖M⁻¹‖_F²`` of a banded lower-triangular ``M``, and its gradient, in ``O(n w²)`` time and ``O(n w)`` memory.

BandMF's objective (Choquette-Choo et al. 2023; seed 003 §2.4) is ``‖W C⁻¹‖_F²`` for a banded strategy ``C``. With
a workload whose inverse is banded (:meth:`~dptheory.mechanisms.Workload.inverse_bands`: the prefix sums, momentum,
learning-rate schedules), ``W C⁻¹ = M⁻¹`` for the banded lower-triangular ``M = C W⁻¹`` of bandwidth ``w`` (entries
``0 ≤ i − j ≤ w``): the objective is the squared Frobenius norm of the inverse of a banded matrix. No ``n × n``
matrix is needed.

**Value** (block selected inversion). Partition ``[0, n)`` into blocks of ``s ≥ w`` rows; ``M`` is then block
lower-bidiagonal with lower-triangular diagonal blocks ``D_k`` and sub-diagonal blocks ``E_k``. The diagonal blocks
``S_k`` of ``Σ = M⁻ᵀ M⁻¹`` obey (from ``Mᵀ Σ = M⁻¹``, whose strictly upper block part is zero; Takahashi et al.
1973 in block form)

    ``S_K = D_K⁻ᵀ D_K⁻¹``,     ``S_k = D_k⁻ᵀ D_k⁻¹ + F_kᵀ S_{k+1} F_k``  with  ``F_k = E_k D_k⁻¹``,

and ``‖M⁻¹‖_F² = tr Σ = Σ_k tr S_k``: ``n/s`` steps of ``O(s³)`` BLAS-3 work, ``O(n s²)`` in all.

**Gradient** (reverse mode of the recursion). With ``P_k = ∂(tr Σ)/∂S_k``: ``P_0 = I``,
``P_{k+1} = I + F_k P_k F_kᵀ``; then ``∂/∂F_k = 2 S_{k+1} F_k P_k``, and through ``F_k = E_k D_k⁻¹`` and the
``tr(P_k D_k⁻ᵀ D_k⁻¹)`` term

    ``∂/∂E_k = F̄_k D_k⁻ᵀ``,     ``∂/∂D_k = −2 D_k⁻ᵀ D_k⁻¹ P_k D_k⁻ᵀ − F_kᵀ F̄_k D_k⁻ᵀ``,

of which the band entries are kept. The ``S_k`` are kept (``n s`` floats) for the reverse sweep.

The dense ``‖M⁻¹‖_F²`` (``np.linalg.inv``) and finite differences are the independent routes in
``tests/test_banded_inverse.py``.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.linalg import lapack

__all__: list[str] = []

#: The smallest block: below it the per-block Python overhead outweighs the BLAS-3 work saved.
_MIN_BLOCK = 64


def block_size(n: int, bandwidth: int) -> int:
    """The block size ``s = max(w, 64)`` (at most ``n``) of the recursion."""
    return max(1, min(n, max(bandwidth, _MIN_BLOCK)))


@functools.lru_cache(maxsize=8)
def _layout(n: int, w: int) -> tuple[tuple[tuple[int, int], ...], dict]:
    """The blocks' spans and, per block pair ``(r, c)``, the flat indices of its band entries in the diagonal
    storage and their positions in the dense block (cached: an optimiser evaluates one layout hundreds of times)."""
    s = block_size(n, w)
    spans = tuple((k, min(k + s, n)) for k in range(0, n, s))
    index = {}
    for k in range(len(spans)):
        for r in (k, k + 1):
            if r == len(spans):
                continue
            (r0, r1), (c0, c1) = spans[r], spans[k]
            rows = np.arange(r0, r1)[:, None]
            cols = np.arange(c0, c1)[None, :]
            offset = rows - cols
            inside = np.flatnonzero(((offset >= 0) & (offset <= w)).ravel())
            flat = (np.broadcast_to(offset, (r1 - r0, c1 - c0)).ravel()[inside] * n
                    + np.broadcast_to(cols, (r1 - r0, c1 - c0)).ravel()[inside])
            index[r, k] = (flat, inside, (r1 - r0, c1 - c0))
    return spans, index


def _gram(L: np.ndarray) -> np.ndarray:
    """``Lᵀ L`` of a lower-triangular ``L`` (LAPACK ``lauum``, ``s³/3`` flops), symmetric."""
    G, info = lapack.dlauum(L, lower=1)
    if info != 0:  # pragma: no cover - lauum fails only on a bad argument
        raise RuntimeError(f"LAPACK dlauum failed (info = {info})")
    G = np.tril(G)
    return G + np.tril(G, -1).T


def inverse_frobenius_sq(bands: np.ndarray, *, gradient: bool = True):
    r"""``‖M⁻¹‖_F²`` and ``∂/∂M`` on the band, for ``M`` in diagonal storage ``bands[o, j] = M[j + o, j]``.

    Parameters
    ----------
    bands : numpy.ndarray
        Shape ``(w + 1, n)``: ``bands[o, j] = M_{j+o, j}`` (entries past row ``n − 1`` are ignored); the diagonal
        ``bands[0]`` must be non-zero.
    gradient : bool, default True
        Whether to return the gradient.

    Returns
    -------
    value : float
        ``‖M⁻¹‖_F²``.
    grad : numpy.ndarray
        ``∂‖M⁻¹‖_F²/∂M`` in the same storage (zero past row ``n − 1``); only when ``gradient`` is true.
    """
    w = bands.shape[0] - 1
    n = bands.shape[1]
    spans, index = _layout(n, w)
    K = len(spans)
    flat_bands = bands.ravel()

    def block(r, c):
        flat, inside, shape = index[r, c]
        out = np.zeros(shape[0] * shape[1])
        out[inside] = flat_bands[flat]
        return out.reshape(shape)

    Dinv, F, S, SF = [None] * K, [None] * K, [None] * K, [None] * K
    for k in range(K):
        Dinv[k], info = lapack.dtrtri(block(k, k), lower=1)
        if info != 0:
            raise ValueError("bands[0] (the diagonal of M) must be non-zero")
        Dinv[k] = np.tril(Dinv[k])
        if k + 1 < K:
            F[k] = block(k + 1, k) @ Dinv[k]
    S[K - 1] = _gram(Dinv[K - 1])
    for k in range(K - 2, -1, -1):
        SF[k] = S[k + 1] @ F[k]
        S[k] = _gram(Dinv[k]) + F[k].T @ SF[k]
    value = math.fsum(float(np.trace(Sk)) for Sk in S)
    if not gradient:
        return value
    grad = np.zeros(bands.size)
    P = np.eye(spans[0][1] - spans[0][0])
    for k in range(K):
        X = P @ Dinv[k].T
        flat, inside, _ = index[k, k]
        grad[flat] += (-2.0 * S[k] @ X).ravel()[inside]  # ∂/∂D_k = −2 (D⁻ᵀD⁻¹ + Fᵀ S_{k+1} F) P D⁻ᵀ = −2 S_k P D⁻ᵀ
        if k + 1 < K:
            flat, inside, _ = index[k + 1, k]
            grad[flat] += (2.0 * SF[k] @ X).ravel()[inside]  # ∂/∂E_k = 2 S_{k+1} F_k P_k D_k⁻ᵀ
            P = np.eye(F[k].shape[0]) + (F[k] @ P) @ F[k].T
    return value, grad.reshape(bands.shape)
