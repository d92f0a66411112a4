"""Many learners at once on one server, shared out over every page of ui/nav.py, each working at a human pace for
30 s (bench/workshop.py's learners: 1–3 s of reading, then an input). Two of them are in headless Chromium (the
home page and the lab: a slider, a preset or the algorithm picker; a reload on a page without inputs); the others
speak Streamlit's websocket protocol without a browser (bench/wsclient.py), so the load is the server's, as in a
room where each learner's browser runs on their own laptop (seventeen Chromium renderers on this 2-core machine
starved each other: a first load took 40 s).

Loopback only, bounded in sessions and time (about two minutes). Target, as for the workshop: the 95th
percentile of the response (input → app at rest and repainted) under 2 s, no error, and the server's memory
not running away.
"""

from __future__ import annotations

import concurrent.futures
import json

import pytest

from bench.workshop import TARGET_P95_S, run
from tests.e2e.e2ehelp import SHOTS, require_browser, url_path
from ui.nav import PAGES

pytestmark = [pytest.mark.e2e, pytest.mark.load, pytest.mark.exhaustive]  # ~2 min: after the quick suite

SESSIONS, SECONDS = 17, 30  # one learner per page
BROWSERS = ("", "Training_lab")  # the first learners, in Chromium


def test_learners_on_every_page_at_once():
    require_browser()
    paths = [url_path(p.path) for p in PAGES]
    paths = [*BROWSERS, *(p for p in paths if p not in BROWSERS)]  # learner i on paths[i]
    # in a thread of its own: the session's sync Playwright (the browser fixture of earlier tests) runs an event
    # loop in this one, and asyncio.run refuses to start a second
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        report = pool.submit(run, SESSIONS, SECONDS, paths=paths, clients="protocol",
                             browser_learners=len(BROWSERS)).result()
    SHOTS.parent.mkdir(parents=True, exist_ok=True)
    (SHOTS.parent / "load.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))
    assert not report["errors"], report["errors"][:5]
    assert report["interactions"] >= 5 * SESSIONS, "each learner gets through several inputs in 30 s"
    # The p95 target (TARGET_P95_S) is judged by bench/workshop.py, not here: a timed assertion would fail on a
    # busy machine for reasons that are not the app's. This test prints it for the log.
    print(f"load test: p95 {report['p95_s']} s against a {TARGET_P95_S} s target, "
          f"load average {report['load_after']}")
    assert report["rss_after_mb"] < report["rss_before_mb"] + 1024, "the server's memory grew by over 1 GB"
