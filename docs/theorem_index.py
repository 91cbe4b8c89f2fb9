r"""Generate ``docs/theorem_index.md``: paper × theorem/equation → function → test → claim id.

    python docs/theorem_index.py            # rewrite docs/theorem_index.md
    python docs/theorem_index.py --check    # exit 1 if docs/theorem_index.md is not what would be generated

What is indexed
---------------
* **Functions**: the public API of the ``dptheory`` that imports (run as a script: this checkout's), every
  module found by ``pkgutil.walk_packages``
  (no module path is hard-coded; modules with a component starting with ``_`` and ``__main__`` are skipped),
  every public function and class defined in it (``obj.__module__`` is the module; ``__all__`` when the module
  has one, else names without a leading ``_``), and the public methods and properties of those classes.
  Only docstrings are read. A module that fails to import is listed in the index, not skipped silently.
* **Tests**: a test (``tests/test_*.py::test_*``, also ``::TestX::test_*``) exercises a function if its file imports a
  module that holds the function (or its class) under its name (``import dptheory`` reaches the re-exports of
  the top level), and its body, its
  decorators, or a helper function / module-level name it uses (transitively, within its file) mentions the
  function's name as an identifier, an attribute or a string. For a method the method's name is enough, so
  generic method names over-approximate.
* **Claims**: the ids of ``figures/claims.json``. A claim belongs to the verify script that emits it; claims.json
  does not say which, so an id is given to the script holding the longest string literal that is a prefix of
  the id; ids left over (built from data, e.g. ``"Table 9.…"``) go to a script between their neighbours, in the
  order of ``verify/__main__.py``'s ``SCRIPTS``, whose source mentions the id's first segment. A claim is listed
  for a (citation, function) when its script imports a module holding the function, mentions its name, and its ``where`` field cites the same result
  of the same paper (``paper`` field).

Citation grammar
----------------
::

    citation := [ "seed " NNN [","|":"] " " ] KIND " " LABEL { SEP LABEL }
    KIND     := Thm | Theorem(s) | Lemma(s) | Prop. | Proposition | Property | Cor. | Corollary | Remark
              | Def. | Definition | Assumption | Alg. | Algorithm(s) | Table(s) | Fig. | Figure(s) | App. | Appendix
              | eq. | eqs. | Eq.
    LABEL    := [A-Z] "." N {"." N} | N {"." N}        for theorem-like kinds, tables, figures, algorithms
              | [A-Z] {"." N}                            for App.
              | "(" N [a-z] ")" | N [a-z]                for eq.
    SEP      := ", " | "/" | " and " | " or " | "–" (a range: "Tables 9–11", "F.4–F.5", expanded)

A continuation label must have the shape of the first one (same letter prefix, same number of dots), so
"Thm 3.1, 2 rounds" cites Thm 3.1 only. "App. B eq. (18)" is two citations, App. B and eq. (18).

* **Seed**: an explicit "seed NNN" before the kind; any "seed NNN" in a docstring also becomes the seed of the
  citations after it in that docstring. Otherwise the citation belongs to the module's seed: the first
  "seed NNN" of the module docstring, else of the enclosing package's docstring. Citations with no seed are
  listed as unattributed.
* **Other works** are not indexed: a kind preceded by an author attribution on the same line ("Dwork–Roth
  Thm 3.20", "Bun & Steinke 2016, Prop. 1.3", "Balle et al. 2020, Thm 21", "Abadi et al.'s Lemma 3").
* **Gaps**: a cited result none of whose citing functions has a test. ``tests/test_theorem_index.py`` keeps
  the known gaps in a list and fails when a new one appears.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import json
import pkgutil
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "theorem_index.md"

# ---------------------------------------------------------------------------------------------- grammar
_KINDS = {
    "Thm": "Thm", "Thms": "Thm", "Theorem": "Thm", "Theorems": "Thm",
    "Lemma": "Lemma", "Lemmas": "Lemma", "Lem.": "Lemma",
    "Prop.": "Prop.", "Props.": "Prop.", "Proposition": "Prop.", "Propositions": "Prop.",
    "Property": "Property", "Properties": "Property",
    "Cor.": "Cor.", "Corollary": "Cor.", "Corollaries": "Cor.",
    "Remark": "Remark", "Remarks": "Remark",
    "Def.": "Def.", "Definition": "Def.", "Definitions": "Def.",
    "Assumption": "Assumption", "Assumptions": "Assumption",
    "Alg.": "Alg.", "Algorithm": "Alg.", "Algorithms": "Alg.",
    "Table": "Table", "Tables": "Table",
    "Fig.": "Fig.", "Figs.": "Fig.", "Figure": "Fig.", "Figures": "Fig.",
    "App.": "App.", "Appendix": "App.", "Apps.": "App.",
    "eq.": "eq.", "eqs.": "eq.", "Eq.": "eq.", "Eqs.": "eq.",
}
#: display order of the kinds
KIND_ORDER = ("Thm", "Lemma", "Prop.", "Property", "Cor.", "Remark", "Def.", "Assumption", "Alg.", "eq.",
              "Table", "Fig.", "App.")
_KIND_RE = "|".join(sorted((re.escape(k) for k in _KINDS), key=len, reverse=True))
_NUM_LABEL = r"(?:[A-Z]\.\d+(?:\.\d+)*|\d+(?:\.\d+)*)"
_APP_LABEL = r"[A-Z](?:\.\d+)*"
_EQ_LABEL = r"(?:\(\d+[a-z]?\)|\d+[a-z]?)"
_SEP = r"(?:\s?[,/]\s?|\sand\s|\sor\s|\s?[–-]\s?)"
CITATION = re.compile(
    rf"(?<![\w.])(?:[Ss]eed\s(?P<seed>00\d)[,:]?\s)?(?P<kind>{_KIND_RE})\s?"
    rf"(?P<labels>(?:{_NUM_LABEL}|{_APP_LABEL}|{_EQ_LABEL})(?:{_SEP}(?:{_NUM_LABEL}|{_APP_LABEL}|{_EQ_LABEL}))*)"
    r"(?![\w])")
SEED_MENTION = re.compile(r"\b[Ss]eeds?\s(00\d)\b")
AUTHOR_BEFORE = re.compile(
    r"(?:et\sal\.?|[A-Z][a-z]+(?:[–-][A-Z][a-z]+)+|[A-Z][a-z]+\s(?:&|and)\s[A-Z][a-z]+)(?:'s)?"
    r"(?:\s\(?\d{4}[a-z]?\)?)?[,:]?\s*$")


def _label_pattern(kind: str) -> str:
    return {"App.": _APP_LABEL, "eq.": _EQ_LABEL}.get(kind, _NUM_LABEL)


def _shape(label: str) -> tuple[bool, int]:
    return label[:1].isalpha(), label.count(".")


def _norm_label(kind: str, label: str) -> str:
    return label.strip("()") if kind == "eq." else label


def _expand(kind: str, a: str, b: str) -> list[str]:
    """``a–b`` as a list of labels (the last number varies), or ``[a, b]`` when it is not a simple range."""
    ma, mb = re.fullmatch(r"(.*?)(\d+)", a), re.fullmatch(r"(.*?)(\d+)", b)
    if ma and mb and ma.group(1) == mb.group(1) and 0 < int(mb.group(2)) - int(ma.group(2)) <= 30:
        return [f"{ma.group(1)}{i}" for i in range(int(ma.group(2)), int(mb.group(2)) + 1)]
    return [a, b]


def parse_labels(kind: str, text: str) -> list[str]:
    """The labels of one citation's label list (continuations of another shape are dropped)."""
    pat = re.compile(rf"({_label_pattern(kind)})")
    first = pat.match(text)
    if not first:
        return []
    labels = [_norm_label(kind, first.group(1))]
    pos = first.end()
    while True:
        m = re.compile(rf"({_SEP})({_label_pattern(kind)})").match(text, pos)
        if not m:
            break
        nxt = _norm_label(kind, m.group(2))
        if _shape(nxt) != _shape(labels[0]):
            break
        if "–" in m.group(1) or "-" in m.group(1):
            labels[-1:] = _expand(kind, labels[-1], nxt)
        else:
            labels.append(nxt)
        pos = m.end()
    return labels


