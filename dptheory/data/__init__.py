"""Reference values read by both ``tests/`` and ``verify/``: one data file, ``golden.json``, shipped with the package.

Each number that a test asserts and a verify script claims is written once, in ``golden.json``, with where it
comes from (the paper as printed, or how and where it was recomputed, with its ``errata NNN …`` reference)
and, where the tolerance is a property of the value, that tolerance. Entries are grouped by paper seed
(``"001"`` … ``"004"``) and keyed by the claim id that ``verify/`` writes for them (or the common prefix of
those ids, for a table of values).

A value is written as the paper or the errata print it: a JSON string keeps its printed digits (so
``"2.5670e-3"`` has 5 significant digits and ``"0.040"`` 2), which is what "half a unit of the last printed
digit" tolerances are computed from; a JSON number is an exact value (an integer count, an exact float). A
table is a JSON list (read as a tuple) or an object of such values.

>>> from dptheory.data import golden
>>> g = golden("002", "C1.sigma2.R=1000")
>>> g.value, g.printed, g.digits
(80.374, '80.374', 5)
>>> golden("004", "linreg.exact_over_lti").value["0.005"]
1.013
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

__all__ = ["Golden", "golden", "entries", "significant_digits"]

_FIELDS = {"value", "source", "tolerance", "rtol"}


def significant_digits(printed: str) -> int:
    """Significant digits of a printed decimal (``"0.0928"`` → 3, ``"2.5670e-3"`` → 5, ``"4962"`` → 4).

    Parameters
    ----------
    printed : str
        A decimal as printed, optionally signed and with an exponent.

    Returns
    -------
    int
        The number of significant digits (at least 1).
    """
    mantissa = printed.strip().lower().lstrip("+-").partition("e")[0]
    return len(mantissa.replace(".", "").lstrip("0")) or 1


def _as_value(x: Any) -> Any:
    """Printed strings become floats, lists tuples, objects dicts; numbers stay what they are."""
    if isinstance(x, str):
        return float(x)
    if isinstance(x, list):
        return tuple(_as_value(v) for v in x)
    if isinstance(x, dict):
        return {k: _as_value(v) for k, v in x.items()}
    return x


def _as_printed(x: Any) -> Any:
    if isinstance(x, list):
        return tuple(_as_printed(v) for v in x)
    if isinstance(x, dict):
        return {k: _as_printed(v) for k, v in x.items()}
    return x if isinstance(x, str) else json.dumps(x)


@dataclass(frozen=True)
class Golden:
    """One entry of ``golden.json``: ``raw`` is the value as written in the file (see the module docstring).

    Attributes
    ----------
    seed : str
        The paper seed (``"001"`` … ``"004"``).
    key : str
        The entry's key (a claim id or their common prefix).
    raw : Any
        The value as written in the file: a printed string, a JSON number, or a list / object of them.
    source : str
        Where the value comes from.
    tolerance : str or None, default None
        The tolerance, where it is a property of the value.
    rtol : float or None, default None
        A relative tolerance, where it is a property of the value.
    """

    seed: str
    key: str
    raw: Any
    source: str
    tolerance: str | None = None
    rtol: float | None = None

    @property
    def value(self) -> Any:
        """The value as numbers: a float, an int, or a tuple / dict of them for a table."""
        return _as_value(self.raw)

    @property
    def printed(self) -> Any:
        """The value as printed (strings, in the shape of :attr:`value`)."""
        return _as_printed(self.raw)

    @property
    def digits(self) -> int:
        """Significant digits of a printed scalar value."""
        if not isinstance(self.raw, str):
            raise TypeError(f"{self.seed}/{self.key} is not one printed decimal: {self.raw!r}")
        return significant_digits(self.raw)


@functools.lru_cache(maxsize=None)
def entries() -> dict[tuple[str, str], Golden]:
    """Every entry of ``golden.json``, keyed by ``(seed, key)``.

    Returns
    -------
    dict of (str, str) to Golden
        The entries.

    Raises
    ------
    ValueError
        For an entry without ``value`` or ``source``, or with an unknown field.
    """
    data = json.loads(resources.files(__name__).joinpath("golden.json").read_text(encoding="utf-8"))
    out = {}
    for seed, group in data["seeds"].items():
        for key, entry in group.items():
            unknown = set(entry) - _FIELDS
            if unknown or "value" not in entry or not entry.get("source"):
                raise ValueError(f"golden.json {seed}/{key}: needs 'value' and 'source', may have "
                                 f"{sorted(_FIELDS - {'value', 'source'})}; got {sorted(entry)}")
            out[seed, key] = Golden(seed, key, entry["value"], entry["source"], entry.get("tolerance"), entry.get("rtol"))
    return out


def golden(seed: str, key: str) -> Golden:
    """The entry ``key`` of paper seed ``seed`` (e.g. ``golden("002", "C23.M")``).

    Parameters
    ----------
    seed : str
        The paper seed, ``"001"`` … ``"004"``.
    key : str
        The entry's key.

    Returns
    -------
    Golden
        The entry.

    Raises
    ------
    KeyError
        If ``golden.json`` has no such entry.
    """
    try:
        return entries()[seed, key]
    except KeyError:
        raise KeyError(f"no golden value {key!r} for seed {seed!r} in dptheory/data/golden.json") from None
