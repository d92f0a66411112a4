"""Benchmark: a workshop of learners on the training lab, all on one server.

    python bench/workshop.py                      # 20 learners, 60 s each, the lab's default settings
    python bench/workshop.py --start heavy        # every learner starts at the lab's heaviest settings
    python bench/workshop.py --learners 5 --seconds 20 --json out.json
    python bench/workshop.py --clients protocol --browser-learners 1   # 19 learners without a browser, 1 with one
    python bench/workshop.py --start hostile --learners 50   # 50 heavy tabs, distinct β; then a new visitor
                                                             # (cached; bench/visitors.py: newcomers not cached)

One `streamlit run dashboard.py` on 127.0.0.1 (a free port, stopped at the end), one headless Chromium,
one browser context per learner, all opening /Training_lab at once. Once its page is up, each learner works for
the given time at a human pace: it waits 1 to 3 s, then presses an arrow key on one of the lab's sliders (most of
the time), clicks a preset, or adds or removes an algorithm; it waits for the app to answer before it thinks
again. An interaction's response time runs from the input to the app back at rest (script not running, no chart
placeholder) and two animation frames later (the charts repainted). Errors: an exception box, an error alert,
a lost connection, an input not answered within a minute.

With ``--clients protocol`` the learners have no browser: each speaks Streamlit's websocket protocol itself
(bench/wsclient.py), as if its browser ran on its own laptop, so that the machine's two cores go to the server.
Such a learner only moves sliders, one step as an arrow key does (on a page without sliders it reruns the page);
its response runs from sending the rerun to the run's script_finished (nothing is drawn); its errors: an exception
or an error alert among the deltas, a closed connection, no script_finished within a minute.
``--browser-learners K`` keeps K learners in Chromium among them: their response is what a person sees
("by_client" in the report).

Prints p50, p95 and the worst response, the errors, the server's CPU use and the load average before and
after (the browser runs on the same machine: its CPU counts against the server's). Target: p95 under 2 s with
no error. Bounded: at most 50 learners, 300 s, and a hard deadline of the run time plus three minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import random
import re
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # bench.wsclient

from tests.e2e.e2ehelp import CHROMIUM, CHROMIUM_ARGS, Server  # noqa: E402

TARGET_P95_S = 2.0
HEAVY = "steps=300&seeds=10&G=32&epochs=8&len=12&resample=8"  # every slider that adds work at its maximum
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
PROBLEMS = "[data-testid='stException'], [data-testid='stAlertContentError']"
SLIDERS = "[data-testid='stMain'] [data-testid='stSlider'] input[type='range']"
# Counts script runs (a whole page or the lab's fragment) and every change of the connection away from CONNECTED.
WATCH = """
window.__runs = 0; window.__lost = 0;
new MutationObserver(records => {
  for (const r of records) {
    if (r.attributeName === 'data-test-script-state' && r.target.getAttribute(r.attributeName) === 'running')
      window.__runs += 1;
    if (r.attributeName === 'data-test-connection-state' && r.target.getAttribute(r.attributeName) !== 'CONNECTED')
      window.__lost += 1;
  }
}).observe(document, {subtree: true, attributes: true,
                      attributeFilter: ['data-test-script-state', 'data-test-connection-state']});
"""
AT_REST = """() => !!document.querySelector("[data-testid='stApp'][data-test-script-state='notRunning']")
  && !document.querySelector("[data-testid='stStatusWidgetRunningIcon']")
  && document.querySelectorAll("[data-testid='stSkeleton']").length === 0"""
TWO_FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load_average() -> str:
    return " ".join(pathlib.Path("/proc/loadavg").read_text().split()[:3])


async def answered(page, runs_before: int) -> bool:
    """Wait until the input's rerun has started and the app is back at rest, repainted; False when no rerun
    started within 5 s (the input changed nothing: WATCH sees every run, however short)."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    try:
        await page.wait_for_function(f"() => window.__runs > {runs_before}", timeout=5_000, polling=20)
    except PlaywrightTimeout:
        return False
    await page.wait_for_function(AT_REST, timeout=60_000, polling=20)
    await page.evaluate(TWO_FRAMES)
    return True