@dataclass(frozen=True, order=True)
class Result:
    """One cited result of one paper: ``(seed, kind, label)``; ``seed`` is None when unattributed."""

    seed: str | None
    kind: str
    label: str

    def __str__(self) -> str:
        return f"eq. ({self.label})" if self.kind == "eq." else f"{self.kind} {self.label}"

    def sort_key(self):
        natural = [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", self.label)]
        return (self.seed or "~", KIND_ORDER.index(self.kind), natural)


def citations(text: str, seed: str | None) -> list[Result]:
    """Every result ``text`` cites, by the grammar above; ``seed`` is the default seed."""
    out = []
    mentions = [(m.start(), m.group(1)) for m in SEED_MENTION.finditer(text)]
    for m in CITATION.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if AUTHOR_BEFORE.search(text[max(line_start, m.start() - 60):m.start()]):
            continue
        kind = _KINDS[m.group("kind")]
        before = [s for pos, s in mentions if pos < m.start("kind")]
        cur = m.group("seed") or (before[-1] if before else seed)
        out += [Result(cur, kind, lab) for lab in parse_labels(kind, m.group("labels"))]
    return out


# --------------------------------------------------------------------------------------- public API
@dataclass
class Function:
    name: str  # dotted: module.name or module.Class.method
    short: str  # the identifier tests mention
    module: str
    doc: str
    cites: list[Result] = field(default_factory=list)
    reachable_from: set[str] = field(default_factory=set)  # modules that hold it (or its class) by that name


def _module_seed(mod) -> str | None:
    name = mod.__name__
    while name:
        m = sys.modules.get(name)
        found = SEED_MENTION.search((m.__doc__ or "") if m else "")
        if found:
            return found.group(1)
        name = name.rpartition(".")[0]
    return None


def _public(mod) -> list[tuple[str, object]]:
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in vars(mod) if not n.startswith("_")]
    out = []
    for n in names:
        obj = getattr(mod, n, None)
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and getattr(obj, "__module__", None) == mod.__name__:
            out.append((n, obj))
    return sorted(out)


