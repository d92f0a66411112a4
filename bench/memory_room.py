"""Benchmark: a server's memory after a room has come and gone (#34: 54 MB → 718 MB, still 718 MB after).

    python bench/memory_room.py                       # 30 sessions; measure 150 s after they close
    python bench/memory_room.py --arenas 2            # the same with glibc's malloc held to two arenas

One ``streamlit run dashboard.py`` on 127.0.0.1 with a short ``server.disconnectedSessionTTL`` (10 s), so closed
sessions are dropped soon, and nothing else set (no ``MALLOC_ARENA_MAX`` unless ``--arenas`` asks: what a plain
``streamlit run`` on Community Cloud gets). The room: two thirds open the training lab at a β nobody has computed
(heavy, cached for the server), one sixth train page 19 for 5 steps (each its own seed), the rest read other
pages. All stay open until every one has drawn, then close. Reports the server's resident memory before the room,
at its peak, and ``--wait`` seconds after the last session closed (streamlit's expiry passed, its caches still
full). "Before" is the server after it has served every page once and finished the work it does ahead of time
(page 19's default runs), idle (``warm``); "fresh" is the server before its first page (nothing imported yet).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.workshop import cpu_seconds, load_average, rss_mb  # noqa: E402
from bench.wsclient import AppClient  # noqa: E402
from tests.e2e.e2ehelp import free_port  # noqa: E402

READERS = ("Policy_gradient", "TD_error_and_GAE", "Ratio_and_clipping", "DPO")


async def room(url: str, n: int, pid: int) -> float:
    peak = [rss_mb(pid)]

    async def visit(i: int) -> AppClient:
        if i % 6 == 0:
            c = await AppClient.open(f"{url}/R1_Zero_in_miniature?seed={i}&steps=5")
            await c.rerun(timeout=600)
            await c.press("Train", timeout=900)
        elif i % 3 == 0:
            c = await AppClient.open(f"{url}/{READERS[i % len(READERS)]}")
            await c.rerun(timeout=600)
        else:
            c = await AppClient.open(f"{url}/Training_lab?beta={0.01 * (i + 1):.2f}")
            await c.rerun(timeout=900)
        peak.append(rss_mb(pid))
        return c

    clients = await asyncio.gather(*(visit(i) for i in range(n)))
    peak.append(rss_mb(pid))
    for c in clients:
        await c.close()
    return max(peak)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=30)
    ap.add_argument("--wait", type=float, default=150.0)
    ap.add_argument("--arenas", type=int, default=0, help="MALLOC_ARENA_MAX for the server (0: glibc's default)")
    args = ap.parse_args()
    port = free_port()
    env = {**os.environ, **({"MALLOC_ARENA_MAX": str(args.arenas)} if args.arenas else {})}
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "dashboard.py", "--server.headless", "true", "--server.port",
         str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", "--server.disconnectedSessionTTL", "10"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    load = load_average()
    try:
        fresh = asyncio.run(healthy(url, server.pid))
        first = asyncio.run(warm(url, server.pid))
        before = rss_mb(server.pid)
        peak = asyncio.run(room(url, args.sessions, server.pid))
        time.sleep(args.wait)
        after = rss_mb(server.pid)
        print(f"arenas {args.arenas or 'default'}: {args.sessions} sessions; resident memory {fresh:.0f} MB fresh, "
              f"{first:.0f} MB after the first page, {before:.0f} MB before, {peak:.0f} MB at the peak, "
              f"{after:.0f} MB {args.wait:.0f} s after they closed ({after - before:+.0f} MB); "
              f"load average {load} -> {load_average()}", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)


async def healthy(url: str, pid: int) -> float:
    """Wait until the server answers its health check; its resident memory then (no page served yet), in MB."""
    import urllib.request
    for _ in range(240):
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                return rss_mb(pid)
        except OSError:
            await asyncio.sleep(0.5)
    raise RuntimeError("the server did not start")


async def warm(url: str, pid: int) -> float:
    """Open every page once, one after another, then wait until the server is idle (page 19's default runs, trained
    ahead of time, are done): "before" is a server that has served each page (its modules imported, the base model
    loaded, the default views cached and trained), so the room's own mark shows. Returns the resident memory after
    the first page (the home page), in MB."""
    from ui import nav
    first = None
    for entry in nav.PAGES:
        c = await AppClient.open(f"{url}/{nav.url_path(entry.path)}")
        await c.rerun(timeout=600)
        await c.close()
        first = rss_mb(pid) if first is None else first
    await asyncio.sleep(15)  # past the 10 s session expiry
    for _ in range(120):  # idle: under a tenth of a core over 3 s
        cpu = cpu_seconds(pid)
        await asyncio.sleep(3)
        if cpu_seconds(pid) - cpu < 0.3:
            break
    await asyncio.sleep(35)  # and one round of the server's malloc trimmer, as after the room
    return first


if __name__ == "__main__":
    main()
