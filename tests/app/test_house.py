"""The house's rules for pages and chart builders, read from the source (the guide is ``ui/page.py``'s docstring).

* A page computes nothing: no cached computation of its own (``page.study`` calls a study of rlcore through the
  server's shared cache), no page function over 60 lines, no page file over 250 lines.
* One page shape: inputs and the question are drawn inside a panel (``@page.panel``, or the lab's timed one),
  never at the top level of the script.
* Layers: ``serve/`` (what the server shares between sessions) imports neither ``ui`` nor ``pages``; pages and
  ``dashboard.py`` reach it only through ``ui.page``; ``ui/`` is the page-writing API and starts no thread: nothing
  outside ``serve/`` imports threading (or concurrent, _thread, multiprocessing).
* A page's own long sections live beside it in ``pages/views/`` (never in ``ui/``, the page-writing API): a view
  is imported by exactly one page, its owner; it keeps the page rules above; and a page with its views holds at
  most ``PAGE_BUDGET`` = 650 lines (page 19 and its three views: about 600).
* The app outside rlcore (``dashboard.py``, ``pages/``, ``ui/``) reaches rlcore only through its front door:
  ``import rlcore``, then ``rlcore.<name>``, ``rlcore.<module>.<name>`` or ``rlcore.zero.<name>``; never
  ``from rlcore… import``, ``import rlcore.<module>``, a folder (``rlcore.formulas.…``) or a module inside a module
  (``rlcore.zero.task.…``). Tests may import internals.
* A chart builder takes at most 8 parameters: a base chart plus layers, not a long keyword list.

``PENDING`` names what breaks a rule while its rewrite is under way; each one fails once it no longer does, so
the list only shrinks.
"""

from __future__ import annotations

import ast
from pathlib import Path
from types import ModuleType

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
PAGE_FILES = [ROOT / "dashboard.py", *sorted((ROOT / "pages").glob("*.py"))]
VIEW_FILES = sorted(p for p in (ROOT / "pages" / "views").glob("*.py") if p.name != "__init__.py")
MAX_FUNCTION, MAX_FILE, MAX_PARAMETERS, PAGE_BUDGET = 60, 250, 8, 650
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


@pytest.mark.parametrize("path", PAGE_FILES + VIEW_FILES, ids=lambda p: str(p.relative_to(ROOT)))
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


APP_DIRS = ("pages", "ui", "rlcore", "serve")  # with dashboard.py, the app
THREADS = ("threading", "_thread", "concurrent", "multiprocessing")
SERVER_SIDE = "pages use the server through ui.page (study, one_at_a_time, live, shelf, ahead_of_time): add it there"
LAYERS = [  # (the files, the top-level packages they may not import, the fix)
    ("serve/", ("ui", "pages"), "serve is below ui: take what it needs as an argument (as its notices take `say`)"),
    ("pages/", ("serve",), SERVER_SIDE),
    ("dashboard.py", ("serve",), SERVER_SIDE),
    ("", THREADS, "threads and locks live in serve/ only: put the shared state there, reach it through ui.page"),
]


def imported(path: Path, root: Path):
    """Every module ``path`` imports, at any depth (relative ones resolved): (module, line)."""
    package = path.relative_to(root).parent.parts
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else ()
            yield ".".join([*base, *([node.module] if node.module else [])]), node.lineno


def layer_problems(root: Path) -> list[str]:
    """Every import of the app under ``root`` that crosses a layer, one line each: file, line, what, the fix."""
    app = [root / "dashboard.py", *(p for d in APP_DIRS for p in (root / d).rglob("*.py"))]
    found = []
    for path in (p for p in app if p.is_file()):
        rel = path.relative_to(root).as_posix()
        for files, banned, fix in LAYERS:
            if not rel.startswith(files) or (files == "" and rel.startswith("serve/")):
                continue
            found += [f"{rel}:{line}: imports {module}: {fix}" for module, line in imported(path, root)
                      if module.split(".")[0] in banned]
    return found


def test_serve_ui_and_pages_keep_their_layers():
    found = layer_problems(ROOT)
    assert not found, "\n".join(found)


def test_the_layers_are_read_from_the_imports(tmp_path):
    """The reader itself: a relative import of ui inside a function of serve/, a page importing serve, a ui module
    starting a thread pool are each found, with the file, the line and the fix."""
    for name, text in {"serve/line.py": "def f():\n    from ..ui import i18n\n", "serve/jobs.py": "import threading\n",
                       "pages/1_A.py": "from serve import line\n", "dashboard.py": "import rlcore\n",
                       "ui/x.py": "import os\nfrom concurrent.futures import ThreadPoolExecutor\n"}.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    found = layer_problems(tmp_path)
    assert [f.split(": ")[0:2] for f in found] == [["pages/1_A.py:1", "imports serve"], ["ui/x.py:2", "imports "
                                                   "concurrent.futures"], ["serve/line.py:2", "imports ui"]], found
    assert "through ui.page" in found[0] and "serve/ only" in found[1] and "as an argument" in found[2]


