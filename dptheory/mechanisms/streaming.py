r"""Streaming correlated noise ``w̃_t = Σ_{τ<n} β_τ w_{t−τ}`` (seed 004, Alg. 1 and eq. 13).

Blocks of fresh white noise go in, the matching block of correlated noise comes out; the last ``n − 1``
inputs are carried between blocks, so the stream is exact over any horizon with memory
``O((n + K)·chains·d)`` for blocks of ``K`` steps. Long filters use overlap-save FFT convolution
(``O(log n)`` per step and coordinate when ``K ~ n``); short ones (≤ 16 taps, e.g. DP-SGD, anti-PGD) the
direct finite-state sum. Written against the array namespace of its inputs (NumPy or CuPy).
The dense product ``B·w`` is a test oracle only (``tests/test_streaming.py``).
"""

from __future__ import annotations

import math

import numpy as np
from array_api_compat import array_namespace
from scipy import fft as sfft

from .._validation import check_int, check_real_array

__all__ = ["StreamingToeplitzNoise", "BLTStream"]

_DIRECT_TAPS = 16


class StreamingToeplitzNoise:
    """Causal FIR filter along axis 0 with its history carried between calls.

    Parameters
    ----------
    taps : 1-D NumPy array ``β_0, …, β_{n−1}``.
    shape : the shape of one step of noise, e.g. ``(chains, d)``.
    like : an array of the backend to allocate on (its namespace is used throughout).
    max_columns : columns transformed at once by the FFT route, bounding its working memory.
    """

    def __init__(self, taps: np.ndarray, shape: tuple[int, ...], like, *, max_columns: int = 512):
        self.xp = array_namespace(like)
        self.taps_host = check_real_array("taps", taps)
        self.n = self.taps_host.size
        self.shape = tuple(check_int("shape", s, 1) for s in np.atleast_1d(shape))
        self.columns = int(math.prod(shape))
        self.max_columns = check_int("max_columns", max_columns, 1)
        self.history = self.xp.zeros((self.n - 1, *self.shape), dtype=self.xp.float64)
        self._taps = self.xp.asarray(self.taps_host)
        self._spectra: dict[int, object] = {}

    def _spectrum(self, L: int):
        if L not in self._spectra:
            self._spectra[L] = self.xp.fft.rfft(self._taps, n=L)[:, None]
        return self._spectra[L]

    def __call__(self, w):
        """Correlated noise for the block ``w`` of shape ``(K, *shape)``."""
        if tuple(w.shape[1:]) != self.shape:
            raise ValueError(f"w must have shape (K, *{self.shape}), got {tuple(w.shape)}")
        xp, n = self.xp, self.n
        K = w.shape[0]
        if n == 1:
            return self._taps[0] * w
        x = xp.concat([self.history, w], axis=0)  # (n − 1 + K, *shape)
        if n <= _DIRECT_TAPS:
            out = self._taps[0] * x[n - 1 :, ...]
            for k in range(1, n):
                out = out + self._taps[k] * x[n - 1 - k : n - 1 - k + K, ...]
        else:
            rows = n - 1 + K
            L = sfft.next_fast_len(rows, real=True)
            flat = xp.reshape(x, (rows, self.columns))
            spec = self._spectrum(L)
            parts = [
                xp.fft.irfft(xp.fft.rfft(flat[:, c : min(c + self.max_columns, self.columns)], n=L, axis=0) * spec, n=L,
                             axis=0)[n - 1 : rows, :]
                for c in range(0, self.columns, self.max_columns)
            ]
            out = xp.reshape(xp.concat(parts, axis=1) if len(parts) > 1 else parts[0], (K, *self.shape))
        self.history = x[K:, ...]
        return out


class BLTStream:
    r"""Multiply a stream by a BLT with ``d`` buffers (seed 003 Alg. 2 and 3), along axis 0, state carried.

    ``inverse=False`` (Alg. 2, ``Z = C Ẑ``): ``Z_t = Ẑ_t + ωᵀS``, ``S ← diag(θ) S + 1 Ẑ_t``.
    ``inverse=True`` (Alg. 3, ``Ẑ = C⁻¹ Z`` with the same ``(θ, ω)``): ``Ẑ_t = Z_t − ωᵀS``, ``S ← diag(θ) S + 1 Ẑ_t``.
    Memory ``O(d·m)`` for steps of shape ``shape`` (``m`` entries), ``O(d·m)`` work per step; on the array
    namespace of ``like`` (NumPy, CuPy, array-api-strict).
    """

    def __init__(self, theta: np.ndarray, omega: np.ndarray, shape: tuple[int, ...], like, *, inverse: bool):
        self.xp = array_namespace(like)
        self.shape = tuple(check_int("shape", s, 1) for s in np.atleast_1d(shape))
        d = int(np.size(theta))
        self.d, self.inverse = d, bool(inverse)
        lead = (d,) + (1,) * len(self.shape)
        self._theta = self.xp.reshape(self.xp.asarray(np.asarray(theta, dtype=float)), lead)
        self._omega = self.xp.reshape(self.xp.asarray(np.asarray(omega, dtype=float)), lead)
        self.state = self.xp.zeros((d, *self.shape), dtype=self.xp.float64)

    def __call__(self, z):
        """The output for the block ``z`` of shape ``(K, *shape)``."""
        if tuple(z.shape[1:]) != self.shape:
            raise ValueError(f"z must have shape (K, *{self.shape}), got {tuple(z.shape)}")
        xp = self.xp
        if self.d == 0:
            return z
        S, out = self.state, []
        for t in range(z.shape[0]):
            read = xp.sum(self._omega * S, axis=0)
            if self.inverse:
                y = z[t, ...] - read
                S = self._theta * S + y
            else:
                y = z[t, ...] + read
                S = self._theta * S + z[t, ...]
            out.append(y)
        self.state = S
        return xp.stack(out)
