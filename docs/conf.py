"""Sphinx configuration of the dptheory documentation site: ``make docs`` builds it into docs/_build/html.

The site is the Markdown pages of docs/ (MyST), an API reference generated from the docstrings (numpydoc,
autosummary) and the latest verification report (figures/REPORT.md with figures/*.png). CI builds it with
warnings as errors (``-W --keep-going``), so a broken reference or a public function without a numpydoc
docstring fails the build: the docstring checks are the codes of ``docs/api_inventory.py`` that
``tests/test_docstrings.py`` enforces.

Importing this file is cheap (pytest imports docs/*.py): the package is imported only when Sphinx runs the
handlers of :func:`setup`.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
if str(DOCS) not in sys.path:  # docs/api_inventory.py: the public API and docstring checks, shared with the tests
    sys.path.insert(0, str(DOCS))

import api_inventory  # noqa: E402
GENERATED = DOCS / "api" / "generated"  # autosummary's stubs (git-ignored; written by every build)


# -- project -----------------------------------------------------------------------------------------------------
project = "dptheory"
author = "the dptheory authors"
copyright = "the dptheory authors"
release = re.search(r'^__version__ = "([^"]+)"', (ROOT / "dptheory" / "__init__.py").read_text(encoding="utf-8"), re.M)[1]
version = release

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",  # the reader's browser loads MathJax from its CDN (Sphinx's default); offline, the TeX shows
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}  # autosummary writes .rst stubs
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "_templates", "Thumbs.db", ".DS_Store"]
# every :func:/:class:/:meth: reference must resolve (a broken one fails the -W build); a name the package re-exports
# or a name relative to its module resolves to the page of the object it names (_resolve_by_import); numpydoc's
# type names in Parameters sections ("float", "array_like") are plain text, not references
nitpicky = True
default_role = "obj"  # `name` in a docstring is a cross-reference, as numpydoc writes it

# -- MyST (the Markdown pages) -----------------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 4  # [text](page.md#a-heading) resolves for headings down to ####

# -- the API reference -------------------------------------------------------------------------------------------
autosummary_generate = True
autosummary_context: dict = {}  # the members of every class, filled when Sphinx starts (_write_api)
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # the numpydoc Parameters sections carry the types; signatures stay readable
autoclass_content = "class"
add_module_names = False

numpydoc_validation_checks = set(api_inventory.CHECKS)
numpydoc_show_class_members = False  # the class template lists the methods and properties (documented once)
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# -- HTML --------------------------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"dptheory {release}"
html_static_path = ["_static"]
html_css_files = ["dptheory.css"]
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_depth": 3,
    "collapse_navigation": True,  # the sidebar opens the current page's path only: 400 API pages, each a third the size
    "show_nav_level": 1,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
#: Pages of wide tables (eight columns of ids and numbers; lists of test ids): no navigation column beside them,
#: and the article takes the page's width (docs/_static/dptheory.css, keyed on the marker _wide_page inserts).
WIDE_PAGES = ("report", "theorem_index")
html_sidebars = {page: [] for page in WIDE_PAGES}


# -- build-time handlers -----------------------------------------------------------------------------------------
#: The top-level modules of the API reference's index, by group; a public module in none of them is listed under
#: "Other modules" (tests/test_docs_site.py checks that every public module has its page).
API_GROUPS = {
    "The package face": ["dptheory"],
    "The shared layer: mechanisms, privacy, problems, theory, simulation": [
        "dptheory.mechanisms", "dptheory.accounting", "dptheory.problems", "dptheory.suboptimality", "dptheory.iqc",
        "dptheory.simulation", "dptheory.comparison", "dptheory.rates", "dptheory.stats", "dptheory.special",
        "dptheory.symbolic", "dptheory.backend",
    ],
    "The papers": ["dptheory.treeagg", "dptheory.proactive", "dptheory.isrl", "dptheory.blt"],
    "Claims, hypotheses and golden values": ["dptheory.claims", "dptheory.hypotheses", "dptheory.data"],
    "The command line": ["dptheory.cli"],
}


def _assigned(module) -> set[str]:
    """Names a module's own source assigns at top level (its data; a ``from x import y`` is not one)."""
    import inspect

    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return set()
    out = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        for target in targets:
            out |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return out


