r"""Seed 000's learning comparison at CI size: DP-FTRL(M) (vanilla and Honaker trees) against DP-SGD(M), amplified
and unamplified, at **matched privacy**, on a synthetic logistic-regression task (errata 000 §4, "Figures").

**The data set** (:func:`make_dataset`; regenerate it from ``seed`` alone). ``rng = numpy.random.default_rng(seed)``
draws, in this order: a teacher ``w⋆ = margin·u`` with ``u`` uniform on the unit sphere of ``R^p`` (a normalised
standard normal vector); ``n_train`` training inputs ``x ~ N(0, I_p)`` (one ``(n_train, p)`` standard-normal
draw); their labels ``y = +1`` with probability ``1/(1 + e^{−⟨w⋆, x⟩})``, else ``−1`` (one ``(n_train,)`` uniform
draw ``U``, ``y = +1`` iff ``U < sigmoid``); then ``n_test`` test inputs and labels the same way. Defaults
``p = 50``, ``n_train = 10⁴``, ``n_test = 10⁴``, ``margin = 4`` (the logit has standard deviation 4; the teacher's
expected accuracy — the Bayes accuracy — is reported as :attr:`SyntheticData.bayes_accuracy`, 0.869 at seed 0).
The model is binary logistic regression without intercept, ``ℓ(θ; (x, y)) = ln(1 + e^{−y⟨x, θ⟩})``; a
classifier's accuracy is that of ``sign⟨x, θ⟩`` on the test set.

**The methods** (:data:`METHODS`; clip norm ``L = 1``, batch ``b``, ``E`` epochs of ``n = ⌊N/b⌋`` steps):

* ``"DP-FTRL-vanilla"``, ``"DP-FTRLM-vanilla"``, ``"DP-FTRL-honaker"``, ``"DP-FTRLM-honaker"`` —
  :func:`dptheory.treeagg.ftrl.dp_ftrl` on mini-batches (errata 000 §2.4 Alg. 1, §2.6 mini-batch with node std
  ``σL/b``, §2.8 momentum on the noisy prefix sums) with the tree **restarted every epoch** (DP-FTRL-TR, §2.7):
  each epoch visits the examples once, in an order drawn from the data seed (one permutation per epoch, the same
  for every seed of the noise). Accounting: :func:`~dptheory.treeagg.accounting.tree_sigma` with
  ``scheme="restart"`` — ``ρ = E(⌊lg n⌋ + 1)/(2σ²)`` for both read-outs (errata 000 §2.11; the corrected count,
  not the paper's ⌈lg n⌉).
* ``"DP-SGD-amplified"``, ``"DP-SGDM-amplified"`` — Poisson sampling at rate ``q = b/N`` for ``T = E·n`` steps,
  the sum of clipped gradients plus ``N(0, σ²L²I)`` divided by the expected batch ``b``; accounting:
  :func:`dptheory.accounting.dpsgd.exact_epsilon` (``accountant="pld"``, add/remove one), σ calibrated by root
  finding on the PLD ε (:func:`method_sigma`).
* ``"DP-SGD-unamplified"`` — the FTRL runs' fixed batches (each example once per epoch), independent noise
  ``N(0, σ²L²/b² I)`` per step; ``ρ = E/(2σ²)`` (the digest's unamplified rows, errata 000 §4).

The Gaussian compositions (trees, unamplified) convert ρ → ε with the exact Gaussian curve (``conversion="exact"``,
``μ = √(2ρ)``), the PLD accountant is tight for the Poisson one: every method is charged its own tight ε. The
adjacency is add/remove (zero-out) one example with per-example sensitivity ``L`` throughout, as in the paper.

**Fixed hyper-parameters** (:data:`HYPERPARAMETERS`, chosen once, never tuned per ε or per method): learning rate
``η = 0.5`` for DP-SGD and ``λ = 1/η = 2`` for DP-FTRL (Thm B.1 makes ``λ = 1/η`` the comparable pair,
errata 000 §2.5); momentum ``γ = 0.9`` with ``η(1 − γ) = 0.05`` and ``λ/(1 − γ) = 20`` — the 10:1 ratios of the
paper's Table 6 (MNIST, b = 250: SGD 0.5 / SGDM 0.05, FTRL-v λ 1 / FTRLM-v λ 10). Final iterate, ``θ_1 = 0``.

Without noise, DP-FTRL with ``λ = 1/η`` equals SGD on the same batches (a consequence of Thm B.1, errata 000
§2.5; restarts only move the anchor to the current iterate), which ``tests/test_tree_experiment.py`` checks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import brentq

from .._validation import check_in_interval, check_int
from ..accounting.conversions import epsilon_from_rho, sigma_for_epsilon
from ..accounting.dpsgd import exact_epsilon
from ..stats import Estimate
from .accounting import tree_epsilon, tree_sigma
from .ftrl import LogisticLosses, dp_ftrl

__all__ = [
    "METHODS", "HYPERPARAMETERS", "CALIBRATION_DISCRETIZATION", "SyntheticData", "make_dataset", "epoch_orders",
    "method_sigma", "method_epsilon", "train", "test_accuracy", "ExperimentResult", "run_experiment",
]

#: The methods compared (module docstring).
METHODS = ("DP-FTRL-vanilla", "DP-FTRLM-vanilla", "DP-FTRL-honaker", "DP-FTRLM-honaker",
           "DP-SGD-amplified", "DP-SGDM-amplified", "DP-SGD-unamplified")
#: Per method: (step size η; FTRL uses λ = 1/η), momentum γ. Chosen once (module docstring).
HYPERPARAMETERS = {
    "DP-FTRL-vanilla": (0.5, 0.0), "DP-FTRLM-vanilla": (0.05, 0.9),
    "DP-FTRL-honaker": (0.5, 0.0), "DP-FTRLM-honaker": (0.05, 0.9),
    "DP-SGD-amplified": (0.5, 0.0), "DP-SGDM-amplified": (0.05, 0.9),
    "DP-SGD-unamplified": (0.5, 0.0),
}
#: PLD value discretisation used to calibrate the amplified σ (pessimistic, so the σ found is valid; ε differs from
#: the default 1e-5 discretisation by ~1e-5 relative at these sizes, and each evaluation is 10–50× faster).
CALIBRATION_DISCRETIZATION = 1e-3
CLIP = 1.0


def _check_method(method) -> str:
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    return method


def _check_epsilon(epsilon) -> float:
    """A target ε in (0, inf]; ``inf`` means no noise."""
    try:
        if float(epsilon) == math.inf:
            return math.inf
    except (TypeError, ValueError):
        pass
    return check_in_interval("epsilon", epsilon, 0.0, math.inf)


# -- data ------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SyntheticData:
    """The logistic-teacher data set of :func:`make_dataset` (labels ±1).

    Attributes
    ----------
    X_train : numpy.ndarray
        Training inputs, shape ``(n_train, p)``.
    y_train : numpy.ndarray
        Training labels ±1, shape ``(n_train,)``.
    X_test : numpy.ndarray
        Test inputs, shape ``(n_test, p)``.
    y_test : numpy.ndarray
        Test labels ±1, shape ``(n_test,)``.
    w_star : numpy.ndarray
        The teacher ``w⋆``, shape ``(p,)``.
    seed : int
        The seed the data set was drawn from.
    margin : float
        ``‖w⋆‖``.
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    w_star: np.ndarray
    seed: int
    margin: float

    @property
    def bayes_accuracy(self) -> float:
        """The teacher's expected test accuracy ``mean max(s, 1 − s)``, ``s = sigmoid⟨w⋆, x⟩`` (the best possible)."""
        s = 1.0 / (1.0 + np.exp(-self.X_test @ self.w_star))
        return float(np.mean(np.maximum(s, 1.0 - s)))

    @property
    def teacher_accuracy(self) -> float:
        """The accuracy of ``sign⟨w⋆, x⟩`` on the drawn test labels."""
        return test_accuracy(self.w_star[None, :], self)[0]


