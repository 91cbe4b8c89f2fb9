"""The golden values (``dptheory/data/golden.json``) live once and are used on both sides.

Every entry has a source (the paper as printed, or "recomputed: …" with an ``errata NNN …`` reference that has
an anchor in ``docs/errata.md``) and a tolerance; its key is used, as a string literal, by at least one test and
at least one verify script (the file's reason to exist), and names the claims it backs (a claim id of
``figures/claims.json``, or a prefix of such ids for a table). The JSON ships with the package.
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
import sys
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from dptheory.data import Golden, entries, golden, significant_digits

ROOT = Path(__file__).resolve().parent.parent
ENTRIES = entries()


def _sources(folder: str) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((ROOT / folder).glob("*.py")) if p.name != Path(__file__).name}


def _leaves(x):
    if isinstance(x, (tuple, list)):
        for v in x:
            yield from _leaves(v)
    elif isinstance(x, dict):
        for v in x.values():
            yield from _leaves(v)
    else:
        yield x


def _refs_module():
    name = "rewrite_digest_refs"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / f"{name}.py")
        sys.modules[name] = mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    return sys.modules[name]


def test_the_file_is_not_empty_and_keys_are_unique_across_seeds():
    assert len(ENTRIES) >= 50
    keys = [key for _, key in ENTRIES]
    assert len(keys) == len(set(keys)), "a key used by two seeds cannot be found by its name alone"


@pytest.mark.parametrize("seed, key", sorted(ENTRIES), ids=lambda x: x)
def test_every_entry_is_used_by_a_test_and_by_a_verify_script(seed, key):
    pattern = re.compile(rf"""(["']){re.escape(key)}\1""")
    tests = [name for name, text in _sources("tests").items() if pattern.search(text)]
    scripts = [name for name, text in _sources("verify").items() if pattern.search(text)]
    assert tests, f"golden {seed}/{key} is used by no test: move it back to the one verify script that uses it"
    assert scripts, f"golden {seed}/{key} is used by no verify script: move it back to the tests that use it"


@pytest.mark.parametrize("seed, key", sorted(ENTRIES), ids=lambda x: x)
def test_every_entry_has_a_source_with_an_anchor_and_a_tolerance(seed, key):
    g = ENTRIES[seed, key]
    assert g.source.startswith("recomputed: ") or "as printed" in g.source, g.source
    refs = _refs_module()
    found = list(refs.REF.finditer(g.source))
    if g.source.startswith("recomputed: "):
        assert found, f"{seed}/{key}: a recomputed value names where (errata NNN …): {g.source}"
    anchors = refs.errata_anchors()
    for m in found:
        assert m.group("seed") == seed, f"{seed}/{key}: write the seed of the reference: {m.group(0)!r}"
        missing = [a for a in refs.anchors_of(seed, m.group("locs")) if a not in anchors]
        assert not missing, f"{seed}/{key}: no anchor {missing} in docs/errata.md"
    assert g.tolerance, f"{seed}/{key}: say what tolerance the value carries (e.g. 'half a unit of the last printed digit')"
    assert g.rtol is None or 0 < g.rtol < 1


@pytest.mark.parametrize("seed, key", sorted(ENTRIES), ids=lambda x: x)
def test_every_value_is_a_printed_decimal_or_an_exact_number(seed, key):
    g = ENTRIES[seed, key]
    for raw in _leaves(g.printed):
        assert re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?", raw, re.I), (key, raw)
    for v in _leaves(g.value):
        assert isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v), (key, v)


def test_every_key_names_the_claims_it_backs():
    claims = ROOT / "figures" / "claims.json"
    if not claims.exists():
        pytest.skip("figures/claims.json not generated (make verify)")
    ids = [c["id"] for c in json.loads(claims.read_text(encoding="utf-8"))]
    orphans = sorted(f"{seed}/{key}" for seed, key in ENTRIES if not any(i.startswith(key) for i in ids))
    assert not orphans, f"keys that are neither a claim id nor a prefix of one: {orphans}"


def test_loader_reads_values_as_printed():
    g = golden("002", "C25.eq21.0.1.10.1e+06.1e-06")
    assert isinstance(g, Golden) and g.printed == "2.5670e-3" and g.value == 2.5670e-3 and g.digits == 5
    assert golden("002", "C21.R_k").value == (171, 342, 683, 1366, 2731)
    assert golden("002", "C5").printed["isrl_erm_cvx_up"] == ("1.0e-3", "3.7169e-3")
    assert golden("004", "fig3.digest").value["1000"]["DP-SGD"] == 4962.0
    assert [significant_digits(s) for s in ("0.0928", "0.040", "2.0e5", "1e-6", "329777.0", "-4.243")] == [3, 2, 2, 1, 7, 4]
    with pytest.raises(KeyError, match="no golden value 'C99' for seed '002'"):
        golden("002", "C99")
    with pytest.raises(TypeError, match="not one printed decimal"):
        golden("002", "C5").digits


def test_the_json_ships_with_the_package():
    assert resources.files("dptheory.data").joinpath("golden.json").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "*.json" in config["tool"]["setuptools"]["package-data"]["dptheory.data"]
