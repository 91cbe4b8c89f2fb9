"""The documentation site (issue 15): ``make docs`` builds, with warnings as errors, into pages a reader can use.

One build of the whole site (docs/, ``sphinx-build -W --keep-going -j auto``, about 40-60 s on 2 cores) into a
temporary folder, then checks on what it wrote:

* the build passes: no broken reference, no malformed docstring, no public object whose docstring fails the
  numpydoc checks of tests/test_docstrings.py (the same codes: both read ``CHECKS`` from docs/api_inventory.py);
* every public module has its page, and every public function, class, method and property that
  tests/test_docstrings.py validates is documented exactly once, in its defining module (the package's lazy
  re-exports link there instead of documenting the object again);
* the verification report shows every figure of figures/, each an ``<img>`` of a file in the build;
* the errata's anchors (``<a id="004-s10-17">``) are reference targets that links from other pages reach;
* a function without a docstring, or with an undocumented parameter, fails a build with the site's settings,
  while a dataclass whose fields are documented under ``Attributes`` passes (a tiny build of a fake module).
"""

from __future__ import annotations

import collections
import importlib.util
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("numpydoc")
pytest.importorskip("myst_parser")
pytest.importorskip("pydata_sphinx_theme")

from test_docstrings import inventory  # noqa: E402  (docs/api_inventory.py: one definition of the public API)

CHECKS, public_modules, public_objects = inventory.CHECKS, inventory.public_modules, inventory.public_objects

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _sphinx(source: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", *extra,
         "-d", str(out / "doctrees"), str(source), str(out / "html")],
        capture_output=True, text=True, cwd=ROOT,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("docs")
    result = _sphinx(DOCS, out, "-j", "auto")
    assert result.returncode == 0, f"make docs fails (warnings are errors):\n{result.stdout}\n{result.stderr}"
    return out / "html"