def make_dataset(seed: int = 0, *, n_train: int = 10_000, n_test: int = 10_000, p: int = 50,
                 margin: float = 4.0) -> SyntheticData:
    """The synthetic binary classification task of the module docstring, deterministic for ``seed``.

    Parameters
    ----------
    seed : int, default 0
        Seed of ``numpy.random.default_rng``, at least 0.
    n_train : int, default 10000
        Number of training examples.
    n_test : int, default 10000
        Number of test examples.
    p : int, default 50
        Dimension.
    margin : float in (0, inf), default 4.0
        ``‖w⋆‖``, the standard deviation of the logit.

    Returns
    -------
    SyntheticData
        The data set, with its teacher.

    Raises
    ------
    ValueError
        If an argument lies outside its range.
    """
    seed = check_int("seed", seed, 0)
    n_train = check_int("n_train", n_train, 1)
    n_test = check_int("n_test", n_test, 1)
    p = check_int("p", p, 1)
    margin = check_in_interval("margin", margin, 0.0, math.inf)
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(p)
    w = margin * u / np.linalg.norm(u)

    def draw(m):
        X = rng.standard_normal((m, p))
        prob = 1.0 / (1.0 + np.exp(-X @ w))
        return X, np.where(rng.random(m) < prob, 1.0, -1.0)

    Xtr, ytr = draw(n_train)
    Xte, yte = draw(n_test)
    return SyntheticData(Xtr, ytr, Xte, yte, w, seed, margin)


