"""Benchmark: a server's memory after a room has come and gone (#34: 54 MB → 718 MB, still 718 MB after).

    python bench/memory_room.py                       # 30 sessions; measure 150 s after they close
    python bench/memory_room.py --arenas 2            # the same with glibc's malloc held to two arenas

One ``streamlit run dashboard.py`` on 127.0.0.1 with a short ``server.disconnectedSessionTTL`` (10 s), so closed
sessions are dropped soon. The room: two thirds open the training lab at a β nobody has computed (heavy, cached
for the server), one sixth train page 19 for 5 steps (each its own seed), the rest read other pages. All stay
open until every one has drawn, then close. Reports the server's resident memory before the room, at its peak,
and ``--wait`` seconds after the last session closed (streamlit's expiry passed, its caches still full); "before"
is the server after it has served every page once (``warm``).
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

from bench.workshop import rss_mb  # noqa: E402
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
    try:
        asyncio.run(warm(url))
        before = rss_mb(server.pid)
        peak = asyncio.run(room(url, args.sessions, server.pid))
        time.sleep(args.wait)
        after = rss_mb(server.pid)
        print(f"arenas {args.arenas or 'default'}: {args.sessions} sessions; resident memory {before:.0f} MB before, "
              f"{peak:.0f} MB at the peak, {after:.0f} MB {args.wait:.0f} s after they closed "
              f"({after - before:+.0f} MB)", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)


async def warm(url: str) -> None:
    """Wait for the server, then open every page once, one after another: "before" is a server that has served each
    page (its modules imported, the base model loaded, the default views cached), so the room's own mark shows."""
    from ui import nav
    for _ in range(120):
        try:
            await (await AppClient.open(f"{url}/")).close()
            break
        except OSError:
            await asyncio.sleep(0.5)
    for entry in nav.PAGES:
        c = await AppClient.open(f"{url}/{nav.url_path(entry.path)}")
        await c.rerun(timeout=600)
        await c.close()
    await asyncio.sleep(15)  # past the 10 s session expiry


if __name__ == "__main__":
    main()
