r"""What noise a mechanism adds, for every paper, in matrix-mechanism words (``docs/notation.md``).

A mechanism privatises the prefix sums ``A x`` of a stream of clipped gradients ``x_0, …, x_{n−1}`` (``A`` the
lower-triangular all-ones *workload*) by releasing ``C x + z`` with the *strategy* ``C`` (lower-triangular,
invertible) and ``z ~ N(0, σ²G² I)``, decoded by the *decoder* ``B = A C⁻¹`` into ``A x + B z`` (seed 003 §2,
seed 000 §3). Equivalently every gradient receives the noise ``N z`` with the *noising matrix* ``N = C⁻¹``:
seed 004 writes the noise of DP-FTRL as ``B w``, so seed 004's ``B`` is ``N`` and its ``β`` is the first column of
``N`` (:meth:`~dptheory.mechanisms.ToeplitzMechanism.noising_coeffs`).

A strategy may also have **more rows than columns** (one row per released value, e.g. the ``m ≈ 2n`` nodes of a
binary tree, :class:`~dptheory.mechanisms.TreeAggregation`): then the decoder ``B`` (``n × m``) is any solution of
``B C = A`` and the noising matrix is ``N = A⁻¹B`` (``n × m``; every gradient receives ``(B z)_t − (B z)_{t−1}``).
Such a subclass overrides :meth:`Mechanism.strategy_matrix`, :meth:`Mechanism.noising_matrix` and
:meth:`Mechanism.decoder_matrix` (the triangular solves below do not apply) and its noise stream; the row energies,
:func:`dense_sensitivity` (``CᵀC`` is ``n × n``) and the losses work unchanged.

:class:`Mechanism` is the one type every consumer (``F_inf``, ``simulate``, ``F_inf_bound``, the verify cache)
works through:

* :meth:`Mechanism.sensitivity` — ``sens_Π(C) = max_{π ∈ Π} max_{‖u_i‖ ≤ 1} ‖Σ_{i∈π} C_{:,i} u_i‖₂`` over the
  participation patterns ``Π`` of a :class:`Participation` (seed 003 eq. 6; for single participation the
  largest column norm of ``C``, seed 004 Thm 1.1 eq. 24). The general route here enumerates the patterns over
  the dense Gram matrix ``CᵀC``; mechanisms with structure override it.
* :meth:`Mechanism.row_energies` — ``‖e_tᵀ F_q N‖²`` for ``t < n`` with ``F_q`` the lower-triangular Toeplitz
  matrix of ``(1, q, q², …)``: the variance at step ``t`` of ``y_{t+1} = q y_t + (N z)_t`` for unit white ``z``.
  At ``q = 1`` these are the per-step prefix-sum error variances ``‖e_tᵀ B‖²`` of seeds 000/003; as ``t → ∞``
  with ``|q| < 1`` and a Toeplitz ``N`` they tend to seed 004's pole integrals (``filtered_energy``).
* :meth:`Mechanism.noise_stream` — the correlated noise ``N z`` block by block, on the array namespace of its
  input (each mechanism streams its own noise).
* :meth:`Mechanism.cache_key` — a stable identifier of the mechanism's definition.
* :attr:`Mechanism.stationary` — whether ``N`` is time-invariant (Toeplitz), which the stationary theory
  (``F∞`` at ``horizon=None``, the frequency-domain bound of seed 004 Thm 3.1) needs.
"""

from __future__ import annotations

import abc
import hashlib
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
import scipy.linalg
from array_api_compat import array_namespace

from .._validation import check_int, check_name, check_real_array, check_real_values, check_shape, check_size, renamed

__all__ = [
    "Mechanism", "Participation", "SINGLE_PARTICIPATION", "DenseMechanism", "dense_sensitivity", "SensitivityReport",
    "sensitivity_bounds",
]

#: Patterns enumerated at most by the dense sensitivity route (each costs ``O(k²)``).
MAX_PATTERNS = 1 << 20


