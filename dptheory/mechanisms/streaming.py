r"""Streaming correlated noise ``w̃_t = Σ_{τ<n} β_τ w_{t−τ}`` (seed 004, Alg. 1 and eq. 13).

Blocks of fresh white noise go in, the matching block of correlated noise comes out; the last ``n − 1``
inputs are carried between blocks in one buffer updated in place, so the stream is exact over any horizon with
memory ``O((n + K)·chains·d)`` for blocks of ``K`` steps. Long filters use overlap-save FFT convolution along
time, one ``(L, columns)`` slab of a few columns at a time, ``L ≈ n + K``: ``O((1 + n/K) log(n + K))`` per step and
coordinate, so ``O(log n)`` when ``K ≳ n``; short ones (e.g. DP-SGD, anti-PGD) the direct finite-state sum,
``O(n)``, wherever the cost model (:func:`fir_route`) finds it cheaper. Written against the array namespace of its
inputs (NumPy, CuPy, array-api-strict); on NumPy the transforms are :mod:`scipy.fft`'s on every core. The dense product ``B·w`` is a test oracle only
(``tests/test_streaming.py``).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from array_api_compat import array_namespace, is_numpy_namespace
from scipy import fft as sfft

from .._validation import check_int, check_real_array, check_shape

__all__ = ["StreamingToeplitzNoise", "BLTStream", "fir_route", "blt_cost"]

_FIR_ELEMENTS = 1 << 16  # steps × columns summed at once by the direct route (two 512 KiB buffers: in cache)
_FFT_ELEMENTS = 1 << 18  # L × columns transformed at once by the FFT route (a 2 MiB slab: 32 columns at L = 8192)
_SIMD_COLUMNS = 8  # the FFT slab's width is a multiple of this many columns (vectorised over)
_BLT_CHUNK = 32  # steps per chunk of the BLT stream's matrix-product form (Alg. 2)

# The cost model, in ns per step and column on NumPy, measured 2026-12-02 on the project's 2-core machine (AMD EPYC,
# AVX2; 4096 columns, blocks of 1024 steps unless said; a PCG64 normal took 15 ns there). Only ratios matter to the
# choices below, and they move less between machines than the times do.
_NS_DIRECT_TAP = 1.05  # the direct sum, per tap: 6.4, 10.0, 17.5, 32.0, 66.7 ns at 4, 8, 16, 32, 64 taps
_NS_FFT = 2.1  # overlap-save, per (L/K)·log2(L): 1.8–2.1 for L ≤ 8192 (256–4096 taps), 2.7 at L ≥ 12 288
_NS_BLT = 0.1  # Alg. 2 in chunks, per (chunk + 2d) multiply-adds: 0.085–0.113 at 29–53 buffers, chunk 32


def fir_route(n: int, K: int) -> tuple[str, int, float]:
    r"""How :class:`StreamingToeplitzNoise` filters a block of ``K`` steps through ``n`` taps, and its cost.

    ``("direct", 0, cost)``: the finite-state sum, ``n`` multiply-adds per step and column; ``("fft", L, cost)``:
    overlap-save with transforms of ``L = next_fast_len(K + n − 1)`` points, ``O((L/K)·log L)``; whichever the
    cost model finds cheaper (measured constants, this module's ``_NS_*``; the two meet near 24 taps at 1024-step
    blocks). ``cost``: estimated ns per step and column on NumPy.

    Parameters
    ----------
    n : int
        The taps that reach into the block (``≥ 1``).
    K : int
        The block's steps (``≥ 1``).

    Returns
    -------
    tuple of (str, int, float)
        The route, the transform length (0 for the direct sum) and the estimated cost.
    """
    n, K = check_int("n", n, 1), check_int("K", K, 1)
    if n == 1:
        return "direct", 0, 0.0
    L = sfft.next_fast_len(K + n - 1, real=True)
    direct, fft = _NS_DIRECT_TAP * n, _NS_FFT * (L / K) * math.log2(L)
    return ("direct", 0, direct) if direct <= fft else ("fft", L, fft)


def blt_cost(buffers: int, chunk: int = _BLT_CHUNK) -> float:
    """Estimated ns per step and column of :class:`BLTStream`'s chunked Alg. 2 with ``buffers`` buffers on NumPy.

    ``chunk + 2·buffers`` multiply-adds at BLAS speed (the cost model's ``_NS_BLT`` per multiply-add).

    Parameters
    ----------
    buffers : int
        The BLT's buffers ``d`` (``≥ 0``).
    chunk : int, default 32
        Steps per chunk of three matrix products.

    Returns
    -------
    float
        The estimated cost.
    """
    return _NS_BLT * (check_int("chunk", chunk, 1) + 2 * check_int("buffers", buffers, 0))


class StreamingToeplitzNoise:
    r"""Causal FIR filter along axis 0 with its history carried between calls (seed 004, Alg. 1, eq. 13).

    A call with a block of ``K`` steps over ``C = prod(shape)`` columns costs, by the direct sum, ``n·K·C``
    multiply-adds in cache-sized passes; by overlap-save, one real FFT and one inverse of length
    ``L = next_fast_len(K + m − 1)`` per column, ``m = min(n, steps so far + K)`` (the stream starts from zero
    inputs, so early blocks need only the taps reaching back to step 0), i.e. ``O((1 + n/K) log(n + K))`` per
    step and column: size ``K ≳ n`` for ``O(log n)``. Each call takes the cheaper by :func:`fir_route` (the direct
    sum for a few taps, e.g. anti-PGD's two). The transforms run along the steps axis of a steps-major
    slab of a few columns (at most ``2¹⁸`` floats: 32 columns at ``L = 8192``) holding each column's history and
    block, so history, block and output move in and out as whole rows, with no transposed copy (transposing
    into column-major slabs had cost 0.47 s against 0.26 s for one 4096-step block of 8192 columns through 4096
    taps, the transforms alone taking 0.20 s). Memory: the history, ``(n − 1)·C`` floats, the returned block,
    ``K·C``, and about three slabs, 6 MiB.

    Parameters
    ----------
    taps : array_like
        The taps ``β_0, …, β_{n−1}``: a 1-D NumPy array.
    shape : tuple of int
        The shape of one step of noise, e.g. ``(chains, d)``.
    like : array
        An array of the backend to allocate on (its namespace is used throughout).
    max_columns : int, default 512
        At most this many columns are transformed at once by the FFT route.
    """

    def __init__(self, taps: np.ndarray, shape: tuple[int, ...], like, *, max_columns: int = 512):
        xp = self.xp = array_namespace(like)
        self.taps_host = check_real_array("taps", taps)
        self.n = self.taps_host.size
        self.shape = check_shape("shape", shape)
        self.columns = int(math.prod(shape))
        self.max_columns = check_int("max_columns", max_columns, 1)
        self._past = xp.zeros((self.n - 1, self.columns), dtype=xp.float64)  # the last n − 1 inputs, oldest first
        self._seen = 0  # inputs so far, up to n − 1: older entries of _past are still zero
        self._beta = [float(b) for b in self.taps_host]
        self._taps = xp.asarray(self.taps_host)
        cores = dict(workers=-1) if is_numpy_namespace(xp) else {}  # scipy.fft on every core; else the namespace's
        fft = sfft if cores else xp.fft
        self._rfft = functools.partial(fft.rfft, axis=0, **cores)
        self._irfft = functools.partial(fft.irfft, axis=0, **cores)
        self._spectra: dict[tuple[int, int], object] = {}

    @property
    def history(self):
        """The last ``n − 1`` inputs, oldest first, shape ``(n − 1, *shape)`` (zeros before the first step)."""
        return self.xp.reshape(self._past, (self.n - 1, *self.shape))

    def __call__(self, w):
        """Correlated noise for the block ``w`` of shape ``(K, *shape)`` (``w`` itself when ``β = (1)``)."""
        if tuple(w.shape[1:]) != self.shape:
            raise ValueError(f"w must have shape (K, *{self.shape}), got {tuple(w.shape)}")
        K = w.shape[0]
        if self.n == 1 or K == 0:
            return w if self._beta[0] == 1.0 else self._beta[0] * w
        flat = self.xp.reshape(w, (K, self.columns))
        route, _, _ = fir_route(self.n, K)  # the direct sum runs over all n taps; the transforms over those reaching step 0
        out = self._direct(flat) if route == "direct" else self._overlap_save(flat)
        self._seen = min(self._seen + K, self.n - 1)
        return self.xp.reshape(out, (K, *self.shape))

    def _direct(self, w):
        """``out_t = Σ_τ β_τ w_{t−τ}`` in passes of a few steps, accumulated in place (no block-sized temporaries)."""
        xp, n, (K, C) = self.xp, self.n, w.shape
        head = min(K, n - 1)  # the first outputs reach into the history
        x = xp.concat([self._past, w[:head, :]], axis=0)
        out = xp.empty((K, C), dtype=xp.float64)
        rows = max(1, _FIR_ELEMENTS // C)
        term = xp.empty((rows, C), dtype=xp.float64)
        for src, lo, hi, shift in ((x, 0, head, n - 1), (w, head, K, 0)):
            for a in range(lo, hi, rows):
                b = min(a + rows, hi)
                acc, tmp = out[a:b, :], term[: b - a, :]
                acc[...] = src[a + shift : b + shift, :]
                acc *= self._beta[0]
                for k in range(1, n):
                    tmp[...] = src[a + shift - k : b + shift - k, :]
                    tmp *= self._beta[k]
                    acc += tmp
        self._past[...] = w[K - n + 1 :, :] if K >= n - 1 else x[K:, :]
        return out

    def _spectrum(self, m: int, L: int):
        if (m, L) not in self._spectra:
            self._spectra[(m, L)] = self._rfft(self._taps[:m], n=L)[:, None]
        return self._spectra[(m, L)]

    def _overlap_save(self, w):
        """Per slab of columns: ``[history, block, 0]`` down the steps axis of an ``(L, columns)`` buffer, circular
        convolution by FFT along that axis, the last ``K`` valid outputs copied out as rows; the slab's new history
        is written from the same buffer, so the history is never concatenated with ``w``."""
        xp, n, (K, C) = self.xp, self.n, w.shape
        h = self._seen  # history entries that can be nonzero
        m = min(n, h + K)  # taps that reach back to step 0
        keep = min(n - 1, h + K)  # entries of the new history that can be nonzero
        L = sfft.next_fast_len(K + m - 1, real=True)
        spectrum = self._spectrum(m, L)
        width = min(self.max_columns, C, max(1, _FFT_ELEMENTS // L // _SIMD_COLUMNS) * _SIMD_COLUMNS)
        # rows h + K .. L stay zero: the slab is the transform's padded input (no padded copy per slab, 1.2–1.4× faster
        # at 2048 taps and 8192 columns, the same numbers bit for bit); rows up to h + K are written per slab
        slab = xp.zeros((L, width), dtype=xp.float64)
        out = xp.empty((K, C), dtype=xp.float64)
        for c in range(0, C, width):
            e = min(c + width, C)
            x = slab[:, : e - c]
            if h:
                x[:h, :] = self._past[n - 1 - h :, c:e]
            x[h : h + K, :] = w[:, c:e]
            self._past[n - 1 - keep :, c:e] = x[h + K - keep : h + K, :]
            spec = self._rfft(x)
            spec *= spectrum
            out[:, c:e] = self._irfft(spec, n=L)[h : h + K, :]
        return out


class BLTStream:
    r"""Multiply a stream by a BLT with ``d`` buffers (seed 003 Alg. 2 and 3), along axis 0, state carried.

    ``inverse=False`` (Alg. 2, ``Z = C Ẑ``): ``Z_t = Ẑ_t + ωᵀS``, ``S ← diag(θ) S + 1 Ẑ_t``, run ``chunk`` steps at
    a time as three matrix products (:meth:`_chunked`): ``O(chunk + 2d)`` multiply-adds per step and entry.
    ``inverse=True`` (Alg. 3, ``Ẑ = C⁻¹ Z`` with the same ``(θ, ω)``): ``Ẑ_t = Z_t − ωᵀS``, ``S ← diag(θ) S + 1 Ẑ_t``,
    a feedback run one step at a time, ``O(d)`` per step and entry. Memory ``O(d·m)`` for steps of shape ``shape``
    (``m`` entries); on the array namespace of ``like`` (NumPy, CuPy, array-api-strict).

    Parameters
    ----------
    theta : array_like
        The ``d`` decays ``θ``.
    omega : array_like
        The ``d`` output scales ``ω``.
    shape : tuple of int
        The shape of one step, ``m = prod(shape)`` entries.
    like : array
        An array of the backend to allocate on (its namespace is used throughout).
    inverse : bool
        Multiply by ``C⁻¹`` (Alg. 3) rather than ``C`` (Alg. 2); keyword-only.
    chunk : int, default 32
        ``inverse=False`` only: steps per chunk of the matrix-product form; keyword-only.
    """

    def __init__(self, theta: np.ndarray, omega: np.ndarray, shape: tuple[int, ...], like, *, inverse: bool,
                 chunk: int = _BLT_CHUNK):
        self.xp = array_namespace(like)
        self.shape = check_shape("shape", shape)
        self.columns = int(math.prod(self.shape))
        self._theta_host, self._omega_host = np.asarray(theta, dtype=float), np.asarray(omega, dtype=float)
        d = int(self._theta_host.size)
        self.d, self.inverse = d, bool(inverse)
        self.chunk = check_int("chunk", chunk, 1)
        self.state = self.xp.zeros((d, *self.shape), dtype=self.xp.float64)
        if self.inverse:  # Alg. 3 step by step: (θ, ω) broadcast against one step's state
            lead = (d,) + (1,) * len(self.shape)
            self._theta = self.xp.reshape(self.xp.asarray(self._theta_host), lead)
            self._omega = self.xp.reshape(self.xp.asarray(self._omega_host), lead)
        self._operators = {}  # Alg. 2 in chunks: chunk length -> (T, P, Q, θ^chunk) on the backend

    def __call__(self, z):
        """The output for the block ``z`` of shape ``(K, *shape)``."""
        if tuple(z.shape[1:]) != self.shape:
            raise ValueError(f"z must have shape (K, *{self.shape}), got {tuple(z.shape)}")
        xp = self.xp
        if self.d == 0:
            return z
        if not self.inverse:
            return self._chunked(z)
        S, out = self.state, []
        for t in range(z.shape[0]):
            read = xp.sum(self._omega * S, axis=0)
            y = z[t, ...] - read
            S = self._theta * S + y
            out.append(y)
        self.state = S
        return xp.stack(out)

    def _chunk_operators(self, c: int):
        r"""For ``c`` steps from a state ``S``: the ``c×c`` lower-triangular Toeplitz ``T`` of ``(1, Σω, Σωθ, …)``
        (Eq. 2), the read-out ``P_{ij} = ω_jθ_j^i``, the state update ``Q_{jk} = θ_j^{c−1−k}`` and ``θ^c``."""
        if c not in self._operators:
            th, om = self._theta_host, self._omega_host
            powers = np.power.outer(th, np.arange(c + 1, dtype=float))  # θ_j^i, i = 0..c
            coeffs = np.concatenate([[1.0], om @ powers[:, : c - 1]])  # c_0, …, c_{c−1}
            lag = np.arange(c)[:, None] - np.arange(c)[None, :]
            T = np.where(lag >= 0, coeffs[np.maximum(lag, 0)], 0.0)
            P = (om[:, None] * powers[:, :c]).T
            Q = powers[:, c - 1 :: -1]
            self._operators[c] = tuple(self.xp.asarray(a) for a in (T, P, Q, powers[:, c][:, None]))
        return self._operators[c]

    def _chunked(self, z):
        r"""Alg. 2 on ``c`` steps at once: with ``S`` the state before the chunk, ``Z = T Ẑ + P S`` and
        ``S ← θ^c S + Q Ẑ`` (``S_j`` after step ``t`` is ``Σ_{s≤t} θ_j^{t−s} Ẑ_s``), so the steps of a chunk
        cost three matrix products over all ``m`` entries."""
        xp, K = self.xp, z.shape[0]
        flat = xp.reshape(z, (K, self.columns))
        S = xp.reshape(self.state, (self.d, self.columns))
        out = xp.empty((K, self.columns), dtype=xp.float64)
        for a in range(0, K, self.chunk):
            b = min(a + self.chunk, K)
            T, P, Q, decay = self._chunk_operators(b - a)
            x = flat[a:b, :]
            out[a:b, :] = T @ x + P @ S
            S = decay * S + Q @ x
        self.state = xp.reshape(S, (self.d, *self.shape))
        return xp.reshape(out, (K, *self.shape))
