r"""A theorem's hypotheses checked at one point, every condition returned with its value (never just a boolean).

One type for every paper: seed 001's Thms 3.1, B.2, B.4 and Lemma B.3 (:mod:`dptheory.proactive.theorems`)
and the conditions of seed 002's rates and round complexities (:mod:`dptheory.isrl.registry`, decided from
sympy relations by :func:`dptheory.symbolic.check_hypotheses`) both return a :class:`TheoremCheck`:
``.holds``, ``.failed``, the conditions that could not be checked (``.unchecked``), the quantities the
theorem derives (``.values``), a printable table, and ``.require()``, which raises :class:`ConditionError`
naming each failed condition and by how much it fails.

>>> check = TheoremCheck("Thm 3.1", (Condition("ε", "ε < 0.5", 0.6, "<", 0.5),))
>>> check.holds, round(check["ε"].slack, 4)
(False, -0.1667)
>>> check.require()
Traceback (most recent call last):
...
dptheory.hypotheses.ConditionError: Thm 3.1 does not apply:
FAIL      ε ε < 0.5: 0.6 < 0.5 (slack -16.667%)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = ["OPS", "Condition", "ConditionError", "TheoremCheck"]

#: The relations a :class:`Condition` may state between its two sides.
OPS = (">=", ">", "<=", "<", "==")


class ConditionError(ValueError):
    """A theorem's condition fails; the message lists each failed condition with its values."""


@dataclass(frozen=True)
class Condition:
    """One hypothesis ``lhs <op> rhs`` of a theorem, with the values it was evaluated at.

    ``label`` names it (``"(7)"`` in seed 001, the condition in words in seed 002); ``statement`` is the
    relation as printed (``"(2/e)²k² ≥ ½ + ln(1/δ)"``); ``op`` is one of :data:`OPS`.

    Attributes
    ----------
    label : str
        The condition's name.
    statement : str
        The relation as printed.
    lhs : float
        The left side's value.
    op : {">=", ">", "<=", "<", "=="}
        The relation (:data:`OPS`).
    rhs : float
        The right side's value.

    Raises
    ------
    ValueError
        For an ``op`` not in :data:`OPS`.
    """

    label: str
    statement: str
    lhs: float
    op: str
    rhs: float

    def __post_init__(self):
        if self.op not in OPS:
            raise ValueError(f"op must be one of {OPS}, got {self.op!r}")

    @property
    def holds(self) -> bool:
        """Whether ``lhs <op> rhs`` holds."""
        return {">=": self.lhs >= self.rhs, ">": self.lhs > self.rhs, "<=": self.lhs <= self.rhs,
                "<": self.lhs < self.rhs, "==": self.lhs == self.rhs}[self.op]

    @property
    def slack(self) -> float:
        """Relative margin, positive iff the condition holds strictly.

        ``lhs/rhs − 1`` for ≥, ``rhs/lhs − 1`` for ≤; for ``==``, ``−|lhs/rhs − 1|`` (0 iff it holds).
        """
        num, den = (self.rhs, self.lhs) if self.op in ("<=", "<") else (self.lhs, self.rhs)
        if den == 0 or not math.isfinite(den):
            margin = math.inf if num > den else -math.inf if num < den else 0.0
        else:
            margin = num / den - 1.0
        return -abs(margin) if self.op == "==" else margin

    def __str__(self) -> str:
        mark = "ok  " if self.holds else "FAIL"
        head = self.statement if self.label == self.statement else f"{self.label:>6} {self.statement}"
        return f"{mark} {head}: {self.lhs:.6g} {self.op} {self.rhs:.6g} (slack {self.slack:+.3%})"


@dataclass(frozen=True)
class TheoremCheck:
    """Every condition of one theorem at one parameter setting, and the quantities it derives.

    ``unchecked`` lists the hypotheses that could not be decided at this point (an assumption stated in
    words, or a relation whose symbols were not given); they never make :attr:`holds` false.

    Attributes
    ----------
    theorem : str
        The theorem's name, as the failure message prints it.
    conditions : tuple of Condition
        Every condition checked.
    values : dict, default {}
        The quantities the theorem derives at this setting.
    unchecked : tuple of str, default ()
        The hypotheses that could not be decided at this point.
    """

    theorem: str
    conditions: tuple[Condition, ...]
    values: dict = field(default_factory=dict)
    unchecked: tuple[str, ...] = ()

    @property
    def holds(self) -> bool:
        """Whether every checked condition holds (``unchecked`` ones do not count)."""
        return all(c.holds for c in self.conditions)

    @property
    def failed(self) -> tuple[Condition, ...]:
        """The conditions that do not hold."""
        return tuple(c for c in self.conditions if not c.holds)

    def __getitem__(self, label: str) -> Condition:
        for c in self.conditions:
            if c.label == label:
                return c
        raise KeyError(f"{self.theorem} has no condition {label!r}; it has {[c.label for c in self.conditions]}")

    def require(self) -> TheoremCheck:
        """Return ``self`` if every condition holds, else raise :class:`ConditionError` listing the failures.

        Returns
        -------
        TheoremCheck
            ``self``.

        Raises
        ------
        ConditionError
            Naming each failed condition and by how much it fails.
        """
        if not self.holds:
            raise ConditionError(f"{self.theorem} does not apply:\n" + "\n".join(str(c) for c in self.failed))
        return self

    def __str__(self) -> str:
        head = f"{self.theorem}: {'all conditions hold' if self.holds else f'{len(self.failed)} condition(s) fail'}"
        vals = ", ".join(f"{k} = {v:.6g}" if isinstance(v, float) else f"{k} = {v}" for k, v in self.values.items())
        return "\n".join([head, *(f"  {c}" for c in self.conditions), *([f"  {vals}"] if vals else []),
                          *(f"  not checked: {u}" for u in self.unchecked)])
