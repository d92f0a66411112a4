"""Fixtures for the browser tests: a real `streamlit run` server and Debian's headless Chromium."""

from __future__ import annotations

import pytest

from tests.e2e.e2ehelp import CHROMIUM, CHROMIUM_ARGS, VIEWPORTS, Server, require_browser

collect_ignore = ["apps"]  # scripts a test serves with `streamlit run`: importing one (--doctest-modules) runs it


@pytest.fixture(scope="session")
def server():
    require_browser()
    srv = Server()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def browser():
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def contexts(browser):
    """One browser context per screen size, shared by the tests of this worker: its HTTP and code caches make
    every page load after the first much cheaper (Streamlit's JavaScript is fetched and compiled once)."""
    made = {}

    def get(viewport: str):
        if viewport not in made:
            width, height = VIEWPORTS[viewport]
            made[viewport] = browser.new_context(viewport={"width": width, "height": height})
        return made[viewport]

    yield get
    for context in made.values():
        context.close()


@pytest.fixture
def page(contexts):
    """A fresh laptop-sized tab (``VIEWPORTS["desktop"]``) in the shared context."""
    pg = contexts("desktop").new_page()
    yield pg
    pg.close()


@pytest.fixture
def phone(contexts):
    """A fresh phone-sized tab (``VIEWPORTS["phone"]``) in the shared context."""
    pg = contexts("phone").new_page()
    yield pg
    pg.close()
