"""Argument checks shared by every public function.

Each check raises :class:`ValueError` whose message names the parameter, the value it got and the valid
range, so that a REPL user sees at once what to change.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["check_real", "check_real_array", "check_in_interval", "check_int", "check_positive_array", "check_privacy", "check_variant", "VARIANTS"]

#: ``variant=`` values wherever a paper's printed form is kept beside the corrected one.
VARIANTS = ("corrected", "paper")


def _fmt_interval(lo: float, hi: float, lo_closed: bool, hi_closed: bool) -> str:
    return f"{'[' if lo_closed else '('}{lo:g}, {hi:g}{']' if hi_closed else ')'}"


def check_real(name: str, value) -> float:
    """Return ``value`` as a finite float, or raise naming ``name``.

    Strings, bytes, booleans and complex numbers are refused rather than coerced (``float("5")`` would
    silently accept a typo), and so are NaN and ±inf.
    """
    if isinstance(value, (str, bytes, bool, np.bool_, complex, np.complexfloating)):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number, got {value!r}") from None
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return x


def check_in_interval(
    name: str,
    value,
    lo: float = -math.inf,
    hi: float = math.inf,
    *,
    lo_closed: bool = False,
    hi_closed: bool = False,
    why: str = "",
) -> float:
    """Return ``value`` as a float if it lies in the interval, else raise naming ``name`` and the interval."""
    x = check_real(name, value)
    ok_lo = x >= lo if lo_closed else x > lo
    ok_hi = x <= hi if hi_closed else x < hi
    if not (ok_lo and ok_hi):
        reason = f" ({why})" if why else ""
        raise ValueError(
            f"{name} must lie in {_fmt_interval(lo, hi, lo_closed, hi_closed)}{reason}, got {x:g}"
        )
    return x


def check_int(name: str, value, lo: int, hi: float = math.inf, *, why: str = "") -> int:
    """Return ``value`` as an int if it is a whole number in ``[lo, hi]``, else raise naming ``name`` and the range."""
    x = check_in_interval(name, value, lo, hi, lo_closed=True, hi_closed=math.isfinite(hi), why=why)
    if isinstance(value, (int, np.integer)):
        return int(value)  # exact, also beyond 2**53 where the float above rounds
    if x != int(x):
        reason = f" ({why})" if why else ""
        raise ValueError(f"{name} must be an integer in {_fmt_interval(lo, hi, True, math.isfinite(hi))}{reason}, got {value!r}")
    return int(x)


def check_real_array(name: str, values) -> np.ndarray:
    """Return a non-empty 1-D float array of finite real entries, or raise naming ``name``.

    Strings, complex entries and ragged sequences are refused rather than coerced.
    """
    try:
        arr = np.asarray(values)
    except ValueError:
        raise ValueError(f"{name} must be a 1-D sequence of real numbers, got a ragged sequence") from None
    if arr.dtype.kind not in "biuf" or arr.dtype.kind == "b":
        raise ValueError(f"{name} must be a sequence of real numbers, got {values!r:.80}")
    arr = np.atleast_1d(arr.astype(float))
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got a non-finite entry {arr[~np.isfinite(arr)][0]}")
    return arr


def check_positive_array(name: str, values) -> np.ndarray:
    """Return a 1-D float array of strictly positive finite entries, or raise naming ``name``."""
    arr = check_real_array(name, values)
    if np.any(arr <= 0):
        bad = arr[arr <= 0][0]
        raise ValueError(f"{name} must be strictly positive (valid range (0, inf)), got an entry {bad:g}")
    return arr


def check_privacy(rho, G) -> tuple[float, float]:
    """``(ρ, G)`` as floats, both strictly positive, or raise naming the parameter."""
    return check_in_interval("rho", rho, 0.0), check_in_interval("G", G, 0.0)


def check_variant(variant: str) -> str:
    """``variant`` if it is one of :data:`VARIANTS`, else raise listing them."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    return variant


# -- vectorised values, positive integers and callables (issue 18, item 4) ------------------------------------------

def check_real_values(
    name: str,
    values,
    lo: float = -math.inf,
    hi: float = math.inf,
    *,
    lo_closed: bool = False,
    hi_closed: bool = False,
    why: str = "",
    ndim: int | None = None,
    allow_empty: bool = True,
    allow_nonfinite: bool = False,
) -> np.ndarray:
    """Return ``values`` as a float array of its own shape (0-d for a scalar) with every entry in the interval,
    or raise naming ``name`` and the interval: the vectorised :func:`check_in_interval`.

    Strings, booleans, complex numbers, ``None`` and ragged or object sequences are refused rather than
    coerced. NaN is always refused, ``±inf`` unless that end of the interval is infinite and closed.
    ``ndim`` fixes the number of dimensions (``None``: any); ``allow_empty=False`` refuses a size-0 array;
    ``allow_nonfinite=True`` skips the finiteness and range checks (arrays whose non-finite entries mean
    something, such as overflowed coefficients).
    """
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{name} must be a real number or an array of them, got {values!r:.80}")
    try:
        arr = np.asarray(values)
    except ValueError:
        raise ValueError(f"{name} must be a real number or an array of them, got a ragged sequence") from None
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be a real number or an array of them, got {values!r:.80}")
    arr = arr.astype(float)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got shape {arr.shape}")
    if not allow_empty and arr.size == 0:
        raise ValueError(f"{name} must be non-empty, got shape {arr.shape}")
    if allow_nonfinite:
        return arr
    with np.errstate(invalid="ignore"):
        ok = (arr >= lo if lo_closed else arr > lo) & (arr <= hi if hi_closed else arr < hi)  # NaN fails both
    if not np.all(ok):
        bad = float(arr[~ok].flat[0])
        if math.isinf(lo) and math.isinf(hi) and not (lo_closed or hi_closed):
            raise ValueError(f"{name} must be finite, got {bad}")
        reason = f" ({why})" if why else ""
        raise ValueError(f"{name} must lie in {_fmt_interval(lo, hi, lo_closed, hi_closed)}{reason}, got {bad:g}")
    return arr


def check_positive_int(name: str, value) -> int:
    """:func:`check_int` with ``lo = 1``, saying "a positive integer" when the value is real but not one."""
    check_real(name, value)  # wrong types and NaN/inf keep their own message
    try:
        return check_int(name, value, 1)
    except ValueError:
        raise ValueError(f"{name} must be a positive integer (valid range [1, inf)), got {value!r}") from None


def check_callable(name: str, value):
    """``value`` if it is callable, else raise naming ``name``."""
    if not callable(value):
        raise ValueError(f"{name} must be callable, got {value!r:.80}")
    return value


__all__ += ["check_real_values", "check_positive_int", "check_callable"]