@dataclass(frozen=True, kw_only=True)
class Participation:
    r"""How often one example may enter the stream.

    At most ``max_participations = k`` times, any two at least ``min_sep = b`` steps apart
    (seed 003 §3.1, ``Π_{b,k}``; jax_privacy's min-separation schema).

    ``min_sep = 1`` allows consecutive steps; ``Participation()`` is single participation (seed 004 Thm 1.1).
    Within ``n`` steps at most ``k' = min(k, ⌈n/b⌉)`` participations fit (:meth:`participations`).

    Attributes
    ----------
    max_participations : int, default 1
        ``k``: the most times one example may participate (keyword-only, at least 1).
    min_sep : int, default 1
        ``b``: the fewest steps between two participations of one example (keyword-only, at least 1).
    """

    max_participations: int = 1
    min_sep: int = 1

    def __post_init__(self):
        object.__setattr__(self, "max_participations", check_int("max_participations", self.max_participations, 1))
        object.__setattr__(self, "min_sep", check_int("min_sep", self.min_sep, 1))

    @classmethod
    def from_min_separation(cls, min_separation: int, *, max_participations: int = 1) -> Participation:
        r"""The schema in TensorFlow Privacy's convention: ``min_separation = s`` leaves *strictly between* two.

        TF-Privacy's ``compute_rdp_tree_restart`` / ``compute_rdp_single_tree`` and
        :func:`dptheory.treeagg.accounting.worst_case_sensitivity_sq` count ``s = y − x − 1`` for consecutive
        participations at steps ``x < y``; ``min_sep = b`` here counts ``b = y − x``, so ``b = s + 1``
        (``s = 0``: consecutive steps allowed, ``min_sep = 1``).

        Parameters
        ----------
        min_separation : int
            ``s ≥ 0``, the fewest steps strictly between two participations of one example.
        max_participations : int, default 1
            ``k``: the most times one example may participate (keyword-only, at least 1).

        Returns
        -------
        Participation
            ``Participation(max_participations=k, min_sep=s + 1)``.

        Raises
        ------
        ValueError
            If ``min_separation`` is not a non-negative integer or ``max_participations`` not a positive one.

        Examples
        --------
        >>> Participation.from_min_separation(99, max_participations=5)
        Participation(max_participations=5, min_sep=100)
        """
        s = check_int("min_separation", min_separation, 0)
        return cls(max_participations=max_participations, min_sep=s + 1)

    def participations(self, n: int) -> int:
        """The most participations that fit in ``n`` steps, ``k' = min(k, ⌈n/b⌉)``.

        Parameters
        ----------
        n : int
            The number of steps (at least 1).

        Returns
        -------
        int
            ``k' = min(k, ⌈n/b⌉)``.
        """
        n = check_int("n", n, 1)
        return min(self.max_participations, -(-n // self.min_sep))

    def earliest(self, n: int) -> np.ndarray:
        """The earliest pattern: every participation as early as possible, exactly ``b`` apart.

        ``π* = (0, b, 2b, …, (k' − 1)b)`` (seed 003 Thm 3.1, eq. 7).

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            The ``k'`` steps of ``π*``, shape ``(k',)``.
        """
        return np.arange(self.participations(n)) * self.min_sep

    def count_patterns(self, n: int) -> int:
        r"""The number of patterns of ``k'`` steps in ``[0, n)`` pairwise ``≥ b`` apart.

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        int
            ``C(n − (k'−1)(b−1), k')``.
        """
        k = self.participations(n)
        return math.comb(n - (k - 1) * (self.min_sep - 1), k)

    def patterns(self, n: int) -> np.ndarray:
        """Every pattern of ``k'`` participations in ``[0, n)``.

        Patterns with fewer participations need not be listed: the dense route uses them only where the Gram
        matrix is non-negative, where adding a participation never lowers the sensitivity.

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            The patterns as rows of increasing steps, ``count_patterns(n)`` of them: shape
            ``(count_patterns(n), k')``.

        Raises
        ------
        ValueError
            If there are more than ``MAX_PATTERNS`` patterns, or they would not fit the size budget
            (:func:`~dptheory._validation.check_size`); both are counted (:meth:`count_patterns`) before any is
            built.
        """
        n = check_int("n", n, 1)
        k, b = self.participations(n), self.min_sep
        count = self.count_patterns(n)
        if count > MAX_PATTERNS:
            many = f"{count}" if count < 10**15 else f"about 10^{len(str(count)) - 1}"
            raise ValueError(
                f"n = {n:.6g} with {self} has {many} participation patterns, more than the {MAX_PATTERNS} the dense "
                f"route enumerates: use a mechanism with a structured sensitivity or a smaller n"
            )
        # a pattern p is a k-subset c of [0, N) with N = n − (k − 1)(b − 1), by p_i = c_i + i(b − 1)
        N = n - (k - 1) * (b - 1)
        check_size("n", n, self._patterns_bytes, what=f"the {count} patterns of {k} steps")
        if 2 * k <= N:
            subsets = _subsets(N, k)
        else:  # few steps left out: enumerate those N − k and keep the rest
            keep = np.ones((count, N), dtype=bool)
            if k < N:
                keep[np.arange(count)[:, None], _subsets(N, N - k)] = False
            subsets = np.nonzero(keep)[1].reshape(count, k)
        return subsets + np.arange(k) * (b - 1)

    def _patterns_bytes(self, n: int) -> float:
        """Bytes :meth:`patterns` holds at ``n`` steps: the patterns (int64) and, where few steps are left out, the
        ``count × N`` mask of the kept ones."""
        k, count = self.participations(n), self.count_patterns(n)
        N = n - (k - 1) * (self.min_sep - 1)
        return 8.0 * count * k + (float(count) * N if 2 * k > N else 0.0)

    @property
    def single(self) -> bool:
        """Whether this is single participation (``max_participations == 1``)."""
        return self.max_participations == 1

    def __repr__(self) -> str:
        return f"Participation(max_participations={self.max_participations}, min_sep={self.min_sep})"


def _subsets(N: int, k: int) -> np.ndarray:
    """Every ``k``-subset of ``[0, N)`` as rows of increasing entries, in lexicographic order, ``C(N, k)`` of them.

    Each partial subset is extended only where the entries still to come fit below ``N``, so that no step holds
    more rows than the result (the unpruned tree of prefixes has ``C(N, j)`` rows at depth ``j``)."""
    rows = np.arange(N - k + 1)[:, None]
    for j in range(1, k):
        last = rows[:, -1]
        reps = np.maximum(N - (k - 1 - j) - (last + 1), 0)
        base = np.repeat(rows, reps, axis=0)
        starts = np.repeat(np.cumsum(reps) - reps, reps)  # where each row's run of offsets 0, 1, … begins
        offsets = np.arange(starts.size) - starts
        rows = np.concatenate([base, (np.repeat(last + 1, reps) + offsets)[:, None]], axis=1)
    return rows


#: One participation per example (seed 004 Thm 1.1, seed 000's single epoch).
SINGLE_PARTICIPATION = Participation()


def _check_participation(participation) -> Participation:
    if participation is None:
        return SINGLE_PARTICIPATION
    if not isinstance(participation, Participation):
        raise ValueError(f"participation must be a dptheory.Participation or None, got {participation!r}")
    return participation


def _two_participations(C: np.ndarray, b: int) -> float:
    r"""``sens = (max_{j − i ≥ b} X_ii + X_jj + 2|X_ij|)^{1/2}``, ``X = CᵀC`` (:func:`dense_sensitivity`, ``k' = 2``)."""
    n = C.shape[1]
    check_size("n", n, lambda m: 24.0 * m * m, what="the Gram matrix C^T C and the pair sums")
    X = C.T @ C
    diag = np.diag(X).copy()
    pairs = np.abs(X, out=X)
    pairs *= 2.0
    pairs += diag[:, None]
    pairs += diag[None, :]
    return float(np.sqrt(np.max(np.triu(pairs, k=b))))


def dense_sensitivity(C: np.ndarray, participation: Participation | None = None) -> float:
    r"""The sensitivity ``sens_Π(C)`` of a dense strategy, by enumerating the participation patterns.

    ``sens_Π(C)`` as in seed 003 eq. 6.
    For a pattern ``π`` with non-negative Gram entries ``X = CᵀC`` the inner maximum over unit vectors is attained
    with all ``u_i`` equal, giving ``Σ_{i,j∈π} X_{ij}`` (seed 003 §3.1). Where some pattern meets a negative entry
    that maximum is a semidefinite program over the ``u_i``, which this route does not solve: it raises.
    Single participation needs no enumeration: the largest column norm (seed 004 Thm 1.1, eq. 24). Neither do two
    participations (``k' = 2``), whatever the signs of ``CᵀC``: for unit ``u_i, u_j``,
    ``‖C_{:,i}u_iᵀ + C_{:,j}u_jᵀ‖² = X_ii + X_jj + 2X_ij⟨u_i, u_j⟩ ≤ X_ii + X_jj + 2|X_ij|`` with equality at
    ``u_j = ±u_i``, so ``sens² = max_{j−i≥b} (X_ii + X_jj + 2|X_ij|)`` exactly, in ``O(n²)`` from the Gram matrix.

    Parameters
    ----------
    C : array_like
        The strategy, shape ``(m, n)`` (one column per step).
    participation : Participation or None, optional
        The participation schema; ``None`` (the default) is single participation.

    Returns
    -------
    float
        ``sens_Π(C)``.

    Raises
    ------
    ValueError
        If ``C`` is not a finite real 2-D array with at least as many rows as columns (lower-triangular when
        square), a participation pattern meets a negative entry of ``CᵀC`` (no exact route), there are more
        patterns than the dense route enumerates (:meth:`Participation.patterns`), or ``CᵀC`` would not fit the
        size budget. Where one pattern is left (``n = (k' − 1)b + 1``, e.g. every step participates) it is taken
        directly.
    """
    C = _check_strategy(C)
    participation = _check_participation(participation)
    n = C.shape[1]
    k = participation.participations(n)
    if k == 1:
        return float(np.sqrt(np.max(np.einsum("ij,ij->j", C, C))))
    if k == 2:
        return _two_participations(C, participation.min_sep)
    count = participation.count_patterns(n)
    if count == 1:  # n = (k' − 1)b + 1: the one pattern π* = (0, b, …), every step when b = 1; nothing to enumerate
        cols = C[:, participation.earliest(n)]
        if np.all(cols >= 0.0):  # then CᵀC ≥ 0 on π*: all u_i equal, ‖C u(π*)‖ (seed 003 §3.1), no Gram matrix
            return float(np.linalg.norm(cols.sum(axis=1)))
        P = participation.earliest(n)[None, :]
    else:
        P = participation.patterns(n)  # refuses past MAX_PATTERNS before it allocates
    check_size("n", n, lambda m: 8.0 * m * m, what="the Gram matrix C^T C")
    X = C.T @ C
    best = 0.0
    rows = max(1, (64 << 20) // (8 * k * k))  # patterns per chunk: each chunk's Gram blocks within 64 MiB
    for start in range(0, P.shape[0], rows):
        chunk = P[start : start + rows]
        sub = X[chunk[:, :, None], chunk[:, None, :]]
        if np.any(sub < 0.0):
            raise ValueError(
                f"participation = {participation} has no exact route here: the strategy's Gram matrix C^T C has a "
                "negative entry on a participation pattern, so the sensitivity is a semidefinite program over the "
                "per-participation contributions, not a sum of Gram entries (sensitivity_report gives bounds)"
            )
        best = max(best, float(np.max(sub.sum(axis=(1, 2)))))
    return math.sqrt(best)


def _check_strategy(C) -> np.ndarray:
    """A strategy matrix: 2-D, finite, real, non-empty, with at least as many rows as columns (one column per step);
    lower-triangular when square."""
    C = check_real_values("C", C, ndim=2, allow_empty=False)
    m, n = C.shape
    if m < n:
        raise ValueError(f"C must have at least as many rows as columns (one column per step), got shape {C.shape}")
    if m == n and np.any(np.triu(C, 1) != 0.0):
        raise ValueError("C must be lower-triangular when square (a causal strategy: step t sees only steps <= t)")
    return C


def sensitivity_bounds(C: np.ndarray, participation: Participation | None = None) -> tuple[float, float]:
    r"""Bounds ``(lower, upper)`` on ``sens_Π(C)`` for any strategy, where no exact route applies.

    * lower: ``‖C u(π*)‖₂`` with every participation as early as possible, exactly ``b`` apart
      (seed 003 Remark 3.2; a valid pattern, so a lower bound for any ``C``);
    * upper: ``‖Σ_{i∈π} C_{:,i} u_i‖² = Σ_{i,j∈π} u_iᵀX_{ij}u_j ≤ Σ_{i∈π} r_i`` with ``X = CᵀC`` and ``r_i`` the sum of
      the ``k'`` largest ``|X_{ij}|`` of row ``i`` (separation ignored), so ``sens² ≤`` the sum of the ``k'`` largest
      ``r_i``. ``O(n² log n)`` time, ``O(n²)`` memory.

    Parameters
    ----------
    C : array_like
        The strategy, shape ``(m, n)`` (one column per step).
    participation : Participation or None, optional
        The participation schema; ``None`` (the default) is single participation.

    Returns
    -------
    tuple of float
        ``(lower, upper)`` with ``lower ≤ sens_Π(C) ≤ upper``.
    """
    C = _check_strategy(C)
    participation = _check_participation(participation)
    n = C.shape[1]
    k = participation.participations(n)
    check_size("n", n, lambda m: 16.0 * m * m, what="the Gram matrix |C^T C| and its sorted rows")
    lower = float(np.linalg.norm(C[:, participation.earliest(n)].sum(axis=1)))
    X = np.abs(C.T @ C)
    r = -np.sort(-X, axis=1)[:, :k].sum(axis=1)
    upper = math.sqrt(float(np.sort(r)[-k:].sum()))
    return lower, max(lower, upper)


@dataclass(frozen=True)
class SensitivityReport:
    r"""What is known about ``sens_Π(C)`` over ``n`` steps.

    An exact value (``lower == upper``) with the theorem or route that gives it, or bounds where none applies
    (seed 003 Remark 3.2 below, the ``|CᵀC|`` relaxation above).
    ``participations`` is ``k' = min(k, ⌈n/b⌉)``; :attr:`value` refuses to return a bound as if it were exact.

    Attributes
    ----------
    lower : float
        A lower bound on the sensitivity (the value itself when exact).
    upper : float
        An upper bound on the sensitivity (equal to ``lower`` when exact).
    route : str
        The theorem or route that gives the value or the bounds.
    n : int
        The number of steps.
    participation : Participation
        The participation schema.
    participations : int
        ``k' = min(k, ⌈n/b⌉)``, the most participations that fit in ``n`` steps.
    """

    lower: float
    upper: float
    route: str
    n: int
    participation: Participation
    participations: int

    @property
    def exact(self) -> bool:
        """Whether the sensitivity is known exactly (``lower == upper``)."""
        return self.lower == self.upper

    @property
    def value(self) -> float:
        """The exact sensitivity; raises ``ValueError`` where only bounds are known."""
        if not self.exact:
            raise ValueError(
                f"the sensitivity of this mechanism under {self.participation} over n = {self.n} steps is only bounded, "
                f"in [{self.lower:.6g}, {self.upper:.6g}] ({self.route}): no exact route applies"
            )
        return self.lower

    def __repr__(self) -> str:
        what = f"{self.lower:.6g} (exact)" if self.exact else f"in [{self.lower:.6g}, {self.upper:.6g}] (bounds)"
        return f"SensitivityReport({what}, n={self.n}, {self.participation}, k'={self.participations}: {self.route})"


def require_stationary(mechanism: "Mechanism", what: str) -> None:
    """Refuse a non-Toeplitz mechanism where a stationary (``horizon=None``) quantity ``what`` is asked for."""
    if not mechanism.stationary:
        raise ValueError(
            f"horizon must be a number of steps for {mechanism.name}: its noising matrix is not Toeplitz, so it has "
            f"no {what} (horizon=None); pass horizon=n"
        )


def _check_dense_n(n: int, copies: float = 1.0, name: str = "n") -> int:
    """``n`` if ``copies`` dense ``n × n`` float matrices fit the size budget (:func:`~dptheory._validation.check_size`)."""
    return check_size(name, n, lambda m: 8.0 * copies * m * m, what=f"{copies:g} dense n x n matrices")


def _last_row(energies: np.ndarray):
    """The last of :meth:`Mechanism.row_energies`' rows: a float for its 1-D (scalar ``q``) result, else one per ``q``."""
    return float(energies[-1]) if energies.ndim == 1 else energies[:, -1]


def _check_q(q) -> tuple[np.ndarray, bool]:
    arr = check_real_array("q", q)
    if np.any(np.abs(arr) > 1.0):
        raise ValueError(f"q must lie in [-1, 1] (q = 1 - eta*lambda; q = 1 gives prefix sums), got {arr[np.abs(arr) > 1][0]:g}")
    return arr, np.ndim(q) == 0


class Mechanism(abc.ABC):
    r"""A lower-triangular, invertible strategy ``C`` and its noising matrix ``N = C⁻¹`` (module docstring).

    A subclass supplies :meth:`strategy_matrix` or :meth:`noising_matrix` (the other follows by a triangular
    solve) and :meth:`cache_key`; everything else has a dense route here, ``O(n³)`` at worst, which structured
    subclasses override with fast ones and tests use as the oracle.
    """

    name: str = "mechanism"
    #: ``N`` is Toeplitz (time-invariant): the stationary theory of seed 004 applies.
    stationary: bool = False
    #: ``noise_stream(shape, like, None)`` is exact over any horizon in bounded memory (a recursive, IIR stream such
    #: as a BLT's ``d`` buffers), so a stationary simulation needs no truncation of ``N``.
    exact_stream: bool = False

    def strategy_matrix(self, n: int) -> np.ndarray:
        """The leading ``n × n`` block of the strategy ``C``.

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            ``C[:n, :n]``, shape ``(n, n)``.
        """
        n = _check_dense_n(check_int("n", n, 1), 3)
        return scipy.linalg.solve_triangular(self.noising_matrix(n), np.eye(n), lower=True)

    def noising_matrix(self, n: int) -> np.ndarray:
        """The leading ``n × n`` block of ``N = C⁻¹`` (seed 004's ``B``).

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            ``N[:n, :n]``, shape ``(n, n)``.
        """
        n = _check_dense_n(check_int("n", n, 1), 3)
        return scipy.linalg.solve_triangular(self.strategy_matrix(n), np.eye(n), lower=True)

    def decoder_matrix(self, n: int) -> np.ndarray:
        """The decoder ``B = A C⁻¹ = A N`` for the prefix-sum workload ``A`` (seed 003 §2).

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            ``B``: the cumulative sums of ``N``'s rows, shape ``(n, n)``.
        """
        return np.cumsum(self.noising_matrix(n), axis=0)

    def sensitivity(self, n: int | None = None, participation: Participation | None = None) -> float:
        r"""The sensitivity ``sens_Π(C)`` over ``n`` steps under ``participation`` (default single).

        ``sens_Π(C)`` of seed 003 eq. 6 / seed 004 Thm 1.1; ``n = None`` is the streaming limit ``n → ∞``, which a
        mechanism of fixed size does not have.

        Parameters
        ----------
        n : int or None, optional
            The number of steps; ``None`` asks for the streaming limit ``n → ∞``.
        participation : Participation or None, optional
            The participation schema; ``None`` (the default) is single participation.

        Returns
        -------
        float
            ``sens_Π(C)``.

        Raises
        ------
        ValueError
            If ``n`` is ``None`` for a mechanism without a streaming limit, or no exact route applies
            (:func:`dense_sensitivity`).
        """
        if n is None:
            raise ValueError(f"n must be a number of steps: {self.name} has no streaming limit (n = None)")
        n = check_int("n", n, 1)
        return dense_sensitivity(self.strategy_matrix(n), participation)

    def sensitivity_route(self, n: int, participation: Participation) -> str:
        """Which theorem or route :meth:`sensitivity` uses for ``n`` steps under ``participation`` (for reports).

        Parameters
        ----------
        n : int
            The number of steps.
        participation : Participation
            The participation schema.

        Returns
        -------
        str
            A description of the route, naming its theorem.
        """
        if participation.participations(n) == 1:
            return "largest column norm of C (one participation; seed 004 Thm 1.1, eq. 24)"
        return (f"enumeration of the {participation.count_patterns(n)} participation patterns over C^T C >= 0 "
                f"(seed 003 eq. 6)")

    def sensitivity_report(self, n: int, participation: Participation | None = None) -> SensitivityReport:
        r"""The sensitivity over ``n`` steps with the route that gives it, or bounds where no exact route applies.

        The route is :meth:`sensitivity_route`; where no exact route applies (negative Gram entries, too many
        patterns) the report holds the bounds of :func:`sensitivity_bounds`.

        Parameters
        ----------
        n : int
            The number of steps.
        participation : Participation or None, optional
            The participation schema; ``None`` (the default) is single participation.

        Returns
        -------
        SensitivityReport
            The exact value or the bounds, with the route.
        """
        n = check_int("n", n, 1)
        participation = _check_participation(participation)
        k = participation.participations(n)
        try:
            value = float(self.sensitivity(n, participation))
        except ValueError as exc:
            lower, upper = sensitivity_bounds(self.strategy_matrix(n), participation)
            route = (f"bounds: seed 003 Remark 3.2 below, the |C^T C| relaxation above (no exact route: {exc})")
            return SensitivityReport(lower, upper, route, n, participation, k)
        return SensitivityReport(value, value, self.sensitivity_route(n, participation), n, participation, k)

    def row_energies(self, q, n: int) -> np.ndarray:
        r"""The row energies ``‖e_tᵀ F_q N‖²`` for ``t < n`` (module docstring).

        ``F_q`` is lower-triangular Toeplitz of ``(1, q, q², …)``.

        Dense route: the rows ``R_t = q R_{t−1} + N_t`` by a first-order recursion over ``t``, every ``q`` at once
        (``O(len(q)·n·m)`` for an ``n × m`` noising matrix, memory ``O(len(q)·m)``). It is the recursion
        ``scipy.signal.lfilter`` runs along each column, bit for bit, with the rows of ``N`` read contiguously:
        4–6× faster than one ``lfilter`` per ``q`` down the columns of ``N`` at ``n = 1000``–``1024``.

        Parameters
        ----------
        q : float or array_like
            The contraction, ``q ∈ [−1, 1]``: a scalar or a 1-D array.
        n : int
            The number of steps.

        Returns
        -------
        numpy.ndarray
            The energies, shape ``(n,)`` for scalar ``q``, ``(len(q), n)`` for 1-D ``q``.

        Raises
        ------
        ValueError
            If some ``q`` lies outside ``[−1, 1]``.
        """
        qs, scalar = _check_q(q)
        n = check_int("n", n, 1)
        N = self.noising_matrix(n)
        q_col = qs[:, None]
        rows = np.zeros((qs.size, N.shape[1]))  # R_t for every q
        squares = np.empty_like(rows)
        out = np.empty((n, qs.size))
        for t in range(n):
            rows *= q_col
            rows += N[t]
            np.multiply(rows, rows, out=squares)
            out[t] = np.sum(squares, axis=1)
        return out[:, 0] if scalar else np.ascontiguousarray(out.T)

    def final_row_energy(self, q, n: int):
        r"""The last row energy ``‖e_{n−1}ᵀ F_q N‖²``, the last of :meth:`row_energies`.

        The DP variance of the last iterate after ``n`` steps along a direction with contraction ``q``
        (seed 004 eq. 13; :func:`dptheory.F_inf` at ``horizon=n``). Subclasses with a structured route for the last
        row alone override it (the tree's is ``O(n log n)`` where all rows are ``O(n²)``; Toeplitz ones take the last
        of their structured :meth:`row_energies`).

        Dense route: the last row is ``Σ_s q^{n−1−s} N_s``, one product of the powers ``(q^{n−1−s})_s`` with ``N``
        for every ``q`` at once (``O(len(q)·n²)`` in one matrix product, not a recursion over all rows per ``q``).

        Parameters
        ----------
        q : float or array_like
            The contraction, ``q ∈ [−1, 1]``: a scalar or a 1-D array.
        n : int
            The number of steps.

        Returns
        -------
        float or numpy.ndarray
            A float for scalar ``q``, an array of shape ``(len(q),)`` for 1-D ``q``.
        """
        qs, scalar = _check_q(q)
        n = check_int("n", n, 1)
        powers = qs[:, None] ** np.arange(n - 1, -1, -1, dtype=float)  # 0⁰ = 1: q = 0 keeps the last row of N
        out = np.sum((powers @ self.noising_matrix(n)) ** 2, axis=1)
        return float(out[0]) if scalar else out

    def noise_stream(self, shape: tuple[int, ...], like, steps: int | None) -> Callable:
        """A callable turning blocks of white noise ``z`` into the correlated noise ``N z``.

        Each call takes ``z`` of shape ``(K, *shape)`` and returns ``N z`` over the next ``K`` steps, exact for the
        first ``steps`` steps; on the array namespace of ``like``.

        Parameters
        ----------
        shape : tuple of int
            The shape of one step's noise.
        like : array
            An array whose namespace (NumPy, CuPy, …) the stream computes on.
        steps : int or None
            The horizon the stream is exact for; ``None`` asks for an unbounded stream.

        Returns
        -------
        callable
            ``z ↦ N z`` block by block.

        Raises
        ------
        ValueError
            If ``steps`` is ``None``: this (dense) route streams only over a finite horizon.
        """
        if steps is None:
            raise ValueError(f"steps must be a number of steps: {self.name} streams its noise only over a finite horizon")
        with renamed("n", "steps"):
            N = self.noising_matrix(check_int("steps", steps, 1))
        return DenseNoise(N, shape, like)

    def stream_history(self, steps: int | None) -> int:
        """How many past white-noise inputs :meth:`noise_stream` keeps to stream ``steps`` steps.

        What sizes a simulation's blocks and its memory (:func:`dptheory.simulate`): none for a stream of a few
        buffers (:attr:`exact_stream`), every past step for the dense route here.

        Parameters
        ----------
        steps : int or None
            The horizon of the stream; ``None`` for an unbounded stream (only where :attr:`exact_stream`).

        Returns
        -------
        int
            The number of past inputs held, in ``[0, steps − 1]``.

        Raises
        ------
        ValueError
            If ``steps`` is ``None`` for a stream that is not exact over any horizon, or not an integer ``≥ 1``.
        """
        if self.exact_stream:
            return 0
        if steps is None:
            raise ValueError(f"steps must be a number of steps: {self.name} streams its noise only over a finite horizon")
        return check_int("steps", steps, 1) - 1

    def strategy_bands(self, n: int) -> int:
        r"""The number of bands ``b̂`` of the strategy over ``n`` steps: ``C_ij = 0`` for ``i − j ≥ b̂``.

        What decides whether cyclic Poisson sampling amplifies the mechanism (Choquette-Choo et al. 2023, Thm 4:
        ``b̂ ≤`` the cycle length; :class:`~dptheory.accounting.CyclicPoisson`). ``1`` for DP-SGD; ``n`` for a
        strategy that is not banded, and for one that is not square (a tree's node strategy). This dense route
        reads :meth:`strategy_matrix`; Toeplitz and banded mechanisms answer from their coefficients.

        Parameters
        ----------
        n : int
            The number of steps.

        Returns
        -------
        int
            ``b̂`` in ``[1, n]``.
        """
        n = check_int("n", n, 1)
        C = self.strategy_matrix(n)
        if C.shape != (n, n):
            return n
        rows, cols = np.nonzero(np.tril(C))
        return int(np.max(rows - cols)) + 1 if rows.size else 1

    @abc.abstractmethod
    def cache_key(self) -> str:
        """A stable identifier of the mechanism's definition (the same string in every process and session).

        Returns
        -------
        str
            The identifier.
        """

    def __repr__(self) -> str:
        return self.name


class DenseNoise:
    """``N z`` for an explicit lower-triangular ``N``: keeps every input so far (memory ``O(steps·chains·d)``)."""

    def __init__(self, N: np.ndarray, shape: tuple[int, ...], like):
        self.xp = array_namespace(like)
        self.N = self.xp.asarray(N)
        self.shape = check_shape("shape", shape)
        self.history = self.xp.zeros((0, *self.shape), dtype=self.xp.float64)

    def __call__(self, z):
        xp = self.xp
        if tuple(z.shape[1:]) != self.shape:
            raise ValueError(f"z must have shape (K, *{self.shape}), got {tuple(z.shape)}")
        t0, K = self.history.shape[0], z.shape[0]
        if t0 + K > self.N.shape[0]:
            raise ValueError(f"the stream holds {self.N.shape[0]} steps; {t0 + K} were asked for")
        self.history = xp.concat([self.history, z], axis=0)
        flat = xp.reshape(self.history, (t0 + K, -1))
        return xp.reshape(self.N[t0 : t0 + K, : t0 + K] @ flat, (K, *self.shape))


class DenseMechanism(Mechanism):
    r"""A mechanism given by an explicit ``n × n`` lower-triangular strategy ``C`` with a nonzero diagonal.

    Any factorisation of the prefix-sum workload (seed 003 §2), e.g. a tree strategy or an optimised dense ``C``.

    Defined for at most ``size = n`` steps; every quantity comes from the dense routes of :class:`Mechanism`.

    Parameters
    ----------
    strategy : array_like
        The strategy ``C``: square, finite, lower-triangular, with a nonzero diagonal.
    name : str, optional
        The mechanism's name; by default ``DenseMechanism(n=…)``.

    Raises
    ------
    ValueError
        If ``strategy`` is not a non-empty square, finite, lower-triangular matrix with a nonzero diagonal.
    """

    def __init__(self, strategy, *, name: str | None = None):
        C = np.array(strategy, dtype=float)
        if C.ndim != 2 or C.shape[0] != C.shape[1] or C.shape[0] == 0:
            raise ValueError(f"strategy must be a non-empty square matrix, got shape {C.shape}")
        if not np.all(np.isfinite(C)):
            raise ValueError("strategy must be finite")
        if np.any(np.triu(C, 1) != 0.0):
            raise ValueError("strategy must be lower-triangular (a causal mechanism: step t sees only steps <= t)")
        if np.any(np.diag(C) == 0.0):
            raise ValueError("strategy must have a nonzero diagonal (C invertible)")
        C.setflags(write=False)
        self.C = C
        self.size = C.shape[0]
        self.name = check_name("name", name) or f"DenseMechanism(n={self.size})"

    def _check_n(self, n) -> int:
        return check_int("n", n, 1, self.size, why=f"{self.name} is defined for {self.size} steps")

    def strategy_matrix(self, n: int) -> np.ndarray:
        """The leading ``n × n`` block of the given strategy ``C``.

        Parameters
        ----------
        n : int
            The number of steps, at most ``size``.

        Returns
        -------
        numpy.ndarray
            A copy of ``C[:n, :n]``.
        """
        n = self._check_n(n)
        return self.C[:n, :n].copy()

    def noising_matrix(self, n: int) -> np.ndarray:
        """The leading ``n × n`` block of ``N = C⁻¹``, by a triangular solve.

        Parameters
        ----------
        n : int
            The number of steps, at most ``size``.

        Returns
        -------
        numpy.ndarray
            ``N[:n, :n]``, shape ``(n, n)``.
        """
        n = self._check_n(n)
        return scipy.linalg.solve_triangular(self.C[:n, :n], np.eye(n), lower=True)

    def cache_key(self) -> str:
        """A stable identifier: the SHA-256 of the strategy's bytes.

        Returns
        -------
        str
            ``DenseMechanism:<hex digest>``.
        """
        return f"DenseMechanism:{hashlib.sha256(np.ascontiguousarray(self.C).tobytes()).hexdigest()}"
