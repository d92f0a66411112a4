"""Charts draw for token names that are JavaScript object properties (a shared link carries the scenario).

Before the fix, Vega threw "Operator not defined" and these pages showed empty charts.
"""

from __future__ import annotations

import json
import urllib.parse

import pytest

from tests.apphelp import shared_out
from tests.e2e.e2ehelp import wait_for_run

pytestmark = pytest.mark.e2e

TOKENS = ["toString", "constructor", "__proto__"]
SCENARIO = {"tokens": TOKENS, "probs": [0.5, 0.3, 0.2],
            "samples": [[3.0, 1.0, 2.0, 1.0, 3.0], [5.0, 4.0, 6.0], [10.0, 8.0]]}
PAGES = ["", "Value_Q_advantage", "Policy_gradient", "Exploration"]  # token bars, points and arrows, lines, bands

# per chart, from the drawing Vega made: its size, how many data marks, and the axis and legend labels
VIEWS = """() => [...document.querySelectorAll("[data-testid='stVegaLiteChart']")].map(el => {
    const drawn = el.querySelector('svg.marks, canvas');
    const box = drawn ? drawn.getBoundingClientRect() : {width: 0, height: 0};
    const labels = sel => [...el.querySelectorAll(sel)].map(t => t.textContent);
    return {vega: el.classList.contains('vega-embed'), width: box.width, height: box.height,
            marks: el.querySelectorAll('g.role-mark > path, g.role-mark > line, g.role-mark > g').length,
            axis: labels('g.role-axis-label text'), legend: labels('g.role-legend-label text')};
})"""


@pytest.mark.parametrize("path", shared_out(PAGES, every=len(PAGES), ids=str))
def test_charts_draw_with_tokens_named_like_object_properties(server, page, path):
    problems = []
    page.on("pageerror", lambda err: problems.append(str(err)))
    page.on("console", lambda msg: problems.append(msg.text)  # a missing static file is not a chart's error
            if msg.type == "error" and not msg.text.startswith("Failed to load resource") else None)
    link = urllib.parse.quote(json.dumps(SCENARIO, separators=(",", ":")))
    page.goto(f"{server.url}/{path}?scn={link}")
    page.wait_for_selector("[data-testid='stMain'] h1", timeout=60_000)
    wait_for_run(page, settle_ms=1500)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("toString").count() >= 1, "the page did not adopt the linked scenario"
    show = page.get_by_role("button", name="Just show me")
    if show.count() and not page.locator("[data-testid='stVegaLiteChart']").count():  # charts come on the reveal
        show.first.click()
        wait_for_run(page, settle_ms=1500)
    charts = page.locator("[data-testid='stVegaLiteChart']")
    for i in range(charts.count()):
        charts.nth(i).scroll_into_view_if_needed()  # every chart drawn, not only those on the first screen
    views = page.evaluate(VIEWS)
    assert views, "no chart on the page"
    for i, view in enumerate(views):
        assert view["vega"] and view["width"] > 50 and view["height"] > 50, f"chart {i} has no drawing: {view}"
        assert view["marks"] > 0, f"chart {i} drew no marks: {view}"
    assert not problems, problems  # before the fix: "Operator not defined: undefined", once per chart
    # the names reach the reader as labels, in the scenario's order
    shown = [v["axis"] if path == "" else v["legend"] for v in views]
    assert any([t for t in labels if t in TOKENS] == TOKENS for labels in shown), shown