def public_api() -> dict[str, dict]:
    """For each public module: its public submodules, the functions, classes and data it defines, and the names it
    re-exports (each as the dotted name where it is defined); for each class it defines, the methods and properties
    the reference documents, which are those tests/test_docstrings.py validates. Public names are ``__all__``, or
    the names without a leading ``_`` of a module that has none."""
    import importlib
    import inspect

    modules = api_inventory.public_modules()
    loaded = {name: importlib.import_module(name) for name in modules}
    assigned = {name: _assigned(module) for name, module in loaded.items()}

    def data_definer(name, obj):  # the deepest public module that assigns the name to this very object
        found = [m for m in modules if name in assigned[m] and getattr(loaded[m], name, None) is obj]
        return max(found, key=lambda m: m.count("."), default=None)

    api: dict[str, dict] = {}
    for modname, module in loaded.items():
        names = api_inventory.public_names(module)
        info = {"submodules": [m for m in modules if m.rpartition(".")[0] == modname],
                "functions": [], "classes": [], "data": [], "reexports": []}
        for name in names:
            obj = getattr(module, name)
            if inspect.ismodule(obj):
                continue
            if inspect.isclass(obj) or api_inventory.is_function(obj):
                where = getattr(obj, "__module__", None)
                if where == modname:
                    info["classes" if inspect.isclass(obj) else "functions"].append(name)
                elif where in loaded:
                    info["reexports"].append(f"{where}.{obj.__qualname__}")
            elif data_definer(name, obj) == modname:
                info["data"].append(name)
            elif (where := data_definer(name, obj)) is not None:
                info["reexports"].append(f"{where}.{name}")
        api[modname] = info
        for name in info["classes"]:
            api[f"{modname}.{name}"] = {"members": api_inventory.class_members(getattr(module, name))}
    return api


_SUMMARIES: dict[str, str] = {}  # module -> _summary, computed before Sphinx reads a page (its roles need a page)


def _summary(modname: str) -> str:
    """The first sentence of a module's docstring (as autosummary's tables take it)."""
    import importlib

    if modname in _SUMMARIES:
        return _SUMMARIES[modname]
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from sphinx.ext.autosummary import extract_summary

    doc = importlib.import_module(modname).__doc__ or ""
    return _SUMMARIES.setdefault(modname, extract_summary(doc.strip().splitlines(), get_default_settings(Parser)) or " ")


def _rst_list_table(rows: list[tuple[str, str]]) -> list[str]:
    out = [".. list-table::", "   :widths: 30 70", "   :class: autosummary longtable", ""]
    for name, text in rows:
        out += [f"   * - {name}", f"     - {text}"]
    return out + [""]


def _module_page(modname: str, info: dict, top_level: bool) -> str:
    """The reST page of one module: its docstring, its submodules, tables of its functions and classes (each with
    its own page), the names it re-exports (linked to where they are documented) and its data."""
    lines = [modname, "=" * len(modname), "", f".. automodule:: {modname}", "", f".. currentmodule:: {modname}", ""]

    def section(title):
        lines.extend([title, "-" * len(title), ""])

    if info["submodules"]:
        section("Modules")
        lines += _rst_list_table([(f":mod:`~{m}`", _summary(m)) for m in info["submodules"]])
        if not top_level:  # the top-level modules are in the API index's toctree
            lines += [".. toctree::", "   :hidden:", ""] + [f"   {m}" for m in info["submodules"]] + [""]
    for kind, title in (("functions", "Functions"), ("classes", "Classes")):
        if info[kind]:
            section(title)
            lines += [".. autosummary::", "   :toctree:", ""] + [f"   {name}" for name in info[kind]] + [""]
    if info["reexports"]:
        section("Re-exported here")
        lines += [f"Documented in the module that defines them; ``{modname}.NAME`` is the same object.", "",
                  ".. autosummary::", ""]
        # autosummary wants a name inside the current module relative to it
        lines += [f"   ~{name.removeprefix(modname + '.')}" for name in info["reexports"]] + [""]
    if info["data"]:
        section("Data")
        lines += [f".. autodata:: {name}\n   :no-value:\n" for name in info["data"]]
    return "\n".join(lines) + "\n"