async def slider_press(page, rng: random.Random) -> str | None:
    sliders = page.locator(SLIDERS)
    visible = [i for i in range(await sliders.count()) if await sliders.nth(i).is_visible()]
    if not visible:
        return None
    thumb = sliders.nth(rng.choice(visible))
    value, low, high = await thumb.evaluate("e => [Number(e.value), Number(e.min), Number(e.max)]")
    key = "ArrowLeft" if value >= high else "ArrowRight" if value <= low else rng.choice(["ArrowLeft", "ArrowRight"])
    await thumb.focus()
    await thumb.press(key)
    return f"slider {await thumb.get_attribute('aria-label')} {key}"


async def preset(page, rng: random.Random) -> str | None:
    buttons = page.locator("[data-testid='stMain'] .st-key-views button")  # ui.page.presets: one segmented control
    n = await buttons.count()
    if not n:
        return None
    button = buttons.nth(rng.randrange(n))
    await button.click()
    return f"preset {await button.inner_text()}"


async def algorithm_picker(page, rng: random.Random) -> str | None:
    """Open the algorithm picker: add one algorithm, or, when three are chosen already, remove the last one."""
    box = page.locator("[data-testid='stMain'] [data-testid='stMultiSelect'] input[role='combobox']").first
    if not await box.count():
        return None
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    await box.click()
    options = page.locator("[role='listbox'] [role='option']")
    try:
        await options.first.wait_for(timeout=10_000)
    except PlaywrightTimeout:  # the list did not open (the click landed while the picker was redrawn): let it be
        await page.keyboard.press("Escape")
        return None  # the learner moves a slider instead; an app that hangs shows there
    first = await options.first.inner_text()
    if first.startswith("You can only select"):  # the picker is full: what a learner does is remove one
        await page.keyboard.press("Escape")
        await box.press("Backspace")
        return "remove"
    option = options.nth(rng.randrange(await options.count()))
    name = await option.inner_text()
    await option.click()
    await page.keyboard.press("Escape")
    return f"add {name.strip()}"


async def reload(page) -> str:
    """What a visitor does on a page without inputs (the home page, the glossary): load it again (answered
    here: the reloaded page counts its runs afresh)."""
    await page.reload()
    await page.wait_for_selector("[data-testid='stMain'] h1", timeout=60_000)
    await page.wait_for_function(AT_REST, timeout=60_000, polling=20)
    await page.evaluate("() => { window.__lost = 0; }")  # connecting again after a reload is not a loss
    return "reload"


async def learner(number: int, browser, url: str, seconds: float, stats: dict) -> None:
    """A learner in a browser context of the shared Chromium."""
    rng = random.Random(number)
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    await page.add_init_script(WATCH)
    try:
        t = time.perf_counter()
        await page.goto(url, timeout=120_000)
        await page.wait_for_selector("[data-testid='stMain'] h1", timeout=120_000)
        await page.wait_for_function(AT_REST, timeout=120_000, polling=100)
        stats["first_load"].append(time.perf_counter() - t)
        await page.evaluate("() => { window.__lost = 0; }")  # connecting at the start is not a loss
        more = page.locator("[data-testid='stMain'] [data-testid='stExpander'] summary").filter(
            has_text="More settings")
        if rng.random() < 0.5 and await more.count():  # half the room opens "More settings"
            await more.first.click()
        stop_at = time.perf_counter() + seconds
        while time.perf_counter() < stop_at:
            await page.wait_for_timeout(rng.uniform(1_000, 3_000))  # reading the charts
            roll = rng.random()
            act = slider_press if roll < 0.8 else preset if roll < 0.9 else algorithm_picker
            runs = await page.evaluate("() => window.__runs")
            t = time.perf_counter()
            what = await act(page, rng)
            if what is None:  # nothing to do it with (or the picker's list did not open): the learner does
                stats["fallbacks"] += act is not slider_press  # something else, timed from there
                t = time.perf_counter()
                what = await slider_press(page, rng) or await reload(page)
            if what != "reload" and not await answered(page, runs):
                stats["no_rerun"] += 1
                continue
            stats["responses"].append(time.perf_counter() - t)
            stats["by_client"]["browser"].append(stats["responses"][-1])
            stats["slowest"].append((round(stats["responses"][-1], 2), f"learner {number}: {what}"))
            stats["actions"].append(what.split()[0])
            problems = await page.locator(PROBLEMS).all_inner_texts()
            if problems:
                stats["errors"].append(f"learner {number} after {what}: {problems[0].strip()[:200]}")
                break
            if await page.evaluate("() => window.__lost"):
                stats["errors"].append(f"learner {number}: the connection was lost")
                break
    except Exception as err:  # a timeout or a crash is this learner's error
        stats["errors"].append(f"learner {number}: {type(err).__name__}: {str(err).splitlines()[0][:200]}")
    finally:
        await context.close()


