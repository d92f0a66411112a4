"""Benchmark: fair shares per visitor. One visitor's many heavy lab tabs, and newcomers whose view nobody computed.

    python bench/visitors.py                                  # 50 heavy tabs, 10 uncached newcomers, a reader
    python bench/visitors.py --tabs 20 --newcomers 5 --json out.json
    python bench/visitors.py --tabs 0 --seconds 10             # the newcomers alone: what they cost on their own
    python bench/visitors.py --page zero --tabs 8 --newcomers 5   # page 19: eight trainings, newcomers' 5-step runs
    python bench/visitors.py --crowd forged --balancer            # made-up cookies, through HAProxy

One `streamlit run dashboard.py` on 127.0.0.1 (a free port, stopped at the end); protocol clients only
(bench/wsclient.py), no browser, so the machine's cores go to the server. ``--crowd`` says who is who:

- ``browser`` (the default): everyone from 127.0.0.1, the address Streamlit gives no name (None, as behind Community
  Cloud's proxy): a browser is its cookie jar (Streamlit's XSRF cookie, serve.visitors); the visitor's tabs share
  one jar, every newcomer and the reader have their own;
- ``forged``: the same, but each of the visitor's tabs makes up its identity (a fresh XSRF cookie of Streamlit's form,
  or one time in five none);
- ``addresses``: each visitor from its own loopback address (Linux routes all of 127/8 to this machine), the addresses
  below.

- an earlier visitor opens the lab at its defaults (the shared cache holds that view), and the room waits until the
  server is idle (page 19's default runs, trained ahead of time, are done);
- **one visitor** (127.0.0.2) opens ``--tabs`` tabs of the lab at once, at its heaviest settings, each with its own
  β (no two share a cached run), and keeps them open for ``--seconds``;
- a **reader** (127.0.0.3) of another page (Reward_and_return) reruns it every second throughout;
- 3 s after the tabs, **newcomers** (127.0.1.1, 127.0.1.2, ...), one after another: each opens the lab at its
  defaults but a β nobody computed (0.61, 0.62, ...), so its view must be trained. Measured: until its first chart
  arrives, and until its run is over (script_finished). The first newcomer opens the cached defaults instead
  (what ``bench/workshop.py --start hostile`` measures).

With ``--page zero`` the same on page 19 (R1-Zero in miniature): the visitor's tabs each train 200 steps with
G = 16 and 4 epochs, each its own seed; each newcomer trains 5 steps (its own seed), timed from pressing Train
to the run's end; ``--tabs 0`` gives its time alone.

Targets (issue #34): an uncached newcomer's first chart within 2 s (p95); on page 19 a newcomer's 5-step run
within twice its time alone (compare with ``--tabs 0``); readers p95 ≤ 1 s. Prints a JSON report; exit status 0
when the lab's target (or, on page 19, the readers') is met.
"""

from __future__ import annotations

import argparse
import asyncio
import pathlib
import statistics
import sys
import time
import uuid

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.workshop import HEAVY, load_average, percentile, print_report  # noqa: E402
from tests.e2e.e2ehelp import Server  # noqa: E402

TARGET_NEWCOMER_S, TARGET_READER_S = 2.0, 1.0
LAB, ZERO = "Training_lab", "R1_Zero_in_miniature"
ZERO_HEAVY = "steps=200&G=16&epochs=4"  # one of the visitor's trainings (its seed added)


def forged() -> dict:
    """A made-up identity: a fresh XSRF cookie of Streamlit's form (2|mask|token|time) and a visitor cookie of the
    balancer's form, or, one time in five, none."""
    import secrets

    if secrets.randbelow(5) == 0:
        return {}
    return {"_streamlit_xsrf": f"2|{secrets.token_hex(4)}|{secrets.token_hex(16)}|{int(time.time())}",
            "rl_visitor": f"{uuid.uuid4()}.{secrets.token_urlsafe(24)}"}  # the balancer's, with a made-up signature


def who(crowd: str, address: str, jar: dict | None = None) -> dict:
    """How a client connects in ``crowd``: from its own loopback ``address`` ("addresses"), else from 127.0.0.1 as a
    browser with its cookie jar (``jar``: one shared by a browser's tabs; None: a browser of its own)."""
    if crowd == "addresses":
        return {"source": address}
    return {"browser": True, "cookies": jar if jar is not None else {}}