def _write_api(app, config) -> None:
    """Write docs/api/generated/<module>.rst for every public module (autosummary then writes a page per function
    and class from their tables) and drop the pages of objects that no longer exist. The module pages are not
    autosummary's: a package attribute may hide a submodule of the same name (``dptheory.mechanisms.toeplitz``,
    the function, hides the module), and autosummary would document the attribute."""
    api = public_api()
    config.autosummary_context = {**config.autosummary_context, "api": api}  # the class template reads "members"
    for modname in api:
        if "submodules" in api[modname]:
            _summary(modname)
    GENERATED.mkdir(parents=True, exist_ok=True)
    pages = {}
    for modname, info in api.items():
        if "submodules" in info:
            pages[modname] = _module_page(modname, info, top_level=modname == "dptheory")
            pages.update({f"{modname}.{name}": None for name in info["functions"] + info["classes"]})
    for path in GENERATED.glob("*.rst"):
        if path.stem not in pages:
            path.unlink()
    for name, text in pages.items():
        path = GENERATED / f"{name}.rst"
        if text is not None and (not path.exists() or path.read_text(encoding="utf-8") != text):
            path.write_text(text, encoding="utf-8")  # unchanged pages keep their time: an incremental build skips them


def _api_index_source(app, docname, source) -> None:
    """docs/api/index.md: the top-level modules by group (:data:`API_GROUPS`), with their summaries."""
    if docname != "api/index":
        return
    modules = [m for m in api_inventory.public_modules() if m.count(".") <= 1]
    grouped = {title: [m for m in names if m in modules] for title, names in API_GROUPS.items()}
    grouped["Other modules"] = [m for m in modules if not any(m in names for names in grouped.values())]
    text = []
    for title, names in grouped.items():
        if names:
            text += [f"## {title}", "", "```{eval-rst}"] + _rst_list_table([(f":mod:`{m}`", _summary(m)) for m in names])
            text += [".. toctree::", "   :hidden:", ""] + [f"   generated/{m}" for m in names] + ["```", ""]
    source[0] = source[0].replace("<!-- the modules, by group -->", "\n".join(text))


def _dataclass_attributes_ok(app) -> None:
    """Make the build's numpydoc validation apply ``api_inventory.without_documented_fields``."""
    import numpydoc.numpydoc

    validate = numpydoc.numpydoc.validate
    if getattr(validate, "_dptheory", False):
        return

    def validate_with_documented_fields(doc, *args, **kwargs):
        report = validate(doc, *args, **kwargs)
        report["errors"] = api_inventory.without_documented_fields(getattr(doc, "_obj", None), report["errors"])
        return report

    validate_with_documented_fields._dptheory = True
    numpydoc.numpydoc.validate = validate_with_documented_fields


FIGURES = ROOT / "figures"


def _figure_captions() -> dict[str, str]:
    """``{figure file: caption}``: the paragraph of the docstring of the verify script that writes the figure which
    names it, else that docstring's first paragraph, and the script's name."""
    captions = {}
    for script in sorted((ROOT / "verify").glob("*.py")):
        source = script.read_text(encoding="utf-8")
        paragraphs = [" ".join(p.split()) for p in (ast.get_docstring(ast.parse(source)) or "").split("\n\n") if p.strip()]
        prefixes = re.findall(r'f"(\w+)\{[^}"]*\}\.png"', source)  # f"seed003_{name}.png": named by a prefix and a value
        for png in sorted(FIGURES.glob("*.png")):
            if f'"{png.name}"' in source or (png.name not in captions and any(png.stem.startswith(p) for p in prefixes)):
                text = next((p for p in paragraphs if png.name in p), paragraphs[0] if paragraphs else "")
                text = re.sub(r":\w+:`~?([^`]+)`", r"`\1`", text)  # a reST role, in a Markdown caption
                captions[png.name] = f"{text} (`verify/{script.name}`)"
    return captions


