r"""Learning problems of seed 004 (§2): *what is optimised*, kept apart from the mechanism and the privacy.

A problem fixes the objective ``F``, the learning rate ``η`` and the gradient-noise level ``σ_sgd``; the
suboptimality ``F∞`` of :mod:`dptheory.suboptimality` combines it with a mechanism and a privacy level ``ρ``.

Each problem also owns its behaviour in a simulation (:func:`dptheory.simulate`): its ``check_simulable()``
refuses settings where no estimate is valid, its ``mixing_time`` sets the burn-in, and its ``dynamics()``
returns the backend-bound kernel (:class:`Dynamics`) that draws the data of a block of steps, forms the
stochastic gradient and evaluates ``F(θ) − F⋆``, so the simulator is one loop with no type switches.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from ._validation import check_in_interval, check_positive_array, check_positive_int, check_size

__all__ = ["MeanEstimation", "LinearRegression", "StronglyConvex", "LOSSES", "Dynamics"]

LOSSES = ("quadratic", "piecewise_quadratic", "logistic")


class Dynamics:
    r"""A problem's stochastic gradients and suboptimality on one array backend, for ``chains`` parallel runs.

    ``draw(rngs, K)`` returns the data of ``K`` steps, each of its arrays from its own generator of ``rngs``
    (:attr:`data_streams` of them, spawned from the run's seed beside the mechanism's white noise's), so the data
    of a run do not depend on how it is cut into blocks; ``descent(theta, data, k)`` returns ``(ηg, ηr)``: the
    per-example gradient ``g`` (clipped by DP-FTRL, to ``ηG`` once scaled) and the gradient ``r`` of an unclipped
    regulariser (``None`` if there is none), both times the learning rate ``η``;
    ``suboptimality(theta)`` returns ``F(θ) − F⋆`` per chain. ``theta`` is ``(chains, d)`` or, for several
    mechanisms on the same data (:func:`dptheory.simulate_common`), ``(mechanisms, chains, d)``: the data of a step
    is ``(chains, …)`` and broadcasts over the leading axis. The default ``F − F⋆ = ½ θᵀHθ`` with
    ``H = diag(eigs)`` serves the quadratic problems (``θ⋆ = 0``).

    Parameters
    ----------
    problem : MeanEstimation, LinearRegression or StronglyConvex
        The problem.
    bk : Backend
        The array backend (:func:`dptheory.backend.get_backend`).
    chains : int
        The number of parallel runs.
    """

    #: generators :meth:`draw` takes, one per array it draws
    data_streams = 1

    def __init__(self, problem, bk, chains: int):
        self.problem, self.bk, self.xp, self.chains = problem, bk, bk.xp, chains
        self.lam = bk.asarray(problem.eigs)
        self.eta = problem.eta

    def suboptimality(self, theta):
        """``F(θ) − F⋆`` per chain; here ``½ θᵀHθ`` with ``H = diag(eigs)``.

        Parameters
        ----------
        theta : array
            The iterates, shape ``(..., chains, d)``, of the backend's namespace.

        Returns
        -------
        array
            ``F(θ) − F⋆``, shape ``(..., chains)``.
        """
        return 0.5 * self.xp.vecdot(self.lam * theta, theta)


class _MeanEstimationDynamics(Dynamics):
    """``f(θ; z) = z²/2 − zθ``, ``r(θ) = θ²/2`` (seed 004 eq. 6) with ``z = σ_sgd·s``, ``s`` Rademacher."""

    def draw(self, rngs, K):
        (rng,) = rngs
        s = self.xp.astype(self.bk.asarray(rng.random(size=(K, self.chains, 1))) < 0.5, self.xp.float64) * 2.0 - 1.0
        return s * (-self.eta * self.problem.sigma_sgd)  # η∇f = −ηz

    def descent(self, theta, eta_grad_f, k):
        return eta_grad_f[k, ...], self.eta * theta  # η∇f = −ηz is clipped, the regulariser's η∇r = ηθ is not


class _LinearRegressionDynamics(Dynamics):
    """``x ~ N(0, H)`` and residual ``ξ ~ N(0, σ_sgd²)`` in ``H``'s eigenbasis (seed 004 eq. 8)."""

    data_streams = 2  # the inputs, the residuals

    def __init__(self, problem, bk, chains):
        super().__init__(problem, bk, chains)
        self.sqrt_lam = self.xp.sqrt(self.lam)

    def draw(self, rngs, K):
        inputs, residuals = rngs
        x = self.bk.asarray(inputs.standard_normal(size=(K, self.chains, self.problem.d)))
        x *= self.sqrt_lam  # x ~ N(0, H), the block at once (a fresh array: scaled in place)
        eta_xi = self.bk.asarray(residuals.standard_normal(size=(K, self.chains))) * (self.eta * self.problem.sigma_sgd)
        return x, eta_xi

    def descent(self, theta, data, k):
        x, eta_xi = data
        x = x[k, ...]
        return x * (self.eta * self.xp.vecdot(x, theta) - eta_xi[k, ...])[..., None], None  # η x(xᵀθ − ξ)


class _StronglyConvexDynamics(Dynamics):
    """``∇F`` of the coordinate-wise loss plus ``ε_t`` uniform on the sphere of radius ``σ_sgd``."""

    def draw(self, rngs, K):
        (rng,) = rngs
        xp = self.xp
        z = self.bk.asarray(rng.standard_normal(size=(K, self.chains, self.problem.d)))
        return (self.eta * self.problem.sigma_sgd) * z / xp.sqrt(xp.sum(z * z, axis=2))[:, :, None]  # ηε

    def descent(self, theta, eta_eps, k):
        xp, mu, L = self.xp, self.problem.mu, self.problem.L
        if self.problem.loss == "quadratic":
            grad = mu * theta
        elif self.problem.loss == "piecewise_quadratic":
            grad = mu * theta + (L - mu) * xp.maximum(theta, 0.0)
        else:
            grad = mu * theta + 4.0 * (L - mu) * (1.0 / (1.0 + xp.exp(-theta)) - 0.5)
        return self.eta * grad + eta_eps[k, ...], None

    def suboptimality(self, theta):
        xp, mu, L = self.xp, self.problem.mu, self.problem.L
        quad = 0.5 * mu * xp.sum(theta * theta, axis=-1)
        if self.problem.loss == "quadratic":
            return quad
        if self.problem.loss == "piecewise_quadratic":
            pos = xp.maximum(theta, 0.0)
            return quad + 0.5 * (L - mu) * xp.sum(pos * pos, axis=-1)
        softplus = xp.log1p(xp.exp(-xp.abs(theta))) + xp.maximum(theta, 0.0)
        return quad + 4.0 * (L - mu) * xp.sum(softplus - 0.5 * theta - math.log(2.0), axis=-1)


class _SimulatedProblem:
    """What every problem shares in a simulation: the mixing time of its linearisation."""

    @property
    def mixing_time(self) -> float:
        r"""``1/(1 − max_j |1 − ηλ_j|)``: the e-folding time of the slowest mode of ``I − ηH``.

        ``1/(ημ)`` when ``ηλ_max ≤ 1``; mean estimation at ``η ∈ (1, 2)``: ``1/(2 − η)``, not ``1/η``.
        """
        return 1.0 / (1.0 - float(np.max(np.abs(1.0 - self.eta * self.eigs))))

    def check_simulable(self) -> None:
        """Raise ``ValueError`` where a simulation cannot give a valid estimate (nothing to refuse by default)."""

    def dynamics(self, bk, chains: int) -> Dynamics:
        """The problem's simulation kernel on backend ``bk`` for ``chains`` parallel runs.

        Parameters
        ----------
        bk : Backend
            The array backend (:func:`dptheory.backend.get_backend`).
        chains : int
            The number of parallel runs.

        Returns
        -------
        Dynamics
            The kernel.
        """
        return self._dynamics(self, bk, chains)


@dataclass(frozen=True)
class MeanEstimation(_SimulatedProblem):
    r"""One-dimensional mean estimation, ``F(θ) = ½ E(θ − z)²`` (seed 004, eq. 6; §2.1, App. B).

    ``g_t = θ_t − z_t``, so ``δ_t = θ_t − E z`` follows ``δ_{t+1} = (1 − η)δ_t + η(z_t − E z) − η w̃_t``
    (App. B eq. 14) and ``F − F⋆ = ½δ²``. ``|z| ≤ 1`` means gradients are never clipped at ``G ≥ 1``.

    Parameters
    ----------
    eta : float in (0, 2)
        The learning rate (``|1 − η| < 1``: the recursion is stable; Thm 2.1 assumes ``η < 1``).
    sigma_sgd : float in [0, inf), default 0.0
        The standard deviation of ``z − E z``.
    """

    eta: float
    sigma_sgd: float = 0.0

    def __post_init__(self):
        object.__setattr__(
            self, "eta", check_in_interval("eta", self.eta, 0.0, 2.0, why="|1 - eta| < 1 for a stable recursion")
        )
        object.__setattr__(self, "sigma_sgd", check_in_interval("sigma_sgd", self.sigma_sgd, 0.0, lo_closed=True))

    @property
    def eigs(self) -> np.ndarray:
        """The Hessian's eigenvalues: ``(1,)``."""
        return np.ones(1)

    @property
    def d(self) -> int:
        """The dimension, 1."""
        return 1

    _dynamics = _MeanEstimationDynamics

    def check_simulable(self) -> None:
        """Refuse a ``σ_sgd`` a simulation cannot draw within ``|z| ≤ 1``.

        A simulation draws ``z = σ_sgd·s`` with Rademacher ``s`` and assumes ``|z| ≤ 1`` as Thm 2.1 does.

        Raises
        ------
        ValueError
            For ``σ_sgd > 1``.
        """
        if self.sigma_sgd > 1.0:
            raise ValueError(
                f"sigma_sgd must lie in [0, 1] to simulate MeanEstimation: z = sigma_sgd*s with Rademacher s, and the "
                f"simulation assumes |z| <= 1 as seed 004 Thm 2.1 does (|grad f| = |z| within the clip norm G >= 1), got {self.sigma_sgd:g}"
            )


#: Bytes per eigenvalue a :class:`LinearRegression` holds while it checks and copies them
_BYTES_PER_EIGENVALUE = 32.0


@dataclass(frozen=True)
class LinearRegression(_SimulatedProblem):
    r"""Linear regression with Gaussian inputs (seed 004, eq. 8; §2.2, App. C).

    ``F(θ) = ½ E(y − ⟨θ, x⟩)²`` with ``x ~ N(0, H)``, ``H = diag(eigs)`` (w.l.o.g. in its eigenbasis) and
    residual ``ξ = y − ⟨θ⋆, x⟩ ~ N(0, σ_sgd²)`` independent of ``x``; ``F(θ) − F⋆ = ½ θ'ᵀHθ'``.

    Parameters
    ----------
    eta : float in (0, 2/λ_max)
        The learning rate, ``0 < η < 2/λ_max`` (the linearised recursion ``I − ηH`` is stable). The exact
        Gaussian value needs the smaller :attr:`eta_max_gaussian`, a simulation the still smaller
        :attr:`eta_max_fourth_moment`; the paper's bounds need ``η < 1/R²``.
    eigs : array_like
        The eigenvalues ``λ_j > 0`` of ``H``.
    sigma_sgd : float in [0, inf), default 0.0
        The residual standard deviation.
    """

    eta: float
    eigs: np.ndarray = field(repr=False)
    sigma_sgd: float = 0.0

    def __post_init__(self):
        check_size("len(eigs)", np.size(self.eigs), lambda d: _BYTES_PER_EIGENVALUE * d, what="the eigenvalues' copies")
        eigs = check_positive_array("eigs", self.eigs)
        eigs.setflags(write=False)
        object.__setattr__(self, "eigs", eigs)
        lam_max = float(np.max(eigs))
        object.__setattr__(
            self,
            "eta",
            check_in_interval(
                "eta", self.eta, 0.0, 2.0 / lam_max, why=f"eta*lambda_max < 2 for a stable recursion, lambda_max={lam_max:g}"
            ),
        )
        object.__setattr__(self, "sigma_sgd", check_in_interval("sigma_sgd", self.sigma_sgd, 0.0, lo_closed=True))

    def __repr__(self) -> str:
        return (
            f"LinearRegression(eta={self.eta:g}, d={self.d}, trace={self.trace:.4g}, "
            f"lambda_max={self.L:.4g}, lambda_min={self.mu:.4g}, sigma_sgd={self.sigma_sgd:g})"
        )

    @property
    def d(self) -> int:
        """The dimension, the number of eigenvalues."""
        return int(self.eigs.size)

    _dynamics = _LinearRegressionDynamics

    def check_simulable(self) -> None:
        """Refuse an ``η`` at which a simulation cannot give a valid interval.

        From :attr:`eta_max_fourth_moment` on, ``F(θ_t) − F⋆`` has infinite variance: no interval is valid.

        Raises
        ------
        ValueError
            For ``η ≥`` :attr:`eta_max_fourth_moment`.
        """
        if not self.fourth_moment_gain() < 1.0:  # i.e. η ≥ η₄
            eta4 = self.eta_max_fourth_moment
            raise ValueError(
                f"eta must lie in (0, {eta4:.6g}) to simulate SGD on Gaussian data: from "
                f"LinearRegression.eta_max_fourth_moment = {eta4:.6g} on, the iterate's stationary fourth moment is "
                f"infinite (its second moment from eta_max_gaussian = {self.eta_max_gaussian:.6g}), so the "
                f"per-chain time average has infinite variance and no confidence interval is valid; got {self.eta:g}"
            )

    @property
    def trace(self) -> float:
        """``Tr H``, the sum of the eigenvalues."""
        return float(np.sum(self.eigs))

    @property
    def L(self) -> float:
        """Smoothness ``λ_max(H)``."""
        return float(np.max(self.eigs))

    @property
    def mu(self) -> float:
        """Strong convexity ``λ_min(H)``."""
        return float(np.min(self.eigs))

    @property
    def d_eff(self) -> float:
        r"""Effective dimension ``Tr H / ‖H‖₂`` (App. C.6)."""
        return self.trace / self.L

    @property
    def R2(self) -> float:
        r"""``R²`` of Assumption C.2 (A3) for Gaussian ``x``: ``E‖x‖²xxᵀ = 2H² + Tr(H)H ⪯ (Tr H + 2λ_max) H``."""
        return self.trace + 2.0 * self.L

    @property
    def C_kurt(self) -> float:
        r"""``C_kurt`` of Assumption C.2 (A3); for Gaussian inputs ``C_kurt = 3`` (errata 004 §2)."""
        return 3.0

    def _eta_or_own(self, eta) -> float:
        """``eta`` if given (a learning rate ``>= 0``; the root searches start at 0), else :attr:`eta`."""
        return self.eta if eta is None else check_in_interval("eta", eta, 0.0, lo_closed=True)

    def coupling(self, eta: float | None = None) -> float:
        r"""``c(η) = Σ_j ηλ_j / (2(1 − ηλ_j))``: the gain of the multiplicative-noise feedback loop.

        The stationary second moment of SGD on Gaussian data exists iff ``ηλ_max < 1`` and ``c(η) < 1``
        (docs/linear_regression_exact.md).

        Parameters
        ----------
        eta : float in [0, inf), optional
            The learning rate; ``None`` (default) is the problem's own :attr:`eta`.

        Returns
        -------
        float
            ``c(η)``; ``inf`` where ``ηλ_max ≥ 1``.
        """
        x = self._eta_or_own(eta) * self.eigs
        if np.any(x >= 1.0):
            return np.inf
        return float(np.sum(x / (2.0 * (1.0 - x))))

    @property
    def eta_max_gaussian(self) -> float:
        r"""The largest ``η`` for which the stationary second moment exists with Gaussian inputs.

        It is the root of ``c(η) = 1`` on ``(0, 1/λ_max)``.
        """
        hi = 1.0 / self.L
        return float(optimize.brentq(lambda e: self.coupling(e) - 1.0, 0.0, hi * (1 - 1e-15), xtol=1e-15, rtol=1e-14))

    def fourth_moment_gain(self, eta: float | None = None) -> float:
        r"""``ρ(N(η))``: the gain of the multiplicative-noise loop of the fourth moments.

        The stationary fourth moment of SGD's iterate on Gaussian data exists iff it is ``< 1``.

        The iterate of Noisy-SGD/FTRL on eq. (8) is ``θ_{t+1} = (I − ηx_t x_tᵀ)θ_t + b_t``, ``x_t ~ N(0, H)``,
        with additive noise ``b_t`` independent of ``x_t`` (``ηξ_t x_t`` and the DP noise). Flipping the sign of
        one coordinate of ``x`` and ``θ`` commutes with the map, so the fourth moments ``m_ij = E θ_i²θ_j²``
        form an invariant set (the Perron vector lies there). With ``a = ηλ``, Isserlis' theorem gives
        ``m' = C∘m + U(y)``, where ``y = m a`` (a ``d``-vector, the only way ``m`` enters the coupling)::

            C_ij  = 1 − e_ij,  e_ij = 2(a_i + a_j) − 2(a_i² + a_j²) − 8a_i a_j + 12a_i a_j(a_i + a_j) − 24a_i²a_j²
            U(y)_ij = k_ij (a_j g_i y_i + a_i g_j y_j + 3 a_i a_j aᵀy),  g_i = 1 − 6a_i + 12a_i²,  k_ij = 1 + 2δ_ij

        (``k_ii = 3 = E z⁴``). ``C ∈ [1/3, 1)`` entrywise and ``U ≥ 0``, so the map is non-negative and its
        spectral radius is ``< 1`` iff ``e > 0`` and the ``d × d`` Schur complement
        ``N = V (I − C∘)⁻¹ U`` (``V: m ↦ m a``) has spectral radius ``< 1``:
        ``N = diag(g∘(Ra)) + diag(a) R diag(g) + 3 (a∘(Ra)) aᵀ`` with ``R_ij = k_ij a_j / e_ij``.
        ``O(d²)`` to build and ``O(d³)`` for its eigenvalues, instead of ``O(d⁶)`` for the map on ``d²`` moments.
        At ``d = 1`` it reduces to ``E(1 − ηλz²)⁴ = 1 − 4a + 18a² − 60a³ + 105a⁴ < 1``. ``inf`` where some
        ``C_ij ≥ 1`` (the diagonal moment alone grows).

        Parameters
        ----------
        eta : float in [0, inf), optional
            The learning rate; ``None`` (default) is the problem's own :attr:`eta`.

        Returns
        -------
        float
            The spectral radius of ``N(η)``; ``inf`` where some ``C_ij ≥ 1``.
        """
        a = self._eta_or_own(eta) * self.eigs
        ai, aj = a[:, None], a[None, :]
        e = 2 * (ai + aj) - 2 * (ai**2 + aj**2) - 8 * ai * aj + 12 * ai * aj * (ai + aj) - 24 * ai**2 * aj**2
        if np.any(e <= 0.0):
            return np.inf
        g = 1.0 - 6.0 * a + 12.0 * a**2
        R = (1.0 + 2.0 * np.eye(a.size)) * aj / e
        Ra = R @ a
        N = np.diag(g * Ra) + a[:, None] * R * g[None, :] + 3.0 * np.outer(a * Ra, a)
        return float(np.max(np.abs(np.linalg.eigvals(N))))

    @property
    def eta_max_fourth_moment(self) -> float:
        r"""The largest ``η`` for which the stationary fourth moment of SGD's iterate exists with Gaussian inputs.

        It is the root of :meth:`fourth_moment_gain` ``= 1`` below :attr:`eta_max_gaussian` (a finite fourth
        moment needs a finite second). Beyond it ``F(θ_t) − F⋆`` has infinite variance, so a time average of it
        has no valid confidence interval. ``d = 1``: ``ηλ = 0.383451…``, the root of ``105a³ − 60a² + 18a − 4``.
        """
        hi = self.eta_max_gaussian
        return float(optimize.brentq(lambda e: self.fourth_moment_gain(e) - 1.0, hi * 1e-12, hi, xtol=1e-15, rtol=1e-14))


@dataclass(frozen=True)
class StronglyConvex(_SimulatedProblem):
    r"""A ``μ``-strongly convex, ``L``-smooth objective in ``d`` dimensions (seed 004, §3, Thm 3.1, App. E).

    The stochastic gradients satisfy ``‖∇f(θ; z) − ∇F(θ)‖ ≤ σ_sgd`` almost surely. Only ``(η, μ, L, σ_sgd, d)``
    enter the frequency-domain bound of Thm 3.1 (:func:`dptheory.F_inf_bound`).

    Parameters
    ----------
    eta : float in (0, 2/L)
        The learning rate, ``0 < η < 2/L`` (gradient descent on the curvature-``L`` quadratic must be stable).
    mu : float in (0, L]
        The strong convexity ``μ``, ``0 < μ ≤ L``.
    L : float in [mu, inf)
        The smoothness ``L``.
    sigma_sgd : float in [0, inf), default 0.0
        The bound on the gradient noise; simulations draw ``ε_t`` uniform on the sphere of
        radius ``σ_sgd`` (mean zero, ``‖ε‖ = σ_sgd``).
    d : int, default 1
        The dimension (positive integer).
    loss : {"quadratic", "piecewise_quadratic", "logistic"}, default "piecewise_quadratic"
        The objective a simulation runs on (the bound does not depend on it), coordinate-wise with
        minimiser ``θ⋆ = 0`` and ``F⋆ = 0``:

        * ``"quadratic"``: ``F = (μ/2)‖θ‖²``;
        * ``"piecewise_quadratic"``: ``F = Σ_i μθ_i²/2 + (L − μ) max(θ_i, 0)²/2`` (curvature μ or L);
        * ``"logistic"``: ``F = Σ_i μθ_i²/2 + 4(L − μ)(log(1 + e^{θ_i}) − θ_i/2 − log 2)`` (ℓ2-regularised
          logistic-type; curvature ``μ + (L − μ)·4σ(θ)(1 − σ(θ)) ∈ (μ, L]``).
    """

    eta: float
    mu: float
    L: float
    sigma_sgd: float = 0.0
    d: int = 1
    loss: str = "piecewise_quadratic"

    def __post_init__(self):
        mu = check_in_interval("mu", self.mu, 0.0)
        L = check_in_interval("L", self.L, mu, lo_closed=True, why="L >= mu")
        object.__setattr__(self, "mu", mu)
        object.__setattr__(self, "L", L)
        object.__setattr__(
            self, "eta", check_in_interval("eta", self.eta, 0.0, 2.0 / L, why=f"eta*L < 2 for a stable recursion, L={L:g}")
        )
        object.__setattr__(self, "sigma_sgd", check_in_interval("sigma_sgd", self.sigma_sgd, 0.0, lo_closed=True))
        object.__setattr__(self, "d", check_positive_int("d", self.d))
        if self.loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, got {self.loss!r}")

    @property
    def eigs(self) -> np.ndarray:
        """Curvature bounds ``(μ, L)``: the slowest mode of the linearised dynamics is ``1/(ημ)``."""
        return np.array([self.mu, self.L])

    _dynamics = _StronglyConvexDynamics

    @property
    def kappa(self) -> float:
        """Condition number ``κ = L/μ``."""
        return self.L / self.mu
