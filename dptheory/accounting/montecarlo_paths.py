r"""The kernel of :mod:`.montecarlo`: draws the privacy-loss paths of both directions and their weights.

:func:`_sample` returns, for each direction of the add/remove relation, ``n`` paths of ``T`` rounds drawn from the
direction's proposal (:mod:`.montecarlo_tilts`): each path's loss ``L`` and log-weight ``log W = −θL + Tκ``. The
rounds are processed ``chunk`` at a time (memory ``O(n × chunk)``), both directions start from the same standard
normals (common random numbers), and the rounds of a ``"remove"`` path are sorted by their mixture component.
Everything random comes from one ``get_backend(backend).rng(seed)``; the kernel is written against the array
namespace of its backend and runs unchanged on CuPy (:mod:`.montecarlo`, *Sampling*).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import array_api_compat

from .montecarlo_tilts import _add_tilt, _remove_tilt

__all__: list[str] = []


def _log_mix(p: float, z, xp):
    """``log(1 − p + p·e^z)`` elementwise, stable for every ``z`` (:mod:`.montecarlo`, *Model*)."""
    if p == 0.0:
        return xp.zeros_like(z)
    if p == 1.0:
        return z
    return xp.maximum(z, 0.0) + xp.log1p(xp.where(z > 0.0, 1.0 - p, p) * xp.expm1(-xp.abs(z)))


def _softplus(y, xp):
    return xp.maximum(y, 0.0) + xp.log1p(xp.exp(-xp.abs(y)))


def _exp_safe(sigma: float, q: float, k_max: int) -> bool:
    """Whether ``e^z`` and ``e^{z + λ}`` cannot overflow (``|n| < 40``, ``x = k + σn`` with ``k ≤ k_max``), so that
    every round's loss is the logarithm of a finite factor (:class:`_Kernel`); otherwise the stable forms per
    element (small ``σ`` only)."""
    lam = math.log(q) - math.log1p(-q) if q < 1.0 else 0.0
    return 40.0 / sigma + (2.0 * max(k_max, 1) - 1.0) / (2.0 * sigma**2) + max(lam, 0.0) < 700.0


def _levels(rng, bk, T: int, tail: tuple[float, ...], n: int):
    """Per path, the number ``B_j`` of rounds whose component is ``k ≥ j`` (``j = 1, 2, …``): ``B_1 ~ Bin(T,
    P(k ≥ 1))`` and ``B_j ~ Bin(B_{j−1}, P(k ≥ j)/P(k ≥ j − 1))`` -- the multinomial counts of the components,
    drawn level by level until every path's count is 0. Returns ``[(B_j as a float array, min_j, max_j)]``."""
    out, prev, prev_p = [], None, 1.0
    for p in tail:
        ratio = min(p / prev_p, 1.0) if prev_p > 0.0 else 0.0
        if prev is None:
            counts = rng.binomial(T, ratio, size=n)
        elif ratio == 1.0:
            counts = prev  # B_j = B_{j−1}: nothing to draw (q = 1, or P(k < j) below rounding)
        else:
            counts = rng.binomial(prev, ratio)
        hi = int(counts.max())
        if hi == 0:
            break
        out.append((bk.asarray(counts, dtype=bk.xp.float64), int(counts.min()), hi))
        prev, prev_p = counts, p
    return out


def _rows(a, xp):
    """``Σ_t a[t]`` over the rounds of a chunk ``(K, n)`` (row 0 itself when ``K = 1``)."""
    return a[0, ...] if a.shape[0] == 1 else xp.sum(a, axis=0)


class _LogSum:
    """``Σ_t ℓ_t`` per path over the rounds, fed the terms ``ℓ_t`` (``every = None``) or the factors
    ``e^{ℓ_t}``: these are multiplied over at most ``every`` rounds between two logarithms (one ``log`` per path
    every ``every`` rounds instead of one per path and round; the product's rounding is ``every`` ulps)."""

    def __init__(self, n: int, every: int | None, xp):
        self.xp, self.every, self.rounds = xp, every, 0
        self.total = xp.zeros((n,), dtype=xp.float64)
        self.product = xp.ones((n,), dtype=xp.float64)

    def add(self, terms):
        """Adds the rounds of a chunk ``(K, n)``."""
        xp, K = self.xp, terms.shape[0]
        if self.every is None:
            self.total += _rows(terms, xp)
            return
        i = 0
        while i < K:
            r = min(K - i, self.every - self.rounds)
            self.product *= _rows(terms[i : i + r, ...], xp) if r == 1 else xp.prod(terms[i : i + r, ...], axis=0)
            self.rounds, i = self.rounds + r, i + r
            if self.rounds == self.every:
                self._flush()

    def _flush(self):
        self.total += self.xp.log(self.product)
        self.product = self.xp.ones_like(self.product)
        self.rounds = 0

    def value(self):
        if self.rounds:
            self._flush()
        return self.total


