"""A rerun starts in a new thread while the superseded run winds down (Streamlit's ``runner.fastReruns``). The old
run, at the end of a training turn, must not join the line again and take the new run's place: the new run would
stop where it waited (page 19 after Stop lost everything below its best-of-G, CI on 2026-12-07)."""

from __future__ import annotations

import pytest

from tests.e2e.e2ehelp import Server, require_browser, wait_for_run

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def training_app():
    require_browser()
    srv = Server("tests/e2e/apps/rerun_beside_training.py")
    yield srv
    srv.stop()


def test_a_rerun_during_a_live_training_gets_its_turn(training_app, page):
    page.goto(training_app.url)
    page.get_by_text("training", exact=True).wait_for(timeout=60_000)
    page.wait_for_timeout(1_500)  # the training holds the line, between turns makes no Streamlit call
    page.get_by_role("button", name="Again").click()
    page.get_by_text("run 2 had its turn", exact=True).wait_for(timeout=20_000)
    wait_for_run(page)
