"""Argument checks shared by every public function.

Each check raises :class:`ValueError` whose message names the parameter, the value it got and the valid
range, so that a REPL user sees at once what to change.
"""

from __future__ import annotations

import contextlib
import math
import re

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
    except OverflowError:  # an int beyond the doubles
        raise ValueError(f"{name} must be finite, got an integer of {len(str(abs(value)))} digits") from None
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


# -- sizes: refuse before allocating (issue 36) ------------------------------------------------------------------

#: The memory one call may ask for, in bytes (2 GiB). Every route whose memory grows with a parameter (steps ``n``,
#: dimension ``d``, buffers, bands, participation patterns, accountant grids) estimates its cost first and refuses
#: above this budget with :func:`check_size`; assign another value to the module attribute to move it.
SIZE_BUDGET = 2 << 30


def _fmt_bytes(nbytes: float) -> str:
    """``nbytes`` in the largest binary unit it reaches, to 3 digits (``7.45 GiB``)."""
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= size:
            return f"{nbytes / size:.3g} {unit}"
    return f"{nbytes:.0f} bytes"


def check_size(name: str, value: int, cost, *, what: str = "", lo: int = 1) -> int:
    """Return ``value`` if ``cost(value)`` bytes fit in :data:`SIZE_BUDGET`, else raise naming ``name``.

    The one size policy of the package: a route whose memory grows with a parameter calls this before it
    allocates. The message names the parameter as the caller spelled it, the bytes it would need and the largest
    value that fits (by bisection on ``cost``).

    Parameters
    ----------
    name : str
        The caller's parameter (``"n"``, ``"horizon"``, ``"d"``, ``"buffers"``, ...).
    value : int
        Its value (already validated as a whole number).
    cost : callable
        ``cost(v)``: the bytes the route needs at value ``v``, non-decreasing in ``v``.
    what : str, optional
        What would be allocated, for the message (e.g. ``"the strategy coefficients"``).
    lo : int, default 1
        The smallest value of the parameter, where the bisection for the largest fitting value starts.

    Returns
    -------
    int
        ``value`` unchanged.

    Raises
    ------
    ValueError
        If ``cost(value)`` exceeds :data:`SIZE_BUDGET`.
    """
    budget = SIZE_BUDGET
    needed = float(cost(value))
    if needed <= budget:
        return value
    low, high = lo, value  # cost(high) does not fit
    if float(cost(low)) > budget:
        fits = f"no {name} fits"
    else:
        while high - low > 1:
            mid = (low + high) // 2
            low, high = (mid, high) if float(cost(mid)) <= budget else (low, mid)
        fits = f"the largest {name} that fits is {low}"
    shown = f"{value}" if value < 10**15 else f"{value:.6g}"
    reason = f" for {what}" if what else ""
    raise ValueError(
        f"{name} = {shown} needs about {_fmt_bytes(needed)}{reason}, more than the {_fmt_bytes(budget)} size budget "
        f"(dptheory._validation.SIZE_BUDGET): {fits}"
    )


def check_bool(name: str, value) -> bool:
    """``value`` if it is a ``bool`` (or NumPy bool), else raise naming ``name``: ``"yes"`` or ``1`` is refused."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r:.80}")
    return bool(value)


def check_name(name: str, value) -> str | None:
    """``value`` if it is ``None`` or a string, else raise naming ``name`` (a number is not a name)."""
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{name} must be a string or None, got {value!r:.80}")
    return value


def check_choice(name: str, value, choices) -> str:
    """``value`` if it is one of ``choices`` (strings), else raise naming ``name`` and listing them."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r:.80}")
    return value


def check_shape(name: str, value) -> tuple[int, ...]:
    """``value`` as a tuple of positive ints (an int is a 1-tuple), else raise naming ``name``: one step's shape."""
    if value is None or isinstance(value, (str, bytes)):
        raise ValueError(f"{name} must be a tuple of positive integers, got {value!r:.80}")
    return tuple(check_int(name, s, 1) for s in np.atleast_1d(np.asarray(value, dtype=object)))


def rename_parameter(message: str, inner: str, outer: str) -> str | None:
    """``message`` naming ``outer`` where it begins by naming the parameter ``inner``, else ``None``.

    A check's message begins with the parameter's name (``"n must lie in [1, inf)"``, ``"n = 1000000000 needs
    about …"``); this puts the caller's name in its place, and in "the largest n that fits".

    Parameters
    ----------
    message : str
        The refusal's message.
    inner : str
        The name the inner route gave the parameter.
    outer : str
        The caller's name for it (another keyword, a command-line option).

    Returns
    -------
    str or None
        The message naming ``outer``, or ``None`` if it does not begin with ``inner``.
    """
    if not re.match(rf"{re.escape(inner)}(?= (must|=|has) )", message):
        return None
    renamed_message = outer + message[len(inner):]
    return renamed_message.replace(f"the largest {inner} that fits", f"the largest {outer} that fits")


@contextlib.contextmanager
def renamed(inner: str, outer: str):
    """Re-raise a refusal of an inner route that names its parameter ``inner`` as one naming the caller's ``outer``.

    A route called with the caller's value under another name (``F_inf(horizon=n)`` asks
    ``final_row_energy(q, n)``) refuses naming ``n``; inside ``with renamed("n", "horizon"):`` such a
    ``ValueError`` names ``horizon`` instead (:func:`rename_parameter`). Other errors pass unchanged.

    Parameters
    ----------
    inner : str
        The parameter's name in the inner route.
    outer : str
        The caller's name for it.

    Yields
    ------
    None
    """
    try:
        yield
    except ValueError as exc:
        message = rename_parameter(str(exc), inner, outer)
        if message is None:
            raise
        raise ValueError(message) from None


__all__ += ["SIZE_BUDGET", "check_size", "check_bool", "check_name", "check_choice", "check_shape", "rename_parameter",
            "renamed"]