def epoch_orders(n_train: int, epochs: int, seed: int) -> np.ndarray:
    """``(epochs, n_train)``: one permutation of the training rows per epoch, from ``default_rng(seed)``.

    Parameters
    ----------
    n_train : int
        Number of training rows.
    epochs : int
        Number of epochs, at least 1.
    seed : int
        Seed of the permutations, at least 0.

    Returns
    -------
    numpy.ndarray
        Shape ``(epochs, n_train)``, row ``e`` the order of epoch ``e``.
    """
    rng = np.random.default_rng(check_int("seed", seed, 0))
    return np.stack([rng.permutation(n_train) for _ in range(check_int("epochs", epochs, 1))])


def test_accuracy(theta, data: SyntheticData) -> np.ndarray:
    """Test accuracy of ``sign⟨x, θ⟩`` for each row of ``theta`` ``(chains, p)`` (a zero margin counts as wrong).

    Parameters
    ----------
    theta : array_like
        Models, shape ``(chains, p)``.
    data : SyntheticData
        The data set; its test split is used.

    Returns
    -------
    numpy.ndarray
        One accuracy per row of ``theta``.
    """
    margins = np.asarray(theta, float) @ data.X_test.T * data.y_test[None, :]
    return np.mean(margins > 0.0, axis=1)


test_accuracy.__test__ = False  # not a pytest test


# -- accounting ------------------------------------------------------------------------------------------------------

def _sizes(n_train, batch, epochs):
    n_train = check_int("n_train", n_train, 1)
    batch = check_int("batch", batch, 1, n_train, why="at most n_train")
    epochs = check_int("epochs", epochs, 1)
    return n_train, batch, epochs, n_train // batch


def method_epsilon(method: str, sigma: float, *, n_train: int, batch: int, epochs: int, delta: float,
                   discretization: float | None = None) -> float:
    """ε at δ of ``method`` with noise multiplier ``sigma`` (module docstring; ``sigma = 0`` gives ``inf``).

    ``discretization``: the PLD discretisation for the amplified methods (default dp_accounting's 1e-5 here).

    Parameters
    ----------
    method : str
        One of :data:`METHODS`.
    sigma : float in [0, inf)
        Noise multiplier σ.
    n_train : int
        Number of training examples, at least 1.
    batch : int
        Batch size ``b``, ``1 ≤ b ≤ n_train``.
    epochs : int
        Number of epochs ``E``, at least 1.
    delta : float in (0, 1)
        The target δ.
    discretization : float, optional
        The PLD discretisation for the amplified methods.

    Returns
    -------
    float
        ε at ``delta``; ``inf`` when ``sigma = 0``.

    Raises
    ------
    ValueError
        If an argument lies outside its range or ``method`` is not in :data:`METHODS`.
    """
    method = _check_method(method)
    sigma = check_in_interval("sigma", sigma, 0.0, math.inf, lo_closed=True)
    n_train, batch, epochs, n = _sizes(n_train, batch, epochs)
    delta = check_in_interval("delta", delta, 0.0, 1.0)
    if sigma == 0.0:
        return math.inf
    if method.startswith("DP-FTRL"):
        return tree_epsilon(sigma, n=n, delta=delta, epochs=epochs, scheme="restart")
    if method == "DP-SGD-unamplified":
        return epsilon_from_rho(epochs / (2.0 * sigma * sigma), delta=delta, conversion="exact")
    kw = {} if discretization is None else dict(discretization=discretization)
    return exact_epsilon(sigma, q=batch / n_train, T=epochs * n, delta=delta, accountant="pld", **kw).eps


