"""The public API of ``dptheory`` as the documentation sees it: one definition for the site and its tests.

``docs/conf.py`` builds the API reference from it, and ``tests/test_docstrings.py`` and ``tests/test_docs_site.py``
check the same objects, so "public" and "documented" mean one thing everywhere:

* :func:`public_modules` — every ``dptheory`` module with no name component starting with ``_``;
* :func:`is_function` — a function, also behind ``functools.cache``/``lru_cache``;
* :func:`own_public` — the functions and classes a module defines among its public names (``__all__``, or the
  names without a leading ``_``);
* :func:`class_members` — the methods and properties of a class the reference documents (not dataclass fields);
* :data:`CHECKS` and :func:`without_documented_fields` — the numpydoc validation codes that fail the build, and
  the one exception: a dataclass may document its fields (its constructor's parameters) under ``Attributes``.

Imports nothing heavy at module level (pytest imports ``docs/*.py`` for their doctests; Sphinx imports it from
``conf.py``); needs neither pytest nor Sphinx.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re

#: numpydoc codes that fail the build: no docstring (GL08), no summary (SS01), a parameter missing (PR01),
#: unknown (PR02), without a type (PR04) or description (PR07) or a space before its colon (PR10), no Returns
#: (RT01) or Yields (YD01) section where the code returns or yields a value.
CHECKS = ("GL08", "SS01", "PR01", "PR02", "PR04", "PR07", "PR10", "RT01", "YD01")


def public_modules() -> list[str]:
    """Every importable ``dptheory`` module whose name has no component starting with ``_`` (no ``__main__``)."""
    import dptheory

    names = ["dptheory"]
    for info in pkgutil.walk_packages(dptheory.__path__, "dptheory."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return names


def is_function(obj) -> bool:
    """A function, also behind ``functools.cache``/``lru_cache`` (``inspect.unwrap`` reaches it)."""
    return callable(obj) and not inspect.isclass(obj) and inspect.isfunction(inspect.unwrap(obj))


def public_names(module) -> list[str]:
    """A module's public names: its ``__all__``, or the names without a leading ``_``."""
    names = getattr(module, "__all__", None)
    return list(names) if names is not None else [n for n in vars(module) if not n.startswith("_")]


def own_public(module) -> list[str]:
    """The public functions and classes ``module`` defines itself (re-exports excluded)."""
    out = []
    for name in public_names(module):
        obj = getattr(module, name, None)
        if (inspect.isclass(obj) or is_function(obj)) and getattr(obj, "__module__", None) == module.__name__:
            out.append(name)
    return out


def class_members(cls) -> list[str]:
    """The public methods and properties a class defines itself, dataclass fields excluded."""
    fields = cls.__dataclass_fields__ if dataclasses.is_dataclass(cls) else {}
    return [attr for attr, value in vars(cls).items()
            if not attr.startswith("_") and attr not in fields
            and (inspect.isfunction(value) or isinstance(value, (property, classmethod, staticmethod)))]


def public_objects(modules=None) -> list[str]:
    """Dotted names of the public functions, classes and class methods/properties of ``modules`` (default: all)."""
    out = []
    for mod_name in modules or public_modules():
        module = importlib.import_module(mod_name)
        for name in own_public(module):
            obj = getattr(module, name)
            out.append(f"{mod_name}.{name}")
            if inspect.isclass(obj):
                out += [f"{mod_name}.{name}.{attr}" for attr in class_members(obj)]
    return out


def without_documented_fields(obj, errors: list) -> list:
    """``errors`` without numpydoc's PR01 for a dataclass whose missing parameters (its fields) are all documented
    under ``Attributes`` ("lo, hi : float" documents both)."""
    if not (inspect.isclass(obj) and dataclasses.is_dataclass(obj)):
        return errors
    from numpydoc.docscrape import ClassDoc

    documented = {name.strip() for p in ClassDoc(obj, config={"show_class_members": False})["Attributes"]
                  for name in p.name.split(":")[0].split(",")}
    return [(code, msg) for code, msg in errors
            if not (code == "PR01" and set(re.findall(r"'([^']+)'", msg)) <= documented)]


def failures(name: str) -> list[tuple[str, str]]:
    """The :data:`CHECKS` errors numpydoc's validator reports for the object called ``name``."""
    from numpydoc.validate import Validator, validate

    errors = [(code, msg) for code, msg in validate(name)["errors"] if code in CHECKS]
    return without_documented_fields(Validator._load_obj(name), errors)
