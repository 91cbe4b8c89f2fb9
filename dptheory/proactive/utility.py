r"""The utility graph of seed 001 (van Dijk et al., *Proactive DP*, ICML 2024, §3.3, §4.1, App. D.2, Figs. 1(a), 4–6).

The utility graph is the paper's "best case" screen for a clipping constant ``C`` and a noise multiplier ``σ``
(§3.3): DP-SGD's last round adds its Gaussian noise directly to the final model, so ignore every earlier
round's noise, train ``w*(C)`` with clipped SGD and **no** noise, perturb it once, and read off the accuracy
fraction ``F(w* + n)/F(w*)`` on test data (App. D.2). One curve per ``C``; the output is, for each ``C``, the
range ``R_C`` of ``σ`` whose expected drop is at most a tolerance (10% in the paper; App. E, Fig. 15).

Procedure, as implemented here:

1. :func:`train_clipped` — the strongly convex setting of Table 1/eq. (9): ℓ2-regularised logistic regression,
   ``f(w; x, y) = ln(1 + exp(−y wᵀx)) + (λ/2)‖w‖²`` with ``λ = 1/N``, rounds of ``s`` examples drawn without
   replacement (Alg. 1), every per-example gradient clipped ``[g]_C = g / max(1, ‖g‖/C)`` (§2), the round update
   ``w ← w − η̄_i U`` with ``U = Σ_h [g_h]_C`` the *sum* over the round (Alg. 1, line 15), ``η̄_i = η(t_i)``,
   ``η(t) = η₀/(1 + βt)``, ``t_i = i·s`` (Table 1 ‡), ``η₀ = 0.1``, ``β = 0.001``, and ``T = ⌊K/s⌋`` rounds
   (``K`` gradient computations, Table 3's "# of iterations"). No noise.
2. :func:`utility_graph` — for each ``C`` and each ``σ`` of a grid, ``draws`` perturbations
   ``n = step·C·σ·z``, ``z ~ N(0, I)``, and the per-draw ratio ``acc(w* + n)/acc(w*)`` on the test set, with a
   Student-t confidence interval over draws. ``step = 1`` is App. D.2 literally (``n ~ N(0, C²σ²I)``);
   ``step = η̄_{T−1}`` is the noise that Alg. 1's last round actually puts into the model (its ``U`` carries
   ``N(0, C²σ²I)`` and is added times ``η̄_{T−1}``). By default the same ``z`` serve every ``σ`` and every ``C``
   (``common_draws=True``, common random numbers: smooth curves whose differences are not Monte-Carlo noise,
   but whose Monte-Carlo error is *one* shared deviation, so a band that misses the exact curve at one ``σ``
   misses it at all of them); ``common_draws=False`` draws afresh for every ``(C, σ)``, so each band is an
   independent interval that covers the exact value at its nominal rate, point by point.
3. :func:`expected_accuracy` — the exact per-test-point expectation that checks step 2: given ``x``, the margin
   ``y(w + τz)ᵀx ~ N(y wᵀx, τ²‖x‖²)``, so ``P(correct | x) = Φ(y wᵀx / (τ‖x‖))`` for any data and any ``w``.

Conventions the paper leaves open, chosen here.

* *Round step.* Table 1 ‡ sets ``η̄_i = η(t_i)``, and App. B's underlying recursion (10) is SGD with one step
  ``η_t`` per gradient computation, so a round of ``s`` gradients at the same model moves it by ``η(t_i)·U``
  (default ``step_rule="sum"``). §2's remark that the averaging of ``U`` is discounted "by scaling the step size
  inversely with s_i" can also be read as ``η̄_i = η(t_i)/s`` (``step_rule="mean"``), which moves the model ``s``
  times less: with Table 3's ``K = 50,000``, ``s = 26`` and Fig. 4's clipping constants every gradient then stays
  clipped, ``w*(C) ∝ C`` is far from the "near optimal" model App. D.2 asks for, and every ``C`` gives one curve.
* *Objective.* Eq. (9) writes the objective as a *sum* with the regulariser once; following the authors' SGD
  papers the per-example loss carries the full ``(λ/2)‖w‖²`` (so ``F`` is ``λ``-strongly convex) and the clipped
  gradient includes the regulariser's term. No intercept: the synthetic classes are symmetric about the origin.
* *What w*(C) is.* For ``λ = 0``, ``[∇ℓ_i]_C`` is the gradient of the logistic loss made linear where its gradient
  norm would exceed ``C``, so clipped SGD minimises that Huberised loss, not ``F``: ``w*(C)`` keeps growing slowly
  with ``K`` (its norm, and with it the tolerable ``σ``, depend on ``K``; App. D.2: a smaller ``C`` needs a larger
  ``K``), and ``F(w*(C))`` need not decrease with ``K``.

Data: the paper uses an unnamed LIBSVM set (``N = 10,000``); without a bundled data set this module draws a
documented synthetic one, :func:`synthetic_classification` — two Gaussian classes ``x | y ~ N(y·m, I)``,
``P(y = ±1) = ½``, ``‖m‖ = margin``, whose Bayes accuracy is ``Φ(margin)`` (90% by default).

Only the evaluation over draws × σ runs on the array backend (:mod:`dptheory.backend`): one matrix product
``Z (y ⊙ X)ᵀ`` over all draws, then a comparison per ``σ``; the training loop is cheap and stays in NumPy.

>>> data = synthetic_classification(2000, 1000, 10, seed=1)
>>> round(data.bayes_accuracy, 3)
0.9
>>> g = utility_graph(data, [0.05, 0.1], [0.0, 5.0, 10.0, 15.0, 1e4], K=4000, s=10, draws=50)
>>> g.ratio.round(2).tolist()                    # σ = 0: exactly 1; σ = 10⁴: chance, 0.5/0.91
[[1.0, 0.99, 0.96, 0.92, 0.57], [1.0, 0.97, 0.92, 0.85, 0.57]]
>>> g.feasible(max_drop=0.1)                     # R_C for a 10% drop
{0.05: (0.0, 15.0), 0.1: (0.0, 10.0)}
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import array_api_compat
import numpy as np
from scipy import special, stats

from .._validation import check_in_interval, check_int, check_positive_array
from ..backend import get_backend
from ..stats import t_interval

__all__ = [
    "Dataset",
    "UtilityGraph",
    "synthetic_classification",
    "train_clipped",
    "step_size",
    "round_step",
    "final_round_step",
    "regularized_loss",
    "expected_accuracy",
    "utility_graph",
]

#: ``Φ⁻¹(0.9)``: the class separation whose Bayes accuracy is 90%.
DEFAULT_MARGIN = float(stats.norm.ppf(0.9))


@dataclass(frozen=True, eq=False)
class Dataset:
    """A binary classification split: rows of ``X_*`` are examples, labels ``y_*`` in ``{−1, +1}``.

    Attributes
    ----------
    X_train : numpy.ndarray
        Training examples, shape ``(n_train, d)``.
    y_train : numpy.ndarray
        Training labels in ``{−1, +1}``, shape ``(n_train,)``.
    X_test : numpy.ndarray
        Test examples, shape ``(n_test, d)``.
    y_test : numpy.ndarray
        Test labels in ``{−1, +1}``, shape ``(n_test,)``.
    bayes_accuracy : float, default nan
        Accuracy of the best classifier, when known (synthetic data).
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    bayes_accuracy: float = float("nan")  #: accuracy of the best classifier, when known (synthetic data)

    @property
    def n_train(self) -> int:
        """Number of training examples, the ``N`` of the paper."""
        return int(self.X_train.shape[0])

    @property
    def d(self) -> int:
        """Number of features."""
        return int(self.X_train.shape[1])

    def __repr__(self) -> str:
        return (f"Dataset(n_train={self.n_train}, n_test={self.X_test.shape[0]}, d={self.d}, "
                f"bayes_accuracy={self.bayes_accuracy:.4g})")