def method_sigma(method: str, epsilon: float, *, n_train: int, batch: int, epochs: int, delta: float) -> float:
    """The noise multiplier at which ``method`` spends exactly ``epsilon`` (``inf`` → 0).

    Trees by
    :func:`~dptheory.treeagg.accounting.tree_sigma` (restart every epoch), unamplified SGD by
    :func:`~dptheory.accounting.conversions.sigma_for_epsilon` with ``S² = E``, amplified SGD by Brent's method on
    ``ln σ`` over the PLD ε at :data:`CALIBRATION_DISCRETIZATION` (relative tolerance 1e-7).

    Parameters
    ----------
    method : str
        One of :data:`METHODS`.
    epsilon : float in (0, inf]
        The target ε; ``inf`` means no noise.
    n_train : int
        Number of training examples, at least 1.
    batch : int
        Batch size ``b``, ``1 ≤ b ≤ n_train``.
    epochs : int
        Number of epochs ``E``, at least 1.
    delta : float in (0, 1)
        The target δ.

    Returns
    -------
    float
        The noise multiplier σ; 0.0 when ``epsilon`` is ``inf``.

    Raises
    ------
    ValueError
        If an argument lies outside its range or ``method`` is not in :data:`METHODS`.
    """
    method = _check_method(method)
    epsilon = _check_epsilon(epsilon)
    n_train, batch, epochs, n = _sizes(n_train, batch, epochs)
    delta = check_in_interval("delta", delta, 0.0, 1.0)
    if math.isinf(epsilon):
        return 0.0
    if method.startswith("DP-FTRL"):
        return tree_sigma(epsilon, n=n, delta=delta, epochs=epochs, scheme="restart")
    if method == "DP-SGD-unamplified":
        return sigma_for_epsilon(epsilon, delta=delta, sensitivity_sq=epochs, conversion="exact")
    q, T = batch / n_train, epochs * n
    f = lambda u: exact_epsilon(math.exp(u), q=q, T=T, delta=delta, discretization=CALIBRATION_DISCRETIZATION).eps - epsilon
    # the unamplified σ (q = 1) is an upper end; shrink the lower end until the ε exceeds the target
    hi = math.log(sigma_for_epsilon(epsilon, delta=delta, sensitivity_sq=T * q * q, conversion="exact") * 4.0 + 1.0)
    while f(hi) > 0:
        hi += 1.0
    lo = hi - 1.0
    while f(lo) < 0:
        lo -= 1.0
    u = brentq(f, lo, hi, xtol=1e-7, rtol=1e-9)
    while f(u) > 0:  # land on the private side
        u += 1e-9
    return math.exp(u)


# -- training --------------------------------------------------------------------------------------------------------

def _sgd(data, orders, *, eta, gamma, sigma, batch, chains, seed, amplified):
    """Vectorised DP-SGD(M): ``θ ← θ − η v``, ``v ← γ v + g``, ``g`` = (Σ clipped gradients + N(0, σ²L²I))/b over
    a Poisson sample of rate ``b/N`` (``amplified``) or over the fixed batches of ``orders``."""
    X, y = data.X_train, data.y_train
    N, p = X.shape
    epochs, n = orders.shape[0], N // batch
    rng = np.random.default_rng(seed)
    theta, v = np.zeros((chains, p)), np.zeros((chains, p))
    norms = np.linalg.norm(X, axis=1)
    q = batch / N
    for e in range(epochs):
        for t in range(n):
            if amplified:  # Poisson: each (chain, example) pair independently with probability q
                ci, ri = np.nonzero(rng.random((chains, N)) < q)
            else:  # the epoch's fixed batch, for every chain
                ri = np.tile(orders[e, t * batch:(t + 1) * batch], chains)
                ci = np.repeat(np.arange(chains), batch)
            Xs, ys = X[ri], y[ri]
            margin = ys * np.einsum("ij,ij->i", theta[ci], Xs)
            w = -ys / (1.0 + np.exp(np.clip(margin, -700.0, 700.0)))  # ∇ℓ = w·x, clipped to norm ≤ L
            w = w * np.minimum(1.0, CLIP / np.maximum(np.abs(w) * norms[ri], 1e-300))
            g = np.zeros((chains, p))
            np.add.at(g, ci, w[:, None] * Xs)
            if sigma > 0.0:
                g = g + sigma * CLIP * rng.standard_normal((chains, p))
            g = g / batch
            v = g if gamma == 0.0 else gamma * v + g
            theta = theta - eta * v
    return theta