def views_imported(path: Path) -> set[str]:
    """The views of ``pages/views/`` that ``path`` imports, by module name (``zero`` for ``pages.views.zero``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "pages.views":
            found |= {a.name for a in node.names}
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [
            a.name for a in node.names] if isinstance(node, ast.Import) else []
        found |= {n.split(".")[2] for n in names if n.startswith("pages.views.")}
    return found


APP_FILES = [*PAGE_FILES, *VIEW_FILES, *(p for d in ("ui", "serve") for p in sorted((ROOT / d).rglob("*.py")))]
IMPORTERS = {p: views_imported(p) for p in APP_FILES}


@pytest.mark.parametrize("view", VIEW_FILES, ids=lambda p: p.name)
def test_a_view_belongs_to_one_page(view):
    users = [p.relative_to(ROOT) for p, names in IMPORTERS.items() if view.stem in names]
    assert len(users) == 1 and users[0].parent.name == "pages", (
        f"pages/views/{view.name} is imported by {[str(u) for u in users] or 'nothing'}: a view belongs to exactly one "
        "page, which imports it; move what two pages share into ui/ (page-writing API) or rlcore (a study), and "
        "delete a view no page uses")


@pytest.mark.parametrize("path", PAGE_FILES, ids=lambda p: p.name)
def test_a_page_with_its_views_keeps_its_budget(path):
    views = [ROOT / "pages" / "views" / f"{name}.py" for name in sorted(IMPORTERS[path])]
    total = lines([path, *views])
    assert total <= PAGE_BUDGET, (
        f"{path.name} with its views ({', '.join(v.name for v in views)}) holds {total} lines (at most "
        f"{PAGE_BUDGET}): move its numbers into an rlcore study, draw less, or split it into two pages")


def test_the_view_reader_finds_each_form_of_import(tmp_path):
    page_file = tmp_path / "p.py"
    page_file.write_text("from pages.views import a, b as c\nimport pages.views.d\nfrom pages.views.e import f\n"
                         "from ui import page\n")
    assert views_imported(page_file) == {"a", "b", "d", "e"}


def back_doors(path: Path) -> list[str]:
    """Where ``path`` reaches rlcore other than through ``import rlcore`` and names reachable from it, one line each."""
    import rlcore

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names if a.name.startswith("rlcore.")]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "rlcore":
            found.append(f"line {node.lineno}: from {node.module} import {', '.join(a.name for a in node.names)}")
        elif isinstance(node, ast.Attribute) and ast.unparse(node).startswith("rlcore."):
            *chain, last = ast.unparse(node).split(".")
            held = rlcore
            for name in chain[1:]:
                held = getattr(held, name, None)
            reached = getattr(held, last, None)
            if (held is rlcore and last in ("formulas", "studies")) or (
                    held is not rlcore and isinstance(held, ModuleType) and isinstance(reached, ModuleType)):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("path", APP_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_app_reaches_rlcore_only_through_its_front_door(path):
    found = back_doors(path)
    assert not found, (f"{path.relative_to(ROOT)} reaches into rlcore: {'; '.join(found)}. Write `import rlcore` "
                       "and use rlcore.<name> (rlcore.zero.<name> for the miniature); a name rlcore does not export "
                       "yet goes into its package's __init__ and __all__ (rlcore/studies/zero/__init__.py)")


def test_the_front_door_reader_finds_each_back_door(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import rlcore\nimport rlcore.zero\nfrom rlcore import zero\nfrom rlcore.studies.zero import task\n"
                   "x = rlcore.zero.task.VOCAB\ny = rlcore.studies.gae\n"
                   "ok = (rlcore.zero.ZeroConfig, rlcore.example.MAX_SCORE, rlcore.lab.LOSS_AGGREGATIONS)\n")
    assert [f.split(":")[0] for f in back_doors(bad)] == [f"line {i}" for i in (2, 3, 4, 5, 6)], back_doors(bad)


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
    app = lines([ROOT / "dashboard.py", *(p for d in APP_DIRS for p in (ROOT / d).rglob("*.py"))])
    tests = lines((ROOT / "tests").rglob("*.py"))
    assert tests <= app, f"tests/ hold {tests:,} lines of Python, the app {app:,}"
