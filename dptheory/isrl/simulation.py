r"""Monte-Carlo simulators of seed 002 (Lowy & Razaviyayn, ISRL-DP federated learning), batched over
seeds × silos × records on the array backend.

Algorithms (errata 002 §3; every silo adds its own Gaussian noise, the server only averages):

* :func:`noisy_mbsgd` — Noisy ISRL-DP MB-SGD (Algorithm 2): each round a uniformly random subset ``S_r`` of
  ``M_r`` silos (fixed ``M``, or ``M_r`` drawn from a pmf; Assumption 1.4) sends ``g_i = (1/K) Σ_j ∇f(w_r,
  x_{i,j}) + u_i``, ``K`` records drawn with replacement, ``u_i ~ N(0, σ²I_d)``; ``w_{r+1} = Π_W(w_r −
  η_r (1/M_r) Σ_{i∈S_r} g_i)``; output ``ŵ_R = Σ_r γ_r w_r / Γ_R``. Schedules are
  :class:`~dptheory.isrl.calibration.Schedule` objects: the theorems' prescriptions
  (:func:`~dptheory.isrl.calibration.noisy_mbsgd_sc_schedule`, ``…_convex_schedule``) or, at a fixed ``R``,
  :func:`~dptheory.isrl.calibration.stich_schedule` / :func:`sc_schedule` (Lemma D.5, ``c = dσ²/M + L²``) and :func:`convex_schedule`.
* :func:`accelerated_noisy_mbsgd` — Algorithm 1 (AC-SA) with the closed-form prox step (errata 002 §3.2),
  one-pass (disjoint batches without replacement, Thm 3.1) or with replacement (ERM, Thm 4.1), and
  :func:`multistage_accelerated` — its multi-stage form (App. E.1) on the stages of
  :func:`~dptheory.isrl.calibration.multi_stage_schedule` (``ν_k`` corrected by default, printed with
  ``nu_form="paper"``; errata 002 §8.17).
* :func:`local_sgd` — the ISRL-DP Local SGD baseline of App. I (``K`` noisy local steps, server averages).

A run draws its data from the backend generator ``rng(2·seed)`` and everything the algorithm draws
(participation, record indices, noise) from ``rng(2·seed + 1)`` (:mod:`dptheory.backend`), in blocks whose
size depends only on the arguments: the same seed gives the same numbers, and runs of a sweep that differ
only in ``n``, ``ε0``/``σ²`` or ``M`` share their algorithmic draws (common random numbers: indices are
``⌊n·U⌋``, every participation draw and the noise are drawn whatever ``M`` and ``σ``), which makes fitted
slopes far more precise. Data are ``int8`` sign arrays ``(seeds, N, n, d)`` (:mod:`dptheory.isrl.problems`);
the general route gathers a round's ``seeds·N·K`` records with one ``take``; where the gradient is affine in ``w``
(:class:`~dptheory.isrl.problems.SCQuadratic`, :class:`~dptheory.isrl.problems.HardLinear`) it depends on a
mini-batch only through ``Σ_k ξ_k``, which ``_PackedSigns`` forms for many rounds at once from the signs packed
eight to a byte, exactly. Kernels use only the array API, so they run on CuPy.

Independent routes for the claims of ``verify/isrl_simulation.py``:

* :func:`quadratic_expected_excess` — the *exact* expected excess risk of Noisy MB-SGD on
  :class:`~dptheory.isrl.problems.SCQuadratic` (valid when the projection never acts; the simulators report
  how often it did), derived below; :func:`quadratic_expected_stability` — the exact ``E‖w_R − w'_R‖`` of
  two runs on neighbouring data sets coupled through their randomness (:func:`coupled_stability`, Lemma D.2);
* :func:`silo_sampling_mc` — the silo-sampling variance identity of Lemma E.3/F.1 with the simulator's own
  subset sampler; the paired-bootstrap log-log slope is :func:`dptheory.stats.loglog_slope_bootstrap`.

**Exact expectation for the quadratic.** With ``e_r = w_r − θ̄`` and no projection, ``e_{r+1} = (1 − η_r)e_r
+ η_r(b_r − θ̄ − ū_r)``, ``b_r`` the mean of the sampled records of the participating silos. With
``A_R = 0``, ``A_t = ω_t + (1 − η_t)A_{t+1}`` (``ω_t = γ_t/Γ_R``) and ``a_t = η_t A_{t+1}``:
``ŵ − θ̄ = A_0 e_0 + (1 − A_0)(m̄ − θ̄) + Σ_t a_t (b_t − m̄ − ū_t)``, ``m̄`` the mean of the silos' empirical
means. The three parts are uncorrelated, so (``F − F⋆ = ½‖w − θ̄‖²``)

    2·E[F(ŵ) − F⋆] = A_0²‖e_0‖² + (1 − A_0)²·s²/(nN)
                      + Σ_t a_t²·[ c(N, M)·(v² + s²(N − 1)/(nN)) + s²(1 − 1/n)/(KM) + dσ²/M ],

with ``c(N, M) = (N − M)/((N − 1)M)`` (:func:`~dptheory.isrl.calibration.silo_sampling_factor`; exact also for
random ``M_r`` with ``1/M = E[1/M_r]``, since ``c`` is affine in ``1/M_r``).

>>> from dptheory.isrl.problems import SCQuadratic
>>> p = SCQuadratic(d=4)
>>> sch = stich_schedule(R=200, mu=1.0, beta=1.0, c=4 * 1.0 / 5 + p.L**2, r0=p.D**2)
>>> res = noisy_mbsgd(p, N=5, n=200, K=2, sigma2=1.0, schedule=sch, seeds=400, seed=1)
>>> exact = quadratic_expected_excess(p, N=5, n=200, K=2, sigma2=1.0, schedule=sch)
>>> lo, hi = res.interval(0.999)
>>> bool(lo <= exact <= hi), res.diagnostics["projection_rate"]
(True, 0.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from .._validation import check_in_interval, check_int
from ..backend import get_backend
from ..stats import Estimate
from .calibration import Schedule, Stage, acsa_steps, harmonic_M, silo_sampling_factor, stich_schedule
from .problems import SCQuadratic, project_ball

__all__ = [
    "ISRLResult", "StabilityResult", "sc_schedule", "convex_schedule",
    "noisy_mbsgd", "accelerated_noisy_mbsgd", "multistage_accelerated", "local_sgd", "coupled_stability",
    "quadratic_expected_excess", "quadratic_expected_stability", "silo_sampling_mc",
    "raw_random_numbers",
]

_BLOCK_ELEMENTS = 1 << 21  # random numbers drawn per block of rounds (memory bound; a function of sizes only)
_GATHER_ELEMENTS = 1 << 20  # record coordinates summed at once where the gradient is affine (~1 MB of indices: L2)


# ---------------------------------------------------------------------------------------------------------
# argument checks
# ---------------------------------------------------------------------------------------------------------
def _participation(N: int, M, M_pmf) -> tuple[float, np.ndarray | None, int | None]:
    """``(harmonic M, pmf or None, fixed M or None)``; ``M`` and ``M_pmf`` are exclusive, default ``M = N``."""
    if M is not None and M_pmf is not None:
        raise ValueError("give at most one of M (fixed participation) and M_pmf (random M_r)")
    if M_pmf is None:
        M = N if M is None else M
        M = check_int("M", M, 1)
        if M > N:
            raise ValueError(f"M must lie in [1, N] = [1, {N}] (silos available per round), got {M}")
        return float(M), None, M
    pmf = np.asarray(M_pmf, float).reshape(-1)
    if pmf.size != N or np.any(pmf < 0) or not np.isclose(pmf.sum(), 1.0):
        raise ValueError(f"M_pmf must be a probability vector over M_r in {{1..N}} (length N = {N}), got {M_pmf!r}")
    return harmonic_M(np.arange(1, N + 1), pmf / pmf.sum()), pmf / pmf.sum(), None


def _check_sigma2(sigma2) -> float:
    return check_in_interval("sigma2", sigma2, 0.0, math.inf, lo_closed=True)


# ---------------------------------------------------------------------------------------------------------
# step sizes and weights (the theorems' prescriptions live in :mod:`dptheory.isrl.calibration`)
# ---------------------------------------------------------------------------------------------------------
def _rounds(schedule: Schedule) -> tuple[int, np.ndarray, np.ndarray]:
    """``(R, η_r, γ_r/Γ_R)`` of a :class:`~dptheory.isrl.calibration.Schedule` (``R`` rounded up to run)."""
    R = schedule.weights.size if schedule.weights is not None else math.ceil(schedule.R)
    R = check_int("R", R, 1)
    eta = np.full(R, float(schedule.eta))
    w = np.full(R, 1.0 / R) if schedule.weights is None else np.asarray(schedule.weights, float)
    return R, eta, w / w.sum()


def sc_schedule(problem, *, R: int, sigma2: float, M: float, r0: float | None = None) -> Schedule:
    """:func:`stich_schedule` for a strongly convex problem with Thm D.1's constants.

    ``c = dσ²/M + L²`` and ``r₀ = D²`` (``‖w₀ − w⋆‖² ≤ D²``; ``w⋆`` is unknown to the algorithm).

    Parameters
    ----------
    problem : SCQuadratic or LogisticRegression
        The problem (its ``d``, ``L``, ``mu``, ``beta`` and ``D``).
    R : int
        Number of rounds.
    sigma2 : float in [0, inf)
        Per-silo, per-coordinate noise variance σ².
    M : float
        (Harmonic) number of participating silos.
    r0 : float, optional
        ``r₀``; default ``D²``.

    Returns
    -------
    Schedule
        The constant step and the weights ``γ_r/Γ_R`` at ``R``.
    """
    c = problem.d * _check_sigma2(sigma2) / M + problem.L**2
    return stich_schedule(R=R, mu=problem.mu, beta=problem.beta, c=c, r0=problem.D**2 if r0 is None else r0)


def convex_schedule(*, R: int, eta: float) -> Schedule:
    """Constant ``η`` and uniform weights ``γ_r = 1/R`` (Thm D.1, convex) at a given ``R``.

    Parameters
    ----------
    R : int
        Number of rounds, >= 1.
    eta : float in (0, inf)
        The constant step size.

    Returns
    -------
    Schedule
        ``R``, ``η`` and uniform weights.
    """
    R = check_int("R", R, 1)
    eta = check_in_interval("eta", eta, 0.0)
    return Schedule(float(R), eta, None, f"constant eta, gamma_r = 1/R (R = {R})")


# ---------------------------------------------------------------------------------------------------------
# result objects
# ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class ISRLResult:
    """Excess risk ``F(ŵ) − F⋆`` per seed (exact ``F``), its mean and standard error across seeds, and every setting.

    ``diagnostics``: ``projection_rate`` (fraction of seed-rounds where ``Π_W`` acted), ``noise_sq`` (per-seed
    mean of ``‖ū_r‖²``, the averaged noise the server sees), ``M`` (harmonic participation).

    Attributes
    ----------
    mean : float
        Mean excess risk across seeds.
    stderr : float
        Its standard error.
    per_seed : numpy.ndarray
        Excess risk ``F(ŵ) − F⋆`` of every seed.
    w_hat : numpy.ndarray
        The output ``ŵ`` of every seed, shape ``(seeds, d)``.
    settings : dict
        Every setting of the run (algorithm, problem, seeds, ``N``, ``n``, ``K``, ``R``, ``M``, ``sigma2``, …).
    diagnostics : dict
        ``projection_rate``, ``noise_sq`` (Noisy MB-SGD only) and ``M``, as above.
    """

    mean: float
    stderr: float
    per_seed: np.ndarray = field(repr=False)
    w_hat: np.ndarray = field(repr=False)
    settings: dict = field(repr=False)
    diagnostics: dict = field(repr=False)

    @property
    def estimate(self) -> Estimate:
        """The mean excess risk over seeds as an :class:`~dptheory.stats.Estimate`."""
        return Estimate(self.mean, self.stderr, self.per_seed.size)

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        """Student-t confidence interval for the mean across seeds.

        Parameters
        ----------
        level : float in (0, 1), default 0.95
            Confidence level.

        Returns
        -------
        tuple of float
            ``(lower, upper)``.
        """
        return self.estimate.interval(level)

    def __repr__(self) -> str:
        lo, hi = self.interval()
        s = self.settings
        return (f"ISRLResult({s['algorithm']}, excess={self.mean:.6g} ± {self.stderr:.3g} (95% CI [{lo:.6g}, {hi:.6g}]), "
                f"seeds={s['seeds']}, N={s['N']}, M={s['M']:.4g}, n={s['n']}, K={s['K']}, R={s['R']}, "
                f"sigma2={s['sigma2']:.4g}, projection_rate={self.diagnostics['projection_rate']:.3g})")


def _result(algorithm, problem, w_hat_np, settings, diagnostics) -> ISRLResult:
    per_seed = np.asarray(problem.excess(w_hat_np), float)
    S = per_seed.size
    settings = dict(algorithm=algorithm, problem=repr(problem), seeds=S, **settings)
    est = Estimate.from_samples(per_seed)
    return ISRLResult(est.value, est.stderr, per_seed, w_hat_np, settings, diagnostics)


# ---------------------------------------------------------------------------------------------------------
# kernels (array API only)
# ---------------------------------------------------------------------------------------------------------
class _Sampler:
    """Participation masks ``(B, S, N)`` with weights ``1{i ∈ S_r}/M_r``: uniform subsets of a fixed or random size."""

    def __init__(self, N: int, pmf, M_fixed, xp):
        self.N, self.xp, self.M_fixed = N, xp, M_fixed
        self.cdf = None if pmf is None else xp.asarray(np.cumsum(pmf)[:-1])

    def draw(self, rng, B: int, S: int):
        """Always draws the same numbers whatever ``M`` (common random numbers across a sweep over ``M``)."""
        xp, N = self.xp, self.N
        keys = rng.random(size=(B, S, N))
        if self.cdf is None and self.M_fixed == N:  # every silo takes part: the permutation cannot matter
            return xp.full((B, S, N), 1.0 / N, dtype=xp.float64)
        ranks = xp.argsort(xp.argsort(keys, axis=-1), axis=-1)  # a uniform permutation
        if self.cdf is None:
            Mr = xp.full((B, S), float(self.M_fixed), dtype=xp.float64)
        else:
            u = rng.random(size=(B, S))
            Mr = 1.0 + xp.sum(xp.astype(u[..., None] >= self.cdf, xp.float64), axis=-1)
        return xp.astype(xp.astype(ranks, xp.float64) < Mr[..., None], xp.float64) / Mr[..., None]


def _indices(rng, n: int, shape, xp):
    """Uniform record indices in ``[0, n)`` as ``⌊n·U⌋``: the generator consumes the same numbers for every ``n``,
    so a sweep over ``n`` shares its participation draws and noise (common random numbers). The conversion to
    integers truncates, which is the floor here (``n·U ≥ 0``)."""
    u = rng.random(size=shape)
    u *= n
    return xp.astype(u, xp.int64)


def _streams(bk, seed: int):
    """Two generators of one run: data from ``rng(2·seed)``, the algorithm's randomness (participation,
    indices, noise) from ``rng(2·seed + 1)`` — so runs that differ only in the data size share the latter."""
    seed = check_int("seed", seed, 0)
    return bk.rng(2 * seed), bk.rng(2 * seed + 1)


def _block(R: int, per_round: int) -> int:
    return int(max(1, min(R, _BLOCK_ELEMENTS // max(1, per_round))))


def _gather(data_flat, base, idx, xp, shape):
    """Records ``data[p, s, i, idx[…, s, i, k]]`` for every copy ``p`` (``base`` ``(P, S, N, 1)`` broadcast
    against ``idx``): one ``take`` on the flattened data."""
    flat = xp.reshape(base + idx, (-1,))
    return xp.reshape(xp.take(data_flat, flat, axis=0), shape)


def _packbits(bits, xp):
    """The 0/1 entries of a 1-d array as bytes, eight to a byte, first entry in the lowest bit (NumPy's and CuPy's
    ``packbits(…, bitorder="little")``; the array API has no such function, so elsewhere eight shifts)."""
    if hasattr(xp, "packbits"):
        return xp.packbits(bits, bitorder="little")
    padded = xp.concat([xp.astype(bits, xp.uint8), xp.zeros((-bits.shape[0]) % 8, dtype=xp.uint8)])
    octets = xp.reshape(padded, (-1, 8))
    out = octets[:, 0]
    for j in range(1, 8):
        out = out | (octets[:, j] << j)
    return out


def _sign_planes(records, xp):
    """``(⌈d/8⌉, m)`` uint8: bit ``j`` of byte ``p`` of record ``i`` is set where coordinate ``8p + j`` is ``+1``.

    The signs are packed as one bit string, record after record; every ``period = 8/gcd(d, 8)`` records it is
    byte-aligned again, so byte ``p`` of the ``r``-th record of each period is read from the same two bytes of every
    period, shifted by the same amount: ``period·⌈d/8⌉`` column operations in all."""
    m, d = records.shape
    period = 8 // math.gcd(d, 8)                 # records after which the bit string is byte-aligned again
    width = period * d // 8                      # bytes per period
    Q = -(-m // period)
    bits = _packbits(xp.reshape(records > 0, (-1,)), xp)           # record i at bits i·d .. i·d + d − 1
    bits = xp.concat([bits, xp.zeros(Q * width + 1 - bits.shape[0], dtype=xp.uint8)])
    pairs = xp.reshape(xp.astype(bits[:-1], xp.uint16) | (xp.astype(bits[1:], xp.uint16) << 8), (Q, width))
    planes = xp.empty((-(-d // 8), Q, period), dtype=xp.uint8)
    for r in range(period):
        for p in range(planes.shape[0]):
            start = r * d + 8 * p                # bit where byte p of record (period·q + r) starts, within period q
            mask = (1 << min(8, d - 8 * p)) - 1
            planes[p, :, r] = xp.astype((pairs[:, start >> 3] >> (start & 7)) & mask, xp.uint8)
    return xp.reshape(planes, (planes.shape[0], Q * period))[:, :m]


class _PackedSigns:
    """The ``±1`` records of a run, eight coordinates to a byte, and the sums ``Σ_k ξ_k`` of mini-batches of them.

    A mini-batch sum needs only which signs are ``+1``: ``Σ_k ξ_k = 2·#{k: ξ_k = +1} − K``, coordinate by
    coordinate. Byte ``p`` of record ``i`` holds coordinates ``8p..8p+7`` (``planes`` ``(⌈d/8⌉, records)``), so a
    batch gathers one byte per record and plane from an array an eighth of the data's size (the benchmark's 1.5 M
    records: 24 ms as 10-byte rows from 25.6 MB of ``int8``, 4 ms as two bytes from 2 × 2.6 MB). A 256-entry
    table spreads a byte's bits over the eight bytes of a ``uint64``, and adding those words counts all eight
    coordinates at once (at most 255 records per sum, so that no count carries into the next byte). Every step is
    integer arithmetic: the sums are exact, the same numbers as summing the ``int8`` records.
    """

    _BATCH = 255  # records per uint64 sum: a count of 255 still fits its byte

    def __init__(self, data_flat, xp):
        self.xp, self.d = xp, data_flat.shape[1]
        self.planes = _sign_planes(data_flat, xp)
        octets = np.arange(256)[:, None] >> np.arange(8) & 1
        self.spread = xp.asarray(octets.astype(np.uint64) @ (np.uint64(1) << (8 * np.arange(8, dtype=np.uint64))))
        self.shifts = xp.asarray(8 * np.arange(8, dtype=np.uint64))

    def sums(self, records):
        """``Σ_k ξ_k`` over the last axis of ``records`` (indices into the flattened data), as float64 ``(..., d)``."""
        xp, K, lead = self.xp, records.shape[-1], records.shape[:-1]
        # k slowest, so that the sums over k add whole rows (benchmark: 0.6 ms, and 1 ms for this transposition,
        # against 2.6 ms reducing a last axis of K = 16)
        flat = xp.reshape(xp.permute_dims(records, (records.ndim - 1, *range(records.ndim - 1))), (-1,))
        counts = []
        for p in range(self.planes.shape[0]):
            octets = xp.astype(xp.take(self.planes[p, :], flat), xp.int64)
            words = xp.reshape(xp.take(self.spread, octets), (K, -1))
            shifts, count = self.shifts[:min(8, self.d - 8 * p)], 0
            for k0 in range(0, K, self._BATCH):
                total = xp.sum(words[k0:min(k0 + self._BATCH, K), ...], axis=0, dtype=xp.uint64)
                count = count + ((total[:, None] >> shifts) & 255)
            counts.append(count)
        positive = xp.reshape(xp.concat(counts, axis=-1), (*lead, self.d))
        return xp.astype(positive, xp.float64) * 2.0 - K


def _affine_chunk(problem, packed, base, idx, weights, ubar, c0: int, c1: int, xp):
    """``(scale, fixed)`` of rounds ``c0..c1`` of a block where the gradient is ``slope·w + offset(Σ_k ξ_k)``: the
    sign sums of every record of those rounds at once (:class:`_PackedSigns`), ``scale = slope·Σ_i 1{i∈S_r}/M_r``
    ``(c, S)`` and ``fixed = Σ_i (1{i∈S_r}/M_r)·offset_i + ū_r`` ``(P, c, S, d)``, so that ``g_r = scale_r·w + fixed_r``."""
    K = idx.shape[-1]
    sign_sum = packed.sums(base[:, None, ...] + idx[None, c0:c1, ...])           # (P, c, S, N, d)
    slope, offset = problem.gradient_parts(sign_sum, K, xp)                       # offset (P, c, S, N, d)
    fixed = xp.sum(weights[None, c0:c1, ..., None] * offset, axis=3) + ubar[None, c0:c1, ...]
    return slope * xp.sum(weights[c0:c1, ...], axis=2), fixed


def _run_mbsgd(bk, rng, problem, data, *, K, sigma2, eta_h, omega_h, sampler, w0, xp):
    """Algorithm 2 on ``data`` of shape ``(P, S, N, n, d)``; the ``P`` copies share every random number
    (participation, indices, noise) — ``P = 2`` couples neighbouring data sets (Lemma D.2)."""
    P, S, N, n, d = data.shape
    R = eta_h.size
    data_flat = xp.reshape(data, (P * S * N * n, d))
    base = xp.reshape(xp.arange(P * S * N, dtype=xp.int64) * n, (P, S, N, 1))
    sigma = math.sqrt(sigma2)
    w = xp.broadcast_to(xp.asarray(w0, dtype=xp.float64), (P, S, d))
    w_hat = xp.zeros((P, S, d), dtype=xp.float64)
    projected = xp.zeros((P, S), dtype=xp.float64)
    noise_sq = xp.zeros((S,), dtype=xp.float64)
    affine = hasattr(problem, "gradient_parts")  # SCQuadratic, HardLinear: the gradient is slope·w + offset(Σ_k ξ_k)
    packed = _PackedSigns(data_flat, xp) if affine else None
    chunk = max(1, _GATHER_ELEMENTS // (P * S * N * K * d))  # rounds whose records an affine run sums at once
    B = _block(R, S * N * (K + d + 1))
    for r0 in range(0, R, B):
        Bk = min(B, R - r0)
        weights = sampler.draw(rng, Bk, S)                                    # (Bk, S, N): 1{i∈S_r}/M_r
        idx = _indices(rng, n, (Bk, S, N, K), xp)
        noise = rng.standard_normal(size=(Bk, S, N, d))  # drawn even at σ = 0: the stream stays aligned
        noise *= sigma
        ubar = xp.sum(weights[..., None] * noise, axis=2)                     # (Bk, S, d) = (1/M_r) Σ_{i∈S_r} u_i
        noise_sq = noise_sq + xp.sum(xp.sum(ubar * ubar, axis=-1), axis=0)
        for b in range(Bk):
            r = r0 + b
            w_hat = w_hat + float(omega_h[r]) * w
            if affine:  # g_r = slope·(Σ_i 1{i∈S_r}/M_r)·w + Σ_i (1{i∈S_r}/M_r)·offset_i + ū_r, offsets of a chunk at once
                if b % chunk == 0:
                    scale, fixed = _affine_chunk(problem, packed, base, idx, weights, ubar, b, min(b + chunk, Bk), xp)
                g = scale[b % chunk, :][None, :, None] * w + fixed[:, b % chunk, ...]
            else:
                batch = _gather(data_flat, base, idx[b, ...], xp, (P, S, N, K, d))
                grads = problem.mean_gradient(w[:, :, None, :], batch, xp)        # (P, S, N, d)
                g = xp.sum(weights[b, ...][None, :, :, None] * grads, axis=2) + ubar[b, ...]
            w, outside = project_ball(w - float(eta_h[r]) * g, problem.radius, xp, outside=True)
            projected = projected + outside
        if not bool(xp.all(xp.isfinite(w))):
            raise FloatingPointError(f"non-finite iterate by round {r0 + Bk}")
    return w_hat, w, projected / R, noise_sq / R


def _check_common(problem, N, n, K, sigma2, seeds):
    N, n, K, seeds = check_int("N", N, 1), check_int("n", n, 1), check_int("K", K, 1), check_int("seeds", seeds, 2)
    problem.check_silos(N)
    return N, n, K, _check_sigma2(sigma2), seeds


def _check_eta(problem, eta: np.ndarray, name: str = "eta") -> None:
    if np.any(~np.isfinite(eta)) or np.any(eta <= 0):
        raise ValueError(f"{name} must be finite and > 0 in every round, got min {np.min(eta):g}")
    if problem.beta > 0 and np.max(eta) >= 2.0 / problem.beta:
        raise ValueError(f"{name} must lie in (0, 2/beta) = (0, {2.0 / problem.beta:g}) for a stable gradient step "
                         f"(Thm D.1 takes eta <= 1/beta), got {np.max(eta):g}")


def noisy_mbsgd(problem, *, N: int, n: int, K: int, sigma2: float, schedule: Schedule, M: int | None = None,
                M_pmf=None, seeds: int = 64, seed: int = 0, w0=None, backend: str | None = None) -> ISRLResult:
    r"""Noisy ISRL-DP MB-SGD (Algorithm 2) on fresh data ``(seeds, N, n, d)``; excess risk of ``ŵ_R`` per seed.

    ``sigma2`` is the per-silo, per-coordinate noise variance (e.g.
    :func:`~dptheory.isrl.calibration.sigma2_noisy_mbsgd`); ``schedule`` gives ``η_r`` and ``γ_r``
    (:func:`sc_schedule`, :func:`convex_schedule`). Participation: all silos (default), a uniform subset of
    fixed size ``M``, or ``M_r ~ M_pmf`` on ``{1..N}`` then a uniform subset of size ``M_r``.

    Parameters
    ----------
    problem : SCQuadratic or HardLinear or LogisticRegression
        The problem (:mod:`dptheory.isrl.problems`).
    N : int
        Number of silos.
    n : int
        Records per silo.
    K : int
        Records each participating silo draws per round, with replacement.
    sigma2 : float in [0, inf)
        Per-silo, per-coordinate noise variance σ².
    schedule : Schedule
        Step sizes ``η_r`` (in ``(0, 2/β)``) and weights ``γ_r``; ``⌈R⌉`` rounds are run.
    M : int, optional
        Fixed number of participating silos, in ``[1, N]``; default ``N``. Not with ``M_pmf``.
    M_pmf : array_like of float, optional
        The law of ``M_r`` on ``{1..N}`` (length ``N``). Not with ``M``.
    seeds : int, default 64
        Number of independent runs (at least 2).
    seed : int, default 0
        Seed: data from the backend's ``rng(2·seed)``, the algorithm's draws from ``rng(2·seed + 1)``.
    w0 : array_like, optional
        Starting point, shape ``(d,)``; default 0.
    backend : str, optional
        Array backend (:func:`dptheory.backend.get_backend`); default ``$DPTHEORY_BACKEND``, else NumPy.

    Returns
    -------
    ISRLResult
        Excess risk per seed, its mean and standard error, settings and diagnostics.

    Raises
    ------
    ValueError
        If an argument lies outside its range (both ``M`` and ``M_pmf`` given, a step size outside
        ``(0, 2/β)``, …).
    FloatingPointError
        If an iterate becomes non-finite.
    """
    N, n, K, sigma2, seeds = _check_common(problem, N, n, K, sigma2, seeds)
    M_h, pmf, M_fixed = _participation(N, M, M_pmf)
    R, eta_h, omega_h = _rounds(schedule)
    _check_eta(problem, eta_h)
    bk = get_backend(backend)
    xp = bk.xp
    rng_data, rng = _streams(bk, seed)
    d = problem.d
    w0 = np.zeros(d) if w0 is None else np.asarray(w0, float)
    data = problem.sample(bk, rng_data, seeds, N, n)[None, ...]
    w_hat, _, proj, nsq = _run_mbsgd(bk, rng, problem, data, K=K, sigma2=sigma2, eta_h=eta_h, omega_h=omega_h,
                                     sampler=_Sampler(N, pmf, M_fixed, xp), w0=w0, xp=xp)
    settings = dict(N=N, n=n, K=K, R=R, M=M_h, M_pmf=None if pmf is None else pmf.tolist(), sigma2=sigma2,
                    schedule=repr(schedule), seed=seed, backend=bk.name, w0=w0.tolist())
    diagnostics = dict(projection_rate=float(np.mean(bk.to_numpy(proj))), noise_sq=bk.to_numpy(nsq), M=M_h)
    return _result("noisy MB-SGD (Alg. 2)", problem, bk.to_numpy(w_hat[0, ...]), settings, diagnostics)


@dataclass(frozen=True, eq=False)
class StabilityResult:
    """``‖w_R − w'_R‖`` and ``‖ŵ − ŵ'‖`` per seed for two runs on neighbouring data sets with shared randomness.

    Attributes
    ----------
    final : numpy.ndarray
        ``‖w_R − w'_R‖`` of every seed.
    averaged : numpy.ndarray
        ``‖ŵ − ŵ'‖`` of every seed.
    settings : dict
        The settings of the runs.
    """

    final: np.ndarray
    averaged: np.ndarray
    settings: dict = field(repr=False)

    @property
    def estimate(self) -> Estimate:
        """The mean of ``final`` over seeds as an :class:`~dptheory.stats.Estimate`."""
        return Estimate.from_samples(self.final)

    @property
    def mean(self) -> float:
        """The mean of ``final`` over seeds."""
        return self.estimate.value

    @property
    def stderr(self) -> float:
        """The standard error of :attr:`mean`."""
        return self.estimate.stderr

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        """Student-t confidence interval for the mean of ``final`` across seeds.

        Parameters
        ----------
        level : float in (0, 1), default 0.95
            Confidence level.

        Returns
        -------
        tuple of float
            ``(lower, upper)``.
        """
        return self.estimate.interval(level)


def coupled_stability(problem, *, N: int, n: int, K: int, sigma2: float, schedule: Schedule, M: int | None = None,
                      seeds: int = 400, seed: int = 0, backend: str | None = None) -> StabilityResult:
    """Distance between two coupled runs of Algorithm 2 on neighbouring data sets (Lemma D.2).

    Lemma D.2's coupling: data ``X`` and ``X'`` differ in record 0 of silo 0 (a fresh draw); both runs of
    Algorithm 2 use the same participation, indices and noise. Returns ``‖w_R − w'_R‖`` per seed.

    Parameters
    ----------
    problem : SCQuadratic or HardLinear or LogisticRegression
        The problem (:mod:`dptheory.isrl.problems`).
    N : int
        Number of silos.
    n : int
        Records per silo.
    K : int
        Records each participating silo draws per round, with replacement.
    sigma2 : float in [0, inf)
        Per-silo, per-coordinate noise variance σ².
    schedule : Schedule
        Step sizes ``η_r`` and weights ``γ_r``.
    M : int, optional
        Fixed number of participating silos, in ``[1, N]``; default ``N``.
    seeds : int, default 400
        Number of independent pairs of runs (at least 2).
    seed : int, default 0
        Seed: data from ``rng(2·seed)``, the algorithm's draws from ``rng(2·seed + 1)``.
    backend : str, optional
        Array backend (:func:`dptheory.backend.get_backend`).

    Returns
    -------
    StabilityResult
        ``‖w_R − w'_R‖`` and ``‖ŵ − ŵ'‖`` per seed.
    """
    N, n, K, sigma2, seeds = _check_common(problem, N, n, K, sigma2, seeds)
    M_h, pmf, M_fixed = _participation(N, M, None)
    R, eta_h, omega_h = _rounds(schedule)
    _check_eta(problem, eta_h)
    bk = get_backend(backend)
    xp = bk.xp
    rng_data, rng = _streams(bk, seed)
    data = problem.sample(bk, rng_data, seeds, N, n)
    fresh = problem.sample(bk, rng_data, seeds, N, 1)
    is_changed = xp.reshape((xp.arange(N) == 0)[:, None] & (xp.arange(n) == 0)[None, :], (1, N, n, 1))
    neighbour = xp.where(is_changed, fresh, data)
    w_hat, w, _, _ = _run_mbsgd(bk, rng, problem, xp.stack([data, neighbour]), K=K, sigma2=sigma2, eta_h=eta_h, omega_h=omega_h,
                                sampler=_Sampler(N, pmf, M_fixed, xp), w0=np.zeros(problem.d), xp=xp)
    dist = lambda a: bk.to_numpy(xp.sqrt(xp.sum((a[0, ...] - a[1, ...]) ** 2, axis=-1)))
    return StabilityResult(dist(w), dist(w_hat), dict(N=N, n=n, K=K, M=M_h, sigma2=sigma2, R=R, seeds=seeds, seed=seed))


def accelerated_noisy_mbsgd(problem, *, N: int, n: int, K: int, sigma2: float, alphas, etas, mu: float,
                            lam: float = 0.0, one_pass: bool = True, M: int | None = None, M_pmf=None,
                            seeds: int = 64, seed: int = 0, w0=None, backend: str | None = None) -> ISRLResult:
    r"""Algorithm 1 (accelerated noisy MB-SGD, AC-SA) with one stage; see :func:`multistage_accelerated`.

    ``lam > 0`` runs on ``f + (λ/2)‖w − w_0‖²`` (the convex case), and ``mu`` should then be ``λ``.

    Parameters
    ----------
    problem : SCQuadratic or HardLinear or LogisticRegression
        The problem (:mod:`dptheory.isrl.problems`).
    N : int
        Number of silos.
    n : int
        Records per silo.
    K : int
        Records per silo per round.
    sigma2 : float in [0, inf)
        Per-silo, per-coordinate noise variance σ².
    alphas : array_like of float
        ``α_r`` of every round, in ``(0, 1]``.
    etas : array_like of float
        ``η_r ≥ 0`` of every round (as many as ``alphas``), with ``μ + η_r > 0``.
    mu : float in [0, inf)
        The ``μ`` of the AC-SA step.
    lam : float in [0, inf), default 0.0
        ``λ`` of the added regulariser ``(λ/2)‖w − w_0‖²``.
    one_pass : bool, default True
        Disjoint batches without replacement (round ``t`` uses records ``tK..(t+1)K − 1``; needs ``R·K ≤ n``),
        else ``K`` records drawn with replacement each round (ERM).
    M : int, optional
        Fixed number of participating silos, in ``[1, N]``; default ``N``. Not with ``M_pmf``.
    M_pmf : array_like of float, optional
        The law of ``M_r`` on ``{1..N}`` (length ``N``). Not with ``M``.
    seeds : int, default 64
        Number of independent runs (at least 2).
    seed : int, default 0
        Seed: data from ``rng(2·seed)``, the algorithm's draws from ``rng(2·seed + 1)``.
    w0 : array_like, optional
        Starting point, shape ``(d,)``; default 0.
    backend : str, optional
        Array backend (:func:`dptheory.backend.get_backend`).

    Returns
    -------
    ISRLResult
        Excess risk of ``w^ag`` per seed, settings and diagnostics.

    Raises
    ------
    ValueError
        If ``R·K > n`` in one pass, or ``alphas``/``etas`` or another argument lies outside its range.
    FloatingPointError
        If an iterate becomes non-finite.
    """
    return _accelerated(problem, [(np.asarray(alphas, float), np.asarray(etas, float))], N=N, n=n, K=K,
                        sigma2=sigma2, mu=mu, lam=lam, one_pass=one_pass, M=M, M_pmf=M_pmf, seeds=seeds,
                        seed=seed, w0=w0, backend=backend, name="accelerated MB-SGD (Alg. 1)")


def multistage_accelerated(problem, *, N: int, n: int, K: int, sigma2: float, stages, mu: float,
                           one_pass: bool = True, M: int | None = None, M_pmf=None, seeds: int = 64, seed: int = 0,
                           w0=None, backend: str | None = None) -> ISRLResult:
    r"""Multi-stage Algorithm 1 (App. E.1) on given stages ``(R_k, ν_k)``.

    Stage ``k`` runs ``R_k`` rounds with ``α_r = 2/(r+1)``, ``η_r = 4ν_k/(r(r+1))`` from ``q_{k−1}``
    (``q_0 = w_0``, errata 002 §8.18) and returns ``q_k = w^ag``; ``stages``:
    :class:`~dptheory.isrl.calibration.Stage` objects (:func:`~dptheory.isrl.calibration.multi_stage_schedule`)
    or ``(R_k, ν_k)`` pairs. One-pass: every round uses a fresh disjoint batch, ``Σ R_k ≤ n/K``.

    Parameters
    ----------
    problem : SCQuadratic or HardLinear or LogisticRegression
        The problem (:mod:`dptheory.isrl.problems`).
    N : int
        Number of silos.
    n : int
        Records per silo.
    K : int
        Records per silo per round.
    sigma2 : float in [0, inf)
        Per-silo, per-coordinate noise variance σ².
    stages : iterable of Stage or tuple of (int, float)
        The stages ``(R_k, ν_k)``.
    mu : float in [0, inf)
        The ``μ`` of the AC-SA step.
    one_pass : bool, default True
        Disjoint batches without replacement (``Σ R_k·K ≤ n``), else with replacement (ERM).
    M : int, optional
        Fixed number of participating silos, in ``[1, N]``; default ``N``. Not with ``M_pmf``.
    M_pmf : array_like of float, optional
        The law of ``M_r`` on ``{1..N}`` (length ``N``). Not with ``M``.
    seeds : int, default 64
        Number of independent runs (at least 2).
    seed : int, default 0
        Seed: data from ``rng(2·seed)``, the algorithm's draws from ``rng(2·seed + 1)``.
    w0 : array_like, optional
        Starting point ``q_0``, shape ``(d,)``; default 0.
    backend : str, optional
        Array backend (:func:`dptheory.backend.get_backend`).

    Returns
    -------
    ISRLResult
        Excess risk of the last stage's ``q_U`` per seed, settings and diagnostics.

    Raises
    ------
    ValueError
        If ``Σ R_k·K > n`` in one pass, or another argument lies outside its range.
    FloatingPointError
        If an iterate becomes non-finite.
    """
    st = [acsa_steps(R, nu=nu) for R, nu in ((s.R, s.nu) if isinstance(s, Stage) else s for s in stages)]
    return _accelerated(problem, st, N=N, n=n, K=K, sigma2=sigma2, mu=mu, lam=0.0, one_pass=one_pass, M=M,
                        M_pmf=M_pmf, seeds=seeds, seed=seed, w0=w0, backend=backend,
                        name=f"multi-stage accelerated MB-SGD (App. E.1, {len(st)} stages)")


def _accelerated(problem, stages, *, N, n, K, sigma2, mu, lam, one_pass, M, M_pmf, seeds, seed, w0, backend, name):
    r"""AC-SA rounds (errata 002 §3.2): ``w_md = [(1−α)(μ+η)w_ag + α((1−α)μ+η)w]/(η + (1−α²)μ)``;
    ``w = Π_W([αμ w_md + ((1−α)μ + η)w − α g]/(μ + η))``; ``w_ag = αw + (1−α)w_ag``. ``lam > 0`` runs on
    ``f + (λ/2)‖w − w_0‖²`` (Thm 3.1, convex case) and ``μ`` should then be ``λ``. One pass: round ``t`` uses
    records ``tK..(t+1)K − 1`` of every silo — the records are i.i.d., so this is a uniformly random partition
    into disjoint batches."""
    N, n, K, sigma2, seeds = _check_common(problem, N, n, K, sigma2, seeds)
    M_h, pmf, M_fixed = _participation(N, M, M_pmf)
    mu = check_in_interval("mu", mu, 0.0, math.inf, lo_closed=True)
    lam = check_in_interval("lam", lam, 0.0, math.inf, lo_closed=True)
    R = sum(a.size for a, _ in stages)
    if one_pass and R * K > n:
        raise ValueError(f"K must satisfy R*K <= n for one-pass sampling (disjoint batches): R={R}, n={n}, got K={K}")
    for a, e in stages:
        if a.shape != e.shape or np.any(a <= 0) or np.any(a > 1):
            raise ValueError("alphas must lie in (0, 1] with one per round (same length as etas)")
        if np.any(e < 0) or np.any(mu + e <= 0):
            raise ValueError(f"etas must be >= 0 with mu + eta > 0 in every round, got min eta {np.min(e):g}, mu={mu:g}")
    bk = get_backend(backend)
    xp = bk.xp
    rng_data, rng = _streams(bk, seed)
    d = problem.d
    w0 = np.zeros(d) if w0 is None else np.asarray(w0, float)
    data = problem.sample(bk, rng_data, seeds, N, n)
    data_flat = xp.reshape(data, (seeds * N * n, d))
    base = xp.reshape(xp.arange(seeds * N, dtype=xp.int64) * n, (seeds, N, 1))
    sampler = _Sampler(N, pmf, M_fixed, xp)
    center = xp.asarray(w0, dtype=xp.float64)
    sigma = math.sqrt(sigma2)
    q = xp.broadcast_to(center, (seeds, d))
    projected = xp.zeros((seeds,), dtype=xp.float64)
    t = 0
    for alphas, etas in stages:
        w, w_ag = q, q
        Rk = alphas.size
        B = _block(Rk, seeds * N * (K + d + 1))
        for r0 in range(0, Rk, B):
            Bk = min(B, Rk - r0)
            weights = sampler.draw(rng, Bk, seeds)
            idx = None if one_pass else _indices(rng, n, (Bk, seeds, N, K), xp)
            noise = rng.standard_normal(size=(Bk, seeds, N, d)) * sigma
            for b in range(Bk):
                a, eta = float(alphas[r0 + b]), float(etas[r0 + b])
                cr = eta + (1.0 - a * a) * mu
                w_md = ((1.0 - a) * (mu + eta) / cr) * w_ag + (a * ((1.0 - a) * mu + eta) / cr) * w
                if one_pass:
                    batch = data[:, :, t * K:(t + 1) * K, :]
                else:
                    batch = _gather(data_flat, base, idx[b, ...], xp, (seeds, N, K, d))
                grads = problem.mean_gradient(w_md[:, None, :], batch, xp)
                if lam > 0:
                    grads = grads + lam * (w_md - center)[:, None, :]
                g = xp.sum(weights[b, ...][..., None] * (grads + noise[b, ...]), axis=1)
                w = (a * mu * w_md + ((1.0 - a) * mu + eta) * w - a * g) / (mu + eta)
                w, outside = project_ball(w, problem.radius, xp, outside=True)
                projected = projected + outside
                w_ag = a * w + (1.0 - a) * w_ag
                t += 1
        if not bool(xp.all(xp.isfinite(w_ag))):
            raise FloatingPointError(f"non-finite iterate by round {t}")
        q = w_ag
    settings = dict(N=N, n=n, K=K, R=R, M=M_h, sigma2=sigma2, mu=mu, lam=lam, one_pass=one_pass,
                    stages=[int(a.size) for a, _ in stages], seed=seed, backend=bk.name)
    diagnostics = dict(projection_rate=float(np.mean(bk.to_numpy(projected))) / R, M=M_h)
    return _result(name, problem, bk.to_numpy(q), settings, diagnostics)


def local_sgd(problem, *, N: int, n: int, R: int, K: int, sigma2: float, eta: float, M: int | None = None,
              M_pmf=None, seeds: int = 64, seed: int = 0, w0=None, backend: str | None = None) -> ISRLResult:
    r"""ISRL-DP Local SGD (App. I), the baseline of the experiments.

    Each participating silo takes ``K`` steps ``w ← w − η(∇f(w, x) + u)``, one record drawn uniformly per
    step, ``u ~ N(0, σ²I)``; the server averages the silos' last iterates and projects onto ``W`` (App. I does
    not project; ``W`` is large enough here that this rarely acts). Output ``w_R``. The App. I calibration is
    ``σ² = 8L²RK ln(1/δ0)/(ε0²n²)``.

    Parameters
    ----------
    problem : SCQuadratic or HardLinear or LogisticRegression
        The problem (:mod:`dptheory.isrl.problems`).
    N : int
        Number of silos.
    n : int
        Records per silo.
    R : int
        Number of rounds, >= 1.
    K : int
        Local steps per round.
    sigma2 : float in [0, inf)
        Per-coordinate variance σ² of the noise of every local step.
    eta : float
        The local step size, in ``(0, 2/β)``.
    M : int, optional
        Fixed number of participating silos, in ``[1, N]``; default ``N``. Not with ``M_pmf``.
    M_pmf : array_like of float, optional
        The law of ``M_r`` on ``{1..N}`` (length ``N``). Not with ``M``.
    seeds : int, default 64
        Number of independent runs (at least 2).
    seed : int, default 0
        Seed: data from ``rng(2·seed)``, the algorithm's draws from ``rng(2·seed + 1)``.
    w0 : array_like, optional
        Starting point, shape ``(d,)``; default 0.
    backend : str, optional
        Array backend (:func:`dptheory.backend.get_backend`).

    Returns
    -------
    ISRLResult
        Excess risk of ``w_R`` per seed, settings and diagnostics.

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    FloatingPointError
        If an iterate becomes non-finite.
    """
    N, n, K, sigma2, seeds = _check_common(problem, N, n, K, sigma2, seeds)
    R = check_int("R", R, 1)
    M_h, pmf, M_fixed = _participation(N, M, M_pmf)
    _check_eta(problem, np.array([float(eta)]))
    bk = get_backend(backend)
    xp = bk.xp
    rng_data, rng = _streams(bk, seed)
    d = problem.d
    w0 = np.zeros(d) if w0 is None else np.asarray(w0, float)
    data = problem.sample(bk, rng_data, seeds, N, n)
    data_flat = xp.reshape(data, (seeds * N * n, d))
    base = xp.reshape(xp.arange(seeds * N, dtype=xp.int64) * n, (seeds, N))
    sampler = _Sampler(N, pmf, M_fixed, xp)
    sigma = math.sqrt(sigma2)
    w = xp.broadcast_to(xp.asarray(w0, dtype=xp.float64), (seeds, d))
    projected = xp.zeros((seeds,), dtype=xp.float64)
    for r in range(R):
        weights = sampler.draw(rng, 1, seeds)[0, ...]
        idx = _indices(rng, n, (K, seeds, N), xp)
        noise = rng.standard_normal(size=(K, seeds, N, d))
        noise *= sigma
        wl = xp.broadcast_to(w[:, None, :], (seeds, N, d))
        for k in range(K):
            rec = xp.reshape(xp.take(data_flat, xp.reshape(base + idx[k, ...], (-1,)), axis=0), (seeds, N, d))
            wl = wl - eta * (problem.sample_gradient(wl, rec, xp) + noise[k, ...])
        w = xp.sum(weights[..., None] * wl, axis=1)
        w, outside = project_ball(w, problem.radius, xp, outside=True)
        projected = projected + outside
    if not bool(xp.all(xp.isfinite(w))):
        raise FloatingPointError("non-finite iterate in local SGD")
    settings = dict(N=N, n=n, K=K, R=R, M=M_h, sigma2=sigma2, eta=float(eta), seed=seed, backend=bk.name)
    diagnostics = dict(projection_rate=float(np.mean(bk.to_numpy(projected))) / R, M=M_h)
    return _result("ISRL-DP local SGD (App. I)", problem, bk.to_numpy(w), settings, diagnostics)


# ---------------------------------------------------------------------------------------------------------
# exact expectations (independent routes) and statistics
# ---------------------------------------------------------------------------------------------------------
def _A_coefficients(schedule: Schedule) -> tuple[float, np.ndarray]:
    """``(A_0, a_t)``: ``ŵ − θ̄ = A_0 e_0 + Σ_t a_t z_t`` for ``e_{t+1} = (1 − η_t)e_t + η_t z_t`` (no projection)."""
    R, eta, omega = _rounds(schedule)
    A = np.zeros(R + 1)
    for t in range(R - 1, -1, -1):
        A[t] = omega[t] + (1.0 - eta[t]) * A[t + 1]
    return float(A[0]), eta * A[1:]


def quadratic_expected_excess(problem: SCQuadratic, *, N: int, n: int, K: int, sigma2: float, schedule: Schedule,
                              M: int | None = None, M_pmf=None, w0=None) -> float:
    r"""Exact ``E[F(ŵ_R) − F⋆]`` of :func:`noisy_mbsgd` on :class:`SCQuadratic` (module docstring).

    The expectation is over data, participation, mini-batches and noise — valid while ``Π_W`` never acts (see
    ``projection_rate``).

    Parameters
    ----------
    problem : SCQuadratic
        The quadratic problem.
    N : int
        Number of silos.
    n : int
        Records per silo.
    K : int
        Records each participating silo draws per round.
    sigma2 : float in [0, inf)
        Per-silo, per-coordinate noise variance σ².
    schedule : Schedule
        Step sizes ``η_r`` and weights ``γ_r``.
    M : int, optional
        Fixed number of participating silos, in ``[1, N]``; default ``N``. Not with ``M_pmf``.
    M_pmf : array_like of float, optional
        The law of ``M_r`` on ``{1..N}`` (length ``N``). Not with ``M``.
    w0 : array_like, optional
        Starting point, shape ``(d,)``; default 0.

    Returns
    -------
    float
        ``E[F(ŵ_R) − F⋆]``.

    Raises
    ------
    ValueError
        If ``problem`` is not an :class:`SCQuadratic`, or another argument lies outside its range.
    """
    if not isinstance(problem, SCQuadratic):
        raise ValueError(f"problem must be an SCQuadratic (the exact expectation is for the quadratic), got {type(problem).__name__}")
    N, n, K, sigma2, _ = _check_common(problem, N, n, K, sigma2, 2)
    M_h, _, _ = _participation(N, M, M_pmf)
    d, s2, v2 = problem.d, problem.s**2, problem.v2
    e0 = (np.zeros(d) if w0 is None else np.asarray(w0, float)) - problem.theta_bar
    A0, a = _A_coefficients(schedule)
    per_round = (silo_sampling_factor(N, M=M_h) * (v2 + s2 * (N - 1) / (n * N))
                 + s2 * (1.0 - 1.0 / n) / (K * M_h) + d * sigma2 / M_h)
    return 0.5 * (A0**2 * float(e0 @ e0) + (1.0 - A0) ** 2 * s2 / (n * N) + float(np.sum(a * a)) * per_round)


def quadratic_expected_stability(problem: SCQuadratic, *, N: int, n: int, schedule: Schedule) -> float:
    r"""Exact ``E‖w_R − w'_R‖`` of :func:`coupled_stability` on :class:`SCQuadratic` (no projection).

    ``E‖Δx‖·(1 − Π_r(1 − η_r))/(nN)``, with ``E‖Δx‖ = (2s/√d)·E√H``, ``H ~ Bin(d, ½)`` (coordinates where the
    two records differ). Every coupled difference is a non-negative multiple of ``Δx`` and
    ``E[1{i ∈ S_r}/M_r] = 1/N`` for any participation, so the norm of the sum is the sum of the norms.

    Parameters
    ----------
    problem : SCQuadratic
        The quadratic problem.
    N : int
        Number of silos.
    n : int
        Records per silo.
    schedule : Schedule
        Step sizes ``η_r``.

    Returns
    -------
    float
        ``E‖w_R − w'_R‖``.
    """
    d = problem.d
    h = np.arange(d + 1)
    e_sqrt = float(np.sum(stats.binom.pmf(h, d, 0.5) * np.sqrt(h)))
    return 2.0 * problem.s / math.sqrt(d) * e_sqrt * (1.0 - float(np.prod(1.0 - _rounds(schedule)[1]))) / (n * N)


def silo_sampling_mc(y, *, M: int | None = None, M_pmf=None, trials: int = 100_000, seed: int = 0,
                     backend: str | None = None) -> tuple[float, float]:
    r"""Monte-Carlo ``E‖(1/M_r)Σ_{i∈S_r} y_i − ȳ‖²`` with the simulators' own subset sampler.

    Returns ``(mean, stderr)``. Lemma E.3/F.1: equals ``(N − M)/((N − 1)M)·(1/N)Σ‖y_i − ȳ‖²`` (fixed ``M``;
    for random ``M_r`` with ``1/M = E[1/M_r]`` too).

    Parameters
    ----------
    y : array_like
        The silo vectors ``y_i``, shape ``(N, d)``.
    M : int, optional
        Fixed subset size, in ``[1, N]``; default ``N``. Not with ``M_pmf``.
    M_pmf : array_like of float, optional
        The law of ``M_r`` on ``{1..N}`` (length ``N``). Not with ``M``.
    trials : int, default 100_000
        Number of subsets drawn (at least 2).
    seed : int, default 0
        Seed of the backend generator.
    backend : str, optional
        Array backend (:func:`dptheory.backend.get_backend`).

    Returns
    -------
    mean : float
        The Monte-Carlo mean.
    stderr : float
        Its standard error.

    Raises
    ------
    ValueError
        If ``y`` is not two-dimensional, or another argument lies outside its range.
    """
    y = np.asarray(y, float)
    if y.ndim != 2:
        raise ValueError(f"y must be an (N, d) array, got shape {y.shape}")
    N = y.shape[0]
    _, pmf, M_fixed = _participation(N, M, M_pmf)
    trials = check_int("trials", trials, 2)
    bk = get_backend(backend)
    xp = bk.xp
    rng = bk.rng(seed)
    yc = xp.asarray(y - y.mean(axis=0))
    sampler = _Sampler(N, pmf, M_fixed, xp)
    out = []
    chunk = max(1, _BLOCK_ELEMENTS // N)
    for t0 in range(0, trials, chunk):
        wts = sampler.draw(rng, 1, min(chunk, trials - t0))[0]  # (T, N)
        dev = wts @ yc
        out.append(bk.to_numpy(xp.sum(dev * dev, axis=-1)))
    vals = np.concatenate(out)
    est = Estimate.from_samples(vals)
    return est.value, est.stderr


def raw_random_numbers(*, seeds: int, N: int, n: int, d: int, K: int, R: int, backend: str | None = None,
                       block: int = 100) -> None:
    """Draw as many random numbers as :func:`noisy_mbsgd` does, and nothing else: the throughput baseline.

    The data signs ``(seeds, N, n, d)``, then per round the participation keys ``(seeds, N)``, the record
    indices ``(seeds, N, K)`` and the per-silo noise ``(seeds, N, d)``, in blocks of ``block`` rounds.

    Parameters
    ----------
    seeds : int
        Number of independent runs.
    N : int
        Number of silos.
    n : int
        Records per silo.
    d : int
        Dimension.
    K : int
        Records per silo per round.
    R : int
        Number of rounds.
    backend : str, optional
        Array backend (:func:`dptheory.backend.get_backend`).
    block : int, default 100
        Rounds drawn per block.
    """
    from .problems import random_signs  # noqa: PLC0415

    bk = get_backend(backend)
    rng = bk.rng(12345)
    random_signs(rng, (seeds, N, n, d), bk.xp)
    for r0 in range(0, R, block):
        b = min(block, R - r0)
        rng.random(size=(b, seeds, N))
        rng.random(size=(b, seeds, N, K))
        rng.standard_normal(size=(b, seeds, N, d))
