"""The house's rules for pages and chart builders, read from the source (the guide is ``ui/page.py``'s docstring).

* A page computes nothing: no cached computation of its own (``page.study`` calls a study of rlcore through the
  server's shared cache), no page function over 60 lines, no page file over 250 lines.
* One page shape: inputs and the question are drawn inside a panel (``@page.panel``, or the lab's timed one),
  never at the top level of the script.
* ``ui/page.py`` is the page-writing API: it holds no threading (that is ``ui/turns.py``).
* A chart builder takes at most 8 parameters: a base chart plus layers, not a long keyword list.

``PENDING`` names what breaks a rule while its rewrite is under way; each one fails once it no longer does, so
the list only shrinks.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
PAGE_FILES = [ROOT / "dashboard.py", *sorted((ROOT / "pages").glob("*.py"))]
MAX_FUNCTION, MAX_FILE, MAX_PARAMETERS = 60, 250, 8
PENDING: set[str] = set()  # every page keeps the rules now
PENDING_BUILDERS: set[str] = set()  # every builder takes at most eight now
DRAWS_INPUT = ("inputs.", "page.predict")  # page.presets, one row of whole views, may stand above the panel


def problems(path: Path) -> list[str]:
    """What in ``path`` breaks the page rules, one line each."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    found = []
    if len(source.splitlines()) > MAX_FILE:
        found.append(f"{len(source.splitlines())} lines (at most {MAX_FILE})")
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            size = node.end_lineno - node.lineno + 1
            if size > MAX_FUNCTION:
                found.append(f"{node.name}: {size} lines (at most {MAX_FUNCTION})")
            cached = [ast.unparse(d) for d in node.decorator_list if "cache" in ast.unparse(d)]
            if cached:
                found.append(f"{node.name}: a cached computation ({cached[0]}): make it a study, call page.study")
    for node in tree.body:  # the script's top level, outside every function
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            continue
        for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
            name = ast.unparse(call.func)
            if name.startswith(DRAWS_INPUT):
                found.append(f"line {call.lineno}: {name} at the top level: draw inputs and the question in a panel")
    return found


@pytest.mark.parametrize("path", PAGE_FILES, ids=lambda p: p.name)
def test_a_page_only_draws_in_one_shape(path):
    found = problems(path)
    if path.name in PENDING:
        if not found:
            pytest.fail(f"{path.name} keeps the rules now: drop it from PENDING")
        pytest.xfail("; ".join(found))
    assert not found, f"{path.name}: " + "; ".join(found)


def test_the_rules_are_read_from_the_source(tmp_path):
    """The reader itself: a long function, a cached one and a top-level input are each found."""
    bad = tmp_path / "bad.py"
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION))
    bad.write_text(f"import streamlit as st\n\n@st.cache_data(max_entries=2)\ndef long():\n{body}\n\n"
                   "gamma = inputs.slider('γ', 0.0, 1.0, 1.0, 0.1, key='gamma')\n")
    found = problems(bad)
    assert any("long:" in f and "lines" in f for f in found) and any("cached computation" in f for f in found)
    assert any("inputs.slider at the top level" in f for f in found)


def test_ui_page_holds_no_threading():
    tree = ast.parse((ROOT / "ui" / "page.py").read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not imported & {"threading", "uuid", "time", "concurrent.futures"}, imported


@pytest.mark.parametrize("name", sorted({n.name for n in ast.parse((ROOT / "ui" / "charts.py").read_text()).body
                                         if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}))
def test_a_chart_builder_takes_at_most_eight_parameters(name):
    fn = next(n for n in ast.parse((ROOT / "ui" / "charts.py").read_text()).body
              if isinstance(n, ast.FunctionDef) and n.name == name)
    count = len(fn.args.posonlyargs) + len(fn.args.args) + len(fn.args.kwonlyargs)
    if name in PENDING_BUILDERS:
        if count <= MAX_PARAMETERS:
            pytest.fail(f"{name} takes {count} now: drop it from PENDING_BUILDERS")
        pytest.xfail(f"{name}: {count} parameters")
    assert count <= MAX_PARAMETERS, f"{name} takes {count} parameters (at most {MAX_PARAMETERS})"


def test_every_apptest_run_fails_its_test_on_an_uncaught_exception():
    """tests/conftest.py's check, which replaces a ``no_exception(at)`` after every run of every page test."""
    at = AppTest.from_string("import streamlit as st\nst.write('ok')\nraise ValueError('boom')")
    with pytest.raises(pytest.fail.Exception, match="the page raised"):
        at.run()
    assert AppTest.from_string("import streamlit as st\nst.write('ok')").run().markdown[0].value == "ok"


@pytest.mark.app_exception
def test_a_test_marked_app_exception_reads_the_exception_itself():
    at = AppTest.from_string("raise ValueError('boom')").run()
    assert len(at.exception) == 1  # its message is redacted (the app's showErrorDetails); the log names it


def lines(paths) -> int:
    return sum(len(p.read_text(encoding="utf-8").splitlines()) for p in paths)


@pytest.mark.every_page
def test_the_tests_take_no_more_lines_than_the_app():
    app = lines([ROOT / "dashboard.py", *(p for d in ("pages", "ui", "rlcore") for p in (ROOT / d).rglob("*.py"))])
    tests = lines((ROOT / "tests").rglob("*.py"))
    assert tests <= app, f"tests/ hold {tests:,} lines of Python, the app {app:,}"
