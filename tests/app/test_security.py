"""Static rules of SECURITY.md, checked on the source tree."""

from __future__ import annotations

import ast
import csv
import io
import json
import pathlib
import re
import tomllib

import pandas as pd
import pytest

import rlcore
from tests.apphelp import run_page, shared_out, show_all
from tests.rejects import rejects
from ui import nav, page, scrub
from ui import scenario as panel
from ui.format import csv_text

ROOT = pathlib.Path(__file__).resolve().parents[2]
APP_FILES = [ROOT / "dashboard.py", *sorted((ROOT / "pages").rglob("*.py")), *sorted((ROOT / "ui").rglob("*.py")),
             *sorted((ROOT / "serve").rglob("*.py")), *sorted((ROOT / "rlcore").rglob("*.py"))]


def calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            yield node


def dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Name):
        return node.id
    return ""


INTERNALS = ("streamlit.runtime", "streamlit.web", "streamlit.elements", "streamlit.proto")


@pytest.mark.parametrize("path", APP_FILES, ids=lambda p: p.name)
def test_a_file_of_the_app_keeps_the_rules(path):
    """Nothing unsafe is called or imported; st.html only shows a style sheet the code holds. Every st.cache_data /
    st.cache_resource, as a decorator or called (serve.cache.cached calls it, for page.study), names max_entries.
    Only Streamlit's public API: nothing from its runtime, server, elements or protocol modules, no underscore name
    (the next release may move any of them). No ``bind=``: Streamlit's own ``bind="query-params"`` converts a link
    value before its range check (``?seed=inf`` raised OverflowError), so every input bound to the link goes
    through ``ui.inputs``, which checks first."""
    tree = ast.parse(path.read_text(), filename=str(path))
    for call in calls(tree):
        name = dotted(call.func)
        assert name not in {"eval", "exec", "compile", "pickle.loads", "pickle.load",
                            "open", "os.system", "subprocess.run", "subprocess.Popen"}, f"{path.name}: {name}"
        if name == "st.html":  # only a style sheet the code holds, never text built at run time
            assert [dotted(a).rsplit(".", 1)[-1] for a in call.args] in (["CSS"], ["PAGE_CSS"]), \
                f"{path.name}: st.html of {ast.unparse(call)}"
        for kw in call.keywords:
            assert kw.arg != "unsafe_allow_html", f"{path.name}: unsafe_allow_html in {name}"
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            assert not {"pickle", "subprocess", "socket", "urllib", "requests"} & set(names), path.name
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for deco in node.decorator_list:
                name = dotted(deco.func if isinstance(deco, ast.Call) else deco)
                if name.endswith(("cache_data", "cache_resource")):
                    assert isinstance(deco, ast.Call), f"{path.name}:{node.name} cache without max_entries"
        if isinstance(node, ast.Call) and dotted(node.func).endswith(("cache_data", "cache_resource")):
            assert "max_entries" in {k.arg for k in node.keywords}, f"{path.name}:{node.lineno} without max_entries"
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            module = node.module or ""
            assert not module.startswith(INTERNALS), f"{path.name}: {module}"
            if module.split(".")[0] == "streamlit":
                assert not any(a.name.startswith("_") or "._" in module for a in node.names), path.name
        elif isinstance(node, ast.Import):
            for a in node.names:
                assert not a.name.startswith(INTERNALS), f"{path.name}: {a.name}"
                assert not (a.name.startswith("streamlit") and "._" in a.name), f"{path.name}: {a.name}"
        elif isinstance(node, ast.Attribute) and dotted(node).split(".")[0] in {"st", "streamlit"}:
            assert not node.attr.startswith("_"), f"{path.name}: {dotted(node)}"
        assert not (isinstance(node, ast.keyword) and node.arg == "bind"), f"{path.name}:{node.lineno}: bind="