async def protocol_learner(number: int, url: str, seconds: float, stats: dict) -> None:
    """A learner without a browser (bench/wsclient.py): the same pace as ``learner``, only slider moves. The
    frontend reruns only the lab's fragment when one of its widgets changes, and so does this learner."""
    from bench.wsclient import AppClient

    rng = random.Random(number)
    client, what = None, "the first load"
    try:
        t = time.perf_counter()
        client = await AppClient.open(url)
        await client.rerun(timeout=120)
        stats["first_load"].append(time.perf_counter() - t)
        unfold = rng.random() < 0.5  # half the room opens "More settings": the others see only the sliders above it
        stop_at = time.perf_counter() + seconds
        while time.perf_counter() < stop_at and not client.problems:
            await asyncio.sleep(rng.uniform(1, 3))  # reading the charts
            sliders = client.sliders(unfold)
            t = time.perf_counter()
            if sliders:
                widget = rng.choice(sliders)
                what = client.step(widget, rng.random() < 0.5)
                t = time.perf_counter()
                await client.rerun(widget.fragment_id, timeout=60)
            else:  # a page without sliders (the home page, the glossary): the visitor loads it again
                what = "reload"
                await client.rerun(timeout=60)
            stats["responses"].append(time.perf_counter() - t)
            stats["by_client"]["protocol"].append(stats["responses"][-1])
            stats["slowest"].append((round(stats["responses"][-1], 2), f"learner {number} (protocol): {what}"))
            stats["actions"].append(what.split()[0] if what == "reload" else "slider")
        if client.problems:
            stats["errors"].append(f"learner {number} (protocol) after {what}: {client.problems[0]}")
    except TimeoutError:
        stats["errors"].append(f"learner {number} (protocol) after {what}: no script_finished in time")
    except Exception as err:  # the connection closed (websockets' ConnectionClosed), or a crash
        stats["errors"].append(f"learner {number} (protocol) after {what}: {type(err).__name__}: {str(err)[:200]}")
    finally:
        if client is not None:
            await client.close()


