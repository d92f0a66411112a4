"""Every chart on every page is a valid Vega-Lite spec, with a title, axis titles and tooltips, and the cached path
(``ui.spec``) gives each chart exactly what Altair's own conversion gives.

page.chart skips Altair's per-rerun schema validation for speed; this test does it once per page instead.
"""

from __future__ import annotations

import altair as alt
import pytest
from altair.utils.schemapi import validate_jsonschema

import rlcore
from tests.apphelp import ALL_PAGES, QUICK_SHARE, charts, revealed, shared_out
from tests.ui.chartref import assert_same_as_altair, subspecs
from ui import scrub

SCHEMA = alt.vegalite.v6.schema.core.load_schema()


def walk(spec):
    """Every view with an encoding."""
    return [s for s in subspecs(spec) if "encoding" in s]


@pytest.mark.parametrize("path", shared_out(ALL_PAGES, offset=1, ids=lambda p: p.stem))  # CI: every page
def test_chart_specs_are_valid_and_labelled(path):
    at = revealed(path)
    found = charts(at)
    assert found, "every page shows at least one chart"
    for c in found:
        spec = dict(c["spec"])
        validate_jsonschema(spec, SCHEMA)  # raises on an invalid spec
        assert c["alt"].strip(), "a chart without alt text"
        assert any(s.get("title") for s in subspecs(spec)), f"a chart without a title on {path.name}"
        for channel in ("x", "y"):
            encs = [s["encoding"][channel] for s in walk(spec) if isinstance(s["encoding"].get(channel), dict)]
            with_field = [e for e in encs if "field" in e]
            if with_field and all(e.get("axis", {}) is not None for e in with_field):
                # layers share an axis: one of them names it (None hides a title on purpose, e.g. token names)
                assert any("title" in e for e in encs), f"{path.name}: the {channel} axis has no title: {encs}"
        has_tooltip = any("tooltip" in sub["encoding"] for sub in walk(spec))
        assert has_tooltip, f"{path.name}: a chart has no tooltip"
        # a scrubbed chart (ui.scrub) carries its rows for every value of its grid: 2,000 rows per value at most
        bound = [p["bind"] for p in spec.get("params", []) if p.get("name") == scrub.PARAM]
        values = round((bound[0]["max"] - bound[0]["min"]) / bound[0]["step"]) + 2 if bound else 1  # + an exact one
        assert all(len(df) <= 2_000 * values for df in c["data"].values()), "aggregate before charting"


def _moves(at, full: bool):
    """(kind, key, value): each page slider to its ends (and, ``full``, back), each select box to its last option
    (``full``: through every option, and every third step of a select slider)."""
    ours = lambda w: w.key and not str(w.key).startswith("scn_") and w.key != "scenario_preset"  # noqa: E731
    for s in filter(ours, at.slider):
        yield from (("slider", s.key, v) for v in ((s.min, s.max, s.value) if full else (s.max, s.min)))
    for s in filter(ours, at.select_slider):
        yield from (("select_slider", s.key, v) for v in ((*s.options[::3], s.value) if full else s.options[-1:]))
    for s in filter(ours, at.selectbox):  # by index: a select box that shows names (format_func) keeps the ids
        last = len(s.options) - 1
        yield from (("selectbox", s.key, i) for i in ((*range(last + 1), s.index) if full else (last,)))


def check_cached_specs(path, monkeypatch, scenarios, full: bool):
    """page.chart converts a chart's shape once and refills data and live values; that must equal Altair's own result.

    ``spec.CHECK`` compares every cached spec with a fresh conversion of the same call, so a builder shaped by a
    live value fails on its first call, and a builder that reads its data's values fails at once (``ui.spec``):
    one run of each page is the proof. ``full`` moves every input too (``_moves``), so the cache is hit with data
    and titles other than those it was built with; each spec is also compared with Altair's own conversion.
    """
    from ui import page, spec

    checked, cached_path = [], spec.vega_lite

    def vega_lite_and_recipe(chart):
        out = cached_path(chart)
        if isinstance(chart, spec.Recipe):
            checked.append((out, chart))
        return out

    monkeypatch.setattr(spec, "CHECK", True)
    monkeypatch.setattr(page.spec, "vega_lite", vega_lite_and_recipe)
    for scenario in scenarios:
        at = revealed(path, scenario)
        for kind, key, value in list(_moves(at, full)) if full else []:
            widget = getattr(at, kind)(key=key)
            (widget.select_index(value) if kind == "selectbox" else widget.set_value(value)).run()
    assert checked, "the page draws its charts through ui.spec"
    for cached, chart in checked:
        assert_same_as_altair(cached, chart)


RARE = rlcore.PRESETS["Best token is rare (2%)"]


@pytest.mark.parametrize("path", shared_out(ALL_PAGES, every=QUICK_SHARE, ids=lambda p: p.stem))  # CI: every page
def test_cached_chart_specs_match_altairs_own_conversion(path, monkeypatch):
    """One odd scenario, every question answered, the check on: every chart call compared with its own fresh
    conversion (a cache hit included: a page draws several charts of one shape) and with Altair's."""
    check_cached_specs(path, monkeypatch, (RARE,), full=False)


@pytest.mark.exhaustive
@pytest.mark.parametrize("path", ALL_PAGES, ids=lambda p: p.stem)
def test_cached_chart_specs_match_altairs_own_conversion_everywhere(path, monkeypatch):
    """Two scenarios, every slider to both ends and back, every option of every select box."""
    check_cached_specs(path, monkeypatch, (RARE, None), full=True)
