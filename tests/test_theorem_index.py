"""The generated theorem index (docs/theorem_index.md) and the errata references stay complete.

* ``docs/theorem_index.md`` is exactly what ``python docs/theorem_index.py`` generates from the package now:
  a new citation, function, test or claim shows up as a difference (regenerate the file to accept it).
* Every result a docstring cites has at least one citing function with a test, except the known gaps listed
  here: a new citation without a test fails; a gap that got a test fails until it is removed from the list.
* Every reference to the errata ("errata 004 §10.3", and the old "digest 004 §10.3" until
  ``docs/rewrite_digest_refs.py`` has run) has its seed and an anchor in ``docs/errata.md``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: cited results none of whose citing functions has a test, as the index prints them (see its "Gaps" section)
KNOWN_GAPS = {
    "seed 001 eq. (7)",  # proactive.theorems.condition7 (tested only through thm31_check)
    "seed 002 Thm 2.1",  # isrl.registry.Rate's docstring cites it as an example of its `theorem` field
    "seed 002 Assumption 1.3",  # SCQuadratic.phi2
    "seed 002 eq. (29)",  # SCQuadratic.v2
    "seed 004 Assumption C.2",  # LinearRegression.R2, LinearRegression.C_kurt
}


def _load(name: str):
    """A script of docs/ as a module (docs/ is not a package)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look their module up while the class is built
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def ti():
    return _load("theorem_index")


@pytest.fixture(scope="module")
def index(ti):
    return ti.build()


@pytest.fixture(scope="module")
def refs():
    return _load("rewrite_digest_refs")


def test_committed_index_is_what_the_script_generates_now(ti, index):
    generated = ti.render(index)
    committed = ti.OUT.read_text(encoding="utf-8") if ti.OUT.exists() else ""
    if committed != generated:
        old, new = set(committed.splitlines()), set(generated.splitlines())
        diff = [f"- {s}" for s in sorted(old - new)][:10] + [f"+ {s}" for s in sorted(new - old)][:10]
        pytest.fail("docs/theorem_index.md is out of date; run `python docs/theorem_index.py`. First differing lines:\n"
                    + "\n".join(line[:200] for line in diff))


def test_every_module_of_the_package_imports(index):
    assert not index.errors, f"modules that fail to import: {index.errors}"


def test_every_cited_result_has_a_function_with_a_test(index):
    gaps = {f"seed {g.seed or '?'} {g}" for g in index.gaps()}
    new, fixed = sorted(gaps - KNOWN_GAPS), sorted(KNOWN_GAPS - gaps)
    assert not new, (f"cited without any tested function: {new}. Add a test that uses one of the citing functions "
                     "(see the row in docs/theorem_index.md), or, if that is not possible yet, list it in KNOWN_GAPS.")
    assert not fixed, f"no longer gaps (a test covers them now, or the citation moved): remove {fixed} from KNOWN_GAPS"


def test_every_result_is_attributed_to_a_paper(index):
    unattributed = sorted({f"{r} in {f.name}" for r, fs in index.rows.items() if r.seed is None for f, _, _ in fs})
    assert not unattributed, ("citations with no seed: write 'seed 00N' in the docstring or in its module's "
                              f"docstring: {unattributed}")


@pytest.mark.parametrize("text, seed, expected", [
    ("seed 004, Thm 1.1 and eq. 24", None, ["004 Thm 1.1", "004 eq. (24)"]),
    ("seed 001 eq. (65)", "004", ["001 eq. (65)"]),
    ("Lemma F.16, eq. (49)", "004", ["004 Lemma F.16", "004 eq. (49)"]),
    ("App. B eq. (18)", "004", ["004 App. B", "004 eq. (18)"]),
    ("Tables 9–11", "001", ["001 Table 9", "001 Table 10", "001 Table 11"]),
    ("Thm C.15/C.18; App. F.4–F.5", "004", ["004 Thm C.15", "004 Thm C.18", "004 App. F.4", "004 App. F.5"]),
    ("Thm 3.1, 2 rounds", "002", ["002 Thm 3.1"]),
    ("Dwork–Roth Thm 3.20 and Bun & Steinke 2016, Prop. 1.3", "002", []),
    ("(Balle et al. 2020, Thm 21); Abadi et al.'s Lemma 3", "004", []),
    ("Thm 2.1 (D.1, D.2)", None, ["None Thm 2.1"]),
])
def test_citation_grammar(ti, text, seed, expected):
    assert [f"{r.seed} {r}" for r in ti.citations(text, seed)] == expected


def test_every_errata_reference_has_a_seed_and_an_anchor(refs):
    anchors = refs.errata_anchors()
    assert anchors, "docs/errata.md has no anchors"
    bad = []
    for path in refs.files(refs.DEFAULT_TARGETS):
        for r in refs.scan(path)[0]:
            where = f"{path.relative_to(ROOT)}:{r.line}: {r.text!r}"
            if r.seed is None:
                bad.append(f"{where} (no seed: write 'errata 00N …')")
            bad += [f"{where} (no anchor {a} in docs/errata.md)" for a in r.anchors if a not in anchors]
    assert not bad, "\n".join(bad)


def test_rewrite_supplies_the_seed_and_is_idempotent(refs, tmp_path):
    f = tmp_path / "isrl_example.py"
    f.write_text('"""Seed 002 example."""\n# printed nu_k (digest §8 #17; C21), see Digest 002 §6 and digest C10\n')
    once = refs.rewrite(f)
    assert once.splitlines()[1] == "# printed nu_k (errata 002 §8 #17; C21), see Errata 002 §6 and errata 002 C10"
    f.write_text(once)
    assert refs.rewrite(f) == once
    assert refs.anchors_of("004", "§8 #1–#3, #33") == ["004-s8-1", "004-s8-2", "004-s8-3", "004-s8-33"]
    assert refs.anchor("004", "§10.3") == refs.anchor("004", "§10 #3") == "004-s10-3"
    assert refs.anchor("001", "§3.11a") == "001-s3.11a"
