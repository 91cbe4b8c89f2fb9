r"""Rewrite references to the digests into references to ``docs/errata.md``.

The code cites the reviewed digests of the five papers ("digest 004 §10.3", "digest 001 §7 #1", "digest C10",
"digest §8 #17"). The digests are not part of the repository; ``docs/errata.md`` carries, for every cited
section, the erratum or claim itself, under an anchor named after the digest numbering. This script turns

    digest 004 §10.3     ->  errata 004 §10.3
    digest §8 #17        ->  errata 002 §8 #17      (seed supplied from the file, see below)
    digest C10           ->  errata 002 C10

and leaves everything after the locator untouched ("digest 004 §6 and §10.11" -> "errata 004 §6 and §10.11").

Usage (from the repository root)::

    python docs/rewrite_digest_refs.py                 # dry run over dptheory/ verify/ tests/ docs/ README.md
    python docs/rewrite_digest_refs.py --write         # rewrite those files in place
    python docs/rewrite_digest_refs.py --write FILE…   # only the given files / folders

The dry run prints every planned change, every reference whose seed had to be guessed, every reference
without a target in ``docs/errata.md``, and every other occurrence of the word "digest" in prose
("the digest's printed digits"), which no mechanical rule can rewrite and is left for a person.

Reference grammar (what is rewritten)::

    ref     := ("digest" | "errata") [" " seed] " " loc { sep loc }
    seed    := "000" | "001" | "002" | "003" | "004"
    loc     := "§" N{"." N}[a-z] [" #" item ["–" ["#"] item]]    section, subsection or list item
             | "C" N ["–" ["C"] N]                                 checkable claim (digests 002, 003)
             | "#" item ["–" ["#"] item]                           item of the section named before
    sep     := ", " | " and " | "/" | ", end of "

Digest sections that are numbered lists (000 §5 §7, 001 §7 §9, 002 §6 §8, 003 §5 §7, 004 §8 §10) are
cited both as "§10.3" and as "§10 #3"; both mean item 3 and share the anchor ``004-s10-3``.
Anchors (:func:`anchor`): ``{seed}-s{section}`` (``004-s5.2``, ``001-s3.11a``), ``{seed}-s{section}-{item}``
(``004-s8-23b``) and ``{seed}-C{n}`` (``002-C10``).

Seed of a reference without one: the only seed the file names ("seed 004", "digest 004", "notes/004.md");
if the file names several, the package of the path (``proactive`` -> 001, ``isrl`` -> 002) when that is
one of them, else the nearest preceding mention (reported as a guess); if the file names none, the path
rule or nothing (reported as unresolved, left unchanged).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TARGETS = ("dptheory", "verify", "tests", "docs", "README.md")
ERRATA = ROOT / "docs" / "errata.md"
SKIP = {"errata.md", "rewrite_digest_refs.py"}  # they talk about the digests on purpose
SUFFIXES = {".py", ".md", ".rst", ".txt", ".toml", ".cfg"}

#: digest sections that are numbered lists: "§S.T" there means item T of §S ("§S #T")
ITEM_SECTIONS = {"000": {"5", "7"}, "001": {"7", "9"}, "002": {"6", "8"}, "003": {"5", "7"}, "004": {"8", "10"}}
SEEDS = tuple(ITEM_SECTIONS)
PATH_SEED = (("proactive", "001"), ("isrl", "002"))

_ITEM = r"\d+[a-z]?"
_RANGE = rf"(?:\s?[–-]\s?#?{_ITEM})?"
LOC = rf"(?:§\s?\d+(?:\.\d+)*[a-z]?(?:\s?#{_ITEM}{_RANGE})?|C\d+(?:\s?[–-]\s?C?\d+)?|#{_ITEM}{_RANGE})"
SEP = r"(?:,\s(?:end\ of\s)?|\sand\s|/)"
REF = re.compile(rf"\b(?P<word>[Dd]igest|[Ee]rrata)(?:\s(?P<seed>00[0-4]))?\s(?P<locs>{LOC}(?:{SEP}{LOC})*)")
SEED_MENTION = re.compile(r"(?:[Ss]eeds?|[Dd]igest|[Ee]rrata|notes/)\s?(00[0-4])\b")
PROSE = re.compile(r"\b[Dd]igest(?!s?\w)(?![_.(\[=])")


def anchor(seed: str, loc: str, section: str | None = None) -> str:
    """The anchor of one locator in ``docs/errata.md``; ``section`` is the section a bare ``#item`` belongs to."""
    loc = re.sub(r"\s", "", loc)
    if loc.startswith("C"):
        return f"{seed}-{loc}"
    m = re.fullmatch(r"§(\d+(?:\.\d+)*[a-z]?)(?:#(\w+))?", loc)
    if m is None:
        m2 = re.fullmatch(r"#(\w+)", loc)
        if m2 is None or section is None:
            raise ValueError(f"not a locator: {loc!r}")
        return f"{seed}-s{section}-{m2.group(1)}"
    sec, item = m.groups()
    head, _, rest = sec.partition(".")
    if item is None and rest and head in ITEM_SECTIONS[seed] and re.fullmatch(r"\d+[a-z]?", rest):
        sec, item = head, rest  # "§10.3" in a list section is item 3
    return f"{seed}-s{sec}" + (f"-{item}" if item else "")