def test_the_only_html_is_a_fixed_style_sheet():
    """What st.html is given (PAGE_CSS, ui.scrub.CSS) is a literal holding one <style> block: no markup, no
    script, nothing filled in from a visitor."""
    for css in (page.PAGE_CSS, scrub.CSS):
        assert re.fullmatch(r"\s*<style>[^<]*</style>\s*", css), css[:80]


def test_server_config_keeps_protections_on():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    server = config.get("server", {})
    assert server.get("enableXsrfProtection", True) is True
    assert server.get("enableCORS", True) is True
    assert server.get("maxUploadSize", 200) <= rlcore.MAX_LOG_BYTES // 1_000_000  # page 21's logs, 20 MB
    assert config.get("client", {}).get("showErrorDetails") == "none"


def test_visitor_json_is_parsed_only_by_the_guarded_reader():
    """Only ``ui.scenario.from_json`` and the log reader (``rlcore.read_run``'s ``_loads``) parse JSON, after their
    size and nesting checks (json.loads recurses)."""
    found = []
    for path in APP_FILES:
        tree = ast.parse(path.read_text())
        for fn in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
            found += [(path.name, fn.name) for call in calls(fn) if dotted(call.func) in {"json.loads", "json.load"}]
    assert sorted(found) == [("runlog.py", "_loads"), ("scenario.py", "from_json")]
    rejects(lambda: rlcore.read_run(b"[" * 10**6, "deep.json"), "deeper")
    rejects(lambda: rlcore.read_run(b" " * (rlcore.MAX_LOG_BYTES + 1), "big.json"), "limit is 20,000,000")
    rejects(lambda: panel.from_json("[" * panel.MAX_JSON_BYTES), "deep")
    rejects(lambda: panel.from_json("[" * (panel.MAX_JSON_BYTES + 1)), "limit is 100,000")


# ---------------------------------------------------------------- files the app writes
FORMULA_NAMES = ('=HYPERLINK("//ev.il")', "+SUM(A1:A9)", "-2+3", "@cmd")


def formula_scenario():
    return rlcore.Scenario(tokens=(*FORMULA_NAMES, "open"), probs=(0.2, 0.2, 0.2, 0.2, 0.2),
                           samples=((-0.0,), (1.0,), (2.0,), (3.0,), (4.0,)),
                           continuations=("=1+1", "", "-x", "@a", "plain"))


def test_csv_cells_that_would_start_a_formula_are_text():
    """Each text cell starting with = + - @ tab or CR gets a leading ', everything else is written as it was:
    read back with the csv module, the hostile names come out as '=..., the numbers (negative too) as numbers."""
    names = [*FORMULA_NAMES, "open", "\tTAB", "\rCR", "a=b", "'quoted"]
    df = pd.DataFrame({"token": names, "label": pd.Categorical(names), "value": [-2.5, -1, 0, 1, 2, 3, 4, 5, 6],
                       "count": range(-4, 5), "-neg header": [True] * 9})
    rows = list(csv.reader(io.StringIO(csv_text(df), newline="")))
    assert rows[0] == ["token", "label", "value", "count", "'-neg header"]
    for row, name in zip(rows[1:], names, strict=True):
        want = "'" + name if name[0] in "=+-@\t\r" else name
        assert row[0] == want and row[1] == want, (row, name)
    assert [float(r[2]) for r in rows[1:]] == [-2.5, -1, 0, 1, 2, 3, 4, 5, 6]  # a negative number is not text
    assert [int(r[3]) for r in rows[1:]] == list(range(-4, 5))
    assert df["token"].tolist() == names  # the table on the page keeps the names as they are


def test_every_file_the_app_writes_goes_through_a_guarded_writer():
    """The app writes two kinds of file: a chart's data as CSV (``ui.format.csv_text``) and the scenario as JSON
    (``ui.scenario.to_json``); every download button's data is built by one of them."""
    writers = []
    for path in APP_FILES:
        for call in calls(ast.parse(path.read_text())):
            if dotted(call.func).endswith("download_button"):
                data = call.args[1] if len(call.args) > 1 else next(k.value for k in call.keywords if k.arg == "data")
                built = [dotted(c.func) for c in calls(data)]
                writers += [(path.name, name) for name in built if name in {"csv_text", "to_json"}]
    assert sorted(writers) == [("page.py", "csv_text"), ("scenario.py", "to_json")]