def train(method: str, data: SyntheticData, *, sigma: float, batch: int, epochs: int, chains: int = 1,
          seed: int = 0, order_seed: int | None = None, eta: float | None = None,
          momentum: float | None = None) -> np.ndarray:
    """Final iterates ``(chains, p)`` of ``method`` on ``data`` with noise multiplier ``sigma`` (module docstring).

    ``chains`` independent runs vectorised (noise, and Poisson samples, from ``seed``); the per-epoch data order
    (FTRL and unamplified SGD) comes from ``order_seed`` (default ``data.seed``) and is shared by the chains.
    ``eta``/``momentum`` override :data:`HYPERPARAMETERS` (FTRL: ``λ = 1/η``).

    Parameters
    ----------
    method : str
        One of :data:`METHODS`.
    data : SyntheticData
        The data set; its training split is used.
    sigma : float in [0, inf)
        Noise multiplier σ; 0 trains without noise.
    batch : int
        Batch size ``b``.
    epochs : int
        Number of epochs, at least 1.
    chains : int, default 1
        Number of independent runs.
    seed : int, default 0
        Seed of the noise and of the Poisson samples.
    order_seed : int, optional
        Seed of the per-epoch data order; default ``data.seed``.
    eta : float in (0, inf), optional
        Step size η, overriding :data:`HYPERPARAMETERS` (FTRL: ``λ = 1/η``).
    momentum : float in [0, 1), optional
        Momentum γ, overriding :data:`HYPERPARAMETERS`.

    Returns
    -------
    numpy.ndarray
        The final iterates, shape ``(chains, p)``.

    Raises
    ------
    ValueError
        If an argument lies outside its range or ``method`` is not in :data:`METHODS`.
    """
    method = _check_method(method)
    sigma = check_in_interval("sigma", sigma, 0.0, math.inf, lo_closed=True)
    N = data.X_train.shape[0]
    _, batch, epochs, n = _sizes(N, batch, epochs)
    chains = check_int("chains", chains, 1)
    seed = check_int("seed", seed, 0)
    eta0, gamma0 = HYPERPARAMETERS[method]
    eta = eta0 if eta is None else check_in_interval("eta", eta, 0.0, math.inf)
    gamma = gamma0 if momentum is None else check_in_interval("momentum", momentum, 0.0, 1.0, lo_closed=True)
    orders = epoch_orders(N, epochs, data.seed if order_seed is None else order_seed)
    if method.startswith("DP-FTRL"):
        rows = orders[:, :n * batch].reshape(-1)  # epoch e uses its first n·b rows
        stream = LogisticLosses(data.X_train[rows], data.y_train[rows], batch=batch)
        # no noise: dp_ftrl takes σ > 0 and white zeros (its documented way to switch the noise off)
        white = np.zeros((epochs * n, chains, data.X_train.shape[1])) if sigma == 0.0 else None
        res = dp_ftrl(stream, lam=1.0 / eta, sigma=sigma if sigma > 0.0 else 1.0, clip=CLIP,
                      readout=method.rsplit("-", 1)[1], chains=chains, seed=seed, momentum=gamma, restart_every=n,
                      white=white, keep_iterates=False)
        return res.final
    return _sgd(data, orders, eta=eta, gamma=gamma, sigma=sigma, batch=batch, chains=chains, seed=seed,
                amplified=method.endswith("amplified") and not method.endswith("unamplified"))


