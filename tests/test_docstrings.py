"""Every public function, class and method of ``dptheory`` has a numpydoc docstring (issue 15).

The API reference (``make docs``) is generated from these docstrings, so a missing docstring, an undocumented
or misspelt parameter, or a function that returns a value without a ``Returns`` section is a hole in the
reference. numpydoc's own validator (``numpydoc.validate``) checks each object for the codes in
``docs/api_inventory.py``'s ``CHECKS``; the Sphinx build runs the same checks on the same objects
(``docs/conf.py`` reads that module too).

A dataclass's fields are its constructor's parameters; they may be documented under ``Attributes`` instead of
``Parameters`` (the fields are what a user reads back from a result object).

Run as a script to list the failures by module: ``python tests/test_docstrings.py [dptheory.isrl ...]``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _inventory():
    """``docs/api_inventory.py`` as a module (docs/ is not a package)."""
    if "api_inventory" not in sys.modules:
        spec = importlib.util.spec_from_file_location("api_inventory", ROOT / "docs" / "api_inventory.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["api_inventory"] = module
        spec.loader.exec_module(module)
    return sys.modules["api_inventory"]


inventory = _inventory()


@pytest.mark.parametrize("module", inventory.public_modules())
def test_every_public_object_has_a_numpydoc_docstring(module):
    pytest.importorskip("numpydoc.validate")
    bad = {name: errs for name in inventory.public_objects([module]) if (errs := inventory.failures(name))}
    assert not bad, "\n".join(f"{name}: " + "; ".join(f"{c} {m}" for c, m in errs) for name, errs in bad.items())


def test_a_dataclass_may_document_its_fields_under_attributes_but_not_leave_one_out():
    pytest.importorskip("numpydoc.validate")
    import dataclasses

    @dataclasses.dataclass
    class Documented:
        """A result.

        Attributes
        ----------
        lo, hi : float
            The interval.
        """

        lo: float
        hi: float

    @dataclasses.dataclass
    class Missing:
        """A result.

        Attributes
        ----------
        lo : float
            One end.
        """

        lo: float
        hi: float

    pr01 = [("PR01", "Parameters {'lo', 'hi'} not documented")]
    assert inventory.without_documented_fields(Documented, pr01) == []
    assert inventory.without_documented_fields(Missing, pr01) == pr01


if __name__ == "__main__":
    total = 0
    for mod in (sys.argv[1:] or inventory.public_modules()):
        mods = [m for m in inventory.public_modules() if m == mod or m.startswith(mod + ".")]
        for name in inventory.public_objects(mods):
            errs = inventory.failures(name)
            total += bool(errs)
            for code, msg in errs:
                print(f"{name}: {code} {msg}")
    print(f"{total} objects fail", file=sys.stderr)