async def train(url: str, source: dict, timeout: float) -> dict:
    """Open page 19 at ``url`` as ``source`` (``who``) and press Train: seconds from the press to the run's end."""
    from bench.wsclient import AppClient

    client = await AppClient.open(url, **source)
    try:
        await client.rerun(timeout=timeout)
        start = time.perf_counter()
        await client.press("Train", timeout=timeout)
        done = time.perf_counter() - start
        return {"chart_s": done, "done_s": done, "problems": client.problems, "notices": client.notices}
    finally:
        await client.close()


async def visit(url: str, source: dict, timeout: float) -> dict:
    """Open ``url`` as a new session as ``source`` (``who``): seconds to its first chart and to its run's end."""
    from bench.wsclient import AppClient

    start = time.perf_counter()
    client = await AppClient.open(url, **source)
    try:
        await client.rerun(timeout=timeout)
        done = time.perf_counter() - start
        chart = client.first_chart_at - start if client.first_chart_at else None
        return {"chart_s": chart, "done_s": done, "problems": client.problems, "notices": client.notices}
    finally:
        await client.close()


async def idle(pid: int) -> None:
    """Until the server is idle (under a tenth of a core over 3 s): page 19's default runs, which the server trains
    ahead of time once its page is first opened, are done, and take no turns from the room."""
    from bench.workshop import cpu_seconds

    for _ in range(100):
        cpu = cpu_seconds(pid)
        await asyncio.sleep(3)
        if cpu_seconds(pid) - cpu < 0.3:
            return


async def room(base: str, tabs: int, newcomers: int, seconds: float, zero: bool = False, pid: int = 0,
               crowd: str = "browser", patience: float = 60) -> dict:
    from bench.wsclient import AppClient

    stats = {"errors": [], "heavy_done": [], "notices": [], "reader": [], "newcomers": []}
    await visit(f"{base}/{ZERO if zero else LAB}", who(crowd, "127.0.0.1"), 120)  # the earlier visitor: cached
    if pid:
        await idle(pid)
    over = asyncio.Event()

    async def heavy_tab(i: int) -> None:
        query = f"{ZERO}?{ZERO_HEAVY}&seed={i + 1}" if zero else f"{LAB}?{HEAVY}&beta={(i + 1) / 100:.2f}"
        how = {"cookies": forged()} if crowd == "forged" else who(crowd, "127.0.0.2", the_browser)  # one jar
        client = await AppClient.open(f"{base}/{query}", **how)
        t = time.perf_counter()
        try:
            await client.rerun(timeout=seconds)
            if zero:
                t = time.perf_counter()
                await client.press("Train", timeout=seconds)
            stats["heavy_done"].append(time.perf_counter() - t)
            await over.wait()  # the tab stays open
        except TimeoutError:
            pass  # still waiting or training at the end: unfinished
        finally:
            stats["notices"].extend(client.notices)
            stats["errors"].extend(f"heavy tab {i}: {p}" for p in client.problems[:1])
            await client.close()

    async def reader() -> None:
        client = await AppClient.open(f"{base}/Reward_and_return", **who(crowd, "127.0.0.3"))
        try:
            await client.rerun(timeout=60)
            while not over.is_set():
                await asyncio.sleep(1)
                t = time.perf_counter()
                await client.rerun(timeout=60)
                stats["reader"].append(time.perf_counter() - t)
            stats["errors"].extend(f"reader: {p}" for p in client.problems[:1])
        finally:
            await client.close()

    the_browser: dict = {}
    if crowd == "browser":  # the visitor's browser gets its cookies first, as a browser opening its first tab
        first = await AppClient.open(f"{base}/", browser=True)
        the_browser.update(first.cookies)
        await first.close()
    start = time.perf_counter()
    tasks = [asyncio.create_task(heavy_tab(i)) for i in range(tabs)] + [asyncio.create_task(reader())]
    await asyncio.sleep(3)  # every heavy tab has sent its run and waits in line
    for i in range(newcomers + 1):
        query = "" if i == 0 else f"?steps=5&seed={50 + i}" if zero else f"?beta={0.60 + i / 100:.2f}"
        try:  # the first newcomer: the cached defaults
            if zero and i:
                seen = await train(f"{base}/{ZERO}{query}", who(crowd, f"127.0.1.{i + 1}"), patience)
            else:
                seen = await visit(f"{base}/{ZERO if zero else LAB}{query}", who(crowd, f"127.0.1.{i + 1}"), patience)
            seen["cached"] = i == 0
            stats["newcomers"].append(seen)
            stats["errors"].extend(f"newcomer {i}: {p}" for p in seen["problems"])
        except TimeoutError:
            stats["errors"].append(f"newcomer {i}: no script_finished within {patience:.0f} s")
    await asyncio.sleep(max(0.0, start + seconds - time.perf_counter()))  # the tabs stay open their time
    over.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return stats