def _report_source(app, docname, source) -> None:
    """docs/report.md is figures/REPORT.md, with every figure of figures/ after its summary."""
    if docname != "report":
        return
    report = FIGURES / "REPORT.md"
    app.env.note_dependency(str(report))
    text = report.read_text(encoding="utf-8")
    head, sep, body = text.partition("\n## ")
    captions = _figure_captions()
    gallery = ["", "## Figures", "", "Written by `make verify` into `figures/` with the claims below; under each figure, what "
               "it shows and the script that draws it.", ""]
    for png in sorted(FIGURES.glob("*.png")):
        app.env.note_dependency(str(png))
        caption = captions.get(png.name, "")
        gallery += [f"### {png.stem}", "", f":::{{figure}} ../figures/{png.name}", f":alt: {png.stem}", ":width: 100%", "",
                    caption, ":::", ""]
    text = head + "\n" + "\n".join(gallery) + sep + body
    source[0] = source[0].replace("<!-- figures/REPORT.md -->", text)


def _wide_page(app, docname, source) -> None:
    """Mark a page of :data:`WIDE_PAGES` for docs/_static/dptheory.css (after its title: the title stays first)."""
    if docname in WIDE_PAGES:
        source[0] = re.sub(r"^# .*$", lambda m: m[0] + '\n\n<div class="dptheory-wide"></div>\n', source[0], count=1, flags=re.M)


_HTML_ANCHOR = re.compile(r'\s*<a id="([^"]+)">(</a>)?\s*')


def _html_anchors_as_targets(document) -> None:
    """``<a id="X"></a>`` in a Markdown page (the errata's anchors, which tests/test_theorem_index.py reads) becomes a
    docutils target, so that ``[text](errata.md#X)`` and ``[text](#X)`` resolve as references, not as raw HTML."""
    from docutils import nodes
    from docutils.nodes import fully_normalize_name

    for raw in list(document.findall(nodes.raw)):
        match = _HTML_ANCHOR.fullmatch(raw.astext()) if "html" in raw.get("format", "").split() else None
        if match is None:
            continue
        target = nodes.target("", "", ids=[match[1]], names=[fully_normalize_name(match[1])])
        closing = raw.next_node(descend=False, siblings=True)
        if match[2] is None and isinstance(closing, nodes.raw) and closing.astext().strip() == "</a>":
            closing.parent.remove(closing)
        raw.replace_self(target)
        document.note_explicit_target(target)


def _import_object(path: str):
    """The object a dotted path names (a module, then attributes), or ``None``."""
    import importlib

    parts = path.split(".")
    if not all(parts):  # "", "a..b"
        return None
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for part in parts[i:]:
                obj = getattr(obj, part)
        except AttributeError:
            return None
        return obj
    return None


def _canonical(path: str) -> str | None:
    """Where the object named by ``path`` is defined: ``module.qualname`` (a class attribute: its class's, then the
    attribute), or ``None`` if ``path`` names nothing importable."""
    import inspect

    obj = _import_object(path)
    if obj is None:
        return None
    if inspect.ismodule(obj):
        return obj.__name__
    if inspect.isclass(obj) or api_inventory.is_function(obj):
        return f"{obj.__module__}.{obj.__qualname__}"
    owner, _, attr = path.rpartition(".")
    owner_obj = _import_object(owner)
    if inspect.isclass(owner_obj):  # a method, property or class attribute
        return f"{owner_obj.__module__}.{owner_obj.__qualname__}.{attr}"
    return path  # module-level data: documented where its module assigns it


