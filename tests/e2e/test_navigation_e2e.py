"""One learner's whole visit in one browser session: every slider of every page to its end and back, and every
page opened from the sidebar after each page's sweep; never an exception box, never an error alert.

The pages share one session (the scenario, inputs kept across pages), so a value left at an extreme on one page
must not break another. Each page's sliders go to their maximum (End) and then their minimum (Home), one rerun
each; after a page's sweep every other page is opened from the sidebar's links (ui/nav.py), by its title.
Sliders that appear only after "Just show me" or inside a folded expander are included: the test presses the
one and opens the other first.
"""

from __future__ import annotations

import contextlib
import re
import time

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.e2e.e2ehelp import url_path, wait_for_run
from ui.nav import PAGES, info

pytestmark = [pytest.mark.e2e, pytest.mark.exhaustive]  # 6-8 min in one session: after the quick suite (.ci/run)

GLOSSARY = info("pages/20_Glossary.py")  # a reference page: no slider

SLIDERS = "[data-testid='stMain'] [data-testid='stSlider'] input[type='range']"
FOLDED = "[data-testid='stMain'] [data-testid='stExpander'] details:not([open]) > summary"
PROBLEMS = "[data-testid='stException'], [data-testid='stAlertContentError']"
# Counts every start of a script run (whole page or fragment), so a key press can wait for its own rerun.
COUNT_RUNS = """
window.__runs = 0;
new MutationObserver(records => {
  for (const r of records)
    if (r.target.getAttribute('data-test-script-state') === 'running') window.__runs += 1;
}).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-test-script-state']});
"""


def problems_on(page, where: str) -> list[str]:
    """The exception boxes and error alerts on the page, each with where it was seen."""
    return [f"{where}: {text.strip()[:200]}" for text in page.locator(PROBLEMS).all_inner_texts()]


def after_rerun(page, runs_before: int) -> None:
    """Wait for the rerun an action started (seen by COUNT_RUNS) to finish; a rerun too quick to be seen or none
    at all costs at most a few seconds."""
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(f"() => window.__runs > {runs_before}", timeout=5_000)
    wait_for_run(page, settle_ms=0)


def press_and_wait(page, thumb, key: str) -> bool:
    """Press ``key`` on a slider thumb; when the value changed, wait for the rerun it starts to finish."""
    before_value = thumb.input_value()
    runs = page.evaluate("() => window.__runs")
    thumb.press(key)
    if thumb.input_value() == before_value:
        return False  # already at that end: nothing to rerun
    after_rerun(page, runs)
    return True


def open_from_sidebar(page, title: str, path: str) -> None:
    """Click the sidebar link whose label is ``title`` (after its icon's ligature) and wait for the page to run."""
    link = page.locator("[data-testid='stSidebar'] [data-testid='stPageLink'] a").filter(
        has_text=re.compile(rf"{re.escape(title)}$"))
    assert link.count() == 1, f"one sidebar link titled {title!r}, found {link.count()}"
    link.click()
    page.wait_for_url(re.compile(rf"/{re.escape(path)}(\?.*)?$"), timeout=30_000)
    page.wait_for_selector("[data-testid='stMain'] h1", timeout=60_000)
    wait_for_run(page, settle_ms=0)


def unfold(page) -> None:
    """Press every "Just show me" and open every folded expander, so every slider the page can show is there."""
    show = page.locator("[data-testid='stMain'] button:enabled").filter(has_text="Just show me")
    for _ in range(show.count()):
        runs = page.evaluate("() => window.__runs")
        show.first.click()  # the question it answers is revealed and the button goes
        after_rerun(page, runs)
    for _ in range(page.locator(FOLDED).count()):
        page.locator(FOLDED).first.click()  # the one opened leaves the list


def sweep(page, where: str) -> tuple[int, list[str]]:
    """Every slider on the page to its maximum, then to its minimum; the sliders seen and the problems: errors on
    the page, or a slider that did not reach the end its key asks for."""
    seen, i = [], 0
    while i < page.locator(SLIDERS).count():  # a rerun may add or remove sliders: count again each time
        for attempt in range(3):  # a rerun can replace the slider's element while we hold it: look it up again
            try:
                found = slider_to_both_ends(page, i, where)
                break
            except PlaywrightError as err:
                if "not attached" not in str(err) or attempt == 2:
                    raise
                wait_for_run(page)
        seen += found
        i += 1
    return i, seen


def slider_to_both_ends(page, i: int, where: str) -> list[str]:
    thumb = page.locator(SLIDERS).nth(i)
    label = thumb.get_attribute("aria-label") or f"slider {i}"
    thumb.scroll_into_view_if_needed()
    seen = []
    if not thumb.is_visible() or thumb.is_disabled():  # folded away or greyed out: no learner can move it
        return problems_on(page, f"{where}, {label} (not movable here)")
    for key, end in (("End", "max"), ("Home", "min")):
        press_and_wait(page, thumb, key)
        if thumb.input_value() != thumb.get_attribute(end):
            seen.append(f"{where}, {label}: {key} left it at {thumb.input_value()}, not its {end}")
        seen += problems_on(page, f"{where}, {label} after {key}")
    return seen


def test_every_slider_to_both_ends_then_every_page(server, page):
    page.add_init_script(COUNT_RUNS)
    page.set_default_timeout(60_000)
    page.goto(server.url)
    page.wait_for_selector("[data-testid='stMain'] h1")
    wait_for_run(page, settle_ms=0)
    started, seen, sliders, visits, still = time.perf_counter(), [], 0, 0, []
    for here in PAGES:
        open_from_sidebar(page, here.title, url_path(here.path))
        unfold(page)
        seen += problems_on(page, f"{here.title}, opened")
        n, found = sweep(page, here.title)
        sliders, seen = sliders + n, seen + found
        if here.path.startswith("pages/") and here != GLOSSARY and n == 0:
            still.append(here.title)
        for other in PAGES:
            if other != here:
                open_from_sidebar(page, other.title, url_path(other.path))
                visits += 1
                seen += problems_on(page, f"{other.title}, opened after {here.title}'s sweep")
    print(f"{sliders} sliders to both ends, {visits} page visits from the sidebar in "
          f"{time.perf_counter() - started:.0f} s")
    assert not seen, "\n".join(seen[:20])
    assert not still, f"no slider found on {still}: every concept page has one"
