"""Page 21 in a real browser: a log uploaded through the file uploader (up to the server's 20 MB, past its old
1 MB) is read and drawn with its findings, and a file that is no log shows a message, not a traceback."""

from __future__ import annotations

import pytest

from tests.e2e.e2ehelp import wait_for_run

pytestmark = [pytest.mark.e2e, pytest.mark.exhaustive]  # a 1.4 MB upload: CI's long stage

# a verl console log whose entropy collapses, padded with an unknown key to pass 1 MB (the server's old upload cap)
LOG = "".join(f"(TaskRunner pid=7) step:{s} - actor/entropy:np.float64({0.9 * 0.97 ** s:.6f}) - "
              f"critic/score/mean:{s / 400:.4f} - padding/{'x' * 20}:{s}\n" for s in range(1, 12_001)).encode()


def upload(page, name: str, data: bytes) -> None:
    page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(
        {"name": name, "mimeType": "text/plain", "buffer": data})
    wait_for_run(page, timeout_ms=60_000)


def test_an_uploaded_log_is_read_and_a_bad_one_shows_a_message(server, page):
    assert len(LOG) > 1_000_000
    page.goto(f"{server.url}/Your_run?lang=en")
    page.wait_for_selector("[data-testid='stMain'] h1", timeout=60_000)
    wait_for_run(page)
    main = page.locator("[data-testid='stMain']")
    upload(page, "console.log", LOG)
    main.get_by_text("read as a verl log", exact=False).first.wait_for(timeout=60_000)
    assert main.get_by_text("12,000 steps from 1 to 12,000", exact=False).count() == 1
    assert main.locator("[data-testid='stVegaLiteChart']").count() >= 1
    main.get_by_role("button", name="Just show me").click()
    main.get_by_text("Entropy collapse", exact=False).first.wait_for(timeout=30_000)
    upload(page, "notes.txt", b"hello: these are not metrics\n")
    main.locator("[data-testid='stAlertContentError']").first.wait_for(timeout=30_000)
    assert "none of the formats" in main.locator("[data-testid='stAlertContentError']").first.inner_text()
    assert main.locator("[data-testid='stException']").count() == 0