def synthetic_classification(n_train: int, n_test: int, d: int, *, margin: float = DEFAULT_MARGIN, seed: int = 0) -> Dataset:
    r"""Two Gaussian classes: ``y = ±1`` with probability ½ and ``x | y ~ N(y·m, I_d)``, ``‖m‖ = margin``.

    ``m = margin·u`` with ``u`` a seeded uniform direction. The Bayes classifier is ``sign(mᵀx)`` with accuracy
    ``Φ(margin)`` (default ``margin = Φ⁻¹(0.9)``: 90%, a non-trivial problem), and the Bayes-optimal logistic
    model is ``w = 2m``. The stand-in for the paper's unnamed LIBSVM set (seed 001, Table 3: ``N = 10,000``).

    Parameters
    ----------
    n_train : int
        Number of training examples, at least 1.
    n_test : int
        Number of test examples, at least 1.
    d : int
        Dimension, at least 1.
    margin : float in (0, inf), default ``Φ⁻¹(0.9)``
        ``‖m‖``, the distance of each class mean from the origin.
    seed : int, default 0
        Seed of the direction ``u`` and of the draws.

    Returns
    -------
    Dataset
        The split, with ``bayes_accuracy = Φ(margin)``.

    Raises
    ------
    ValueError
        If an argument lies outside its range.

    Examples
    --------
    >>> synthetic_classification(100, 50, 3, seed=0)
    Dataset(n_train=100, n_test=50, d=3, bayes_accuracy=0.9)
    """
    n_train = check_int("n_train", n_train, 1)
    n_test = check_int("n_test", n_test, 1)
    d = check_int("d", d, 1)
    margin = check_in_interval("margin", margin, 0.0)
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(d)
    m = margin * u / np.linalg.norm(u)

    def draw(n):
        y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        return y[:, None] * m + rng.standard_normal((n, d)), y

    X_train, y_train = draw(n_train)
    X_test, y_test = draw(n_test)
    return Dataset(X_train, y_train, X_test, y_test, float(special.ndtr(margin)))


