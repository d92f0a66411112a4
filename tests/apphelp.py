"""Helpers for AppTest page tests: run a page, read its charts' real Vega-Lite specs and data."""

from __future__ import annotations

import ast
import functools
import io
import json
import pathlib
import re
import zlib
from collections import Counter

import pandas as pd
import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

import rlcore
from ui import nav

ROOT = pathlib.Path(__file__).resolve().parent.parent
GLOSSARY = ROOT / "pages" / "20_Glossary.py"  # a reference page: no scenario, no chart, no widget to share
ALL_PAGES = [ROOT / p.path for p in nav.PAGES if ROOT / p.path != GLOSSARY]  # home first, in reading order
PAGES = ALL_PAGES[1:]  # the concept pages

# scenarios shared by the page tests (each test works out its expected numbers from them by hand)
FOUR_ANSWERS = rlcore.Scenario(tokens=("yes", "no", "maybe", "depends"), probs=(0.4, 0.3, 0.2, 0.1),
                               samples=((7, 9), (2,), (5, 6, 4), (8,)),
                               continuations=(". It is.", ". It is not.", ", perhaps.", " on the weights."))
FOUR_SPREAD = rlcore.Scenario(tokens=("yes", "no", "maybe", "unclear"), probs=(0.4, 0.3, 0.2, 0.1),
                              samples=((1, 2), (3,), (9, 8), (4, 5, 6)))
FLAT = rlcore.Scenario(tokens=("a", "b"), probs=(0.5, 0.5), samples=((5,), (5,)))  # one score: every A is 0


def scenario_json(**fields) -> str:
    """A scenario file or link: two tokens a and b unless ``fields`` say otherwise (ensure_ascii: a surrogate
    travels as the escape \\ud800, as in a link)."""
    return json.dumps({"tokens": ["a", "b"], "probs": [0.5, 0.5], "samples": [[1], [2]], **fields})


QUICK_SHARE = 6  # the quick suite runs one case in six of a per-page browser or sweep test; CI runs them all


def slot(name: str) -> int:
    """A case's stable number, from its id alone: adding a page or a case moves no other case's share."""
    return zlib.crc32(name.encode("utf-8"))


def shared_out(cases, *, offset: int = 0, every: int = QUICK_SHARE, ids=None) -> list:
    """pytest params of a test repeated over many cases (pages, names, scenarios): one case in ``every`` runs in
    the quick suite (the README's command), the others are marked ``exhaustive`` (CI's second command runs them).
    With ``ids`` a case's share is keyed on its id (``slot``), so a new page moves no other page's cases; a list
    without ids (presets, languages) is fixed and keyed on its order. Tests over the same pages pass different
    ``offset`` values, so that the quick suite still opens every page in some test of the kind (a page's slot
    plus the offsets 0 … every − 1 meets every residue). ``cases``: values, or tuples of values."""
    out = []
    for i, case in enumerate(cases):
        values = case if isinstance(case, tuple) else (case,)
        name = ids(case) if ids else None
        key = slot(name) if ids else i
        marks = () if (key + offset) % every == 0 else (pytest.mark.exhaustive,)
        out.append(pytest.param(*values, id=name, marks=marks))
    return out


def preset_cases(page: int) -> list:
    """``rlcore.PRESETS`` as the params of a page's every-preset test: the quick suite runs one preset, never the
    article's example (the page's default tests run that one), a different one from page to page; CI runs all."""
    n = len(rlcore.PRESETS)
    return shared_out(list(rlcore.PRESETS), every=n, offset=-(1 + page % (n - 1)))


def languages(page: int) -> list:
    """"en" and "zh" as the params of a test that reads a page in each language: the quick suite takes one, in turn
    from page to page (both languages in the suite as a whole); CI both."""
    return shared_out(["en", "zh"], every=2, offset=page % 2)


def has_scenario(path) -> bool:
    """Whether the page draws the shared scenario sidebar (every page but those set up with ``scenario=False``)."""
    return "scenario=False" not in pathlib.Path(path).read_text(encoding="utf-8")


def catalogue(prefix: str):
    """``en = catalogue("p6")``; ``en("probs_title")``: a page's English text as its catalogue writes it, with the
    live numbers filled in (the wording is the catalogue tests' business; a page test finds its elements by it)."""
    from ui import i18n

    return lambda msgid, **values: i18n.text("en", f"{prefix}.{msgid}", **values)