def public_functions(package: str = "dptheory") -> tuple[list[Function], dict[str, str]]:
    """Every public function, class, method and property of ``package`` with its docstring; import errors."""
    pkg = importlib.import_module(package)
    errors: dict[str, str] = {}
    names = [package] + [m.name for m in pkgutil.walk_packages(pkg.__path__, package + ".",
                                                              onerror=lambda n: errors.setdefault(n, "walk"))]
    modules = []
    for modname in sorted(set(names)):
        if any(part.startswith("_") for part in modname.split(".")):
            continue
        try:
            modules.append((modname, importlib.import_module(modname)))
        except Exception as exc:  # noqa: BLE001 - reported in the index
            errors[modname] = f"{type(exc).__name__}: {exc}".splitlines()[0]
    # every module, and every lazily exported name, is loaded before any holder is looked up, so the holders do not
    # depend on what the calling process had imported already (a fresh script and a test run index the same thing)
    for _, mod in modules:
        for n in getattr(mod, "__all__", ()):
            getattr(mod, n, None)
    funcs = []
    for modname, mod in modules:
        seed = _module_seed(mod)
        for n, obj in _public(mod):
            holders = {m for m, v in list(sys.modules.items())
                       if (m == package or m.startswith(package + ".")) and getattr(v, n, None) is obj}
            items = [(f"{modname}.{n}", n, inspect.getdoc(obj) or "")]
            if inspect.isclass(obj):
                for an, attr in sorted(vars(obj).items()):
                    if an.startswith("_"):
                        continue
                    raw = attr.fget if isinstance(attr, property) else getattr(attr, "__func__", attr)
                    if inspect.isfunction(raw) or isinstance(attr, property):
                        items.append((f"{modname}.{n}.{an}", an, inspect.getdoc(raw) or ""))
            for full, short, doc in items:
                funcs.append(Function(full, short, modname, doc, citations(doc, seed), holders | {modname}))
    return funcs, errors