def step_size(t, *, eta0: float = 0.1, beta: float = 0.001):
    """The diminishing step size ``η(t) = η₀/(1 + βt)`` of seed 001, Table 1 (strongly convex).

    Parameters
    ----------
    t : array_like
        Gradient-computation counter(s) ``t``.
    eta0 : float, default 0.1
        ``η₀``.
    beta : float, default 0.001
        ``β``.

    Returns
    -------
    float or numpy.ndarray
        ``η(t)``, elementwise.
    """
    return eta0 / (1.0 + beta * np.asarray(t, dtype=float))


STEP_RULES = ("sum", "mean")


def _check_step_rule(step_rule: str) -> str:
    if step_rule not in STEP_RULES:
        raise ValueError(f"step_rule must be one of {STEP_RULES}, got {step_rule!r}")
    return step_rule


def round_step(i, s: int, *, eta0: float = 0.1, beta: float = 0.001, step_rule: str = "sum"):
    """``η̄_i``, the factor of round ``i``'s sum ``U``: ``η(i·s)`` (``"sum"``, Table 1 ‡) or ``η(i·s)/s`` (``"mean"``).

    Parameters
    ----------
    i : array_like
        Round index (or indices), from 0.
    s : int
        Sample size of a round.
    eta0 : float, default 0.1
        ``η₀``.
    beta : float, default 0.001
        ``β``.
    step_rule : {"sum", "mean"}, default "sum"
        Whether the round's sum ``U`` is stepped by ``η(i·s)`` or ``η(i·s)/s``.

    Returns
    -------
    float or numpy.ndarray
        ``η̄_i``, elementwise.

    Raises
    ------
    ValueError
        If ``step_rule`` is unknown.
    """
    eta = step_size(np.asarray(i, dtype=float) * s, eta0=eta0, beta=beta)
    return eta / s if _check_step_rule(step_rule) == "mean" else eta