def opening(msgid: str) -> str:
    """The English catalogue text of ``msgid`` ("p11.explain.gspo_worked") up to its first placeholder: how a
    paragraph, caption or title of the page begins whatever numbers it then gives."""
    from ui import i18n

    return i18n.catalogue("en")[msgid].split("{")[0]


def page_file(prefix: str) -> pathlib.Path:
    """The page whose file name starts with ``prefix`` (e.g. "3_")."""
    for p in ALL_PAGES:
        if p.name.startswith(prefix):
            return p
    raise FileNotFoundError(prefix)


def page_names() -> dict[str, str]:
    """Each way a test may write a page, to the page's path: its file name, stem, path, catalogue table and address
    (the browser tests')."""
    out = {}
    for p in nav.PAGES:
        path = pathlib.Path(p.path)
        out |= {path.name: p.path, path.stem: p.path, p.path: p.path, p.table: p.path, nav.url_path(p.path): p.path}
    out.pop("", None)  # home's address
    return out


def own_tests() -> dict[str, list[str]]:
    """Each page's own tests: ``tests/pages/test_<its number>_*.py`` (home's number is 0) naming it, by its file
    or by ``page_file`` / ``page_kit``'s prefix (which opens the first page it starts, as ``page_file`` does)."""
    names, out = page_names(), {p.path: [] for p in nav.PAGES}
    number = {p.path: 0 if p == nav.HOME else int(re.match(r"\d+", pathlib.Path(p.path).name).group())
              for p in nav.PAGES}
    for test in sorted((ROOT / "tests" / "pages").glob("test_[0-9]*_*.py")):
        named = set()
        for node in ast.walk(ast.parse(test.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                named |= {names[node.value]} if node.value in names else {next(
                    (p.path for p in nav.PAGES if re.fullmatch(r"\d+_\w*|dashboard", node.value)
                     and pathlib.Path(p.path).name.startswith(node.value)), None)}
        for page in named - {None}:
            if number[page] == int(test.name.split("_")[1]):
                out[page].append(test.relative_to(ROOT).as_posix())
    return out


def page_kit(prefix: str, table: str):
    """``PAGE, K, en = page_kit("5_", "p5")``: a page test's file (``page_file``), its inputs' keys (``keys``) and
    its catalogue table in English (``catalogue``)."""
    path = page_file(prefix)
    return path, keys(path), catalogue(table)


def input_key(path, name: str) -> str:
    """The session key of the page's input ``name`` (``ui.inputs`` scopes keys per page: "<page id>.<name>",
    the id made from the page's title in ``ui.nav``)."""
    from ui import inputs

    return f"{inputs.page_id(nav.info(nav.path_of(str(path))).title)}.{name}"


def keys(path):
    """``K = keys(PAGE)``; ``at.slider(key=K("lam"))``."""
    return lambda name: input_key(path, name)


def run_page(path, *, scenario=None, query: dict | None = None, state: dict | None = None,
             inputs: dict | None = None, timeout: float = 60) -> AppTest:
    """Run a page once, optionally with a scenario, query parameters, session state or the page's inputs
    (by name, e.g. ``inputs={"lam": 0.0}``) set first."""
    at = AppTest.from_file(str(path), default_timeout=timeout)
    if scenario is not None:
        at.session_state["scenario"] = scenario
    for k, v in (state or {}).items():
        at.session_state[k] = v
    for k, v in (inputs or {}).items():
        at.session_state[input_key(path, k)] = v
    for k, v in (query or {}).items():
        at.query_params[k] = v
    return at.run()


@functools.cache
def first_run(path) -> AppTest:
    """The page as it first appears, run once per test process and shared: to read, never to change a widget."""
    return run_page(path)


def preset_names(at: AppTest) -> list[str]:
    """The choices of the page's one preset control (``ui.page.presets``)."""
    from ui import page

    (control,) = [c for c in at.segmented_control if c.key == page.PRESETS_KEY]
    return list(control.options)


def choose_preset(at: AppTest, name: str) -> AppTest:
    """Choose a view in the page's preset control, as a click would, and run the page. The control clears its
    choice in its callback, so the same view can be chosen again (asserted here)."""
    from ui import page

    at.segmented_control(key=page.PRESETS_KEY).set_value(name).run()
    assert at.segmented_control(key=page.PRESETS_KEY).value is None, "the preset control keeps no stale choice"
    return at


def charts(at: AppTest) -> list[dict]:
    """Every Altair chart on the page: {"spec": dict, "data": {name: DataFrame}, "alt": str}."""
    out = []
    for el in at.get("vega_lite_chart"):
        proto = el.proto
        data = {d.name: pa.ipc.open_stream(io.BytesIO(d.data.data)).read_all().to_pandas()
                for d in proto.datasets}
        out.append({"spec": json.loads(proto.spec), "data": data, "alt": proto.alt})
    return out


def chart_fingerprint(at: AppTest) -> list[str]:
    """The charts' data as text, to compare before and after a widget change."""
    return [df.to_csv(index=False) for c in charts(at) for df in c["data"].values()]


def moves_charts(at: AppTest, change) -> AppTest:
    """Apply ``change`` (e.g. ``lambda at: at.slider(key=...).set_value(2).run()``) and assert the charts' data
    changed with it."""
    before = chart_fingerprint(at)
    change(at)
    assert chart_fingerprint(at) != before, "the change left every chart as it was"
    return at


def metrics(at: AppTest) -> dict[str, str]:
    """Each metric's label → its value, and its delta after a space when it has one."""
    return {m.label: f"{m.value} {m.proto.delta}".strip() for m in at.metric}


NUMBER = re.compile(r"(?:−|(?<![^\W\d_])-)?\d+(?:,\d{3})*(?:\.\d+)?")  # "best-of-8": a word's hyphen, no minus


def numbers(text: str) -> list[float]:
    """The numbers written in ``text``, in order (a true minus sign reads as minus, "1,000" as 1000; the hyphen of
    "best-of-8" is a word's, so that reads 8)."""
    return [float(n.replace("−", "-").replace(",", "")) for n in NUMBER.findall(text)]


def shows_numbers(at: AppTest, *values: float, tol: float = 1e-9) -> bool:
    """Whether some piece of text the page shows holds ``values`` one after the other (whatever words are around
    them): a check of the numbers a sentence gives, not of its wording."""
    n = len(values)
    for _, text in page_parts(at):
        found = numbers(text)
        if any(all(abs(a - b) <= tol for a, b in zip(found[i:i + n], values, strict=True))
               for i in range(len(found) - n + 1)):
            return True
    return False


def page_parts(at: AppTest) -> list[tuple[str, str]]:
    """Every piece of text a learner reads, with its kind: ("markdown", ...), ("info", ...), ("metric", ...)."""
    parts = [("markdown", m.value) for m in at.markdown] + [("caption", c.value) for c in at.caption]
    parts += [("metric", f"{m.label} {m.value} {m.proto.delta}") for m in at.metric]
    parts += [("heading", h.value) for h in (*at.title, *at.header, *at.subheader)]
    for kind in ("error", "warning", "info", "success"):
        parts += [(kind, e.value) for e in getattr(at, kind)]
    for df in at.dataframe:
        parts.append(("table", df.value.to_csv(index=False) if isinstance(df.value, pd.DataFrame) else str(df.value)))
    return [(kind, str(text)) for kind, text in parts]


def page_text(at: AppTest) -> str:
    """All text a learner reads: markdown, captions, metrics, titles, alerts."""
    return "\n".join(text for _, text in page_parts(at))


SHOW = "Just show me"  # ``page.predict``'s button


def just_shown(key: str) -> dict:
    """The session state of a page whose question ``key`` was answered with "Just show me" (``run_page(state=...)``);
    ``page.predict`` keeps it under ``key + "_shown"``."""
    return {f"{key}_shown": True}


def question_key(at: AppTest) -> str | None:
    """The key of the page's question (``page.predict``), from its "Just show me" button; None if none."""
    buttons = [b for b in at.button if b.label == SHOW]
    assert len(buttons) <= 1, "one question per page"
    return buttons[0].key.removesuffix("_show") if buttons else None


def reveal(path, how: int | None, **run) -> AppTest | None:
    """The page after "Just show me" (``how`` None) or after choosing its question's option number ``how``, and
    "Just show me" on any question that answer brings out (page 17's second section); None if the page asks no
    question. ``run``: as for ``run_page``."""
    at = run_page(path, **run)
    key = question_key(at)
    if key is None:
        return None
    if how is None:
        next(b for b in at.button if b.label == SHOW).click().run()
    else:
        radio = at.radio(key=key)
        radio.set_value(radio.options[how]).run()
    for _ in range(3):  # a section the answer brings out may ask its own question: "Just show me" there, alike
        if question_key(at) in (None, key):
            break
        next(b for b in at.button if b.label == SHOW).click().run()
    assert question_key(at) is None, "revealed: no more 'Just show me'"
    return at


def show_all(at: AppTest) -> AppTest:
    """``at`` after "Just show me" on each of its questions (an answer may bring out a section with its own)."""
    for _ in range(4):
        show = [b for b in at.button if b.label == SHOW]
        if not show:
            break
        show[0].click().run()
    return at


def revealed(path, scenario=None) -> AppTest:
    """The page after "Just show me" on each of its questions, so the charts an answer shows are drawn too."""
    return show_all(run_page(path, scenario=scenario))


def assert_only_the_mark_differs(shown: AppTest, answered: AppTest) -> None:
    """The text after "Just show me" and after an answer differ in the one line that marks the answer: an info
    after "Just show me", a success or a warning after an answer, both naming the same answer and explaining
    it alike."""
    only_shown = Counter(page_parts(shown)) - Counter(page_parts(answered))
    only_answered = Counter(page_parts(answered)) - Counter(page_parts(shown))
    assert [kind for kind, _ in only_shown] == ["info"], only_shown
    assert [kind for kind, _ in only_answered] in (["success"], ["warning"]), only_answered
    (_, line), = only_shown
    (_, mark), = only_answered
    answer = line.split("**")[1]
    assert f"**{answer}**" in mark
    assert line.split(f"**{answer}**", 1)[1] == mark.split(f"**{answer}**", 1)[1], "the same explanation"


def spec_items(node, key: str = "", skip=("datasets",)):
    """(key, value) for every value in a Vega-Lite spec (or any JSON), a parent before its children; a list's
    items come with the list's key; nothing under a key in ``skip``. ``spec_items({"": spec})`` includes the
    spec itself."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k not in skip:
                yield k, v
                yield from spec_items(v, k, skip)
    elif isinstance(node, list):
        for v in node:
            yield key, v
            yield from spec_items(v, key, skip)


def titles(spec: dict) -> list[str]:
    """Every title in a (possibly layered) Vega-Lite spec."""
    title = spec.get("title")
    out = [title.get("text", "") if isinstance(title, dict) else str(title)] if title else []
    for layer in spec.get("layer", []):
        out += titles(layer)
    return out


def scrubbers(chart: dict) -> list[tuple]:
    """(value, min, max, step) of each slider a chart binds in the browser (``ui.scrub``), asserted a range input."""
    bound = [p for p in chart["spec"].get("params", []) if p.get("bind")]
    assert all(p["bind"]["input"] == "range" for p in bound), bound
    return [(p["value"], p["bind"]["min"], p["bind"]["max"], p["bind"]["step"]) for p in bound]


def labels(chart: dict) -> set[str]:
    """The text of every label a chart's data holds (a scrubbed chart's "showing …" and "yours" marks)."""
    return {str(v) for d in chart["data"].values() if "label" in d for v in d["label"]}


def chart_by_title(at: AppTest, start: str) -> dict:
    """The chart whose title (or a layer's title) starts with ``start``."""
    for c in charts(at):
        if any(t.startswith(start) for t in titles(c["spec"])):
            return c
    raise AssertionError(f"no chart titled {start!r}")


def largest_frame(at: AppTest, title: str, column: str | None = None) -> pd.DataFrame:
    """The largest DataFrame (with ``column``, when given) of the chart whose title starts with ``title`` (a
    layered chart has several)."""
    return max((df for df in chart_by_title(at, title)["data"].values() if column is None or column in df), key=len)


def data_with(chart: dict, column: str) -> pd.DataFrame:
    """The DataFrame of ``chart`` (from ``charts``) that has ``column``."""
    return next(df for df in chart["data"].values() if column in df.columns)


def chart_frame(at: AppTest, title: str, column: str) -> pd.DataFrame:
    """The DataFrame holding ``column`` in the chart whose title starts with ``title``."""
    return data_with(chart_by_title(at, title), column)


def edit_scenario(at: AppTest, field: str, row: int, value) -> AppTest:
    """Type into the sidebar's scenario editor, opening it first as a learner would; returns the rerun app."""
    from ui import scenario as panel

    if panel.EDITOR not in at.session_state or not at.session_state[panel.EDITOR]:
        at.session_state[panel.EDITOR] = True
        at.run()
    widget = at.number_input if field == "prob" else at.text_input
    return widget(key=panel.key(field, row)).set_value(value).run()