def _rounds_per_log(pairs, s: float) -> int:
    """Rounds whose factors ``a + b·e^u`` (``(a, b)`` in ``pairs``, ``|u| ≤ s``) multiply without overflow or
    underflow: each factor's ``|log|`` is at most ``A`` (at ``u = ±s``, monotone in ``u``), and ``G·A ≤ 600``."""
    A = max(abs(math.log(a + b * math.exp(u))) for a, b in pairs for u in (-s, s))
    return max(1, int(600.0 / max(A, 1e-3)))


class _Kernel:
    """Both directions over ``n`` paths, one chunk of rounds at a time; fixed model, proposal and backend.

    Per path and round: one exponential ``E = e^u`` (``u = n/σ``) shared by both directions, then only
    arithmetic. Every round's loss is ``log f`` of a factor ``f = a + b·E`` (``1 − q + q·e^z`` for ``"remove"``,
    ``e^z = E·e^{(2k−1)/(2σ²)}`` in component ``k``; ``1 + e^{z+λ}`` for the ``"add"`` softplus), and
    :class:`_LogSum` multiplies the factors over up to ``every`` rounds before one logarithm. The rejection step
    of ``"add"`` accepts a candidate when ``U < 1 + s⁻`` with ``s⁻ = d·v − θ·e^{z+λ} + c ≤ s`` (``softplus(x) ≤
    e^x``, ``1 + s ≤ e^s``) and evaluates its exact acceptance probability ``e^s`` only for the candidates that
    squeeze leaves in doubt (~0.3% at Table 9): the same accept/reject decisions as ``U < e^s``. On NumPy the
    chunk-sized temporaries are written into buffers kept across chunks (a fresh 512 KiB temporary is faulted in
    from the OS on every chunk: half the time at Table 9); elsewhere the same operations return new arrays, the
    same numbers. When ``e^z`` can overflow (:func:`_exp_safe`, small ``σ``) it takes the stable forms per element
    (``_log_mix``, ``_softplus``: two or three logarithms and exponentials per path and round) and sums them.
    """

    def __init__(self, sigma: float, q: float, T: int, proposal: tuple[int, float], n: int, rng, bk):
        # Python floats throughout: a NumPy scalar is not an array of another namespace (array-api-strict refuses it)
        self.sigma, self.q, self.T, self.rng, self.bk, self.xp = float(sigma), float(q), T, rng, bk, bk.xp
        xp, s2 = bk.xp, self.sigma**2
        self.numpy = array_api_compat.is_numpy_namespace(xp)
        self.buffers = {}
        self.rtilt = _remove_tilt(sigma, q, int(proposal[0]))
        self.tilt = tilt = _add_tilt(sigma, q, proposal[1])
        # "remove": the component counts of each path (rounds sorted by component: only the counts matter)
        self.levels = _levels(rng, bk, T, self.rtilt.tail, n)
        k_max = len(self.levels)
        self.fast = _exp_safe(sigma, q, k_max)
        self.half = half = 0.5 / s2
        self.lam = math.log(q) - math.log1p(-q) if q < 1.0 else math.inf
        # "add" envelope N(−d, σ²): x = σn − d, z = v − shift; log-acceptance d·v − θ·softplus(v + c_sp) + c_h
        d = float(tilt.d)
        shift = half + d / s2
        self.c_sp = float(self.lam - shift)
        self.c_h = float((d + d**2) / (2.0 * s2) - tilt.h_star - d * shift)
        # e^{ℓ_q} at z = u + (2k − 1)/(2σ²) for the extreme components k = 0 and k_max
        pairs = [(1.0 - q, q * math.exp(-half)), (1.0 - q, q * math.exp((2 * k_max - 1) * half))] if self.fast else []
        if tilt.theta > 0.0 and q < 1.0:
            pairs.append((1.0, math.exp(self.c_sp)))
        every = _rounds_per_log(pairs, 40.0 / self.sigma) if self.fast else None
        self.loss_r, self.loss_a = _LogSum(n, every, xp), _LogSum(n, every, xp)
        self.sum_u = xp.zeros((n,), dtype=xp.float64)  # Σ_t u_t: L of "add" at q = 1

    def _buffer(self, name: str, shape):
        buf = self.buffers.get(name)
        if buf is None or buf.shape != shape:
            buf = self.buffers[name] = self.xp.empty(shape, dtype=self.xp.float64)
        return buf

    def _f(self, f, x, *args, out: str | None = None):
        """``f(x, *args)``, into the buffer ``out`` (shaped like ``x``) on NumPy."""
        if out is None or not self.numpy:
            return f(x, *args)
        return f(x, *args, out=self._buffer(out, x.shape))

    def normals(self, shape, out: str | None = None):
        """Standard normals of the run's generator (into the buffer ``out`` on NumPy)."""
        if out is None or not self.numpy:
            return self.bk.asarray(self.rng.standard_normal(size=shape))
        return self.rng.standard_normal(size=shape, out=self._buffer(out, shape))

    def _uniforms(self, m: int, out: str | None = None):
        if out is None or not self.numpy:
            return self.bk.asarray(self.rng.random(size=m))
        return self.rng.random(size=m, out=self._buffer(out, (m,)))

    def _factor(self, p: float, E, b: float, out: str | None = None):
        """``e^{ℓ_p} = 1 − p + p·e^z`` at ``e^z = b·E``."""
        f = self._f(self.xp.multiply, E, p * b, out=out)
        f += 1.0 - p
        return f

    def chunk(self, u, t0: int):
        """Rounds ``t0 … t0 + K − 1`` of every path from ``u = n/σ`` ``(K, n)``, shared by both directions."""
        xp, q, tilt, half, fast = self.xp, self.q, self.tilt, self.half, self.fast
        E = self._f(xp.exp, u, out="E") if fast else None
        if q == 1.0 and tilt.theta > 0.0:
            self.sum_u += _rows(u, xp)
        self._remove(u, E, t0)
        # "add": x ~ Q_θ (L_t = −ℓ), by rejection when θ > 0 and q < 1
        if tilt.theta == 0.0:
            self.loss_a.add(self._factor(q, E, math.exp(-half), out="f") if fast else _log_mix(q, u - half, xp))
        elif q < 1.0:
            self.loss_a.add(self._tilted(u, E))

    def _remove(self, u, E, t0: int):
        """``"remove"``: ``x = k + σn``, ``z = u + (2k − 1)/(2σ²)``, round ``t`` of a path in component
        ``k = Σ_j [t < B_j]``. Levels that hold every round of the chunk for every path add 1 to ``k`` without a
        comparison, levels that hold none are skipped: ``Σ_j (max B_j − min B_j)`` comparisons per path in all."""
        xp, half, K = self.xp, self.half, u.shape[0]
        t1 = t0 + K
        base = sum(1 for _, lo, _ in self.levels if lo >= t1)
        active = [B for B, lo, hi in self.levels if lo < t1 and hi > t0]
        c = (2 * base - 1) * half  # z − u of the rounds in no active level
        if not active:
            if self.fast:
                self.loss_r.add(self._factor(self.q, E, math.exp(c), out="f"))
            else:
                self.loss_r.add(_log_mix(self.q, u + c, xp))
            return
        t = xp.reshape(xp.arange(t0, t1, dtype=xp.float64), (K, 1))
        m = self._less(t, active[0], "m")  # number of active levels that hold the round
        for B in active[1:]:
            m += self._less(t, B, "ind")
        if not self.fast:
            self.loss_r.add(_log_mix(self.q, u + (m * (2.0 * half) + c), xp))
            return
        if len(active) == 1:  # e^{z}/E = e^c·(1 + m·(e^{1/σ²} − 1)), m ∈ {0, 1}
            m *= math.exp(c) * math.expm1(2.0 * half)
            m += math.exp(c)
        else:
            m *= 2.0 * half
            m += c
            m = self._f(xp.exp, m, out="m")
        m *= E
        self.loss_r.add(self._factor(self.q, m, 1.0, out="f"))

    def _less(self, t, B, out: str):
        """``[t < B]`` as float64 ``(K, n)`` for rounds ``t`` ``(K, 1)`` and counts ``B`` ``(n,)`` (into ``out`` on
        NumPy)."""
        if not self.numpy:
            return self.xp.astype(t < B, self.xp.float64)
        return self.xp.less(t, B, out=self._buffer(out, (t.shape[0], B.shape[0])))

    def _tilted(self, u, E):
        """Softplus terms of ``x ~ Q_θ`` (factors ``1 + e^{z+λ}`` when fast) by rejection from ``N(−d, σ²)``:
        the chunk's ``u`` are the first candidates, and a rejected candidate is replaced by a fresh one."""
        xp = self.xp
        flat = lambda a: None if a is None else xp.reshape(a, (-1,))  # noqa: E731
        terms, pending = self._candidates(flat(u), flat(E), out="")
        while (m := int(xp.count_nonzero(pending))) > 0:
            v = self.normals(m) * (1.0 / self.sigma)
            new, rejected = self._candidates(v, xp.exp(v) if self.fast else None)
            terms[pending] = new
            still = xp.zeros_like(pending)
            still[pending] = rejected
            pending = still
        return xp.reshape(terms, u.shape)

    def _candidates(self, v, E, out: str | None = None):
        """Terms of the candidates ``z = v − shift`` and which are rejected (one uniform each): accepted with
        probability ``e^s``, ``s = d·v − θ·softplus(v + c_sp) + c_h ≤ 0`` (up to rounding). ``out``: a
        prefix of the buffer names, or ``None``."""
        xp, d, theta, c_h = self.xp, float(self.tilt.d), float(self.tilt.theta), self.c_h
        name = (lambda s: None) if out is None else (lambda s: out + s)  # noqa: E731
        U = self._uniforms(v.shape[0], out=name("U"))
        if not self.fast:
            sp = _softplus(v + self.c_sp, xp)
            return sp, U >= xp.exp(d * v - theta * sp + c_h)
        y = self._f(xp.multiply, E, math.exp(self.c_sp), out=name("y"))  # e^{z+λ} ≥ softplus(z + λ)
        lower = self._f(xp.multiply, v, d, out=name("lower"))
        lower -= self._f(xp.multiply, y, theta, out=name("f"))
        lower += 1.0 + c_h
        doubt = U >= lower
        rejected = xp.zeros_like(doubt)
        rejected[doubt] = U[doubt] >= xp.exp(d * v[doubt] - theta * xp.log1p(y[doubt]) + c_h)
        y += 1.0
        return y, rejected

    def result(self):
        """``((L, log W) of "remove", (L, log W) of "add")``, each ``(n,)``."""
        T, q, tilt, rtilt = self.T, self.q, self.tilt, self.rtilt
        L_r = self.loss_r.value()
        W_r = -float(rtilt.theta) * L_r + T * rtilt.kappa
        if tilt.theta == 0.0:
            L_a = -self.loss_a.value()
        elif q == 1.0:  # Q_θ = N(−θ, σ²): x = σn − θ, L_t = −z = −n/σ + 1/(2σ²) + θ/σ²
            L_a = T * (self.half + tilt.theta / self.sigma**2) - self.sum_u
        else:
            L_a = -self.loss_a.value() - T * math.log1p(-q)
        return (L_r, W_r), (L_a, -tilt.theta * L_a + T * tilt.kappa)


