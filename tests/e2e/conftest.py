"""Fixtures for the browser tests: a real `streamlit run` server and Debian's headless Chromium."""

from __future__ import annotations

import pytest
from e2ehelp import CHROMIUM, CHROMIUM_ARGS, Server, require_browser


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


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    yield pg
    context.close()
