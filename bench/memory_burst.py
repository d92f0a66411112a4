"""Benchmark: the server's peak memory through a burst of ordinary heavy settings, against Community Cloud's 690 MB.

    python bench/memory_burst.py                      # the burst of #44, watched for 180 s
    python bench/memory_burst.py --steps 20 --seconds 90   # shorter trainings, on a busy machine

One plain ``streamlit run dashboard.py`` on 127.0.0.1 (nothing set in its environment: what Community Cloud runs),
warmed as bench/memory_room.py warms it (every page once, page 19's default runs trained ahead of time). Then, all
at once, each from a browser of its own (its own cookie jar): three visitors train page 19 at G = 16, 4 epochs and
``--steps`` steps (each its own seed), three train page 18's tiny-model section (its question answered, each its
own seed), and twenty open the training lab at its heaviest settings (each its own β). After ``--seconds`` (or when
all are done) they close; a minute later the server's memory is read again.

Prints the server's VmHWM (its peak resident memory since it started: the warm-up tour and the burst) and VmRSS, in
MB, as JSON; exit status 1 when the peak is above ``--limit`` (690 MB, Community Cloud's smallest app).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.memory_room import healthy, warm  # noqa: E402
from bench.workshop import HEAVY, load_average, rss_mb  # noqa: E402
from bench.wsclient import AppClient  # noqa: E402
from tests.e2e.e2ehelp import free_port  # noqa: E402

LIMIT_MB = 690.0


def peak_mb(pid: int) -> float:
    """A process's peak resident memory (VmHWM), in MB."""
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def burst(url: str, steps: int, seconds: float) -> dict:
    """The burst; what each kind of visitor got done (a run over, or still going when the time was up)."""
    done = {"zero": 0, "dpo": 0, "lab": 0, "errors": []}

    async def visitor(kind: str, i: int) -> None:
        query = {"zero": f"R1_Zero_in_miniature?steps={steps}&G=16&epochs=4&seed={i + 1}",
                 "dpo": f"DPO?zseed={i + 1}", "lab": f"Training_lab?{HEAVY}&beta={(i + 1) / 100:.2f}"}[kind]
        client = await AppClient.open(f"{url}/{query}", browser=True)
        try:
            await client.rerun(timeout=seconds)
            if kind == "dpo":
                await client.press("Just show me", timeout=seconds)
            if kind != "lab":
                await client.press("Train", timeout=seconds)
            done[kind] += 1
        except (TimeoutError, LookupError) as err:
            if isinstance(err, LookupError):
                done["errors"].append(f"{kind} {i}: {err}")
        finally:
            done["errors"].extend(f"{kind} {i}: {p}" for p in client.problems[:1])
            await client.close()

    crowd = [("zero", i) for i in range(3)] + [("dpo", i) for i in range(3)] + [("lab", i) for i in range(20)]
    await asyncio.wait_for(asyncio.gather(*(visitor(k, i) for k, i in crowd)), timeout=seconds + 120)
    return done


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200, help="page 19's steps for its three trainings")
    ap.add_argument("--seconds", type=float, default=180.0, help="how long the burst may run before it closes")
    ap.add_argument("--limit", type=float, default=LIMIT_MB, help="fail when the peak is above this many MB")
    ap.add_argument("--json", type=pathlib.Path)
    args = ap.parse_args()
    if not 5 <= args.steps <= 200 or not 30 <= args.seconds <= 3600:
        raise SystemExit(f"steps must be 5..200 and seconds 30..3600, got {args.steps}, {args.seconds}")
    port, load = free_port(), load_average()
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "dashboard.py", "--server.headless", "true", "--server.port",
         str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", "--server.disconnectedSessionTTL", "10"],
        cwd=ROOT, env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        asyncio.run(healthy(url, server.pid))
        asyncio.run(warm(url, server.pid))
        toured, before = peak_mb(server.pid), rss_mb(server.pid)
        start = time.perf_counter()
        done = asyncio.run(burst(url, args.steps, args.seconds))
        took = time.perf_counter() - start
        peak, end = peak_mb(server.pid), rss_mb(server.pid)
        time.sleep(60)
        report = {"steps": args.steps, "burst_s": round(took, 1), "done": done, "tour_peak_mb": round(toured),
                  "before_mb": round(before), "peak_mb": round(peak), "end_of_burst_mb": round(end),
                  "a_minute_later_mb": round(rss_mb(server.pid)), "limit_mb": args.limit,
                  "load_before": load, "load_after": load_average()}
    finally:
        server.terminate()
        server.wait(timeout=30)
    report["meets_target"] = report["peak_mb"] <= args.limit and not done["errors"]
    text = json.dumps(report, indent=2)
    print(text, flush=True)
    if args.json:
        args.json.write_text(text + "\n")
    return 0 if report["meets_target"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
