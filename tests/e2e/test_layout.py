"""Every page on a phone (390 × 844): nothing wider than the screen, no chart spilling out of its column,
navigation by title only. The laptop size (1440 × 900, where the first chart must also start on the first
screen) is checked by ``test_pages_e2e`` on the same page load that tests the charts, and here for the glossary,
the one page that test does not open.
"""

from __future__ import annotations

import pytest

from tests.e2e.e2ehelp import layout_problems, quick_share, toolbar_problems, wait_for_run
from ui import i18n, nav

pytestmark = pytest.mark.e2e

PAGES = [nav.url_path(p.path) for p in nav.PAGES]  # every page a learner can reach, home first
# on a phone in the quick suite: the pages test_pages_e2e does not open on a laptop (every page in CI)
CASES = [pytest.param(*p.values, "phone", id=p.id, marks=p.marks)
         for p in quick_share(PAGES, "phone", ids=lambda path: f"{path or 'Home'}-phone")]
CASES.append(pytest.param("Glossary", "desktop", id="Glossary-desktop"))


@pytest.mark.parametrize("path, viewport", CASES)
def test_page_fits_the_screen(server, page, phone, path, viewport):
    pg = phone if viewport == "phone" else page
    pg.goto(f"{server.url}/{path}")
    pg.wait_for_selector("[data-testid='stMain'] h1", timeout=60_000)
    wait_for_run(pg)
    assert not layout_problems(pg, viewport, has_charts=path != "Glossary")


# Pages 8 and 19, where a chart's toolbar covered the ε slider's 0.50 end and the last cell of the "Inside one
# update" table: every chart hovered, the question answered (page 19 trained for 5 steps, so the update shows), in
# both languages at both sizes; on a laptop, the first chart on the first screen once the question is answered
TOOLBAR_PAGES = {"Ratio_and_clipping": "", "R1_Zero_in_miniature": "&steps=5"}
QUICK = {("Ratio_and_clipping", "zh", "desktop")}  # page 19 trains in the browser (17 s): CI only
TOOLBAR_CASES = [pytest.param(path, lang, size, id=f"{path}-{lang}-{size}",
                              marks=() if (path, lang, size) in QUICK else pytest.mark.exhaustive)
                 for path in TOOLBAR_PAGES for lang in i18n.LANGS for size in ("phone", "desktop")]


@pytest.mark.parametrize("path, lang, viewport", TOOLBAR_CASES)
def test_no_chart_toolbar_covers_a_slider_a_table_or_text(server, page, phone, path, lang, viewport):
    pg = phone if viewport == "phone" else page
    pg.goto(f"{server.url}/{path}?lang={lang}{TOOLBAR_PAGES[path]}")
    pg.wait_for_selector("[data-testid='stMain'] h1", timeout=60_000)
    wait_for_run(pg)
    pg.get_by_role("button", name=i18n.text(lang, "predict.show")).first.click()
    wait_for_run(pg)
    if path.startswith("R1_Zero"):
        pg.get_by_role("button", name=i18n.text(lang, "p19.train"), exact=True).click()
        pg.get_by_text(i18n.text(lang, "p19.inside"), exact=True).wait_for(timeout=180_000)  # a busy machine is slow
        wait_for_run(pg, timeout_ms=60_000)
    pg.evaluate("document.querySelector('[data-testid=stMain]').scrollTo(0, 0)")
    assert not (problems := layout_problems(pg, viewport, lang=lang)), problems
    assert not (covered := toolbar_problems(pg, charts=20)), covered