def test_the_json_export_stays_exact_with_formula_names():
    """The JSON file is read back by this app, not by a spreadsheet: it keeps every name exactly."""
    scenario = formula_scenario()
    text = panel.to_json(scenario)
    assert json.loads(text)["tokens"][:4] == list(FORMULA_NAMES)
    assert panel.from_json(text) == scenario and panel.from_json(text.encode()) == scenario


def test_a_chart_table_of_formula_names_downloads_as_text():
    """On the home page with the formula names, the policy chart's table (what its CSV writes) holds the names
    as they are, and its CSV has each of them with a leading '."""
    at = run_page(ROOT / "dashboard.py", scenario=formula_scenario(), state={"table_policy": True})
    table = next(d.value for d in at.dataframe if "answer" in d.value.columns)
    assert table["token"].tolist()[:4] == list(FORMULA_NAMES)
    rows = list(csv.DictReader(io.StringIO(csv_text(table), newline="")))
    assert [r["token"] for r in rows] == [*("'" + n for n in FORMULA_NAMES), "open"]
    assert float(rows[0]["probability"]) == 0.2
    assert [d.proto.label for d in at.get("download_button")] == ["Download as CSV"]


# ---------------------------------------------------------------- visitor text in the app's own messages
MARKUP = ("[x](http://ev.il)", "**bold**", "$x^2$")  # a live link, emphasis, LaTeX, if rendered as markdown
MARKDOWN_FIELDS = {"body", "label", "help", "options", "content"}  # what Streamlit renders as markdown
PLAIN = {"selectbox": {"options"}, "multiselect": {"options"}, "text_input": set()}  # plain-text options


def markdown_strings(message, skip: set = frozenset()):
    """Every string of a proto message that Streamlit renders as markdown (bodies, labels, tooltips, options)."""
    for desc, value in message.ListFields():
        values = value if desc.is_repeated else [value]
        if desc.message_type is not None:
            for item in values:
                yield from markdown_strings(item, skip)
        elif desc.name in MARKDOWN_FIELDS - skip and desc.type == desc.TYPE_STRING:
            yield from values


def shown_as_markdown(at) -> list[str]:
    """The markdown of every element and block on the page, sidebar included."""
    out = []
    for node in at._tree:
        proto = getattr(node, "proto", None)
        if proto is not None and hasattr(proto, "ListFields"):
            out += markdown_strings(proto, PLAIN.get(getattr(node, "type", ""), set()))
    return out


def markup_scenario():
    return rlcore.Scenario(tokens=(*MARKUP, "plain"), probs=(0.4, 0.3, 0.2, 0.1),
                           samples=((1.0,), (2.0, 3.0), (5.0,), (9.0,)), continuations=(*MARKUP, ""))


def assert_literal(at, where: str = "") -> None:
    live = [text for text in shown_as_markdown(at) if any(m in text for m in MARKUP)]
    assert not live, (f"{where}: the learner's tokens shown as markdown, unescaped: {live[:3]}. Escape them with "
                      "ui.format.esc (a question's options and answer are markdown too)")


@pytest.mark.parametrize("path", shared_out([ROOT / p.path for p in nav.PAGES], every=3, ids=lambda p: p.stem))
def test_visitor_names_reach_no_page_as_markup(path):
    """Names that are a link, emphasis and LaTeX, with the sidebar editor open and every answer revealed: no
    markdown on the page (bodies, labels, tooltips, options, sidebar included) holds them unescaped."""
    at = run_page(path, scenario=markup_scenario(), state={panel.EDITOR: True, "scenario_files": True})
    assert_literal(at, path.name)
    assert_literal(show_all(at), f"{path.name}, after Just show me")