def run(tabs: int = 50, newcomers: int = 10, seconds: float = 60, page: str = "lab", crowd: str = "browser",
        balancer: bool = False) -> dict:
    """Start a server, run the room, stop the server; the report as a dict."""
    if not 0 <= tabs <= 100 or not 1 <= newcomers <= 50 or not 10 <= seconds <= 300:
        raise ValueError(f"tabs must be 0..100 (0: newcomers alone), newcomers 1..50 and seconds 10..300, "
                         f"got {tabs}, {newcomers}, {seconds}")
    load_before = load_average()
    if balancer:  # one replica behind HAProxy (deploy/local.py): the visitor is its signed rl_visitor cookie
        from deploy.local import Cluster

        server = Cluster(1)
        url, pid = server.url, server.pid("app1")
    else:
        server = Server()
        url, pid = server.url, server.proc.pid
    try:
        stats = asyncio.run(asyncio.wait_for(room(url, tabs, newcomers, seconds, page == "zero", pid, crowd),
                                             timeout=seconds + 60 * newcomers + 480))
    finally:
        server.stop()
    uncached = [n for n in stats["newcomers"] if not n["cached"]]
    charts = [n["chart_s"] if n["chart_s"] is not None else n["done_s"] for n in uncached]
    done = [n["done_s"] for n in uncached]
    cached = [n["done_s"] for n in stats["newcomers"] if n["cached"]]

    def rounded(xs, q):
        return round(percentile(xs, q), 2) if xs else None
    report = {"page": page, "crowd": crowd, "balancer": balancer, "tabs": tabs, "newcomers": len(uncached),
              "seconds": seconds,
              "cached_newcomer_s": round(cached[0], 2) if cached else None,
              "uncached_first_chart_p50_s": rounded(charts, 0.5), "uncached_first_chart_p95_s": rounded(charts, 0.95),
              "uncached_done_p50_s": rounded(done, 0.5), "uncached_done_p95_s": rounded(done, 0.95),
              "uncached_done_s": [round(x, 2) for x in done],
              "reader_p50_s": round(statistics.median(stats["reader"]), 3) if stats["reader"] else None,
              "reader_p95_s": rounded(stats["reader"], 0.95), "reader_reruns": len(stats["reader"]),
              "heavy_finished": len(stats["heavy_done"]),
              "errors": stats["errors"][:10], "load_before": load_before, "load_after": load_average()}
    readers_ok = bool(stats["reader"]) and percentile(stats["reader"], 0.95) <= TARGET_READER_S
    newcomers_ok = page == "zero" or (bool(charts) and percentile(charts, 0.95) <= TARGET_NEWCOMER_S)
    report["meets_target"] = readers_ok and newcomers_ok and not stats["errors"]
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tabs", type=int, default=50)
    ap.add_argument("--newcomers", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--page", choices=["lab", "zero"], default="lab", help="the training lab, or page 19")
    ap.add_argument("--crowd", choices=["browser", "forged", "addresses"], default="browser",
                    help="everyone on 127.0.0.1: the visitor's tabs one browser (one cookie jar), or each tab a "
                         "made-up identity; or each visitor from its own loopback address")
    ap.add_argument("--balancer", action="store_true", help="one replica behind HAProxy (deploy/local.py)")
    ap.add_argument("--json", type=pathlib.Path)
    args = ap.parse_args()
    return print_report(run(args.tabs, args.newcomers, args.seconds, args.page, args.crowd, args.balancer), args.json)


if __name__ == "__main__":
    raise SystemExit(main())
