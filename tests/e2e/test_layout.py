"""Every page on a phone (390 × 844): nothing wider than the screen, no chart spilling out of its column,
navigation by title only. The laptop size (1440 × 900, where the first chart must also start on the first
screen) is checked by ``test_pages_e2e`` on the same page load that tests the charts, and here for the glossary,
the one page that test does not open.
"""

from __future__ import annotations

import pytest
from e2ehelp import layout_problems, wait_for_run

from ui import nav

pytestmark = pytest.mark.e2e

PAGES = [nav.url_path(p.path) for p in nav.PAGES]  # every page a learner can reach, home first
CASES = [pytest.param(path, "phone", id=f"{path or 'Home'}-phone") for path in PAGES]
CASES.append(pytest.param("Glossary", "desktop", id="Glossary-desktop"))


@pytest.mark.parametrize("path, viewport", CASES)
def test_page_fits_the_screen(server, page, phone, path, viewport):
    pg = phone if viewport == "phone" else page
    pg.goto(f"{server.url}/{path}")
    pg.wait_for_selector("[data-testid='stMain'] h1", timeout=60_000)
    wait_for_run(pg)
    assert not layout_problems(pg, viewport, has_charts=path != "Glossary")
