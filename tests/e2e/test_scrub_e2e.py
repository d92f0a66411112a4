"""Drag and see (``ui.scrub``), in Chromium: a scrubbed chart's range input moves its drawing with no message to the
server. On each page with a scrubbed chart, after "Just show me": the chart has a range input bound to its
parameter (labelled in the page's language); 30 moves of it by the arrow keys send no websocket frame and change
the drawing; on a phone the input is wide enough to drag; and the page still fits the screen with it shown.

The time from a move to the second animation frame after it is printed (``-s``), not asserted: no clock in the
quick suite's assertions.
"""

from __future__ import annotations

import itertools
import re
import statistics

import pytest

from tests.apphelp import ROOT
from tests.e2e.e2ehelp import layout_problems, wait_for_run
from ui import i18n, nav

pytestmark = pytest.mark.e2e

# every page that draws a scrubbed chart (``page.scrub``), by its address, read from the pages; the quick suite opens
# page 8's ratio page (where scrubbing came first), CI every one
PAGES = [nav.url_path(p.path) for p in nav.PAGES if "page.scrub(" in (ROOT / p.path).read_text(encoding="utf-8")]
QUICK = "Ratio_and_clipping"
CASES = [pytest.param(path, id=path, marks=() if path == QUICK else pytest.mark.exhaustive) for path in PAGES]
MOVES = 30
RANGE = "[data-testid='stVegaLiteChart'] .vega-bind input[type='range']"
DRAWING = """(input) => {
  const chart = input.closest('[data-testid="stVegaLiteChart"]');
  const canvas = chart.querySelector('canvas');
  return canvas ? canvas.toDataURL() : chart.querySelector('svg.marks').outerHTML;
}"""
# one move set in script, as a drag does (the value, then an 'input' event), timed to the second animation frame
TIMED_MOVE = """async (input, value) => {
  const t0 = performance.now();
  input.value = value;
  input.dispatchEvent(new Event('input', {bubbles: true}));
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return performance.now() - t0;
}"""


def input_label(lang: str, name: str) -> str:
    return i18n.text(lang, "chart.scrub_input", name=i18n.text(lang, name) if "." in name else name)


def labelled(label: str, lang: str) -> bool:
    """Whether a range input's label is ``chart.scrub_input`` in ``lang`` naming some variable (each page's own
    variable is its page test's business: ``apphelp.scrubbers``)."""
    before, after = i18n.text(lang, "chart.scrub_input", name="\0").split("\0")
    return re.search(re.escape(before) + r"\S.*" + re.escape(after), label) is not None


def open_revealed(server, pg, path: str, lang: str = "en") -> None:
    pg.goto(f"{server.url}/{path}?lang={lang}")
    pg.wait_for_selector("[data-testid='stMain'] h1", timeout=60_000)
    wait_for_run(pg)
    pg.get_by_role("button", name=i18n.text(lang, "predict.show")).first.click()
    pg.wait_for_selector(RANGE, timeout=30_000)
    wait_for_run(pg)


def frames_sent(pg) -> list:
    """The websocket frames ``pg`` sends from now on (Streamlit's one socket: every rerun request goes on it)."""
    sent: list = []
    pg.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    return sent


def drag(page, slider, sent: list) -> None:
    """Move ``slider`` through MOVES values by the keyboard (back and forth between its ends): each key moves it one
    step, the drawing changes, and no websocket frame goes out."""
    lo, hi, step = (float(slider.get_attribute(a)) for a in ("min", "max", "step"))
    assert lo < hi and step > 0
    page.wait_for_timeout(500)  # the last rerun's messages are out
    before_moves, drawings = len(sent), {slider.evaluate(DRAWING)}
    slider.focus()
    values, key = [float(slider.input_value())], "ArrowRight"
    for _ in range(MOVES):
        value = float(slider.input_value())
        if (key == "ArrowRight" and value >= hi - step / 2) or (key == "ArrowLeft" and value <= lo + step / 2):
            key = "ArrowLeft" if key == "ArrowRight" else "ArrowRight"
        page.keyboard.press(key)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        values.append(float(slider.input_value()))
        drawings.add(slider.evaluate(DRAWING))
    page.wait_for_timeout(500)  # a message a move had caused would be out by now
    assert all(abs(b - a) == pytest.approx(step) for a, b in itertools.pairwise(values)), values  # each key moved it
    assert len(drawings) > 2, "the drawing changes as the input moves"
    assert len(sent) == before_moves, f"{len(sent) - before_moves} websocket frames sent while scrubbing"
    times = [slider.evaluate(TIMED_MOVE, str(lo + (i % 5) * step)) for i in range(MOVES)]
    print(f"\n{len(drawings)} drawings, 0 frames, median {statistics.median(times):.1f} ms a move")


@pytest.mark.parametrize("path", CASES)
def test_dragging_the_scrubber_redraws_the_chart_with_no_message_to_the_server(server, page, path):
    sent = frames_sent(page)
    open_revealed(server, page, path)
    label = page.locator("[data-testid='stVegaLiteChart'] .vega-bind").first.inner_text()
    assert labelled(label, "en"), label
    drag(page, page.locator(RANGE).first, sent)


@pytest.mark.exhaustive
def test_page_5s_second_input_gamma_moves_the_same_chart(server, page):
    sent = frames_sent(page)
    open_revealed(server, page, "TD_error_and_GAE")
    binds = page.locator("[data-testid='stVegaLiteChart'] .vega-bind")
    assert input_label("en", "λ") in binds.nth(0).inner_text() and input_label("en", "γ") in binds.nth(1).inner_text()
    drag(page, page.locator(RANGE).nth(1), sent)


@pytest.mark.exhaustive
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("path", PAGES)
def test_on_a_phone_the_scrubber_is_wide_enough_and_the_page_fits(server, phone, path, lang):
    open_revealed(server, phone, path, lang)
    label = phone.locator("[data-testid='stVegaLiteChart'] .vega-bind").first.inner_text()
    assert labelled(label, lang), label
    assert phone.locator(RANGE).first.bounding_box()["width"] >= 200  # a thumb's drag, on a 390 px screen
    phone.evaluate("window.scrollTo(0, 0)")
    assert not layout_problems(phone, "phone", lang=lang)
