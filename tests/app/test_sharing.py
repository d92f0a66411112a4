"""Links that restore a view, notices for bad links, page to page, presets, Reset, show-the-code and
predict-then-reveal on every page."""

from __future__ import annotations

import itertools
import math

import pytest
from streamlit.testing.v1 import AppTest

import rlcore
from tests.apphelp import (
    ALL_PAGES,
    PAGES,
    QUICK_SHARE,
    ROOT,
    choose_preset,
    first_run,
    has_scenario,
    page_text,
    preset_names,
    run_page,
    shared_out,
    slot,
)
from ui import inputs
from ui import scenario as panel
from ui.format import esc


def first_slider(at):
    """The page's first slider (a select_slider counts)."""
    sliders = [s for s in [*at.slider, *at.select_slider] if s.key and not s.key.startswith("scn_")]
    assert sliders, NO_SLIDER
    return sliders[0]


def link_name(widget_key: str) -> str:
    """A page input's link parameter: its key without the page ("td_error_and_gae.lam" → "lam")."""
    return widget_key.rsplit(".", 1)[-1]


def other_value(s):
    if hasattr(s, "options") and s.options:
        options = list(s.options)
        return options[-1] if str(s.value) != options[-1] else options[0]
    return s.max if s.value != s.max else s.min


def value_of(at, key):
    return next(s.value for s in [*at.slider, *at.select_slider] if s.key == key)


def default_slider(path):
    """The page's first slider at its default (a select_slider counts), from the page's one cached plain run."""
    found = next((w for kind, w in defaults(path).values() if kind in ("slider", "select_slider")), None)
    assert found is not None, f"{path.name}: {NO_SLIDER}"
    return found


NO_SLIDER = ("the page has no slider: a concept page has one (inputs.slider or inputs.select_slider) that drives its "
             "main chart (ui/page.py, README's Adding a page)")


@pytest.mark.parametrize("path", shared_out(PAGES, ids=lambda p: p.stem))
def test_link_restores_a_slider_and_the_scenario(path):
    s = default_slider(path)
    target = other_value(s)
    custom = rlcore.PRESETS["Best token is rare (2%)"]
    at = run_page(path, query={link_name(s.key): str(target), panel.URL_KEY: panel.to_json(custom, indent=None)})
    assert float(value_of(at, s.key)) == pytest.approx(float(target))
    if has_scenario(path):
        assert at.session_state["scenario"] == custom
    assert not at.toast, [t.proto.body for t in at.toast]  # a good link raises no notice


GARBAGE = ["abc", "99", "-1e308", "nan", "x" * 5000, "ünï☃", "<script>alert(1)</script>", "[a](http://e.x)"]


