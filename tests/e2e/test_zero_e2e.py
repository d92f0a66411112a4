"""Page 19 in a real browser: Train runs the tiny model live inside the page's panel, with its progress showing,
and Stop keeps the steps trained so far, with the page (its footer included) still there."""

from __future__ import annotations

import re

import pytest

from tests.e2e.e2ehelp import wait_for_run

pytestmark = pytest.mark.e2e


def test_train_shows_progress_and_stop_keeps_the_steps_trained(server, page):
    page.goto(f"{server.url}/R1_Zero_in_miniature?steps=200&lang=en")
    page.wait_for_selector("[data-testid='stMain'] h1", timeout=60_000)
    wait_for_run(page)
    main = page.locator("[data-testid='stMain']")
    assert main.get_by_text("to run GRPO for 200 steps", exact=False).count() == 1  # nothing trained yet
    main.get_by_role("button", name="Train", exact=True).click()
    progress = main.get_by_text(re.compile(r"Step [1-9]\d* of 200"))  # a step after the first has come in
    progress.first.wait_for(timeout=120_000)  # a busy machine trains slower
    main.get_by_role("button", name="Stop", exact=True).click()
    stopped = main.get_by_text(re.compile(r"Stopped after \d+ of 200 steps"))
    stopped.wait_for(timeout=120_000)
    done = int(re.search(r"after (\d+) of", stopped.inner_text()).group(1))
    assert 1 <= done < 200
    wait_for_run(page)
    assert main.get_by_text("Inside one update", exact=True).count() >= 1  # the inspector opens on the steps kept
    assert main.get_by_role("link", name=re.compile("Glossary")).count() >= 1  # the footer is still drawn