def final_round_step(K: int, s: int, *, eta0: float = 0.1, beta: float = 0.001, step_rule: str = "sum") -> float:
    """``η̄_{T−1}`` with ``T = ⌊K/s⌋``: the step factor of Alg. 1's last round.

    It is the factor by which Alg. 1's last round puts its noise ``N(0, C²σ²I)`` into the
    final model (line 15: ``ŵ ← ŵ + η̄_i U``), i.e. the ``step`` of :func:`utility_graph` for the actual algorithm.

    Parameters
    ----------
    K : int
        Number of gradient computations, at least 1.
    s : int
        Sample size of a round, ``1 ≤ s ≤ K``.
    eta0 : float, default 0.1
        ``η₀``.
    beta : float, default 0.001
        ``β``.
    step_rule : {"sum", "mean"}, default "sum"
        As in :func:`round_step`.

    Returns
    -------
    float
        ``η̄_{T−1}``.

    Raises
    ------
    ValueError
        If an argument lies outside its range or ``step_rule`` is unknown.

    Examples
    --------
    >>> round(final_round_step(50_000, 26), 7)       # seed 001, Table 3: 0.1/(1 + 0.001·1922·26)
    0.0019619
    """
    K = check_int("K", K, 1)
    s = check_int("s", s, 1, K)
    return float(round_step(K // s - 1, s, eta0=eta0, beta=beta, step_rule=step_rule))


def regularized_loss(data: Dataset, w, *, lam: float | None = None) -> float:
    """Training objective ``F(w) = (1/N) Σ ln(1 + exp(−y wᵀx)) + (λ/2)‖w‖²`` (eq. (9) per example; ``λ = 1/N``).

    Parameters
    ----------
    data : Dataset
        The data; ``F`` is evaluated on its training split.
    w : array_like
        The model, shape ``(d,)``.
    lam : float in [0, inf), optional
        ``λ``; default ``1/N``.

    Returns
    -------
    float
        ``F(w)``.
    """
    w = np.asarray(w, dtype=float)
    lam = 1.0 / data.n_train if lam is None else check_in_interval("lam", lam, 0.0, lo_closed=True)
    z = data.y_train * (data.X_train @ w)
    return float(np.mean(np.logaddexp(0.0, -z)) + 0.5 * lam * (w @ w))


def train_clipped(
    data: Dataset,
    C: float,
    *,
    K: int,
    s: int,
    eta0: float = 0.1,
    beta: float = 0.001,
    lam: float | None = None,
    seed: int = 0,
    step_rule: str = "sum",
) -> np.ndarray:
    r"""``w*(C)``: clipped mini-batch SGD without noise (seed 001, §3.3 and Alg. 1 with ``σ = 0``), from ``w = 0``.

    ``T = ⌊K/s⌋`` rounds; round ``i`` draws ``s`` distinct training examples, clips each per-example gradient of
    ``ln(1 + exp(−y wᵀx)) + (λ/2)‖w‖²`` to norm ``C`` and steps ``w ← w − η̄_i Σ_h [g_h]_C`` with
    ``η̄_i = η(is)``, ``η(t) = η₀/(1 + βt)`` (``step_rule="mean"``: ``η̄_i = η(is)/s``; see the module docstring).
    ``lam`` defaults to ``1/N`` (Table 1). While every gradient is clipped and ``λ = 0``, ``[g]_C = −C·y x/‖x‖``
    does not depend on ``w``, so ``w*(C)`` is exactly proportional to ``C``: a smaller ``C`` acts as a smaller step
    (App. E).

    Parameters
    ----------
    data : Dataset
        The data; training uses its training split (``N = data.n_train``).
    C : float in (0, inf)
        Clipping constant.
    K : int
        Number of gradient computations, at least ``s``.
    s : int
        Sample size of a round, ``1 ≤ s ≤ N``.
    eta0 : float in (0, inf), default 0.1
        ``η₀``.
    beta : float in [0, inf), default 0.001
        ``β``.
    lam : float in [0, inf), optional
        ``λ``; default ``1/N``.
    seed : int, default 0
        Seed of the mini-batches.
    step_rule : {"sum", "mean"}, default "sum"
        As in :func:`round_step`.

    Returns
    -------
    numpy.ndarray
        ``w*(C)``, shape ``(d,)``.

    Raises
    ------
    ValueError
        If an argument lies outside its range or ``step_rule`` is unknown.
    """
    C = check_in_interval("C", C, 0.0)
    N = data.n_train
    s = check_int("s", s, 1, N)
    K = check_int("K", K, s)
    eta0 = check_in_interval("eta0", eta0, 0.0)
    beta = check_in_interval("beta", beta, 0.0, lo_closed=True)
    lam = 1.0 / N if lam is None else check_in_interval("lam", lam, 0.0, lo_closed=True)
    etas = round_step(np.arange(K // s), s, eta0=eta0, beta=beta, step_rule=step_rule)
    rng = np.random.default_rng(seed)
    X, y = data.X_train, data.y_train
    w = np.zeros(data.d)
    for eta in etas:
        batch = rng.choice(N, size=s, replace=False)
        Xb, yb = X[batch], y[batch]
        coef = -yb * special.expit(-yb * (Xb @ w))  # d/dz ln(1 + e^{−z}) at z = y wᵀx, times y
        grads = coef[:, None] * Xb + lam * w
        norms = np.sqrt(np.einsum("ij,ij->i", grads, grads))
        scale = 1.0 / np.maximum(1.0, norms / C)
        w = w - eta * (scale @ grads)
    return w


def expected_accuracy(w, X, y, tau) -> np.ndarray:
    r"""``E_z[acc(w + τz)]`` on ``(X, y)``, ``z ~ N(0, I)``, exactly: ``mean_i Φ(y_i wᵀx_i / (τ‖x_i‖))``.

    Given ``x``, ``y(w + τz)ᵀx ~ N(y wᵀx, τ²‖x‖²)``, so each test point is classified correctly with probability
    ``Φ(y wᵀx/(τ‖x‖))`` whatever the data distribution; at ``τ = 0`` this is the plain accuracy (a margin of
    exactly 0 counts as wrong, as in :func:`utility_graph`).

    Parameters
    ----------
    w : array_like
        The model, shape ``(d,)``.
    X : array_like
        Examples, shape ``(n, d)``.
    y : array_like
        Labels in ``{−1, +1}``, shape ``(n,)``.
    tau : float or array_like
        Noise standard deviation(s) ``τ ≥ 0``.

    Returns
    -------
    numpy.ndarray
        ``E_z[acc(w + τz)]``, one value per entry of ``tau``.

    Raises
    ------
    ValueError
        If an entry of ``tau`` is negative or not finite.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0]]); y = np.array([1.0, -1.0])
    >>> expected_accuracy([1.0, 1.0], X, y, [0.0, 1.0]).round(4).tolist()   # (1 + 0)/2, (Φ(1) + Φ(−1))/2
    [0.5, 0.5]
    """
    w, X, y = np.asarray(w, float), np.asarray(X, float), np.asarray(y, float)
    tau = np.atleast_1d(np.asarray(tau, dtype=float))
    if np.any(tau < 0) or not np.all(np.isfinite(tau)):
        raise ValueError("tau must be finite and ≥ 0 (valid range [0, inf))")
    margin = y * (X @ w)
    xnorm = np.linalg.norm(X, axis=1)
    out = np.empty(tau.shape)
    for j, t in enumerate(tau):
        out[j] = np.mean(margin > 0) if t == 0 else np.mean(special.ndtr(margin / (t * xnorm)))
    return out


@dataclass(frozen=True, eq=False)
class UtilityGraph:
    """The utility graph (seed 001, App. D.2): accuracy fraction ``acc(w*(C) + n)/acc(w*(C))`` per ``C`` and ``σ``.

    ``ratio_draws[c, j, k]`` is draw ``k`` at ``C_values[c]``, ``sigmas[j]``; ``ratio``, ``lo``, ``hi`` are its mean
    over draws and the Student-t interval at ``level``. ``weights[c]`` is ``w*(C_values[c])``; the noise standard
    deviation is ``step·C·σ``.

    Attributes
    ----------
    C_values : numpy.ndarray
        The clipping constants ``C``.
    sigmas : numpy.ndarray
        The grid of σ, non-decreasing.
    ratio_draws : numpy.ndarray
        Per-draw accuracy fractions, shape ``(len(C_values), len(sigmas), draws)``.
    base_accuracy : numpy.ndarray
        Test accuracy of ``w*(C)`` without noise, one per ``C``.
    weights : numpy.ndarray
        ``w*(C)``, one row per ``C``.
    step : float
        Factor of the noise: its standard deviation is ``step·C·σ``.
    level : float, default 0.95
        Confidence level of :meth:`interval`, :attr:`lo` and :attr:`hi`.
    settings : dict
        The training and evaluation settings.
    """

    C_values: np.ndarray
    sigmas: np.ndarray
    ratio_draws: np.ndarray
    base_accuracy: np.ndarray
    weights: np.ndarray
    step: float
    level: float = 0.95
    settings: dict = field(default_factory=dict)

    @property
    def ratio(self) -> np.ndarray:
        """Mean accuracy fraction over draws, shape ``(len(C_values), len(sigmas))``."""
        return self.ratio_draws.mean(axis=2)

    def interval(self, level: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Student-t confidence interval of the mean ratio at ``level`` (default: the graph's).

        Parameters
        ----------
        level : float in (0, 1), optional
            Confidence level; default the graph's ``level``.

        Returns
        -------
        tuple of numpy.ndarray
            ``(lo, hi)``, each of shape ``(len(C_values), len(sigmas))``.
        """
        D = self.ratio_draws.shape[2]
        sem = self.ratio_draws.std(axis=2, ddof=1) / math.sqrt(D)
        return t_interval(self.ratio, sem, D, self.level if level is None else level)

    @property
    def lo(self) -> np.ndarray:
        """Lower end of :meth:`interval` at the graph's ``level``, shape ``(len(C_values), len(sigmas))``."""
        return self.interval()[0]

    @property
    def hi(self) -> np.ndarray:
        """Upper end of :meth:`interval` at the graph's ``level``, shape ``(len(C_values), len(sigmas))``."""
        return self.interval()[1]

    def feasible(self, max_drop: float = 0.1) -> dict[float, tuple[float, float] | None]:
        """The range ``R_C`` of grid ``σ`` whose mean ratio stays ``≥ 1 − max_drop``, per ``C``.

        The result is ``{C: (σ_min, σ_max)}``: the range ``R_C`` of grid ``σ``, from the smallest one up, whose mean ratio is
        ``≥ 1 − max_drop`` at every grid point (App. E, Fig. 15); ``None`` if the smallest ``σ`` already drops more.
        Resolution is the grid's; :meth:`crossing` interpolates.

        Parameters
        ----------
        max_drop : float in (0, 1), default 0.1
            The tolerated drop of the accuracy fraction.

        Returns
        -------
        dict
            ``{C: (σ_min, σ_max)}``, or ``{C: None}`` where the smallest ``σ`` already drops more.

        Raises
        ------
        ValueError
            If ``max_drop`` lies outside ``(0, 1)``.
        """
        max_drop = check_in_interval("max_drop", max_drop, 0.0, 1.0)
        out = {}
        for c, r in zip(self.C_values, self.ratio):
            bad = np.flatnonzero(r < 1.0 - max_drop)
            last = len(r) - 1 if bad.size == 0 else bad[0] - 1
            out[float(c)] = None if last < 0 else (float(self.sigmas[0]), float(self.sigmas[last]))
        return out

    def crossing(self, max_drop: float = 0.1) -> np.ndarray:
        """Per ``C``, the ``σ`` at which the mean ratio first falls to ``1 − max_drop``.

        Linear interpolation between grid points; ``inf`` if it never does on the grid, ``nan`` if the first grid point
        is already below.

        Parameters
        ----------
        max_drop : float in (0, 1), default 0.1
            The tolerated drop of the accuracy fraction.

        Returns
        -------
        numpy.ndarray
            One ``σ`` per ``C``: ``inf`` if the ratio never falls to ``1 − max_drop`` on the grid, ``nan`` if the first grid
            point is already below.

        Raises
        ------
        ValueError
            If ``max_drop`` lies outside ``(0, 1)``.
        """
        max_drop = check_in_interval("max_drop", max_drop, 0.0, 1.0)
        target = 1.0 - max_drop
        out = np.empty(len(self.C_values))
        for c, r in enumerate(self.ratio):
            bad = np.flatnonzero(r < target)
            if bad.size == 0:
                out[c] = np.inf
            elif bad[0] == 0:
                out[c] = np.nan
            else:
                j = bad[0]
                frac = (r[j - 1] - target) / (r[j - 1] - r[j])
                out[c] = self.sigmas[j - 1] + frac * (self.sigmas[j] - self.sigmas[j - 1])
        return out

    def __repr__(self) -> str:
        feas = ", ".join(f"{c:g}: {r}" for c, r in self.feasible().items())
        return (f"UtilityGraph(C={self.C_values.tolist()}, {len(self.sigmas)} σ in [{self.sigmas[0]:g}, "
                f"{self.sigmas[-1]:g}], draws={self.ratio_draws.shape[2]}, step={self.step:.4g}, "
                f"base_accuracy={np.round(self.base_accuracy, 4).tolist()}, R_C(10%)={{{feas}}})")


def _accuracy_kernel(a, B, taus, block: int):
    """``mean_i [a_i + τ B_{k,i} > 0]`` for every ``τ`` and draw ``k``: shape ``(len(taus), draws)``.

    ``a = y ⊙ Xw`` (margins of ``w``), ``B = Z (y ⊙ X)ᵀ`` (margins of the draws); array-API only, ``block``
    values of ``τ`` at a time to bound memory."""
    xp = array_api_compat.array_namespace(a, B, taus)
    n = a.shape[0]
    parts = []
    for j0 in range(0, taus.shape[0], block):
        t = taus[j0:min(j0 + block, taus.shape[0])]  # a stop past the axis is unspecified in the standard
        correct = (a[None, None, :] + t[:, None, None] * B[None, :, :]) > 0
        parts.append(xp.sum(xp.astype(correct, xp.float64), axis=2) / n)
    return xp.concat(parts, axis=0)


def utility_graph(
    data: Dataset,
    C_values,
    sigmas,
    *,
    K: int,
    s: int,
    step: float = 1.0,
    draws: int = 200,
    seed: int = 0,
    level: float = 0.95,
    backend: str | None = None,
    eta0: float = 0.1,
    beta: float = 0.001,
    lam: float | None = None,
    step_rule: str = "sum",
    common_draws: bool = True,
) -> UtilityGraph:
    r"""The utility graph of seed 001 (§3.3, App. D.2): ``acc(w*(C) + n)/acc(w*(C))``, ``n ~ N(0, (step·C·σ)² I)``.

    For each ``C``, ``w*(C) = train_clipped(data, C, K=K, s=s, ...)``; then ``draws`` standard normal ``z`` on the
    array ``backend`` (the same for every ``C`` and ``σ`` if ``common_draws``, one product ``Z (y ⊙ X_test)ᵀ``; else
    fresh ones for every ``(C, σ)``), and the test accuracy of ``w*(C) + step·C·σ·z`` on every grid ``σ``.
    ``step = 1`` is App. D.2's ``N(0, C²σ²I)``; pass :func:`final_round_step` for the noise Alg. 1's last round adds
    to the model. ``seed`` fixes both the training mini-batches and the draws. ``sigmas`` must be non-decreasing
    and ``≥ 0``.

    Parameters
    ----------
    data : Dataset
        Training and test data.
    C_values : array_like
        Positive clipping constants ``C``.
    sigmas : array_like
        Non-decreasing grid of ``σ ≥ 0``.
    K : int
        Number of gradient computations of :func:`train_clipped`, at least ``s``.
    s : int
        Sample size of a round, ``1 ≤ s ≤ N``.
    step : float in (0, inf), default 1.0
        Factor of the noise: its standard deviation is ``step·C·σ``.
    draws : int, default 200
        Number of noise draws, at least 2.
    seed : int, default 0
        Seed of the training mini-batches and of the draws.
    level : float in (0, 1), default 0.95
        Confidence level of the Student-t intervals.
    backend : str, optional
        Array backend of the evaluation (:func:`dptheory.backend.get_backend`); default ``$DPTHEORY_BACKEND``, else
        NumPy.
    eta0 : float, default 0.1
        ``η₀`` of :func:`train_clipped`.
    beta : float, default 0.001
        ``β`` of :func:`train_clipped`.
    lam : float, optional
        ``λ`` of :func:`train_clipped`; default ``1/N``.
    step_rule : {"sum", "mean"}, default "sum"
        As in :func:`round_step`.
    common_draws : bool, default True
        Use the same draws for every ``C`` and ``σ`` (common random numbers); else fresh ones for every ``(C, σ)``.

    Returns
    -------
    UtilityGraph
        The per-draw ratios with ``w*(C)``, the base accuracies and the settings.

    Raises
    ------
    ValueError
        If an argument lies outside its range, or ``w*(C)`` classifies no test point correctly.
    """
    C_values = check_positive_array("C_values", C_values)
    sig = np.atleast_1d(np.asarray(sigmas, dtype=float))
    if sig.ndim != 1 or sig.size == 0 or not np.all(np.isfinite(sig)):
        raise ValueError(f"sigmas must be a non-empty 1-D sequence of finite numbers, got {sigmas!r}")
    if np.any(sig < 0):
        raise ValueError(f"sigmas must be ≥ 0 (valid range [0, inf)), got an entry {sig[sig < 0][0]:g}")
    if np.any(np.diff(sig) < 0):
        raise ValueError("sigmas must be non-decreasing (the grid of the utility graph's x axis)")
    step = check_in_interval("step", step, 0.0)
    draws = check_int("draws", draws, 2)
    level = check_in_interval("level", level, 0.0, 1.0)
    s = check_int("s", s, 1, data.n_train)
    K = check_int("K", K, s)
    train_seed, noise_seed = (int(v) for v in np.random.SeedSequence(seed).generate_state(2))

    weights = np.stack([train_clipped(data, C, K=K, s=s, eta0=eta0, beta=beta, lam=lam, seed=train_seed,
                                       step_rule=step_rule) for C in C_values])
    bk = get_backend(backend)
    xp = bk.xp
    yX = bk.asarray(data.y_test[:, None] * data.X_test)              # (n_test, d)
    yXt = xp.permute_dims(yX, (1, 0))
    rng = bk.rng(noise_seed)
    if common_draws:
        B = bk.asarray(rng.standard_normal((draws, data.d))) @ yXt    # (draws, n_test): one product over draws
    block = max(1, 2**23 // (draws * data.X_test.shape[0]))  # ≤ 64 MiB of float64 per block
    acc = np.empty((len(C_values), len(sig), draws))
    base = np.empty(len(C_values))
    for c, (C, w) in enumerate(zip(C_values, weights)):
        a = yX @ bk.asarray(w)
        base[c] = float(bk.to_numpy(xp.mean(xp.astype(a > 0, xp.float64))))
        if base[c] == 0:
            raise ValueError(f"w*(C={C:g}) classifies no test point correctly: the ratio is undefined "
                             "(train longer or with a larger C; seed 001, footnote 9)")
        if common_draws:
            acc[c] = bk.to_numpy(_accuracy_kernel(a, B, bk.asarray(step * C * sig), block))
        else:  # fresh z for every σ: independent intervals
            for j, sj in enumerate(sig):
                Bj = bk.asarray(rng.standard_normal((draws, data.d))) @ yXt
                acc[c, j] = bk.to_numpy(_accuracy_kernel(a, Bj, bk.asarray(np.array([step * C * sj])), 1))[0]
    settings = dict(K=K, s=s, eta0=eta0, beta=beta, step_rule=step_rule, lam=1.0 / data.n_train if lam is None else lam,
                    draws=draws, seed=seed, backend=bk.name, n_test=int(data.X_test.shape[0]), d=data.d,
                    common_draws=bool(common_draws))
    return UtilityGraph(C_values, sig, acc / base[:, None, None], base, weights, step, level, settings)
