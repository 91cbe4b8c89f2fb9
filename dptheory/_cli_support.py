"""What the command lines share (``dptheory``, :mod:`dptheory.cli`; ``python -m dptheory.proactive``), and the
JSON form of non-finite numbers that :meth:`dptheory.comparison.Comparison.to_json` writes too.

Kept free of numpy and of every sub-package, so that building a parser (and ``--help``) stays fast.

* :class:`Parser` — an ``argparse.ArgumentParser`` whose errors are one line, ``PROG: error: MESSAGE``, exit status 2;
* :func:`one_line` — a message on one line (library messages may wrap);
* :func:`dumps` — one JSON object: numbers as numbers, ``±inf`` as the strings ``"inf"``/``"-inf"`` (``NaN`` as
  ``"nan"``), NumPy scalars and arrays as numbers and lists, enums and other objects by their ``str()``.
"""

from __future__ import annotations

import argparse
import enum
import json
import math

__all__ = ["Parser", "one_line", "jsonable", "dumps"]


def one_line(message) -> str:
    """``message`` with every run of whitespace (newlines included) collapsed to one space."""
    return " ".join(str(message).split())


class Parser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose errors print one line, ``PROG: error: MESSAGE``, and exit with status 2.

    argparse's own errors print the usage block first; a command line that reports bad input on one line is
    easier to read in a log and to test.
    """

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {one_line(message)}\n")


def jsonable(obj):
    """``obj`` as plain JSON values: ``±inf`` and ``NaN`` as the strings ``"inf"``, ``"-inf"``, ``"nan"``."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, enum.Enum):
        return str(obj)
    if isinstance(obj, int):
        return obj
    if isinstance(obj, float):
        if math.isnan(obj):
            return "nan"
        if math.isinf(obj):
            return "inf" if obj > 0 else "-inf"
        return obj
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if hasattr(obj, "tolist"):  # NumPy scalars and arrays, without importing NumPy
        return jsonable(obj.tolist())
    return str(obj)


def dumps(obj) -> str:
    """One JSON document of ``obj`` (through :func:`jsonable`; strict JSON, no ``Infinity``)."""
    return json.dumps(jsonable(obj), allow_nan=False)