def _instance_attribute(cls, attr: str) -> bool:
    """Whether instances of the class ``cls`` have ``attr``: a dataclass field, or set as ``self.attr`` in its source."""
    import dataclasses
    import inspect

    if not inspect.isclass(cls):
        return False
    if dataclasses.is_dataclass(cls) and attr in {f.name for f in dataclasses.fields(cls)}:
        return True
    if any(attr in getattr(klass, "__annotations__", {}) for klass in cls.__mro__):  # declared, e.g. ``expr: sp.Expr``
        return True
    try:
        return re.search(rf"\bself\.{re.escape(attr)}\s*(:[^=]*)?=[^=]", inspect.getsource(cls)) is not None
    except (OSError, TypeError):
        return False


_SUFFIXES: dict[str, set[str]] = {}


def _by_suffix(name: str) -> set[str]:
    """The public objects (``api_inventory.public_objects``) whose dotted name ends with ``.name``."""
    if not _SUFFIXES:
        for full in api_inventory.public_objects():
            parts = full.split(".")
            for i in range(1, len(parts)):
                _SUFFIXES.setdefault(".".join(parts[i:]), set()).add(full)
    return _SUFFIXES.get(name, set())


def _resolve_by_import(app, env, node, contnode):
    """Resolve a Python reference Sphinx could not: the package's lazy re-exports (``dptheory.F_inf`` is
    ``dptheory.suboptimality.F_inf``) and names relative to the current module or class reach the page of the
    object they name, or its nearest documented owner (a dataclass field or instance attribute: its class; module
    data: its module); a bare name that exactly one public object of the package ends with resolves to it. A reference to a private name (a component starting with ``_``) or to an object outside the
    package (``enum.Enum``; there is no intersphinx without a network) renders as code, without a link. A name that
    imports as nothing stays unresolved, and the nitpicky build fails on it."""
    import inspect

    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip(".~")
    module, cls = node.get("py:module"), node.get("py:class")
    candidates = [target]
    if module:
        candidates = ([f"{module}.{cls}.{target}"] if cls else []) + [f"{module}.{target}", target]
    domain = env.get_domain("py")
    unique = _by_suffix(target)
    if len(unique) == 1:  # a bare name that one public object of the package has, wherever the reference stands
        candidates.append(next(iter(unique)))
    for path in candidates:
        canonical = _canonical(path)
        owner, _, attr = path.rpartition(".")
        if canonical is None and _instance_attribute(_import_object(owner), attr):
            canonical = f"{_canonical(owner)}.{attr}"
        if canonical is None:
            continue
        if not canonical.startswith("dptheory") or any(p.startswith("_") for p in canonical.split(".")):
            return contnode
        # the object's own entry, else the nearest documented owner: a dataclass field or an instance attribute
        # (documented in its class's Attributes section) links to its class, module-level data to its module
        parts = canonical.split(".")
        for i in range(len(parts), 1, -1):
            for role in ("obj", "mod"):
                found = domain.resolve_xref(env, node["refdoc"], app.builder, role, ".".join(parts[:i]), node, contnode)
                if found is not None:
                    return found
    return None


def setup(app):
    import sphinx.ext.autosummary
    from sphinx.transforms import SphinxTransform

    # a summary (the first sentence) does not end at the papers' abbreviations: "(seed 004, eq. 4)", "App. B", "Thm. 2"
    sphinx.ext.autosummary.WELL_KNOWN_ABBREVIATIONS = (
        *sphinx.ext.autosummary.WELL_KNOWN_ABBREVIATIONS, "eq.", "Eq.", "Eqs.", "App.", "Alg.", "Thm.", "Fig.", "Figs.",
        "Sec.", "Prop.", "Cor.", "Lem.", "Def.", "Ex.", "cf.",
    )
    app.connect("config-inited", _write_api)
    app.connect("source-read", _api_index_source)
    app.connect("builder-inited", _dataclass_attributes_ok)
    app.connect("missing-reference", _resolve_by_import)
    app.connect("source-read", _report_source)
    app.connect("source-read", _wide_page, priority=600)  # after the report's text is in

    class HtmlAnchors(SphinxTransform):
        default_priority = 800  # before the std domain collects the labels (SphinxDomains, 850)

        def apply(self, **kwargs):
            _html_anchors_as_targets(self.document)

    app.add_transform(HtmlAnchors)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
