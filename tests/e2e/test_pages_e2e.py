"""Every page in a real browser against a real server: deep link, no exception, the laptop layout
(``e2ehelp.layout_problems``), charts drawn, slider works."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from tests.e2e.e2ehelp import Server, clipping_problems, layout_problems, quick_share, wait_for_run
from ui import nav

pytestmark = pytest.mark.e2e

GLOSSARY = "pages/20_Glossary.py"  # text only, no chart: its layout is checked in test_layout
PAGES = [nav.url_path(p.path) for p in nav.PAGES if p.path != GLOSSARY]  # "" for home, then reading order


def drawn(png: bytes) -> bool:
    """A chart image has marks: more than a handful of distinct colours."""
    img = Image.open(io.BytesIO(png)).convert("RGB").resize((120, 80))
    colors = img.getcolors(maxcolors=120 * 80)
    return colors is not None and len(colors) > 8


def drawn_charts(page) -> list[bytes]:
    """A screenshot of each chart on the page, each checked for a drawing with marks in it."""
    charts = page.locator("[data-testid='stVegaLiteChart']")
    shots = []
    for i in range(charts.count()):
        chart = charts.nth(i)
        chart.scroll_into_view_if_needed()
        canvas = chart.locator("canvas, svg.marks")
        assert canvas.count() >= 1, f"chart {i} has no canvas/svg"
        box = canvas.first.bounding_box()
        assert box and box["width"] > 50 and box["height"] > 50, f"chart {i} is empty: {box}"
        shots.append(chart.screenshot())
        assert drawn(shots[-1]), f"chart {i} shows no marks"
    return shots


@pytest.mark.parametrize("path", quick_share(PAGES, "desktop", ids=str))  # the phone test opens the other pages
def test_page_renders_and_reacts(server, page, path):
    page.goto(f"{server.url}/{path}")
    page.wait_for_selector("[data-testid='stMain'] h1", timeout=60_000)
    wait_for_run(page)
    assert page.locator("[data-testid='stException']").count() == 0
    problems = layout_problems(page, "desktop")
    # a page that draws no chart until the question is answered (the lab) is laid out once it does
    chartless = problems == ["no chart starts on the first laptop screen: []"]
    assert chartless or not problems, problems
    show = page.get_by_role("button", name="Just show me")
    if show.count():  # the learner reveals the answer first: some charts show the start only until then
        show.first.click()
        page.wait_for_timeout(200)
        wait_for_run(page)
    if chartless:
        assert not layout_problems(page, "desktop")
    assert not (cut := clipping_problems(page)), cut  # nothing cut once the answer is shown either
    before = drawn_charts(page)
    assert before, "no chart on the page"
    if not path:
        return  # the home page has no slider
    sliders = page.locator("[data-testid='stMain'] [data-testid='stSlider'] input[type='range']")
    assert sliders.count() >= 1, "every concept page has a slider"
    url_before = page.url
    thumb = sliders.first
    thumb.focus()
    at_max = thumb.evaluate("e => Number(e.value) >= Number(e.max)")
    for _ in range(3):
        thumb.press("ArrowLeft" if at_max else "ArrowRight")
    page.wait_for_timeout(200)
    wait_for_run(page)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.url != url_before, "a moved slider is reflected in the URL (shareable link)"
    charts = page.locator("[data-testid='stVegaLiteChart']")
    assert charts.count() == len(before), "the slider changed how many charts there are"
    changed = any(charts.nth(i).screenshot() != shot for i, shot in enumerate(before))  # stops at the first change
    assert changed, "moving the first slider changed no chart"


def test_deep_link_is_first_request_on_new_server(browser):
    """A shared link opened on a freshly started server restores the widgets from the URL."""
    srv = Server()
    try:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        pg = context.new_page()
        pg.goto(f"{srv.url}/TD_error_and_GAE?lam=0.0&gamma=0.9")
        pg.wait_for_selector("[data-testid='stMain'] [data-testid='stSlider'] input[type='range']", state="attached",
                             timeout=60_000)
        wait_for_run(pg)
        assert pg.locator("[data-testid='stException']").count() == 0
        values = pg.locator("[data-testid='stMain'] [data-testid='stSlider'] input[type='range']").evaluate_all(
            "els => els.map(e => [e.getAttribute('aria-label'), e.value])")
        now = {float(v) for _, v in values}
        assert 0.0 in now and 0.9 in now, values
        context.close()
    finally:
        srv.stop()


@pytest.mark.parametrize("query, path, title", [("eps=0.3", "Ratio_and_clipping", "Ratio and clipping"),
                                                pytest.param("beta=2", "KL_penalty", "KL penalty",
                                                             marks=pytest.mark.exhaustive)])
def test_the_old_clipping_and_kl_link_goes_on_to_the_half_that_reads_it(server, page, query, path, title):
    page.goto(f"{server.url}/Clipping_and_KL?{query}")
    page.wait_for_selector("[data-testid='stMain'] h1", timeout=60_000)
    wait_for_run(page)
    page.wait_for_url(f"**/{path}?{query}", timeout=30_000)
    assert title in page.locator("[data-testid='stMain'] h1").first.inner_text()
    assert page.locator("[data-testid='stException']").count() == 0
    value = query.split("=")[1]
    values = page.locator("[data-testid='stMain'] [data-testid='stSlider'] input[type='range']").evaluate_all(
        "els => els.map(e => e.value)")
    assert value in values, values