def _expand(seed: str, loc: str, section: str | None) -> list[str]:
    """Every anchor a locator names (ranges expanded)."""
    loc = re.sub(r"\s", "", loc)
    m = re.fullmatch(r"(§[\d.a-z]+)?#(\d+)[–-]#?(\d+)", loc)
    if m:
        sec = m.group(1)[1:] if m.group(1) else section
        return [anchor(seed, f"#{i}", sec) for i in range(int(m.group(2)), int(m.group(3)) + 1)]
    m = re.fullmatch(r"C(\d+)[–-]C?(\d+)", loc)
    if m:
        return [f"{seed}-C{i}" for i in range(int(m.group(1)), int(m.group(2)) + 1)]
    return [anchor(seed, loc, section)]


def anchors_of(seed: str, locs: str) -> list[str]:
    """Anchors of the locator list of one reference (``"§8 #1–#7, #33"`` -> ``004-s8-1`` … ``004-s8-33``)."""
    out, section = [], None
    for loc in re.findall(LOC, locs):
        out += _expand(seed, loc, section)
        m = re.match(r"§\s?(\d+)", loc)
        if m:
            section = m.group(1)
    return out


def _replacement(m: re.Match, seed: str) -> str:
    """``errata`` in place of ``digest`` (capital kept), the seed inserted if missing, all spacing kept."""
    word, rest = m.group("word"), m.group(0)[len(m.group("word")):]
    new = ("E" if word[0].isupper() else "e") + "rrata"
    return new + (rest if m.group("seed") else f" {seed}{rest}")


@dataclass
class Ref:
    path: Path
    line: int
    text: str  # the matched reference
    seed: str | None
    how: str  # "explicit", "file", "path", "guess", "unresolved"
    replacement: str | None
    anchors: list[str]


def file_seed(path: Path, text: str, pos: int) -> tuple[str | None, str]:
    """The seed of an un-numbered reference at ``pos`` and how it was found."""
    named = sorted(set(SEED_MENTION.findall(text)))
    by_path = next((s for part, s in PATH_SEED if part in path.as_posix()), None)
    if len(named) == 1:
        return named[0], "file"
    if not named:
        return (by_path, "path") if by_path else (None, "unresolved")
    if by_path in named:
        return by_path, "path"
    before = [m.group(1) for m in SEED_MENTION.finditer(text, 0, pos)]
    return (before[-1], "guess") if before else (None, "unresolved")


def scan(path: Path) -> tuple[list[Ref], list[tuple[int, str]]]:
    """References in one file, and the other prose uses of "digest" (line, text)."""
    text = path.read_text(encoding="utf-8")
    refs, spans = [], []
    for m in REF.finditer(text):
        word, seed, locs = m.group("word"), m.group("seed"), m.group("locs")
        how = "explicit" if seed else None
        if seed is None:
            seed, how = file_seed(path, text, m.start())
        replacement = None if seed is None else _replacement(m, seed)
        refs.append(Ref(path, text.count("\n", 0, m.start()) + 1, m.group(0), seed, how,
                        replacement, anchors_of(seed, locs) if seed else []))
        spans.append(m.span())
    prose = [(text.count("\n", 0, m.start()) + 1, text[max(0, m.start() - 30):m.end() + 30].replace("\n", " "))
             for m in PROSE.finditer(text) if not any(a <= m.start() < b for a, b in spans)]
    return refs, prose


def files(targets) -> list[Path]:
    out = []
    for t in targets:
        p = (ROOT / t) if not Path(t).is_absolute() else Path(t)
        if p.is_dir():
            out += sorted(q for q in p.rglob("*") if q.suffix in SUFFIXES and q.name not in SKIP
                          and "__pycache__" not in q.parts)
        elif p.is_file() and p.name not in SKIP:
            out.append(p)
    return out


def errata_anchors(path: Path = ERRATA) -> set[str]:
    """Every ``<a id="…">`` of ``docs/errata.md``."""
    return set(re.findall(r'<a id="([^"]+)"', path.read_text(encoding="utf-8"))) if path.exists() else set()


def rewrite(path: Path) -> str:
    """The text of ``path`` with every resolvable reference rewritten (seeds resolved as :func:`scan` does)."""
    text = path.read_text(encoding="utf-8")

    def sub(m):
        seed = m.group("seed") or file_seed(path, text, m.start())[0]
        return m.group(0) if seed is None else _replacement(m, seed)
    return REF.sub(sub, text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="rewrite the files (default: dry run)")
    ap.add_argument("targets", nargs="*", default=DEFAULT_TARGETS)
    args = ap.parse_args(argv)
    known = errata_anchors()
    changed = missing = unresolved = 0
    for path in files(args.targets):
        refs, prose = scan(path)
        rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        for r in refs:
            if r.seed is None:
                unresolved += 1
                print(f"{rel}:{r.line}: UNRESOLVED seed, left as is: {r.text!r}")
                continue
            if r.replacement != r.text:
                changed += 1
                flag = {"guess": "  [seed guessed: check]", "path": "  [seed from the path]"}.get(r.how, "")
                print(f"{rel}:{r.line}: {r.text!r} -> {r.replacement!r}{flag}")
            for a in r.anchors:
                if a not in known:
                    missing += 1
                    print(f"{rel}:{r.line}: no anchor {a!r} in docs/errata.md for {r.text!r}")
        for line, ctx in prose:
            print(f"{rel}:{line}: prose mention (edit by hand): …{ctx}…")
        if args.write and any(r.replacement and r.replacement != r.text for r in refs):
            path.write_text(rewrite(path), encoding="utf-8")
    print(f"{changed} references {'rewritten' if args.write else 'to rewrite'}, {unresolved} unresolved, "
          f"{missing} without an anchor")
    return 1 if (unresolved or missing) else 0


if __name__ == "__main__":
    sys.exit(main())
