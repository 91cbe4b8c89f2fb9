r"""Federated test problems of seed 002 (Lowy & Razaviyayn, ISRL-DP) with exact ``F`` and ``F⋆``.

Every record is a sign vector ``ξ ∈ {±1}^d`` stored as ``int8`` (a data set is an ``(seeds, N, n, d)`` array:
seeds × silos × records × coordinates), so that data sets of millions of records fit in memory and the
simulators (:mod:`dptheory.isrl.simulation`) gather mini-batches with one ``take``. Each problem says how a
record ``ξ`` maps to the loss, and how its population risk ``F(w) = (1/N) Σ_i E_{x~D_i} f(w, x)`` and minimum
``F⋆ = min_{w∈W} F(w)`` are obtained exactly:

* :class:`SCQuadratic` — ``f(w, x) = ½‖w − x‖²``, ``x = θ_i + (s/√d)·ξ`` with silo means ``θ_i = θ̄ + h_i``
  (``Σ_i h_i = 0``), ``W`` the ball of radius ``B``. ``F(w) = ½‖w − θ̄‖² + ½(v² + s²)`` in closed form, so
  ``F(w) − F⋆ = ½‖w − θ̄‖²`` (``θ̄ ∈ W``); ``μ = β = 1``, within-silo variance ``φ² = s²`` and heterogeneity
  (seed 002 eq. (29)) ``v² = (1/N) Σ_i ‖h_i‖²`` exactly. The primary calibration problem (errata 002 C12).
* :class:`HardLinear` — ``f(w, x) = −⟨w, x⟩``, ``x = ξ/√d`` with ``P(ξ_1 = 1) = (1 + τ√d)/2`` (other
  coordinates fair), so ``E x = τ e₁``, ``F(w) = −τ w₁``, ``F⋆ = −τB`` at ``w⋆ = B e₁``; ``L = 1``, ``β = 0``
  (the Bassily-type hard family of the convex lower bound, errata 002 C33).
* :class:`LogisticRegression` — ``f(w, (x, y)) = log(1 + e^{−y⟨w, x⟩}) + (λ/2)‖w‖²``, ``x = (r/√d)·ξ`` uniform
  on the scaled hypercube, ``P(y = 1 | x) = 1/(1 + e^{−⟨w_true, x⟩})``. Only ``z = y·x`` enters the loss, and
  ``P(z = a) = 2^{1−d}·sigmoid(⟨w_true, a⟩)`` on the ``2^d`` vertices, so ``F`` is an exact finite sum
  (enumerated, ``d ≤ 16``) and ``F⋆`` is its minimum by Newton's method to machine precision (the
  minimiser is checked to lie inside ``W``; the stored record is the sign vector of ``z``).

Each problem has ``sample(bk, rng, seeds, N, n)`` (data on the backend), ``mean_gradient(w, batch, xp)``
(the mini-batch mean gradient per silo; array-API only, so it runs on CuPy), ``project(w, xp)`` (onto
``W``), ``excess(w)`` (exact ``F(w) − F⋆`` on host arrays of shape ``(..., d)``) and the constants ``L``,
``beta``, ``mu``, ``D`` (diameter of ``W``) used by the calibrations and step-size rules. The two problems whose
gradient is affine in ``w`` (:class:`SCQuadratic`, :class:`HardLinear`) also have ``gradient_parts(sign_sum, K, xp)``,
``(slope, offset)`` with ``mean_gradient = slope·w + offset`` from the sum ``Σ_k ξ_k`` of the mini-batch's signs alone:
Noisy MB-SGD then sums the records of many rounds at once and does only ``O(d)`` work per round.

>>> p = SCQuadratic(d=4, theta_norm=0.5, heterogeneity=0.3, N=5, s=1.0, radius=2.0)
>>> round(p.v2, 12), round(p.L, 6) >= 3.5, float(p.excess(p.w_star))
(0.09, True, 0.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_in_interval

__all__ = ["SCQuadratic", "HardLinear", "LogisticRegression", "random_signs", "project_ball"]


def random_signs(rng, shape, xp):
    """Uniform signs ``±1`` as ``int8`` from the run's generator (NumPy or CuPy ``Generator``).

    Parameters
    ----------
    rng : numpy.random.Generator or cupy.random.Generator
        The run's generator.
    shape : tuple of int
        Shape of the array drawn.
    xp : module
        The backend's array namespace (``numpy`` or ``cupy``), used where the generator has no ``int8`` draw.

    Returns
    -------
    array of int8
        Independent uniform signs ``±1`` of shape ``shape``.
    """
    try:
        bits = rng.integers(0, 2, size=shape, dtype=np.int8)
    except (TypeError, ValueError, NotImplementedError):  # no small-integer dtype: draw int64 and narrow
        bits = xp.astype(rng.integers(0, 2, size=shape), xp.int8)
    bits *= 2  # in place: a (seeds, N, n, d) array can be 10⁸ entries
    bits -= 1
    return bits


def project_ball(w, radius: float, xp, outside: bool = False):
    """Euclidean projection of the rows ``w[..., :]`` onto the ball of radius ``radius`` (Alg. 2, Π_W).

    With ``outside``, also ``1.0`` where a row lay outside the ball (the projection acted), else ``0.0``.

    Parameters
    ----------
    w : array
        Points of shape ``(..., d)``; each row (last axis) is projected.
    radius : float in (0, inf)
        Radius of the ball ``W = B(0, radius)``.
    xp : module
        The backend's array namespace (``numpy`` or ``cupy``).
    outside : bool, default False
        Also return where the projection acted.

    Returns
    -------
    projected : array
        The projected rows, shape of ``w``.
    outside : array of float64
        Only with ``outside=True``: ``1.0`` where a row lay outside the ball, else ``0.0`` (shape ``w.shape[:-1]``).
    """
    norm = xp.sqrt(xp.sum(w * w, axis=-1, keepdims=True))
    projected = w * xp.minimum(1.0, radius / xp.maximum(norm, 1e-300))
    return (projected, xp.astype(norm[..., 0] > radius, xp.float64)) if outside else projected


def _as_float(batch, xp):
    return xp.astype(batch, xp.float64)


def _batch_sum(batch, xp):
    """``Σ_k ξ_k`` over the record axis of an ``(..., K, d)`` int8 batch, as float64.

    A float32 ``ones(1, K) @ batch`` (exact: integer sums below 2²⁴) is ~6× faster than a reduction over a
    middle axis of an int8 array.
    """
    K = batch.shape[-2]
    ones = xp.ones((1, K), dtype=xp.float32)
    return xp.astype(xp.matmul(ones, xp.astype(batch, xp.float32))[..., 0, :], xp.float64)


def _check_d(d) -> int:
    d = check_in_interval("d", d, 1, math.inf, lo_closed=True)
    if d != int(d):
        raise ValueError(f"d must be an integer >= 1, got {d:g}")
    return int(d)


class _AffineGradient:
    """A problem whose mini-batch mean gradient is affine in ``w`` and depends on the batch only through the sum of
    its signs: ``mean_gradient = slope·w + offset`` with ``(slope, offset) = gradient_parts(Σ_k ξ_k, K)`` (Noisy
    MB-SGD then forms the offsets of many rounds at once)."""

    def mean_gradient(self, w, batch, xp):
        """``slope·w + offset`` with ``(slope, offset) = gradient_parts(Σ_k ξ_k, K, xp)``, for every silo.

        Parameters
        ----------
        w : array
            Iterates, broadcastable against ``(..., N, d)`` (e.g. ``(..., 1, d)``: one iterate for every silo).
        batch : array of int8
            The mini-batch of every silo, shape ``(..., N, K, d)``.
        xp : module
            The backend's array namespace.

        Returns
        -------
        array
            The mini-batch mean gradient of every silo, shape ``(..., N, d)``.
        """
        slope, offset = self.gradient_parts(_batch_sum(batch, xp), batch.shape[-2], xp)
        return slope * w + offset


@dataclass(frozen=True, eq=False)
class SCQuadratic(_AffineGradient):
    r"""``f(w, x) = ½‖w − x‖²`` with ``x = θ_i + (s/√d)ξ``, ``ξ`` uniform on ``{±1}^d``, ``W = B(0, radius)``.

    ``θ̄ = theta_norm·(1, …, 1)/√d``; with ``heterogeneity = v > 0`` (and ``N``) the silo offsets ``h_i`` are
    a seeded Gaussian ``(N, d)`` matrix, centred over silos and scaled so that ``(1/N) Σ ‖h_i‖² = v²``
    exactly. ``L = radius + max_i ‖θ_i‖ + s`` bounds ``‖∇f(w, x)‖ = ‖w − x‖`` on ``W`` × support.

    Attributes
    ----------
    d : int
        Dimension, a whole number >= 1.
    theta_norm : float in [0, radius], default 0.5
        ``‖θ̄‖``: ``θ̄ = theta_norm·(1, …, 1)/√d`` (it must lie in ``W`` for ``F⋆ = F(θ̄)``).
    heterogeneity : float in [0, inf), default 0.0
        ``v``: the silo offsets satisfy ``(1/N) Σ ‖h_i‖² = v²``; ``0`` gives i.i.d. silos.
    N : int or None, default None
        Number of silos of the offsets, an integer >= 2; required when ``heterogeneity > 0`` (the simulators then
        need the same ``N``).
    s : float in [0, inf), default 1.0
        Record scale: ``x = θ_i + (s/√d)ξ``, so the within-silo variance is ``φ² = s²``.
    radius : float, default 2.0
        Radius of ``W = B(0, radius)``, at least ``theta_norm``.
    offsets_seed : int, default 0
        Seed of the Gaussian offsets ``h_i``.
    theta_bar : numpy.ndarray
        ``θ̄``, shape ``(d,)`` (set at construction).
    silo_means : numpy.ndarray or None
        The silo means ``θ_i = θ̄ + h_i``, shape ``(N, d)``; ``None`` when ``heterogeneity = 0``.
    mu : float
        Strong-convexity modulus, 1.
    beta : float
        Smoothness, 1.
    """

    d: int
    theta_norm: float = 0.5
    heterogeneity: float = 0.0
    N: int | None = None
    s: float = 1.0
    radius: float = 2.0
    offsets_seed: int = 0
    theta_bar: np.ndarray = field(init=False, repr=False)
    silo_means: np.ndarray | None = field(init=False, repr=False)

    def __post_init__(self):
        d = _check_d(self.d)
        check_in_interval("theta_norm", self.theta_norm, 0.0, math.inf, lo_closed=True)
        check_in_interval("heterogeneity", self.heterogeneity, 0.0, math.inf, lo_closed=True)
        check_in_interval("s", self.s, 0.0, math.inf, lo_closed=True)
        check_in_interval("radius", self.radius, self.theta_norm, math.inf, lo_closed=True,
                          why="theta_bar must lie in W for F* = F(theta_bar)")
        theta = np.full(d, self.theta_norm / math.sqrt(d))
        means = None
        if self.heterogeneity > 0:
            if self.N is None or int(self.N) < 2:
                raise ValueError(f"N must be an integer >= 2 when heterogeneity > 0, got {self.N!r}")
            h = np.random.default_rng(self.offsets_seed).standard_normal((int(self.N), d))
            h -= h.mean(axis=0)
            h *= self.heterogeneity / math.sqrt(np.mean(np.sum(h * h, axis=1)))
            means = theta + h
        object.__setattr__(self, "d", d)
        object.__setattr__(self, "theta_bar", theta)
        object.__setattr__(self, "silo_means", means)

    # constants -------------------------------------------------------------------------------------------
    mu = 1.0
    beta = 1.0

    @property
    def L(self) -> float:
        """Lipschitz constant ``radius + max_i ‖θ_i‖ + s``: a bound on ``‖∇f(w, x)‖`` on ``W`` × support."""
        top = self.theta_norm if self.silo_means is None else float(np.max(np.linalg.norm(self.silo_means, axis=1)))
        return self.radius + top + self.s

    @property
    def D(self) -> float:
        """Diameter ``2·radius`` of ``W``."""
        return 2.0 * self.radius

    @property
    def phi2(self) -> float:
        """Within-silo gradient variance ``E‖∇f(w, x) − ∇F_i(w)‖² = s²`` (Assumption 1.3, with equality)."""
        return self.s**2

    @property
    def v2(self) -> float:
        """Heterogeneity ``(1/N) Σ_i ‖∇F_i − ∇F‖² = (1/N) Σ_i ‖h_i‖²`` (seed 002 eq. (29), exact)."""
        return 0.0 if self.silo_means is None else float(np.mean(np.sum((self.silo_means - self.theta_bar) ** 2, axis=1)))

    @property
    def w_star(self) -> np.ndarray:
        """The minimiser ``w⋆ = θ̄`` (a copy)."""
        return self.theta_bar.copy()

    @property
    def F_star(self) -> float:
        """The minimum ``F⋆ = ½(v² + s²)``."""
        return 0.5 * (self.v2 + self.s**2)

    def F(self, w) -> np.ndarray:
        """Exact population risk ``½‖w − θ̄‖² + ½(v² + s²)``.

        Parameters
        ----------
        w : array_like
            Points of shape ``(..., d)`` (host arrays).

        Returns
        -------
        numpy.ndarray
            ``F(w)``, shape ``w.shape[:-1]``.
        """
        return self.excess(w) + self.F_star

    def excess(self, w) -> np.ndarray:
        """``F(w) − F⋆ = ½‖w − θ̄‖²`` (exact; no cancellation).

        Parameters
        ----------
        w : array_like
            Points of shape ``(..., d)`` (host arrays).

        Returns
        -------
        numpy.ndarray
            ``F(w) − F⋆``, shape ``w.shape[:-1]``.
        """
        w = np.asarray(w, float)
        return 0.5 * np.sum((w - self.theta_bar) ** 2, axis=-1)

    # simulation hooks ----------------------------------------------------------------------------------
    def check_silos(self, N: int) -> None:
        """Check that a simulation's number of silos matches the problem's silo offsets.

        Parameters
        ----------
        N : int
            Number of silos of the simulation.

        Raises
        ------
        ValueError
            If the problem has silo offsets (``heterogeneity > 0``) for a different number of silos.
        """
        if self.silo_means is not None and N != self.silo_means.shape[0]:
            raise ValueError(f"N must equal the problem's number of silos {self.silo_means.shape[0]}, got {N}")

    def sample(self, bk, rng, seeds: int, N: int, n: int):
        """``(seeds, N, n, d)`` int8 signs ``ξ`` (the record is ``θ_i + (s/√d)ξ``).

        Parameters
        ----------
        bk : Backend
            The array backend (:func:`dptheory.backend.get_backend`).
        rng : numpy.random.Generator or cupy.random.Generator
            The backend generator the data are drawn from.
        seeds : int
            Number of independent data sets.
        N : int
            Number of silos (must match the offsets, :meth:`check_silos`).
        n : int
            Records per silo.

        Returns
        -------
        array of int8
            The data sets, shape ``(seeds, N, n, d)``, on the backend.
        """
        self.check_silos(N)
        return random_signs(rng, (seeds, N, n, self.d), bk.xp)

    def _means(self, N: int, xp):
        m = self.silo_means if self.silo_means is not None else np.broadcast_to(self.theta_bar, (N, self.d))
        return xp.asarray(np.ascontiguousarray(m), dtype=xp.float64)

    def gradient_parts(self, sign_sum, K: int, xp):
        """``(1/K) Σ_k (w − x_k) = w − θ_i − (s/√d)·mean_k ξ_k`` as ``(slope, offset) = (1, −θ_i − (s/√d)·mean_k ξ_k)``
        (``mean_gradient = slope·w + offset``).

        Parameters
        ----------
        sign_sum : array of float64
            ``Σ_k ξ_k`` over the mini-batch of every silo, shape ``(..., N, d)``.
        K : int
            Records in each mini-batch.
        xp : module
            The backend's array namespace.

        Returns
        -------
        tuple
            ``(slope, offset)``: a float and an array of shape ``(..., N, d)``.
        """
        xbar = sign_sum * (self.s / (math.sqrt(self.d) * K))
        return 1.0, -self._means(sign_sum.shape[-2], xp) - xbar

    def project(self, w, xp):
        """Projection onto ``W = B(0, radius)`` (:func:`project_ball`).

        Parameters
        ----------
        w : array
            Points of shape ``(..., d)``.
        xp : module
            The backend's array namespace.

        Returns
        -------
        array
            The projected points, shape of ``w``.
        """
        return project_ball(w, self.radius, xp)

    def sample_gradient(self, w, record, xp):
        """``∇f(w, x) = w − x`` for one record per silo (``record``: ``(..., N, d)`` int8), for local SGD.

        Parameters
        ----------
        w : array
            Iterates of every silo, shape ``(..., N, d)``.
        record : array of int8
            One record (sign vector ``ξ``) per silo, shape ``(..., N, d)``.
        xp : module
            The backend's array namespace.

        Returns
        -------
        array
            The per-record gradients, shape ``(..., N, d)``.
        """
        N = record.shape[-2]
        return w - self._means(N, xp) - _as_float(record, xp) * (self.s / math.sqrt(self.d))


@dataclass(frozen=True, eq=False)
class HardLinear(_AffineGradient):
    r"""``f(w, x) = −⟨w, x⟩``, ``x = ξ/√d``, ``E x = τ e₁``, ``W = B(0, radius)``: ``F(w) − F⋆ = τ(radius − w₁)``.

    Needs ``τ√d ≤ 1`` (``P(ξ₁ = 1) = (1 + τ√d)/2``). ``L = 1``, ``β = 0`` (linear: smooth), ``μ = 0``.

    Attributes
    ----------
    d : int
        Dimension, a whole number >= 1.
    tau : float in [0, 1/√d]
        ``τ``, the mean of the first coordinate of ``x``.
    radius : float in (0, inf), default 1.0
        Radius of ``W = B(0, radius)``.
    mu : float
        Strong-convexity modulus, 0.
    beta : float
        Smoothness, 0.
    L : float
        Lipschitz constant, 1.
    """

    d: int
    tau: float
    radius: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "d", _check_d(self.d))
        check_in_interval("tau", self.tau, 0.0, 1.0 / math.sqrt(self.d), lo_closed=True, hi_closed=True,
                          why="P(xi_1 = 1) = (1 + tau sqrt(d))/2 must be a probability")
        check_in_interval("radius", self.radius, 0.0)

    @classmethod
    def at_privacy_level(cls, *, d: int, n: int, M: float, eps0: float, delta0: float, c: float = 2.0, radius: float = 1.0):
        """The instance with ``τ = c·√(d ln(1/δ0))/(ε0 n √M)``.

        errata 002 C33: the mean is at the scale of the privacy error.

        Parameters
        ----------
        d : int
            Dimension.
        n : int
            Records per silo.
        M : float
            (Harmonic) number of participating silos.
        eps0 : float
            The ISRL-DP ε0 of every silo.
        delta0 : float in (0, 1)
            The ISRL-DP δ0 of every silo.
        c : float in (0, inf), default 2.0
            The multiple of the privacy error's scale.
        radius : float, default 1.0
            Radius of ``W``.

        Returns
        -------
        HardLinear
            The problem at that ``τ`` (which must satisfy ``τ√d ≤ 1``).
        """
        check_in_interval("c", c, 0.0)
        check_in_interval("delta0", delta0, 0.0, 1.0)
        tau = c * math.sqrt(d * math.log(1.0 / delta0)) / (eps0 * n * math.sqrt(M))
        return cls(d=d, tau=tau, radius=radius)

    mu = 0.0
    beta = 0.0
    L = 1.0

    @property
    def D(self) -> float:
        """Diameter ``2·radius`` of ``W``."""
        return 2.0 * self.radius

    @property
    def w_star(self) -> np.ndarray:
        """The minimiser ``w⋆ = radius·e₁``."""
        w = np.zeros(self.d)
        w[0] = self.radius
        return w

    @property
    def F_star(self) -> float:
        """The minimum ``F⋆ = −τ·radius``."""
        return -self.tau * self.radius

    def F(self, w) -> np.ndarray:
        """Exact population risk ``F(w) = −τ w₁``.

        Parameters
        ----------
        w : array_like
            Points of shape ``(..., d)`` (host arrays).

        Returns
        -------
        numpy.ndarray
            ``F(w)``, shape ``w.shape[:-1]``.
        """
        return -self.tau * np.asarray(w, float)[..., 0]

    def excess(self, w) -> np.ndarray:
        """``F(w) − F⋆ = τ(radius − w₁)`` (exact).

        Parameters
        ----------
        w : array_like
            Points of shape ``(..., d)`` (host arrays).

        Returns
        -------
        numpy.ndarray
            ``F(w) − F⋆``, shape ``w.shape[:-1]``.
        """
        return self.tau * (self.radius - np.asarray(w, float)[..., 0])

    def check_silos(self, N: int) -> None:
        """Accept any number of silos (the silos are i.i.d.).

        Parameters
        ----------
        N : int
            Number of silos of the simulation.
        """
        return None

    def sample(self, bk, rng, seeds: int, N: int, n: int):
        """``(seeds, N, n, d)`` int8 signs ``ξ`` with ``P(ξ₁ = 1) = (1 + τ√d)/2`` (the record is ``ξ/√d``).

        Parameters
        ----------
        bk : Backend
            The array backend (:func:`dptheory.backend.get_backend`).
        rng : numpy.random.Generator or cupy.random.Generator
            The backend generator the data are drawn from.
        seeds : int
            Number of independent data sets.
        N : int
            Number of silos.
        n : int
            Records per silo.

        Returns
        -------
        array of int8
            The data sets, shape ``(seeds, N, n, d)``, on the backend.
        """
        xp = bk.xp
        signs = random_signs(rng, (seeds, N, n, self.d), xp)
        p1 = 0.5 * (1.0 + self.tau * math.sqrt(self.d))
        first = xp.astype(rng.random(size=(seeds, N, n)) < p1, xp.int8) * 2 - 1
        return xp.concat([first[..., None], signs[..., 1:]], axis=-1)

    def gradient_parts(self, sign_sum, K: int, xp):
        """``(1/K) Σ_k ∇f(w, x_k) = −mean_k ξ_k/√d`` as ``(slope, offset) = (0, −mean_k ξ_k/√d)`` (it does not depend
        on ``w``; ``mean_gradient = slope·w + offset``).

        Parameters
        ----------
        sign_sum : array of float64
            ``Σ_k ξ_k`` over the mini-batch of every silo, shape ``(..., N, d)``.
        K : int
            Records in each mini-batch.
        xp : module
            The backend's array namespace.

        Returns
        -------
        tuple
            ``(slope, offset)``: a float and an array of shape ``(..., N, d)``.
        """
        return 0.0, -sign_sum / (K * math.sqrt(self.d))

    def sample_gradient(self, w, record, xp):
        """``∇f(w, x) = −x = −ξ/√d`` for one record per silo, for local SGD.

        Parameters
        ----------
        w : array
            Iterates of every silo, shape ``(..., N, d)``.
        record : array of int8
            One record (sign vector ``ξ``) per silo, shape ``(..., N, d)``.
        xp : module
            The backend's array namespace.

        Returns
        -------
        array
            The per-record gradients, shape ``(..., N, d)``.
        """
        return -_as_float(record, xp) / math.sqrt(self.d) + 0.0 * w

    def project(self, w, xp):
        """Projection onto ``W = B(0, radius)`` (:func:`project_ball`).

        Parameters
        ----------
        w : array
            Points of shape ``(..., d)``.
        xp : module
            The backend's array namespace.

        Returns
        -------
        array
            The projected points, shape of ``w``.
        """
        return project_ball(w, self.radius, xp)


def _vertices(d: int) -> np.ndarray:
    """All ``2^d`` sign vectors as a ``(2^d, d)`` float array."""
    idx = np.arange(2**d)[:, None]
    return ((idx >> np.arange(d)) & 1) * 2.0 - 1.0


@dataclass(frozen=True, eq=False)
class LogisticRegression:
    r"""ℓ2-regularised logistic regression on the hypercube, ``F`` by exact enumeration, ``F⋆`` by Newton.

    ``x = (x_norm/√d)ξ`` (``‖x‖ = x_norm``), ``P(y = 1 | x) = sigmoid(⟨w_true, x⟩)``; the record stored is the
    sign vector of ``z = y x``. ``W = B(0, radius)`` must contain the minimiser (checked). ``L = x_norm +
    λ·radius``, ``β = x_norm²/4 + λ``, ``μ = λ``.

    Attributes
    ----------
    d : int
        Dimension, a whole number in ``[1, MAX_D]`` (the ``2^d`` vertices are enumerated).
    w_true : array_like
        The parameter of the label model ``P(y = 1 | x) = sigmoid(⟨w_true, x⟩)``, shape ``(d,)``.
    lam : float in (0, inf), default 0.01
        ``λ``, the ℓ2 regularisation (``> 0``: ``F⋆`` by Newton needs a unique minimiser).
    x_norm : float in (0, inf), default 1.0
        ``‖x‖``.
    radius : float in (0, inf), default 5.0
        Radius of ``W = B(0, radius)``; must exceed ``‖w⋆‖``.
    w_star : numpy.ndarray
        The minimiser ``w⋆`` (Newton's method to machine precision; set at construction).
    F_star : float
        The minimum ``F⋆ = F(w⋆)`` (set at construction).
    MAX_D : int
        Largest ``d`` enumerated, 16.
    """

    d: int
    w_true: np.ndarray
    lam: float = 0.01
    x_norm: float = 1.0
    radius: float = 5.0
    w_star: np.ndarray = field(init=False, repr=False)
    F_star: float = field(init=False)

    MAX_D = 16

    def __post_init__(self):
        d = _check_d(self.d)
        if d > self.MAX_D:
            raise ValueError(f"d must lie in [1, {self.MAX_D}] for the exact enumeration of 2^d vertices, got {d}")
        w_true = np.asarray(self.w_true, float).reshape(-1)
        if w_true.shape != (d,):
            raise ValueError(f"w_true must have shape ({d},), got {w_true.shape}")
        check_in_interval("lam", self.lam, 0.0, math.inf, lo_closed=True)
        check_in_interval("x_norm", self.x_norm, 0.0)
        check_in_interval("radius", self.radius, 0.0)
        object.__setattr__(self, "d", d)
        object.__setattr__(self, "w_true", w_true)
        A = _vertices(d) * (self.x_norm / math.sqrt(d))
        p = 2.0 ** (1 - d) / (1.0 + np.exp(-(A @ w_true)))
        object.__setattr__(self, "_A", A)
        object.__setattr__(self, "_p", p)
        w = self._newton()
        if np.linalg.norm(w) >= self.radius:
            raise ValueError(f"radius must exceed ||w*|| = {np.linalg.norm(w):.4g} (the unconstrained minimiser must lie in W), got {self.radius:g}")
        object.__setattr__(self, "w_star", w)
        object.__setattr__(self, "F_star", float(self.F(w)))

    @property
    def mu(self) -> float:
        """Strong-convexity modulus ``μ = λ``."""
        return float(self.lam)

    @property
    def beta(self) -> float:
        """Smoothness ``β = x_norm²/4 + λ``."""
        return self.x_norm**2 / 4.0 + self.lam

    @property
    def L(self) -> float:
        """Lipschitz constant ``x_norm + λ·radius`` on ``W``."""
        return self.x_norm + self.lam * self.radius

    @property
    def D(self) -> float:
        """Diameter ``2·radius`` of ``W``."""
        return 2.0 * self.radius

    def _newton(self) -> np.ndarray:
        if self.lam <= 0:
            raise ValueError(f"lam must be > 0 (F* by Newton needs a unique unconstrained minimiser), got {self.lam:g}")
        A, p, lam = self._A, self._p, self.lam
        w = np.zeros(self.d)
        for _ in range(100):
            m = A @ w
            s = 1.0 / (1.0 + np.exp(m))  # sigmoid(−m)
            grad = -(A.T @ (p * s)) + lam * w
            hess = (A.T * (p * s * (1.0 - s))) @ A + lam * np.eye(self.d)
            step = np.linalg.solve(hess, grad)
            w = w - step
            if np.linalg.norm(step) < 1e-15 * max(1.0, np.linalg.norm(w)):
                break
        return w

    def F(self, w) -> np.ndarray:
        """Exact population risk ``Σ_a P(z = a) softplus(−⟨w, a⟩) + (λ/2)‖w‖²`` over the ``2^d`` vertices.

        Parameters
        ----------
        w : array_like
            Points of shape ``(..., d)`` (host arrays).

        Returns
        -------
        numpy.ndarray
            ``F(w)``, shape ``w.shape[:-1]``.
        """
        w = np.asarray(w, float)
        m = w @ self._A.T  # (..., 2^d)
        softplus = np.logaddexp(0.0, -m)
        return softplus @ self._p + 0.5 * self.lam * np.sum(w * w, axis=-1)

    def excess(self, w) -> np.ndarray:
        """``F(w) − F⋆`` (exact enumeration).

        Parameters
        ----------
        w : array_like
            Points of shape ``(..., d)`` (host arrays).

        Returns
        -------
        numpy.ndarray
            ``F(w) − F⋆``, shape ``w.shape[:-1]``.
        """
        return self.F(w) - self.F_star

    def check_silos(self, N: int) -> None:
        """Accept any number of silos (the silos are i.i.d.).

        Parameters
        ----------
        N : int
            Number of silos of the simulation.
        """
        return None

    def sample(self, bk, rng, seeds: int, N: int, n: int):
        """``(seeds, N, n, d)`` int8 sign vectors of ``z = y x``, ``x`` uniform on the scaled hypercube.

        Parameters
        ----------
        bk : Backend
            The array backend (:func:`dptheory.backend.get_backend`).
        rng : numpy.random.Generator or cupy.random.Generator
            The backend generator the data are drawn from.
        seeds : int
            Number of independent data sets.
        N : int
            Number of silos.
        n : int
            Records per silo.

        Returns
        -------
        array of int8
            The data sets, shape ``(seeds, N, n, d)``, on the backend.
        """
        xp = bk.xp
        signs = random_signs(rng, (seeds, N, n, self.d), xp)
        scale = self.x_norm / math.sqrt(self.d)
        logits = xp.sum(xp.astype(signs, xp.float64) * xp.asarray(self.w_true * scale), axis=-1)
        u = rng.random(size=(seeds, N, n))
        y = xp.astype(u < 1.0 / (1.0 + xp.exp(-logits)), xp.int8) * 2 - 1
        return signs * y[..., None]

    def _per_record(self, w, zf, xp):
        """``∇ softplus(−⟨w, z⟩) = −sigmoid(−⟨w, z⟩)·z`` for float records ``zf`` (``z = scale·ξ``)."""
        scale = self.x_norm / math.sqrt(self.d)
        m = xp.sum(w[..., None, :] * zf, axis=-1) * scale  # (..., N, K)
        coef = -scale / (1.0 + xp.exp(m))
        return coef[..., None] * zf

    def mean_gradient(self, w, batch, xp):
        """``(1/K) Σ_k ∇f(w, z_k) = −(1/K) Σ_k sigmoid(−⟨w, z_k⟩)·z_k + λw`` for every silo.

        Parameters
        ----------
        w : array
            Iterates, broadcastable against ``(..., N, d)`` (e.g. ``(..., 1, d)``).
        batch : array of int8
            The mini-batch of every silo (sign vectors of ``z``), shape ``(..., N, K, d)``.
        xp : module
            The backend's array namespace.

        Returns
        -------
        array
            The mini-batch mean gradient of every silo, shape ``(..., N, d)``.
        """
        zf = _as_float(batch, xp)
        return xp.mean(self._per_record(w, zf, xp), axis=-2) + self.lam * w

    def sample_gradient(self, w, record, xp):
        """``∇f(w, z) = −sigmoid(−⟨w, z⟩)·z + λw`` for one record per silo, for local SGD.

        Parameters
        ----------
        w : array
            Iterates of every silo, shape ``(..., N, d)``.
        record : array of int8
            One record (sign vector of ``z``) per silo, shape ``(..., N, d)``.
        xp : module
            The backend's array namespace.

        Returns
        -------
        array
            The per-record gradients, shape ``(..., N, d)``.
        """
        zf = _as_float(record, xp)[..., None, :]
        return self._per_record(w, zf, xp)[..., 0, :] + self.lam * w

    def project(self, w, xp):
        """Projection onto ``W = B(0, radius)`` (:func:`project_ball`).

        Parameters
        ----------
        w : array
            Points of shape ``(..., d)``.
        xp : module
            The backend's array namespace.

        Returns
        -------
        array
            The projected points, shape of ``w``.
        """
        return project_ball(w, self.radius, xp)