# check_link is shared: in the default suite each page gets one of the values in turn (every value reaches
# two pages or more); the exhaustive suite gives every page all of them.
GARBAGE_CASES = shared_out([(path, (GARBAGE[slot(path.stem) // 2 % len(GARBAGE)],)) for path in PAGES], every=2,
                           ids=lambda c: c[0].stem)  # every other page one value; CI: every page every value
GARBAGE_CASES += [pytest.param(path, GARBAGE, id=f"{path.stem}-all", marks=pytest.mark.exhaustive) for path in PAGES]


@pytest.mark.parametrize("path, garbage", GARBAGE_CASES)
def test_garbage_parameters_run_clean_with_a_notice(path, garbage):
    s = default_slider(path)
    key = link_name(s.key)
    for raw in garbage:
        at = run_page(path, query={key: raw, "nonsense": raw})
        bodies = [t.proto.body for t in at.toast]
        if link_fits(s, raw):  # "99" is a fine number of steps on a slider from 0 to 2000: taken, not reported
            assert float(value_of(at, s.key)) == float(raw) and not any(key in b for b in bodies), bodies
        else:
            assert any(key in b.replace("\\", "") for b in bodies), (raw, bodies)  # the notice escapes "_"
        assert any("nonsense" in b for b in bodies), bodies
        assert "<script>" not in " ".join(bodies) and "[a](http" not in " ".join(bodies)


def test_repeated_keys_are_reported_and_hundreds_of_unknown_parameters_make_one_notice():
    path = PAGES[4]
    key = link_name(default_slider(path).key)
    at = run_page(path, query={key: ["0.1", "0.2"]})
    assert any(key in t.proto.body for t in at.toast)
    assert key not in at.query_params
    at = run_page(path, query={f"junk{i}": str(i) for i in range(300)})
    assert len(at.toast) == 1
    body = at.toast[0].proto.body
    assert "300 parameters" in body and "junk0" in body and "junk299" not in body
    assert not [k for k in at.query_params if k.startswith("junk")], "they leave the link"


@pytest.mark.parametrize("path", shared_out(PAGES, offset=2, ids=lambda p: p.stem))
def test_every_page_shows_its_code_and_asks_first(path):
    at = run_page(path)
    assert any(e.label == "Show the code behind this page" for e in at.expander)
    assert not any("Args:" in c.value for c in at.code), "the source is read only once the expander opens"
    at.session_state["show_code"] = True  # the learner opens it
    at.run()
    code = "\n".join(c.value for c in at.code)
    assert "def " in code and "Args:" in code  # the real rlcore source, docstring included
    assert "Predict first." in page_text(at)
    assert at.radio, "the predict question is a radio choice"


@pytest.mark.parametrize("path", shared_out(ALL_PAGES, offset=1, ids=lambda p: p.stem))
def test_every_chart_has_a_table_and_csv(path):
    at = run_page(path)
    n_charts = len(at.get("vega_lite_chart"))
    tables = [e for e in at.expander if e.label == "Data behind this chart"]
    assert len(tables) == n_charts
    assert not any(e.dataframe for e in tables), "a closed table is not built"
    keys = [k for k in at.session_state if str(k).startswith("table_")]
    assert len(keys) == n_charts
    for k in keys:  # the learner opens every table
        at.session_state[k] = True
    at.run()
    tables = [e for e in at.expander if e.label == "Data behind this chart"]
    assert [len(e.dataframe) for e in tables] == [1] * n_charts
    assert len([b for b in at.get("download_button") if b.proto.id and "csv_" in b.proto.id]) == n_charts


# ---------------------------------------------------------------- every input of every page
def own_inputs(at) -> dict:
    """The page's inputs drawn on this run, by link name: (kind, widget). Sidebar widgets are not the page's."""
    out = {}
    for kind in ("slider", "select_slider", "number_input", "selectbox", "radio", "toggle"):
        for w in getattr(at, kind):
            if w.key and "." in w.key:
                out[link_name(w.key)] = (kind, w)
    return out


def link_text(x) -> str:
    return str(x).lower() if isinstance(x, bool) else str(x) if not isinstance(x, float) else format(x, ".10g")


def far_end(kind, w):
    """The input's largest value (the last option), for the link."""
    if kind in ("slider", "number_input"):
        return w.max
    if kind == "toggle":
        return not w.value
    return list(w.options)[-1]


def fits(kind, w, value) -> bool:
    """Would the widget accept ``value``? Derived from what the widget shows, not from the app's code."""
    if kind in ("slider", "number_input"):
        whole = isinstance(w.max, int) and isinstance(w.min, int)
        return w.min <= value <= w.max and (not whole or float(value).is_integer())
    if kind == "toggle":
        return isinstance(value, bool)
    return str(value) in [str(o) for o in w.options]


def link_fits(s, raw: str) -> bool:
    """Whether a link's text is a value slider ``s`` takes (a select_slider: one of its options)."""
    if hasattr(s, "options") and s.options:
        return fits("select", s, raw)
    try:
        x = float(raw)
    except ValueError:
        return False
    whole = isinstance(s.value, int)  # an int slider takes whole numbers only
    return math.isfinite(x) and (not whole or x.is_integer()) and fits("slider", s, x)


def parsed(kind, w, text):
    """``text`` as the widget's kind of value (a float for a number input, the option for a choice)."""
    if kind in ("slider", "number_input"):
        return float(text)
    if kind == "toggle":
        return text == "true"
    return text


def defaults(path) -> dict:
    """The page's inputs at their defaults, {name: (kind, widget)}, from its shared first run."""
    return own_inputs(first_run(path))


# Default suite: from a page to the pages one pair in six picks, by the pair's id (apphelp.slot; three targets a page
# on average): a new page adds its own pairs and changes no other page's targets; exhaustive: to all.
TRAVELS = shared_out([(src, [t for t in PAGES if t != src and slot(f"{src.stem}>{t.stem}") % 6 == 0]) for src in PAGES],
                     offset=3, ids=lambda c: c[0].stem)
TRAVELS += [pytest.param(src, [p for p in PAGES if p != src], id=f"{src.stem}-all", marks=pytest.mark.exhaustive)
            for src in PAGES]


@pytest.mark.parametrize("source, targets", TRAVELS)
def test_a_page_at_its_extremes_then_every_other_page(source, targets):
    """Issue #14: open page A with every input at its far end, then go to other pages B in the same session.

    The link A wrote travels along (AppTest keeps it; a browser's page link drops it). B must run clean, show a
    carried value only where it fits B's own input, keep its default otherwise, and say so in one notice.
    """
    link = {n: link_text(far_end(kind, w)) for n, (kind, w) in defaults(source).items()}
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=120).run()
    at.switch_page(str(source.relative_to(ROOT)))
    at.query_params.update(link)
    at.run()
    shown = own_inputs(at)
    for n, (_, w) in shown.items():  # the page takes its own extremes from the link
        if n in link:
            assert link_text(w.value) == link[n], (f"{source.name}: the link's {n}={link[n]!r} reads {w.value!r}; "
                                                   "a choice's options are the names English shows (README)")
    for target in targets:
        at.query_params.clear()
        at.query_params.update(link)
        at.switch_page(str(target.relative_to(ROOT)))
        at.run()
        mine = defaults(target)
        waiting = set(at.session_state[inputs.LATER]) & set(link)  # inputs behind B's question: their values wait
        misfits = [n for n in link if n not in waiting and (n not in mine or not fits(*mine[n], parsed(*mine[n],
                                                                                                link[n])))]
        assert waiting <= set(at.query_params), "a value for an input drawn after the answer waits in the link"
        for n, (_, w) in own_inputs(at).items():
            if n in link and n not in misfits:  # carried and fits: the link's value
                assert float(link_text(w.value)) == float(link[n]) if link[n][0].isdigit() else \
                    link_text(w.value) == link[n], (target.stem, n, w.value, link[n])
            else:  # not carried, or does not fit: the page's own default
                assert w.value == mine[n][1].value, (target.stem, n, w.value)
        bodies = " ".join(t.proto.body for t in at.toast)
        assert all(esc(n) in bodies for n in misfits[:4]), (target.stem, misfits, bodies)  # markdown-escaped
        assert len(at.toast) <= 2, "one notice for misfits, one for unknown parameters"
        assert not set(misfits) & set(at.query_params), "a misfit is dropped from the link"


HOSTILE = {"inf": ["inf"], "-inf": ["-inf"], "nan": ["nan"], "1e999": ["1e999"], "400 digits": ["9" * 400],
           "text": ["twelve"], "repeated": ["1", "2"], "empty": [""]}


# one value per page in the quick suite, chosen by the page's id (apphelp.slot: a new page moves no other's); all in CI
HOSTILE_CASES = [pytest.param(path, raw, id=f"{path.stem}-{name}",
                              marks=() if (slot(path.stem) + j) % len(HOSTILE) == 0 else pytest.mark.exhaustive)
                 for j, (name, raw) in enumerate(HOSTILE.items()) for path in PAGES]


@pytest.mark.parametrize("path, raw", HOSTILE_CASES)
def test_hostile_link_values_on_every_numeric_input(path, raw):
    """Issue #14: every number input and slider of the page gets the same hostile value in one link."""
    numeric = {n: w for n, (kind, w) in defaults(path).items() if kind in ("slider", "number_input", "select_slider")}
    at = run_page(path, query={n: raw for n in numeric})
    shown = own_inputs(at)
    for n, w in numeric.items():
        assert shown[n][1].value == w.value, (n, raw)  # the default
        assert n not in at.query_params
    assert len(at.toast) == 1, [t.proto.body for t in at.toast]
    body = at.toast[0].proto.body
    assert f"{len(numeric)} values" in body if len(numeric) > 1 else next(iter(numeric)) in body
    assert "9" * 100 not in body, "a long value is shortened in the notice"


def values(at) -> dict:
    return {n: w.value for n, (_, w) in own_inputs(at).items()}


# offset 2, where test_fuzz_pages' Reset check takes 1: between them the quick suite presses Reset on two pages in three
@pytest.mark.parametrize("path", shared_out([p for p in PAGES if has_scenario(p)], every=3, offset=2,
                                             ids=lambda p: p.stem))  # Reset is the scenario sidebar's
def test_reset_restores_every_default_and_clears_the_link(path):
    link = {n: link_text(far_end(kind, w)) for n, (kind, w) in defaults(path).items()}
    at = run_page(path, query=link)
    assert at.query_params, "the far ends are in the link"
    next(b for b in at.button if b.label == "Reset").click().run()
    assert values(at) == {n: w.value for n, (_, w) in defaults(path).items()} and not at.query_params


WITH_PRESETS = [p for p in PAGES if "page.presets(" in p.read_text()]


PRESET_CASES = shared_out([(path, False) for path in WITH_PRESETS], every=QUICK_SHARE, ids=lambda c: c[0].stem)
PRESET_CASES += [pytest.param(path, True, id=f"{path.stem}-every-pair", marks=pytest.mark.exhaustive)
                 for path in WITH_PRESETS]


@pytest.mark.parametrize("path, every_pair", PRESET_CASES)
def test_a_preset_is_a_whole_view_whatever_came_before(path, every_pair):
    """Issue #13: after any preset, the inputs are exactly those of that preset clicked alone on a fresh page;
    moving a slider first, or clicking another preset first, changes nothing, and no link notice appears.
    Default suite: each preset after the one before it and after the one after it (the presets in order, then
    back); exhaustive: every ordered pair."""
    at = run_page(path)
    buttons = preset_names(at)
    assert len(buttons) >= 2
    alone = {}
    for i, b in enumerate(buttons):
        if i:
            at = run_page(path)  # each preset alone on a fresh page (the first on the one that gave the names)
        choose_preset(at, b)
        alone[b] = values(at)
    at = run_page(path)
    s = first_slider(at)
    s.set_value(s.max if s.value != s.max else s.min).run()  # the learner moves a slider first
    if every_pair:
        order = [b for pair in itertools.permutations(buttons, 2) for b in pair]  # every ordered pair, back to back
    else:
        order = [*buttons, *buttons[-2::-1]]  # forward, then back: each preset follows both its neighbours
    for b in order:
        choose_preset(at, b)
        assert values(at) == alone[b], b
        assert not at.toast, [t.proto.body for t in at.toast]