def _conf():
    spec = importlib.util.spec_from_file_location("dptheory_docs_conf", DOCS / "conf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_enforces_the_docstring_checks():
    assert _conf().numpydoc_validation_checks == set(CHECKS)


def test_key_pages_exist(site):
    for page in ("index", "guide", "repl", "notation", "errata", "theorem_index", "report", "linear_regression_exact",
                 "api/index"):
        assert (site / f"{page}.html").is_file(), page
    api = site / "api" / "generated"
    for name in ("dptheory.suboptimality.F_inf", "dptheory.mechanisms.toeplitz.nu_ftrl",
                 "dptheory.accounting.zcdp.zcdp_to_epsilon", "dptheory.simulation.simulate", "dptheory.iqc.F_inf_bound",
                 "dptheory.proactive.closed_form.sigma_from_eps"):
        html = (api / f"{name}.html").read_text(encoding="utf-8")
        assert f'id="{name}"' in html, name
        assert "Parameters" in html and "Returns" in html, name
    mechanism = (api / "dptheory.mechanisms.base.Mechanism.html").read_text(encoding="utf-8")
    assert 'id="dptheory.mechanisms.base.Mechanism.sensitivity"' in mechanism
    # the module, not the function of the same name that the package exports in its place
    assert 'id="module-dptheory.mechanisms.toeplitz"' in (api / "dptheory.mechanisms.toeplitz.html").read_text(encoding="utf-8")


def test_every_public_object_is_documented_once_in_its_module(site):
    api = site / "api" / "generated"
    for module in public_modules():
        assert (api / f"{module}.html").is_file(), f"no API page for {module}"
    ids = collections.Counter()
    for page in api.glob("*.html"):
        ids.update(re.findall(r'<dt class="sig sig-object py[^"]*" id="(dptheory\.[\w.]+)"', page.read_text(encoding="utf-8")))
    objects = public_objects()
    missing = [name for name in objects if ids[name] == 0]
    twice = [name for name in objects if ids[name] > 1]
    assert not missing, f"not in the API reference: {missing}"
    assert not twice, f"documented more than once: {twice}"


def test_the_report_shows_every_figure(site):
    html = (site / "report.html").read_text(encoding="utf-8")
    assert "Verification report" in html and "cross-checks" in html
    shown = set(re.findall(r'<img [^>]*src="_images/([^"]+)"', html))
    figures = {png.name for png in (ROOT / "figures").glob("*.png")}
    assert figures, "figures/ has no PNG: run make verify"
    assert figures <= shown, f"figures missing from the report page: {sorted(figures - shown)}"
    for name in shown:
        assert (site / "_images" / name).stat().st_size > 0, name


def test_errata_anchors_are_reference_targets(site):
    errata = (site / "errata.html").read_text(encoding="utf-8")
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', (DOCS / "errata.md").read_text(encoding="utf-8")))
    assert anchors
    assert all(f'id="{anchor}"' in errata for anchor in anchors)
    assert 'href="#004-s10-17"' in errata
    assert 'href="errata.html#001"' in (site / "proactive.html").read_text(encoding="utf-8")


FAKE_MODULE = '''
"""A module of the fake package."""
import dataclasses


def documented(x, y):
    """Add two numbers.

    Parameters
    ----------
    x, y : float
        The numbers.

    Returns
    -------
    float
        Their sum.
    """
    return x + y


def no_docstring(x):
    return x


def broken_reference(x):
    """Return ``x``, citing :func:`no_such_function` and :func:`dptheory.accounting.gdp._delta_at`.

    The first reference names nothing and fails the nitpicky build; the second names a private function, which the
    site's ``missing-reference`` handler renders as code without a warning (private names have no page).

    Parameters
    ----------
    x : float
        The number.

    Returns
    -------
    float
        ``x``.
    """
    return x


def missing_parameter(x, y):
    """Multiply two numbers.

    Parameters
    ----------
    x : float
        The first number.

    Returns
    -------
    float
        The product.
    """
    return x * y


@dataclasses.dataclass
class Result:
    """A result whose fields are documented as attributes.

    Attributes
    ----------
    lo, hi : float
        The interval.
    """

    lo: float
    hi: float
'''


def test_a_missing_docstring_or_a_broken_reference_fails_the_build(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    (source / "fake_dptheory_module.py").write_text(FAKE_MODULE, encoding="utf-8")
    (source / "conf.py").write_text(textwrap.dedent(f"""
        import importlib.util, sys
        sys.path.insert(0, {str(source)!r})
        spec = importlib.util.spec_from_file_location("dptheory_docs_conf", {str(DOCS / "conf.py")!r})
        site = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(site)
        extensions = ["numpydoc", "sphinx.ext.autodoc"]
        numpydoc_validation_checks = site.numpydoc_validation_checks
        numpydoc_show_class_members = site.numpydoc_show_class_members
        nitpicky = site.nitpicky

        def setup(app):
            app.connect("builder-inited", site._dataclass_attributes_ok)
            app.connect("missing-reference", site._resolve_by_import)
        """), encoding="utf-8")
    (source / "index.rst").write_text(textwrap.dedent("""
        Fake
        ====

        .. automodule:: fake_dptheory_module
           :members:
           :undoc-members:
        """), encoding="utf-8")
    result = _sphinx(source, tmp_path / "out")
    log = result.stdout + result.stderr
    assert result.returncode != 0, log
    assert re.search(r"fake_dptheory_module\.no_docstring'?:?\s+GL08", log), log
    assert re.search(r"fake_dptheory_module\.missing_parameter'?:?\s+PR01", log), log
    assert "fake_dptheory_module.documented" not in log and "fake_dptheory_module.Result" not in log, log
    assert re.search(r"py:func reference target not found: no_such_function", log), log
    assert "_delta_at" not in log, log


def test_references_to_re_exports_link_to_the_defining_page(site):
    """``:func:`dptheory.F_inf``` (the package face re-exports it lazily) links to ``dptheory.suboptimality.F_inf``'s
    page, as do references relative to the current module; without the resolver they were broken (258 warnings in a
    nitpicky build, 0 now)."""
    own = site / "api" / "generated" / "dptheory.suboptimality.F_inf.html"
    linking = [p for p in (site / "api" / "generated").glob("*.html")
               if p != own and 'href="dptheory.suboptimality.F_inf.html#dptheory.suboptimality.F_inf"' in p.read_text(encoding="utf-8")]
    assert len(linking) >= 5, linking