# -- the experiment --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ExperimentResult:
    """Accuracies of every method at every target ε (``inf``: no noise).

    ``accuracy[method][ε]``: the per-seed
    test accuracies; ``sigma[method][ε]``: the calibrated noise multiplier; ``settings``.

    Attributes
    ----------
    epsilons : tuple of float
        The target ε's (``inf``: no noise).
    accuracy : dict
        ``accuracy[method][ε]``: the per-seed test accuracies.
    sigma : dict
        ``sigma[method][ε]``: the calibrated noise multiplier.
    settings : dict
        The sizes, seeds, clip norm and hyper-parameters of the run.
    bayes_accuracy : float
        The data set's Bayes accuracy.
    seconds : dict
        Wall-clock seconds per method.
    """

    epsilons: tuple
    accuracy: dict
    sigma: dict
    settings: dict
    bayes_accuracy: float
    seconds: dict = field(default_factory=dict)

    def estimate(self, method: str, epsilon: float) -> Estimate:
        """Mean test accuracy over the seeds with its standard error (t-interval via :meth:`Estimate.interval`).

        Parameters
        ----------
        method : str
            A method of :attr:`accuracy`.
        epsilon : float
            A target ε of :attr:`epsilons`.

        Returns
        -------
        Estimate
            The mean accuracy and its standard error.
        """
        return Estimate.from_samples(self.accuracy[method][epsilon])

    def table(self, level: float = 0.95) -> str:
        """A markdown table: method × ε, mean accuracy and its t-interval.

        Parameters
        ----------
        level : float in (0, 1), default 0.95
            Confidence level of the t-intervals.

        Returns
        -------
        str
            The markdown table, one row per method.
        """
        head = "| method | σ at ε = " + " / ".join(_eps_label(e) for e in self.epsilons) + " | " + " | ".join(
            f"ε = {_eps_label(e)}" for e in self.epsilons) + " |"
        lines = [head, "|" + "---|" * (2 + len(self.epsilons))]
        for m in self.accuracy:
            cells = []
            for e in self.epsilons:
                est = self.estimate(m, e)
                lo, hi = est.interval(level)
                cells.append(f"{est.value:.4f} [{lo:.4f}, {hi:.4f}]")
            sig = " / ".join(f"{self.sigma[m][e]:.4g}" for e in self.epsilons)
            lines.append(f"| {m} | {sig} | " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"


def _accountant(method: str) -> str:
    return "tree" if method.startswith("DP-FTRL") else "unamplified" if method.endswith("unamplified") else "pld"


def _eps_label(e) -> str:
    return "∞" if math.isinf(e) else f"{e:g}"


def run_experiment(data: SyntheticData, *, epsilons=(1.0, 2.0, 4.0, 8.0, math.inf), delta: float = 1e-5,
                   batch: int = 100, epochs: int = 5, seeds: int = 8, methods=METHODS, seed: int = 0,
                   sigmas: dict | None = None) -> ExperimentResult:
    """Calibrate every method to every target ε and train it with ``seeds`` independent noise seeds.

    σ comes from :func:`method_sigma`, or ``sigmas[method][ε]`` if given; the ``seeds`` runs are vectorised, and the
    test accuracies are returned. The noise seed of
    (method i, ε j) is ``seed + 1000·i + j``; the data order is ``data.seed``'s.

    Parameters
    ----------
    data : SyntheticData
        The data set.
    epsilons : sequence of float, default (1.0, 2.0, 4.0, 8.0, inf)
        Target ε's in ``(0, inf]``; ``inf`` means no noise.
    delta : float, default 1e-5
        The target δ.
    batch : int, default 100
        Batch size ``b``.
    epochs : int, default 5
        Number of epochs.
    seeds : int, default 8
        Number of independent noise seeds per (method, ε), at least 2.
    methods : sequence of str, default METHODS
        The methods to run, from :data:`METHODS`.
    seed : int, default 0
        Base noise seed.
    sigmas : dict, optional
        ``sigmas[method][ε]``: noise multipliers to use instead of calibrating.

    Returns
    -------
    ExperimentResult
        The per-seed accuracies, σ's, settings and timings.

    Raises
    ------
    ValueError
        If ``epsilons`` is empty, ``seeds < 2``, a method is unknown, or an argument lies outside its range.
    """
    import time  # noqa: PLC0415

    epsilons = tuple(_check_epsilon(e) for e in epsilons)
    if not epsilons:
        raise ValueError("epsilons must not be empty")
    methods = tuple(_check_method(m) for m in methods)
    seeds = check_int("seeds", seeds, 2, why="a t-interval needs at least 2 seeds")
    N = data.X_train.shape[0]
    _, batch, epochs, n = _sizes(N, batch, epochs)
    acc, sig, secs, known = {}, {}, {}, {}
    for i, m in enumerate(methods):
        acc[m], sig[m] = {}, {}
        t0 = time.perf_counter()
        for j, e in enumerate(epsilons):
            key = (_accountant(m), e)  # methods sharing an accountant share σ: calibrate once
            if sigmas is not None and m in sigmas and e in sigmas[m]:
                s = sigmas[m][e]
            elif key in known:
                s = known[key]
            else:
                s = known[key] = method_sigma(m, e, n_train=N, batch=batch, epochs=epochs, delta=delta)
            sig[m][e] = s
            theta = train(m, data, sigma=s, batch=batch, epochs=epochs, chains=seeds, seed=seed + 1000 * i + j)
            acc[m][e] = test_accuracy(theta, data)
        secs[m] = time.perf_counter() - t0
    settings = dict(n_train=N, n_test=data.X_test.shape[0], p=data.X_train.shape[1], margin=data.margin,
                    data_seed=data.seed, batch=batch, epochs=epochs, steps_per_epoch=n, delta=delta, seeds=seeds,
                    clip=CLIP, hyperparameters={m: HYPERPARAMETERS[m] for m in methods})
    return ExperimentResult(epsilons, acc, sig, settings, data.bayes_accuracy, secs)
