"""Every public function, class and method of ``dptheory`` has a numpydoc docstring (issue 15).

The API reference (``make docs``) is generated from these docstrings, so a missing docstring, an undocumented
or misspelt parameter, or a function that returns a value without a ``Returns`` section is a hole in the
reference. numpydoc's own validator (``numpydoc.validate``) checks each object for the codes in
:data:`CHECKS`; the Sphinx build runs the same checks (``numpydoc_validation_checks`` in ``docs/conf.py``).

A dataclass's fields are its constructor's parameters; they may be documented under ``Attributes`` instead of
``Parameters`` (the fields are what a user reads back from a result object).

Run as a script to list the failures by module: ``python tests/test_docstrings.py [dptheory.isrl ...]``.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re
import sys

import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate") if __name__ != "__main__" else None

#: numpydoc codes that fail the build: no docstring (GL08), no summary (SS01), a parameter missing (PR01),
#: unknown (PR02), without a type (PR04) or description (PR07) or a space before its colon (PR10), no Returns
#: (RT01) or Yields (YD01) section where the code returns or yields a value.
CHECKS = ("GL08", "SS01", "PR01", "PR02", "PR04", "PR07", "PR10", "RT01", "YD01")


def public_modules() -> list[str]:
    """Every importable ``dptheory`` module whose name has no leading underscore (``__main__`` excluded)."""
    import dptheory

    names = ["dptheory"]
    for info in pkgutil.walk_packages(dptheory.__path__, "dptheory."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return names


def _own_public(module) -> list[str]:
    """The public names a module defines (its ``__all__`` if it has one), functions and classes only."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    out = []
    for name in names:
        obj = getattr(module, name, None)
        # a function behind functools.cache/lru_cache is a function too (inspect.unwrap reaches it)
        if (inspect.isfunction(inspect.unwrap(obj)) if callable(obj) and not inspect.isclass(obj) else inspect.isclass(obj)) \
                and getattr(obj, "__module__", None) == module.__name__:
            out.append(name)
    return out


def public_objects(modules=None) -> list[str]:
    """Dotted names of the public functions, classes and class methods/properties of ``modules``."""
    out = []
    for mod_name in modules or public_modules():
        module = importlib.import_module(mod_name)
        for name in _own_public(module):
            obj = getattr(module, name)
            out.append(f"{mod_name}.{name}")
            if inspect.isclass(obj):
                for attr, value in vars(obj).items():
                    if attr.startswith("_") or attr in getattr(obj, "__dataclass_fields__", {}):
                        continue
                    if inspect.isfunction(value) or isinstance(value, (property, classmethod, staticmethod)):
                        out.append(f"{mod_name}.{name}.{attr}")
    return out


def _dataclass_fields_in_attributes(name: str, errors: list) -> list:
    """Drop PR01 for a dataclass whose missing parameters are all documented under ``Attributes``."""
    from numpydoc.validate import Validator

    obj = Validator._load_obj(name)
    if not (inspect.isclass(obj) and dataclasses.is_dataclass(obj)):
        return errors
    from numpydoc.docscrape import ClassDoc

    documented = {name.strip() for p in ClassDoc(obj, config={"show_class_members": False})["Attributes"]
                  for name in p.name.split(":")[0].split(",")}  # "lo, hi : float" documents both
    out = []
    for code, message in errors:
        if code == "PR01":
            missing = set(re.findall(r"'([^']+)'", message))
            if missing <= documented:
                continue
        out.append((code, message))
    return out


def failures(name: str) -> list[tuple[str, str]]:
    """The :data:`CHECKS` errors numpydoc reports for the object ``name``."""
    from numpydoc.validate import validate

    errors = [(code, msg) for code, msg in validate(name)["errors"] if code in CHECKS]
    return _dataclass_fields_in_attributes(name, errors)


@pytest.mark.parametrize("module", public_modules() if __name__ != "__main__" else [])
def test_every_public_object_has_a_numpydoc_docstring(module):
    bad = {name: errs for name in public_objects([module]) if (errs := failures(name))}
    assert not bad, "\n".join(f"{name}: " + "; ".join(f"{c} {m}" for c, m in errs) for name, errs in bad.items())


if __name__ == "__main__":
    total = 0
    for mod in (sys.argv[1:] or public_modules()):
        mods = [m for m in public_modules() if m == mod or m.startswith(mod + ".")]
        for name in public_objects(mods):
            errs = failures(name)
            total += bool(errs)
            for code, msg in errs:
                print(f"{name}: {code} {msg}")
    print(f"{total} objects fail", file=sys.stderr)