class _Paths(NamedTuple):
    """One direction's sampled paths: ``L``, ``log W = −θL + Tκ`` (backend arrays ``(n,)``), the tilt ``θ``, ``Tκ(θ)``
    and ``top``, the largest value ``L`` can take (``δ(ε) = 0`` for ``ε ≥ top``)."""

    L: object
    logW: object
    theta: float
    t_kappa: float
    top: float


def _sample(sigma: float, q: float, T: int, proposal: tuple[int, float], n: int, rng, bk, chunk: int):
    """``(remove, add)`` :class:`_Paths` of ``n`` paths each.

    Cost per path and round (:class:`_Kernel`): one normal, one uniform (plus ``1 − acceptance`` of each for
    the redrawn candidates), one exponential and ~10 arithmetic passes when ``e^z`` cannot overflow."""
    kernel = _Kernel(sigma, q, T, proposal, n, rng, bk)
    for t0 in range(0, T, chunk):
        u = kernel.normals((min(chunk, T - t0), n), out="u")
        u *= 1.0 / sigma  # noise/σ, shared by both directions
        kernel.chunk(u, t0)
    (L_r, W_r), (L_a, W_a) = kernel.result()
    top_a = -T * math.log1p(-q) if q < 1.0 else math.inf
    return (_Paths(L_r, W_r, float(kernel.rtilt.theta), T * kernel.rtilt.kappa, math.inf),
            _Paths(L_a, W_a, float(kernel.tilt.theta), T * kernel.tilt.kappa, top_a))