async def presser(browser, url: str, seconds: float, interval: float, stats: dict) -> None:
    """One impatient visitor: a key press on the lab's first slider every ``interval`` seconds, without waiting
    for the app; afterwards, how long the app takes to come to rest after the last press."""
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    try:
        await page.goto(url, timeout=120_000)
        await page.wait_for_selector(SLIDERS, timeout=120_000)
        await page.wait_for_function(AT_REST, timeout=120_000, polling=100)
        thumb = page.locator(SLIDERS).first
        await thumb.focus()
        stop_at, presses = time.perf_counter() + seconds, 0
        while time.perf_counter() < stop_at:
            await thumb.press("ArrowRight" if (presses // 10) % 2 == 0 else "ArrowLeft")
            presses += 1
            await asyncio.sleep(interval)
        t = time.perf_counter()
        await page.wait_for_function(AT_REST, timeout=120_000, polling=20)
        stats["presser"] = {"presses": presses, "rest_after_last_s": round(time.perf_counter() - t, 2)}
    except Exception as err:
        stats["errors"].append(f"presser: {type(err).__name__}: {str(err).splitlines()[0][:200]}")
    finally:
        await context.close()


async def workshop(urls: list[str], learners: int, seconds: float, press_every: float | None = None,
                   browsers: int | None = None) -> dict:
    """Learner i on ``urls[i % len(urls)]``, all at once: the first ``browsers`` of them (all when None) in one
    browser, the others protocol learners (and, with ``press_every``, one impatient visitor in the browser on
    ``urls[0]``); what they saw."""
    from contextlib import AsyncExitStack

    browsers = learners if browsers is None else browsers
    stats = {"responses": [], "actions": [], "errors": [], "first_load": [], "no_rerun": 0,
             "by_client": {"browser": [], "protocol": []}, "slowest": [], "fallbacks": 0}
    async with AsyncExitStack() as stack:
        browser = None
        if browsers or press_every:  # no Chromium at all for protocol learners alone
            from playwright.async_api import async_playwright

            p = await stack.enter_async_context(async_playwright())
            browser = await p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            stack.push_async_callback(browser.close)
        crowd = [learner(i, browser, urls[i % len(urls)], seconds, stats) if i < browsers
                 else protocol_learner(i, urls[i % len(urls)], seconds, stats) for i in range(learners)]
        if press_every:
            crowd.append(presser(browser, urls[0], seconds, press_every, stats))
        try:
            await asyncio.wait_for(asyncio.gather(*crowd), timeout=seconds + 180)
        except TimeoutError:
            stats["errors"].append("the workshop did not finish within its deadline")
    return stats


async def hostile(base: str, tabs: int, seconds: float) -> dict:
    """The hostile room: ``tabs`` protocol sessions open the lab at once at its heaviest settings, each with its
    own β (so no two share a cached run), and stay open; once they are all waiting, a new visitor opens the lab at
    its defaults, which an earlier visitor has seen (so the shared cache holds it). What the newcomer waited, how
    many of the heavy tabs finished within ``seconds``, and what a waiting tab read about its place."""
    from bench.wsclient import AppClient

    stats = {"errors": [], "heavy_done": [], "notices": []}
    first = await AppClient.open(f"{base}/Training_lab")  # an earlier visitor: the default view is in the cache
    await first.rerun(timeout=120)
    await first.close()

    async def heavy_tab(i: int) -> None:
        client = await AppClient.open(f"{base}/Training_lab?{HEAVY}&beta={(i + 1) / 100:.2f}")
        t = time.perf_counter()
        try:
            await client.rerun(timeout=seconds)
            stats["heavy_done"].append(time.perf_counter() - t)
        except TimeoutError:
            pass  # still waiting or training at the end: counted as unfinished
        finally:
            stats["notices"].extend(client.notices)
            if client.problems:
                stats["errors"].append(f"heavy tab {i}: {client.problems[0]}")
            await client.close()

    crowd = [asyncio.create_task(heavy_tab(i)) for i in range(tabs)]
    await asyncio.sleep(3)  # every heavy tab has sent its run and waits in line
    t = time.perf_counter()
    newcomer = await AppClient.open(f"{base}/Training_lab")
    try:
        await newcomer.rerun(timeout=120)
        stats["newcomer_s"] = time.perf_counter() - t
        stats["errors"].extend(f"newcomer: {p}" for p in newcomer.problems)
    except TimeoutError:
        stats["errors"].append("newcomer: no script_finished within 120 s")
    finally:
        await newcomer.close()
    await asyncio.gather(*crowd, return_exceptions=True)
    return stats


def runs_ahead(notice: str) -> int:
    """The number of runs a position notice (serve.line's, the catalogue's [turns] entries) says are ahead."""
    found = re.search(r"(\d+) runs? (?:is|are) ahead", notice)
    return int(found.group(1)) if found else -1


def run_hostile(tabs: int = 50, seconds: float = 60) -> dict:
    """Start a server, run the hostile room (``hostile``), stop the server; the report as a dict."""
    if not 1 <= tabs <= 100 or not 5 <= seconds <= 300:
        raise ValueError(f"tabs must be 1..100 and seconds 5..300, got {tabs} and {seconds}")
    load_before = load_average()
    server = Server()
    try:
        stats = asyncio.run(asyncio.wait_for(hostile(server.url, tabs, seconds), timeout=seconds + 180))
    finally:
        server.stop()
    newcomer = stats.get("newcomer_s")
    return {"start": "hostile", "tabs": tabs, "seconds": seconds,
            "newcomer_s": round(newcomer, 2) if newcomer is not None else None,
            "heavy_finished": len(stats["heavy_done"]),
            "heavy_p50_s": round(statistics.median(stats["heavy_done"]), 1) if stats["heavy_done"] else None,
            "a_waiting_tab_read": max(stats["notices"], key=runs_ahead, default=None),  # the longest wait told
            "errors": stats["errors"], "load_before": load_before, "load_after": load_average(),
            "meets_target": newcomer is not None and newcomer <= TARGET_P95_S and not stats["errors"]}


def print_report(report: dict, path: pathlib.Path | None) -> int:
    """Print a benchmark's report as JSON (and write it to ``path``); the exit status: 0 when it meets its target."""
    text = json.dumps(report, indent=2)
    print(text)
    if path:
        path.write_text(text + "\n")
    return 0 if report["meets_target"] else 1


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) by the nearest-rank rule."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(q * len(ordered) + 0.5) - 1))]


def rss_mb(pid: int) -> float:
    """The resident memory of a process, in MB."""
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def summary(times: list[float]) -> dict:
    """Interactions, p50 and p95 of some response times."""
    return {"interactions": len(times), "p50_s": round(statistics.median(times), 3) if times else None,
            "p95_s": round(percentile(times, 0.95), 3) if times else None}


def run(learners: int = 20, seconds: float = 60, start: str = "default", paths=("Training_lab",),
        press_every: float | None = None, clients: str = "browser", browser_learners: int = 0) -> dict:
    """Start a server, run the workshop on ``paths`` (URL paths, shared out in turn), stop the server; the
    report as a dict. ``clients``: "browser" (every learner in Chromium) or "protocol" (learners without a
    browser, ``browser_learners`` of them in Chromium all the same)."""
    if not 0 <= learners <= 50 or not 1 <= seconds <= 300 or (press_every is not None and press_every < 0.05):
        raise ValueError(f"learners must be 0..50, seconds 1..300 and press_every at least 0.05, got {learners}, "
                         f"{seconds} and {press_every}")
    if clients not in ("browser", "protocol") or not 0 <= browser_learners <= learners:
        raise ValueError(f"clients must be browser or protocol and browser_learners 0..learners, got {clients!r} "
                         f"and {browser_learners}")
    browsers = learners if clients == "browser" else browser_learners
    load_before = load_average()
    server = Server()
    try:
        cpu_before, wall_before = cpu_seconds(server.proc.pid), time.perf_counter()
        bench_before = cpu_seconds(os.getpid())  # the protocol learners' CPU (Chromium's is not counted)
        rss_before = rss_mb(server.proc.pid)
        query = f"?{HEAVY}" if start == "heavy" else ""
        stats = asyncio.run(workshop([f"{server.url}/{path}{query}" for path in paths], learners, seconds,
                                     press_every, browsers))
        server_cpu = cpu_seconds(server.proc.pid) - cpu_before
        bench_cpu = cpu_seconds(os.getpid()) - bench_before
        rss_after = rss_mb(server.proc.pid)
        wall = time.perf_counter() - wall_before
        if server.proc.poll() is not None:
            stats["errors"].append("the server died")
    finally:
        server.stop()
    times = stats["responses"]
    report = {
        "learners": learners, "seconds": seconds, "start": start, "clients": clients, "browser_learners": browsers,
        **summary(times),  # interactions, p50, p95
        "by_kind": {k: stats["actions"].count(k) for k in sorted(set(stats["actions"]))},
        "inputs_without_rerun": stats["no_rerun"],
        "fallbacks": stats["fallbacks"],  # browser learners: a preset or picker not there or not opening
        "max_s": round(max(times), 3) if times else None,
        "first_load_p50_s": round(statistics.median(stats["first_load"]), 2) if stats["first_load"] else None,
        "first_load_max_s": round(max(stats["first_load"]), 2) if stats["first_load"] else None,
        "errors": stats["errors"], "server_cpu_s": round(server_cpu, 1), "wall_s": round(wall, 1),
        "server_cores_busy": round(server_cpu / wall, 2), "load_before": load_before, "load_after": load_average(),
        "presser": stats.get("presser"), "rss_before_mb": round(rss_before), "rss_after_mb": round(rss_after),
        "pages": list(paths), "bench_cpu_s": round(bench_cpu, 1),
        "slowest": sorted(stats["slowest"], reverse=True)[:3],  # (seconds, who did what)
    }
    if 0 < browsers < learners:  # a mix: each kind of learner apart
        report["by_client"] = {kind: summary(t) for kind, t in stats["by_client"].items()}
    report["meets_target"] = bool(times) and not stats["errors"] and report["p95_s"] < TARGET_P95_S
    return report


WORKSHOP = "<!-- workshop: kept by bench/run.py, written by bench/workshop.py -->"
HISTORY = "<!-- history: kept by bench/run.py, written by hand -->"
HEADER = ["## A workshop on the training lab (bench/workshop.py)", "",
          "Learners in one headless Chromium (one context each) against one server, each working for the given "
          "time at a human pace (1–3 s of reading, then a slider key press, a preset or an algorithm added or "
          "removed). Response: input → app at rest and repainted. The browser shares the machine's two cores with "
          "the server. Clients \"protocol\": learners without a browser (bench/wsclient.py, Streamlit's websocket "
          "protocol; slider moves only; response: rerun sent → script_finished), \"protocol + K browser\" with K "
          "of them in Chromium. Target: p95 < 2 s, no error.", "",
          "| date | code | learners × s | start | interactions | p50 s | p95 s | worst s | errors | server cores busy "
          "| load average before → after | clients |",
          "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|---|"]


def clients_text(report: dict) -> str:
    """"browser", "protocol" or "protocol + K browser"."""
    k = report.get("browser_learners", 0)
    return "protocol" + (f" + {k} browser" if k else "") if report.get("clients") == "protocol" else "browser"


def write_row(report: dict) -> None:
    """Add the run as a row of BENCHMARKS.md's workshop section (the section is made on first use)."""
    import subprocess

    target = ROOT / "BENCHMARKS.md"
    old = target.read_text()
    if WORKSHOP not in old:
        at = old.index(HISTORY) if HISTORY in old else len(old)
        old = old[:at] + WORKSHOP + "\n" + "\n".join(HEADER) + "\n\n" + old[at:]
    code = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip() or "?"
    r = report
    row = (f"| {time.strftime('%Y-%m-%d %H:%M')} | {code} | {r['learners']} × {r['seconds']:g} | {r['start']} | "
           f"{r['interactions']} | {r['p50_s']} | {r['p95_s']} | {r['max_s']} | {len(r['errors'])} | "
           f"{r['server_cores_busy']} | {r['load_before']} → {r['load_after']} | {clients_text(r)} |")
    head, tail = old.split(WORKSHOP, 1)
    end = tail.index(HISTORY) if HISTORY in tail else len(tail)
    lines = tail[:end].split("\n")
    top = next(i for i, line in enumerate(lines) if line.startswith("|"))  # the table's header
    if "clients" not in lines[top]:  # a table from before the column: add it (the rows before it leave it empty)
        lines[top] += " clients |"
        lines[top + 1] += "---|"
    last = max(i for i, line in enumerate(lines) if line.startswith("|"))  # the table's last row
    lines.insert(last + 1, row)
    target.write_text(head + WORKSHOP + "\n".join(lines) + tail[end:])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--learners", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--start", choices=["default", "heavy", "hostile"], default="default",
                    help="the lab's default settings, or every work-adding slider at its maximum; hostile: "
                         "--learners tabs at the heaviest settings with distinct β, then one new visitor at the "
                         "defaults (its wait is the figure)")
    ap.add_argument("--press-every", type=float, metavar="S",
                    help="add one visitor who presses a key on the lab's first slider every S s without waiting")
    ap.add_argument("--clients", choices=["browser", "protocol"], default="browser",
                    help="browser: every learner in headless Chromium; protocol: learners without a browser, "
                         "speaking Streamlit's websocket protocol (bench/wsclient.py)")
    ap.add_argument("--browser-learners", type=int, default=0, metavar="K",
                    help="with --clients protocol: K of the learners in Chromium all the same")
    ap.add_argument("--page", default="Training_lab", metavar="URL_PATH",
                    help="the page every learner works on (its URL path, e.g. Length_and_aggregation)")
    ap.add_argument("--json", type=pathlib.Path, help="also write the report here")
    ap.add_argument("--write", action="store_true", help="add the figures to BENCHMARKS.md's workshop section")
    args = ap.parse_args()
    if args.start == "hostile":
        report = run_hostile(args.learners, args.seconds)
        print(json.dumps(report, indent=2))
        if args.json:
            args.json.write_text(json.dumps(report, indent=2) + "\n")
        return 0 if report["meets_target"] else 1
    report = run(args.learners, args.seconds, args.start, paths=(args.page,), press_every=args.press_every,
                 clients=args.clients, browser_learners=args.browser_learners)
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    if args.write:
        write_row(report)
    return 0 if report["meets_target"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