# -------------------------------------------------------------------------------------------- tests
def _identifiers(node) -> set[str]:
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, ast.alias):
            out.add(n.asname or n.name.split(".")[-1])
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.isidentifier():
            out.add(n.value)
    return out


@dataclass
class Test:
    id: str  # tests/test_x.py::test_y
    idents: set[str]
    text: str  # name + docstring, for "does this test cite the result"
    imports: set[str] = field(default_factory=set)  # modules its file imports (``from a import b``: a and a.b)


def _imports(tree) -> set[str]:
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            out |= {a.name for a in n.names}
        elif isinstance(n, ast.ImportFrom) and n.module and not n.level:
            out |= {n.module} | {f"{n.module}.{a.name}" for a in n.names}
    return out


def collect_tests(tests_dir: Path = ROOT / "tests") -> list[Test]:
    """Every test function with the identifiers it (and the helpers and module names it uses) mentions."""
    out = []
    for path in sorted(tests_dir.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imports = _imports(tree)
        top: dict[str, set[str]] = {}  # module-level helper / constant -> identifiers
        tests: list[tuple[str, ast.AST]] = []
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                (tests.append((node.name, node)) if node.name.startswith("test") else None)
                top[node.name] = _identifiers(node)
            elif isinstance(node, ast.ClassDef):
                top[node.name] = _identifiers(node)
                if node.name.startswith("Test"):
                    tests += [(f"{node.name}::{f.name}", f) for f in node.body
                              if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name.startswith("test")]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            top[n.id] = top.get(n.id, set()) | _identifiers(node.value or t)
        for name, node in tests:
            seen, todo = set(), list(_identifiers(node))
            while todo:
                ident = todo.pop()
                if ident in seen:
                    continue
                seen.add(ident)
                todo += [i for i in top.get(ident, ()) if i not in seen]
            doc = ast.get_docstring(node) or ""
            out.append(Test(f"tests/{path.name}::{name}", seen, f"{name}\n{doc}", imports))
    return out


_NAME_KIND = {"Thm": "thm|theorem", "Lemma": "lemma", "Prop.": "prop|proposition", "Property": "property",
              "Cor.": "cor|corollary", "Remark": "remark", "Def.": "def", "Assumption": "assumption",
              "Alg.": "alg|algorithm", "eq.": "eq", "Table": "table|tables", "Fig.": "fig|figure", "App.": "app"}


def test_cites(test: Test, result: Result) -> bool:
    """Whether a test's docstring or name names the result (used to list the most relevant tests first)."""
    if any((r.kind, r.label) == (result.kind, result.label) for r in citations(test.text, None)):
        return True
    name = test.id.rsplit("::", 1)[-1].lower()
    lab = result.label.replace(".", "").lower()
    return re.search(rf"(?:^|_)(?:{_NAME_KIND[result.kind]})_?{re.escape(lab)}(?:_|$)", name) is not None


# ------------------------------------------------------------------------------------------- claims
def _script_order(verify_dir: Path) -> list[str]:
    main = verify_dir / "__main__.py"
    if main.exists():
        for node in ast.walk(ast.parse(main.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SCRIPTS" for t in node.targets):
                return [e.id for e in getattr(node.value, "elts", []) if isinstance(e, ast.Name)]
    return sorted(p.stem for p in verify_dir.glob("*.py") if not p.stem.startswith("_"))


def claims_by_script(verify_dir: Path = ROOT / "verify", claims_file: Path = ROOT / "figures" / "claims.json"):
    """``(claims, owner, scripts)``: the claims, the script of each claim id, each script's (identifiers, imports)."""
    if not claims_file.exists():
        return [], {}, {}
    claims = json.loads(claims_file.read_text(encoding="utf-8"))
    order = _script_order(verify_dir)
    frags, idents, sources = {}, {}, {}
    for name in order:
        path = verify_dir / f"{name}.py"
        if not path.exists():
            continue
        sources[name] = path.read_text(encoding="utf-8")
        tree = ast.parse(sources[name])
        idents[name] = (_identifiers(tree), _imports(tree))
        frags[name] = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value}
    seq = []
    for c in claims:
        best = {s: max((len(f) for f in fs if c["id"].startswith(f)), default=0) for s, fs in frags.items()}
        top = max(best.values(), default=0)
        seq.append(min((s for s, v in best.items() if v == top), key=order.index) if top else None)
    owner = {}
    for i, c in enumerate(claims):
        s = seq[i]
        if s is None:
            prev = next((seq[j] for j in range(i - 1, -1, -1) if seq[j]), order[0] if order else None)
            nxt = next((seq[j] for j in range(i + 1, len(seq)) if seq[j]), order[-1] if order else None)
            lo, hi = (order.index(prev), order.index(nxt)) if prev in order and nxt in order else (0, len(order) - 1)
            head = c["id"].split(".")[0]
            cands = [order[k] for k in range(min(lo, hi), max(lo, hi) + 1) if head in sources.get(order[k], "")]
            s = cands[-1] if cands else nxt
        owner[c["id"]] = s
    return claims, owner, idents


def compress(ids: list[str], limit: int = 3) -> str:
    """Claim ids grouped by their first two segments: ``fig1.ratio.* (11)``."""
    groups: dict[str, list[str]] = defaultdict(list)
    for i in ids:
        groups[".".join(i.split(".")[:2])].append(i)
    parts = [g[0] if len(g) == 1 else f"`{k}.*` ({len(g)})" for k, g in sorted(groups.items())]
    parts = [p if p.startswith("`") else f"`{p}`" for p in parts]
    return ", ".join(parts[:limit]) + (f" (+{len(parts) - limit} groups)" if len(parts) > limit else "")


# ------------------------------------------------------------------------------------------- index
@dataclass(repr=False)
class Index:
    rows: dict  # Result -> list of (Function, [Test], [claim ids])
    functions: list[Function]
    tests: list[Test]
    claims: list[dict]
    errors: dict[str, str]

    def __repr__(self) -> str:
        return f"Index({len(self.rows)} cited results, {len(self.functions)} functions, {len(self.tests)} tests)"

    def gaps(self) -> list[Result]:
        """Cited results none of whose citing functions has a test."""
        return sorted((r for r, fs in self.rows.items() if not any(t for _, t, _ in fs)), key=Result.sort_key)


def build(package: str = "dptheory") -> Index:
    funcs, errors = public_functions(package)
    tests = collect_tests()
    claims, owner, script_idents = claims_by_script()
    by_ident: dict[str, list[Test]] = defaultdict(list)
    for t in tests:
        for i in t.idents:
            by_ident[i].append(t)
    claim_cites = {c["id"]: {(r.kind, r.label) for r in citations(c.get("where", ""), None)} for c in claims}
    claim_seed = {c["id"]: (SEED_MENTION.search(c.get("paper", "")) or [None, None])[1] for c in claims}
    rows: dict[Result, list] = defaultdict(list)
    for f in funcs:
        ftests = [t for t in by_ident.get(f.short, []) if t.imports & f.reachable_from]
        scripts = {s for s, (ids, imps) in script_idents.items() if f.short in ids and imps & f.reachable_from}
        for r in dict.fromkeys(f.cites):
            cl = sorted(cid for cid, s in owner.items() if s in scripts and claim_seed[cid] == r.seed
                        and (r.kind, r.label) in claim_cites[cid])
            rows[r].append((f, ftests, cl))
    return Index(dict(rows), funcs, tests, claims, errors)


SEED_TITLES = {
    "000": "Kairouz et al., *Practical and Private (Deep) Learning without Sampling or Shuffling* (ICML 2021)",
    "001": "van Dijk et al., *Proactive DP* (ICML 2024)",
    "002": "Lowy & Razaviyayn, *Private Federated Learning Without a Trusted Server* (ICLR 2023)",
    "003": "McMahan, Xu, Zhang, *… Don't Use Tree Aggregation, Use BLTs* (arXiv 2408.08868)",
    "004": "Choquette-Choo et al., *Correlated Noise Provably Beats Independent Noise* (ICLR 2024)",
}


def _tests_cell(tests: list[Test], r: Result, limit: int = 3) -> str:
    if not tests:
        return "**none**"
    ranked = sorted(tests, key=lambda t: (not test_cites(t, r), t.id))
    shown = ", ".join(f"`{t.id.removeprefix('tests/')}`" for t in ranked[:limit])
    return f"{len(tests)}: {shown}" + (" …" if len(tests) > limit else "")


def render(ix: Index) -> str:
    results = sorted(ix.rows, key=Result.sort_key)
    cited_funcs = {f.name for fs in ix.rows.values() for f, _, _ in fs}
    used_tests = {t.id for fs in ix.rows.values() for _, ts, _ in fs for t in ts}
    used_claims = {c for fs in ix.rows.values() for _, _, cl in fs for c in cl}
    lines = [
        "# Theorem index: paper × result → function → tests → claims",
        "",
        "Generated by `python docs/theorem_index.py` from `dptheory` (this checkout); do not edit by hand.",
        "`tests/test_theorem_index.py` fails when this file differs from what the script generates now,",
        "and when a cited result has no function with a test that is not in its list of known gaps.",
        "",
        f"**{len(results)} cited results** ({sum(r.seed is not None for r in results)} attributed to a paper) in the docstrings of "
        f"**{len(cited_funcs)} public functions** (of {len(ix.functions)} indexed); **{len(used_tests)} tests** exercise them "
        f"(of {len(ix.tests)}); **{len(used_claims)} claims** of `figures/claims.json` (of {len(ix.claims)}) check them; "
        f"**{len(ix.gaps())} gaps**.",
        "",
        "How to read a row: the function's docstring cites the result; *tests* counts the tests that mention the",
        "function (those naming the result in their name or docstring first); *claims* are the `make verify` claims",
        "whose `where` cites the result and whose script uses the function (`prefix.*` (n) groups n ids).",
        "The citation grammar, the seed rules and how tests and claims are matched are in the docstring of",
        "`docs/theorem_index.py`. Errata of the printed results: [errata.md](errata.md).",
        "",
    ]
    if ix.errors:
        lines += ["## Modules that failed to import", "", "| module | error |", "|---|---|"]
        lines += [f"| `{m}` | {e.replace('|', '/')} |" for m, e in sorted(ix.errors.items())] + [""]
    for seed in sorted({r.seed for r in results}, key=lambda s: s or "~"):
        title = f"## Seed {seed} — {SEED_TITLES.get(seed, '')}" if seed else "## Unattributed (no seed in the docstring or its module)"
        lines += [title, "", "| result | function | tests | claims |", "|---|---|---|---|"]
        for r in (x for x in results if x.seed == seed):
            for k, (f, ts, cl) in enumerate(sorted(ix.rows[r], key=lambda e: e[0].name)):
                lines.append(f"| {str(r) if k == 0 else '〃'} | `{f.name.removeprefix('dptheory.')}` | "
                             f"{_tests_cell(ts, r)} | {compress(cl) if cl else ''} |")
        lines.append("")
    gaps = ix.gaps()
    lines += ["## Gaps: cited results with no tested function", ""]
    lines += ([f"- seed {g.seed or '?'} {g}: " + ", ".join(f"`{f.name.removeprefix('dptheory.')}`" for f, _, _ in ix.rows[g])
               for g in gaps] or ["None."])
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/theorem_index.md is out of date")
    args = ap.parse_args(argv)
    if str(ROOT) not in sys.path:  # run as a script, sys.path[0] is docs/: index the checkout this file belongs to
        sys.path.insert(0, str(ROOT))
    text = render(build())
    if args.check:
        ok = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print("docs/theorem_index.md is up to date" if ok else "docs/theorem_index.md is out of date: run python docs/theorem_index.py")
        return 0 if ok else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
