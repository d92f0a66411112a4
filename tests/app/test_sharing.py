"""Links that restore a view, notices for bad links, show-the-code and predict-then-reveal on every page."""

from __future__ import annotations

import pytest
from apphelp import ALL_PAGES, PAGES, no_exception, page_text, run_page

import rlcore
from ui import scenario as panel


def first_slider(at):
    """The page's first slider (a select_slider counts)."""
    sliders = [s for s in [*at.slider, *at.select_slider] if s.key and not s.key.startswith("scn_")]
    return sliders[0]


def other_value(s):
    if hasattr(s, "options") and s.options:
        options = list(s.options)
        return options[-1] if str(s.value) != options[-1] else options[0]
    return s.max if s.value != s.max else s.min


def value_of(at, key):
    return next(s.value for s in [*at.slider, *at.select_slider] if s.key == key)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_link_restores_a_slider_and_the_scenario(path):
    default = run_page(path)
    s = first_slider(default)
    target = other_value(s)
    custom = rlcore.PRESETS["Best token is rare (2%)"]
    at = run_page(path, query={s.key: str(target), panel.URL_KEY: panel.to_json(custom, indent=None)})
    no_exception(at)
    assert float(value_of(at, s.key)) == pytest.approx(float(target))
    assert at.session_state["scenario"] == custom
    assert not at.toast, [t.proto.body for t in at.toast]  # a good link raises no notice


GARBAGE = ["abc", "99", "-1e308", "nan", "x" * 5000, "ünï☃", "<script>alert(1)</script>", "[a](http://e.x)"]


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_garbage_parameters_run_clean_with_a_notice(path):
    key = first_slider(run_page(path)).key
    for raw in GARBAGE:
        at = run_page(path, query={key: raw, "nonsense": raw})
        no_exception(at)
        bodies = [t.proto.body for t in at.toast]
        assert any(key in b.replace("\\", "") for b in bodies), (raw, bodies)  # the notice escapes "_"
        assert any("nonsense" in b for b in bodies), bodies
        assert "<script>" not in " ".join(bodies) and "[a](http" not in " ".join(bodies)


def test_repeated_keys_are_reported():
    path = PAGES[4]
    key = first_slider(run_page(path)).key
    at = run_page(path, query={key: ["0.1", "0.2"]})
    no_exception(at)
    assert any(key in t.proto.body for t in at.toast)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
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


@pytest.mark.parametrize("path", ALL_PAGES, ids=lambda p: p.stem)
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
    no_exception(at)
    tables = [e for e in at.expander if e.label == "Data behind this chart"]
    assert [len(e.dataframe) for e in tables] == [1] * n_charts
    assert len([b for b in at.get("download_button") if b.proto.id and "csv_" in b.proto.id]) == n_charts


@pytest.mark.parametrize("path", PAGES[:1], ids=lambda p: p.stem)
def test_reset_clears_the_link(path):
    """Inputs bound to the link come back from it unless Reset sets them to their defaults (and so clears it)."""
    at = run_page(path, query={"temp": "2.0", "seed": "5"})
    assert (at.slider(key="temp").value, at.number_input(key="seed").value) == (2.0, 5)
    next(b for b in at.button if b.label == "Reset").click().run()
    no_exception(at)
    assert (at.slider(key="temp").value, at.number_input(key="seed").value) == (1.0, 0)
    assert "temp" not in at.query_params and "seed" not in at.query_params
