"""Drag and see (``ui.scrub``), in Chromium: a scrubbed chart's range input moves its drawing with no message to the
server. On each page with a scrubbed chart, after "Just show me": the chart has a range input bound to its
parameter (labelled in the page's language); 30 moves of it by the arrow keys send no websocket frame and change
the drawing; on a phone the input is wide enough to drag; and the page still fits the screen with it shown.

The time from a move to the second animation frame after it is printed (``-s``), not asserted: no clock in the
quick suite's assertions.
"""

from __future__ import annotations

import itertools
import statistics

import pytest

from tests.e2e.e2ehelp import layout_problems, wait_for_run
from ui import i18n

pytestmark = pytest.mark.e2e

# url path → the page's scrubbed variable (its name in the range input's label, or the catalogue id of that name);
# the first runs in the quick suite
PAGES = {"Ratio_and_clipping": "ε", "KL_penalty": "β", "TD_error_and_GAE": "λ", "Exploration": "τ",
         "KL_gradients": "p13.bars.name", "Clips_after_PPO": "ε_high", "DPO": "β",
         "Length_and_aggregation": "p10.len_name", "Over_optimisation": "p17.log_beta"}
CASES = [pytest.param(path, name, id=path, marks=() if i == 0 else pytest.mark.exhaustive)
         for i, (path, name) in enumerate(PAGES.items())]
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


@pytest.mark.parametrize("path, name", CASES)
def test_dragging_the_scrubber_redraws_the_chart_with_no_message_to_the_server(server, page, path, name):
    sent = frames_sent(page)
    open_revealed(server, page, path)
    label = page.locator("[data-testid='stVegaLiteChart'] .vega-bind").first.inner_text()
    assert input_label("en", name) in label
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
@pytest.mark.parametrize("path, name", [pytest.param(p, n, id=p) for p, n in PAGES.items()])
def test_on_a_phone_the_scrubber_is_wide_enough_and_the_page_fits(server, phone, path, name, lang):
    open_revealed(server, phone, path, lang)
    label = phone.locator("[data-testid='stVegaLiteChart'] .vega-bind").first.inner_text()
    assert input_label(lang, name) in label
    assert phone.locator(RANGE).first.bounding_box()["width"] >= 200  # a thumb's drag, on a 390 px screen
    phone.evaluate("window.scrollTo(0, 0)")
    assert not layout_problems(phone, "phone", lang=lang)
