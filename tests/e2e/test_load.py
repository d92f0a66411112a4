"""Many learners at once: 20 browser sessions on one server, each moving sliders on its own page for 30 s.

Loopback only, bounded in sessions and time. Reports the p95 round trip and the server's memory.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time

import pytest
from e2ehelp import CHROMIUM, CHROMIUM_ARGS, SHOTS, Server, require_browser

pytestmark = [pytest.mark.e2e, pytest.mark.load, pytest.mark.exhaustive]  # ~1-2 min: after the quick suite

SESSIONS, SECONDS = 20, 30
PAGES = ["Reward_and_return", "Value_Q_advantage", "Baseline_and_variance", "TD_error_and_GAE",
         "Policy_gradient", "Exploration", "Clipping_and_KL", "Training_lab", "Loop_state_action", ""]
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


async def learner(browser, url: str, stats: dict) -> None:
    context = await browser.new_context(viewport={"width": 1200, "height": 900})
    page = await context.new_page()
    try:
        await page.goto(url, timeout=120_000)
        await page.wait_for_selector("[data-testid='stMain'] h1", timeout=120_000)
        await page.wait_for_selector(IDLE, timeout=120_000)
        stats["ready"] += 1
        sliders = page.locator("[data-testid='stMain'] [data-testid='stSlider'] input[type='range']")
        i = 0
        stop_at = time.perf_counter() + SECONDS  # each learner works for SECONDS once its page is up
        while time.perf_counter() < stop_at:
            if await sliders.count() == 0:  # the home page: reloading is what a visitor does there
                t = time.perf_counter()
                await page.reload()
                await page.wait_for_selector("[data-testid='stMain'] h1", timeout=60_000)
                await page.wait_for_selector(IDLE, timeout=60_000)
                stats["round_trips"].append(time.perf_counter() - t)
            else:
                thumb = sliders.nth(i % await sliders.count())
                await thumb.focus()
                t = time.perf_counter()
                await thumb.press("ArrowRight" if (i // 3) % 2 == 0 else "ArrowLeft")
                await page.wait_for_timeout(30)
                await page.wait_for_selector(IDLE, timeout=60_000)
                stats["round_trips"].append(time.perf_counter() - t)
            i += 1
            if await page.locator("[data-testid='stException']").count():
                stats["errors"].append(f"exception on {url}")
                break
    except Exception as err:  # a timeout or a crash is a failure of this session
        stats["errors"].append(f"{url}: {type(err).__name__}: {err}")
    finally:
        await context.close()


async def run_load(server) -> dict:
    from playwright.async_api import async_playwright

    stats = {"round_trips": [], "errors": [], "ready": 0}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        await asyncio.gather(*(learner(browser, f"{server.url}/{PAGES[i % len(PAGES)]}", stats)
                               for i in range(SESSIONS)))
        await browser.close()
    return stats


def test_twenty_sessions_for_thirty_seconds():
    require_browser()
    server = Server()
    try:
        before = rss_mb(server.proc.pid)
        stats = asyncio.run(run_load(server))
        after = rss_mb(server.proc.pid)
        assert server.proc.poll() is None, "the server died under load"
    finally:
        server.stop()
    trips = sorted(stats["round_trips"])
    p95 = trips[int(0.95 * (len(trips) - 1))] if trips else float("nan")
    report = {"sessions": SESSIONS, "seconds": SECONDS, "reruns": len(trips),
              "median_s": statistics.median(trips) if trips else None, "p95_s": p95,
              "rss_before_mb": round(before, 1), "rss_after_mb": round(after, 1), "errors": stats["errors"],
              "sessions_ready": stats["ready"]}
    SHOTS.parent.mkdir(parents=True, exist_ok=True)
    (SHOTS.parent / "load.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))
    assert not stats["errors"], stats["errors"][:5]
    assert stats["ready"] == SESSIONS, "every session's page loaded"
    assert len(trips) >= SESSIONS, "every session should complete reruns"
    assert after < before + 1024, f"server memory grew from {before:.0f} MB to {after:.0f} MB"
