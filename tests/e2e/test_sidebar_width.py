"""Issue #13: the sidebar opens at the width ``ui.page.setup`` asks for (``initial_sidebar_state=SIDEBAR_WIDTH``),
on a first visit, on every reload and after moving to another page, in either theme."""

from __future__ import annotations

import pytest

from tests.e2e.e2ehelp import wait_for_run
from ui import page as ui_page

pytestmark = pytest.mark.e2e

WIDTH = "() => Math.round(document.querySelector('[data-testid=\"stSidebar\"]').getBoundingClientRect().width)"


@pytest.mark.exhaustive  # two reloads of a whole page per scheme: CI's exhaustive stage
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_sidebar_keeps_its_width_over_reloads(server, browser, scheme):
    context = browser.new_context(viewport={"width": 1440, "height": 900}, color_scheme=scheme)
    try:
        pg = context.new_page()
        widths = []
        pg.goto(server.url)
        for _ in range(2):  # a first visit to the home page, then a reload
            pg.wait_for_selector("[data-testid='stMain'] h1", timeout=60_000)
            wait_for_run(pg)
            widths.append(pg.evaluate(WIDTH))
            pg.reload()
        pg.locator("[data-testid='stSidebar'] [data-testid='stPageLink'] a").nth(2).click()  # to another page
        wait_for_run(pg, settle_ms=600)
        widths.append(pg.evaluate(WIDTH))
        assert widths == [ui_page.SIDEBAR_WIDTH] * len(widths), widths
    finally:
        context.close()
