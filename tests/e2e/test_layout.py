"""Every page on a phone (390 × 844): nothing wider than the screen, no chart spilling out of its column,
navigation by title only. The laptop size (1440 × 900, where the first chart must also start on the first
screen) is checked by ``test_pages_e2e`` on the same page load that tests the charts, and here for the glossary,
the one page that test does not open.
"""

from __future__ import annotations

import pytest

from tests.e2e.e2ehelp import layout_problems, quick_share, wait_for_run
from ui import nav

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
