"""Benchmark: a room training R1-Zero in miniature at once, while others read the other pages, on one server.

    python bench/zero_room.py                                # 20 trainers, 20 steps each; 10 readers
    python bench/zero_room.py --trainers 5 --steps 10 --readers 4 --json out.json

One ``streamlit run dashboard.py`` on 127.0.0.1 (stopped at the end). Every trainer opens page 19 with its own
settings (its own seed, so no run is shared) and presses Train; readers move sliders on other pages at a human
pace (1–3 s between inputs), as the protocol learners of bench/workshop.py do (bench/wsclient.py, no browser).
Trainings take turns of about a second on the server's training line (``serve.line.in_turns``).

Reports: each trainer's wait for its first turn and its time to finish; the readers' responses (p50, p95; target
p95 < 2 s: a room of trainings must not hold up the other pages) and any error. With turns the trainings finish
close together (fair), in about trainers × one run's CPU time; without, one after the other.
"""

from __future__ import annotations

import argparse
import asyncio
import pathlib
import random
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.workshop import TARGET_P95_S, cpu_seconds, load_average, percentile, print_report  # noqa: E402
from bench.wsclient import AppClient  # noqa: E402
from tests.e2e.e2ehelp import Server  # noqa: E402

READER_PAGES = ("Reward_and_return", "TD_error_and_GAE", "Policy_gradient", "Length_and_aggregation",
                "Entropy_and_pass_at_k")


async def trainer(i: int, url: str, steps: int, stats: dict) -> None:
    client = None
    try:
        client = await AppClient.open(f"{url}/R1_Zero_in_miniature?seed={i}&steps={steps}")
        await client.rerun(timeout=120)
        await asyncio.sleep(random.Random(i).uniform(0, 2))  # the room presses Train within two seconds
        t = time.perf_counter()
        await client.press("Train", timeout=900)
        stats["trained_s"].append(time.perf_counter() - t)
        stats["waited_in_line"] += bool(client.notices)
        if client.problems:
            stats["errors"].append(f"trainer {i}: {client.problems[0]}")
    except Exception as err:  # a timeout, a closed connection
        stats["errors"].append(f"trainer {i}: {type(err).__name__}: {str(err)[:160]}")
    finally:
        if client is not None:
            await client.close()


async def reader(i: int, url: str, until: asyncio.Event, stats: dict) -> None:
    rng, client = random.Random(1000 + i), None
    try:
        client = await AppClient.open(f"{url}/{READER_PAGES[i % len(READER_PAGES)]}")
        await client.rerun(timeout=120)
        while not until.is_set():
            await asyncio.sleep(rng.uniform(1, 3))
            sliders = client.sliders(unfold=False)
            t = time.perf_counter()
            if sliders:
                w = rng.choice(sliders)
                client.step(w, rng.random() < 0.5)
                await client.rerun(w.fragment_id, timeout=60)
            else:
                await client.rerun(timeout=60)
            stats["responses"].append(time.perf_counter() - t)
        if client.problems:
            stats["errors"].append(f"reader {i}: {client.problems[0]}")
    except Exception as err:
        stats["errors"].append(f"reader {i}: {type(err).__name__}: {str(err)[:160]}")
    finally:
        if client is not None:
            await client.close()


async def room(url: str, trainers: int, steps: int, readers: int) -> dict:
    stats = {"trained_s": [], "responses": [], "errors": [], "waited_in_line": 0}
    done = asyncio.Event()

    async def training():
        await asyncio.gather(*(trainer(i, url, steps, stats) for i in range(trainers)))
        done.set()

    await asyncio.gather(training(), *(reader(i, url, done, stats) for i in range(readers)))
    return stats


def run(trainers: int = 20, steps: int = 20, readers: int = 10) -> dict:
    if not 1 <= trainers <= 40 or not 5 <= steps <= 200 or steps % 5 or not 0 <= readers <= 40:
        raise ValueError(f"trainers must be 1..40, steps 5..200 in fives and readers 0..40, got {trainers}, {steps} "
                         f"and {readers}")
    load_before = load_average()
    server = Server()
    try:
        cpu_before, t = cpu_seconds(server.proc.pid), time.perf_counter()
        stats = asyncio.run(asyncio.wait_for(room(server.url, trainers, steps, readers), timeout=1200))
        wall, cpu = time.perf_counter() - t, cpu_seconds(server.proc.pid) - cpu_before
    finally:
        server.stop()
    trained, times = sorted(stats["trained_s"]), stats["responses"]
    report = {
        "trainers": trainers, "steps": steps, "readers": readers,
        "trainings_finished": len(trained),
        "first_finished_s": round(trained[0], 1) if trained else None,
        "median_finished_s": round(statistics.median(trained), 1) if trained else None,
        "last_finished_s": round(trained[-1], 1) if trained else None,
        "trainers_told_their_place": stats["waited_in_line"],
        "reader_interactions": len(times),
        "reader_p50_s": round(statistics.median(times), 3) if times else None,
        "reader_p95_s": round(percentile(times, 0.95), 3) if times else None,
        "reader_max_s": round(max(times), 3) if times else None,
        "errors": stats["errors"], "server_cpu_s": round(cpu, 1), "wall_s": round(wall, 1),
        "load_before": load_before, "load_after": load_average(),
    }
    report["meets_target"] = (not stats["errors"] and len(trained) == trainers
                              and (not times or report["reader_p95_s"] < TARGET_P95_S))
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trainers", type=int, default=20)
    ap.add_argument("--steps", type=int, default=20, help="each trainer's run (5 to 200, in fives)")
    ap.add_argument("--readers", type=int, default=10)
    ap.add_argument("--json", type=pathlib.Path)
    args = ap.parse_args()
    try:
        report = run(args.trainers, args.steps, args.readers)
    except ValueError as err:  # a setting out of range: said as a usage error, not a traceback
        ap.error(str(err))
    return print_report(report, args.json)


if __name__ == "__main__":
    raise SystemExit(main())
