"""The language in a real browser: ``?lang=zh`` stays from page to page through the sidebar's links, a Chinese
browser opens Chinese with no ``lang`` in the link, and the switch turns the page and the link to English.

AppTest's page switch kept the language while Chromium's did not (the new page's switch came back empty and
turned the rest of the page to the browser's language): this is the test that saw it."""

from __future__ import annotations

import pytest
from e2ehelp import VIEWPORTS, wait_for_run

from ui import i18n, nav

pytestmark = pytest.mark.e2e

REWARD = nav.info("pages/2_Reward_and_return.py")
GRADIENT = nav.info("pages/6_Policy_gradient.py")


def heading(pg) -> str:
    return pg.locator("[data-testid='stMain'] h1").first.inner_text()


def follow(pg, page: nav.PageInfo) -> None:
    """Open ``page`` from the sidebar by its Chinese title."""
    pg.locator("[data-testid='stSidebar'] a", has_text=i18n.text("zh", f"nav.titles.{page.title}")).click()
    pg.wait_for_url(f"**/{nav.url_path(page.path)}**")
    wait_for_run(pg)


@pytest.mark.parametrize(("locale", "link"), [("en-US", "?lang=zh"),
                                               pytest.param("zh-CN", "", marks=pytest.mark.exhaustive)])
def test_chinese_stays_from_page_to_page_and_the_switch_turns_it_off(browser, server, locale, link):
    width, height = VIEWPORTS["desktop"]
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    try:
        pg = context.new_page()
        pg.goto(f"{server.url}/{link}")
        wait_for_run(pg)
        assert heading(pg).endswith(i18n.text("zh", "nav.headings.Home"))
        assert pg.url.endswith("?lang=zh"), "the link carries the language, so a shared link opens in Chinese"
        for target in (REWARD, GRADIENT):
            follow(pg, target)
            assert heading(pg).endswith(i18n.text("zh", f"nav.titles.{target.title}"))
            assert pg.url.endswith(f"/{nav.url_path(target.path)}?lang=zh"), pg.url
        pg.locator("[data-testid='stSidebar'] button", has_text=i18n.LANGS["en"]).click()
        pg.wait_for_function("t => !document.querySelector('h1').innerText.includes(t)",
                             arg=i18n.text("zh", f"nav.titles.{GRADIENT.title}"))
        wait_for_run(pg)
        assert heading(pg).endswith(GRADIENT.title)
        # English in an English browser needs no parameter; a Chinese browser's link says English
        assert pg.url.endswith(nav.url_path(GRADIENT.path) + ("" if locale == "en-US" else "?lang=en")), pg.url
    finally:
        context.close()
