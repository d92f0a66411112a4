"""Benchmark and deployment check: learners spread over several replicas of the app behind HAProxy.

    python bench/replicas.py --replicas 3 --learners 60 --seconds 40            # one replica stopped midway
    python bench/replicas.py --replicas 3 --learners 30 --seconds 30 --keep-all  # all replicas stay up

Starts ``deploy/local.py``'s cluster on 127.0.0.1 (N ``streamlit run`` replicas on free ports and Debian's
haproxy in front, with the affinity cookie of ``deploy/haproxy.py``). Learner i opens page i of ``ui.nav`` (in
turn) through the balancer as a browser does (the page, the health check, then the websocket, keeping the
cookies) and speaks Streamlit's protocol (bench/wsclient.py). Every learner moves a slider (the link then
carries its view); one in four also opens a chart's data and downloads its CSV, one in four loads a scenario
file through the sidebar's uploader. They go on at a human pace (1–3 s between inputs). Halfway through, one
replica is stopped (unless ``--keep-all``): its learners' connections close; each of them reconnects through
the balancer, as the frontend does, and must find its view again (the same link, the same slider values); the
other learners must not notice anything.

Reports: learners per replica, every response (p50, p95), downloads and uploads done, reconnections, and every
error: a lost session, a failed download or upload, a view not restored, a connection closed on a replica that
was not stopped. Bounded: at most 8 replicas, 90 learners, 120 s, plus a hard deadline of three minutes more.
"""

from __future__ import annotations

import argparse
import asyncio
import pathlib
import random
import shutil
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "deploy"))

from local import COOKIE, Cluster  # noqa: E402

import rlcore  # noqa: E402
from bench.workshop import TARGET_P95_S, load_average, percentile, print_report  # noqa: E402
from ui.nav import PAGES, url_path  # noqa: E402
from ui.scenario import to_json  # noqa: E402

UPLOADER = "Load a saved example (JSON, at most 100 kB)"
FILES = "Save or load this example"
DATA = "Data behind this chart"


def learner_scenario(i: int) -> rlcore.Scenario:
    """A scenario of the learner's own, as a saved file would hold."""
    return rlcore.Scenario(tokens=("yes", "no", f"maybe{i}"), probs=(0.5, 0.3, 0.2),
                           samples=((1.0, 2.0), (4.0,), (float(i % 9), 7.0)))


def view(client) -> tuple[str, dict]:
    """What a learner sees of its view: the link, and every slider's value by label."""
    return client.query, {w.element.label: tuple(w.state.double_array_value.data or w.state.string_array_value.data)
                          for w in client.sliders(unfold=True)}


async def learner(i: int, url: str, seconds: float, stopped: asyncio.Event, victim: str | None, stats: dict):
    from websockets.exceptions import ConnectionClosed

    from bench.wsclient import AppClient

    rng = random.Random(i)
    paths = [url_path(p.path) for p in PAGES]
    path = paths[i % len(paths)]
    role = ("download", "upload", "slider", "slider")[i % 4]
    who = f"learner {i} on /{path} ({role})"
    await asyncio.sleep(rng.uniform(0, 5))  # the room arrives over a few seconds
    client = await AppClient.open(f"{url}/{path}", browser=True)
    replica = client.cookie(COOKIE)
    stats["replica"][i] = replica
    reconnected = False
    try:
        await client.rerun(timeout=90)
        stop_at = time.perf_counter() + seconds
        actions = 0
        while time.perf_counter() < stop_at and not client.problems:
            await asyncio.sleep(rng.uniform(1, 3))
            t = time.perf_counter()
            lost = client.ws.close_code is not None  # the server went away while the learner was reading
            if not lost:
                try:
                    what = await act(client, role if actions % 3 == 1 else "slider", i, rng, stats)
                except (ConnectionClosed, OSError) as err:  # OSError: urllib's errors for a download or upload
                    lost, what = err, None
            if lost:
                if replica != victim or not stopped.is_set():
                    stats["errors"].append(f"{who}: the connection to {replica} was lost ({lost!r:.80}), and nobody "
                                           "stopped that replica")
                    return
                if reconnected:
                    stats["errors"].append(f"{who}: a second connection lost")
                    return
                reconnected = True
                link, held = view(client)  # what the browser holds now: its address bar, its inputs' values
                t = time.perf_counter()
                await client.reconnect(timeout=90)
                stats["reconnect_s"].append(time.perf_counter() - t)
                moved_to = client.cookie(COOKIE)
                if moved_to == victim:
                    stats["errors"].append(f"{who}: reconnected to the stopped replica")
                # The view is the link: the same query string, and the same slider values, except that an input
                # lost in flight (its rerun never answered) may be undone: the new replica reads the link.
                in_flight = lost is not True
                now = view(client)[1]
                changed = {k: (held.get(k), now.get(k)) for k in held.keys() | now.keys() if held.get(k) != now.get(k)}
                if client.query != link or len(changed) > in_flight:
                    stats["errors"].append(f"{who}: the view was not restored on {moved_to}: "
                                           f"{link[:60]!r} → {client.query[:60]!r}, sliders {changed}")
                stats["reconnected"].append((i, replica, moved_to))
                replica = moved_to
                continue
            if what is None:
                continue
            stats["responses"].append(time.perf_counter() - t)
            actions += 1
        stats["per_learner_actions"].append(actions)
        if client.problems:
            stats["errors"].append(f"{who}: {client.problems[0]}")
    except (TimeoutError, ConnectionClosed, OSError) as err:
        stats["errors"].append(f"{who} on {replica}: {type(err).__name__}: {str(err)[:160]}")
    finally:
        await client.close()


async def act(client, role: str, i: int, rng: random.Random, stats: dict) -> str | None:
    """One input of a learner: a slider step, a CSV download or a scenario upload; what was done."""
    if role == "download" and (any(b.label == DATA and b.id for b in client.blocks.values())):
        if not client.labelled("download_button", "Download as CSV"):
            await client.expand(DATA)
        data = await client.download("Download as CSV")
        if not data or b"," not in data.split(b"\n", 1)[0]:
            stats["errors"].append(f"learner {i}: the CSV download came back as {data[:60]!r}")
        stats["downloads"] += 1
        return "download"
    if role == "upload" and (client.labelled("file_uploader", UPLOADER) or await client.expand(FILES)):
        await client.upload(UPLOADER, f"learner{i}.json", to_json(learner_scenario(i)).encode())
        if not any(a.startswith(f"Loaded learner{i}") for a in client.alerts[-5:]):  # (the name comes escaped)
            stats["errors"].append(f"learner {i}: the upload was not loaded: {client.alerts[-3:]}")
        stats["uploads"] += 1
        return "upload"
    sliders = client.sliders(unfold=False)
    if not sliders:
        await client.rerun(timeout=60)
        return "reload"
    widget = rng.choice(sliders)
    client.step(widget, rng.random() < 0.5)
    await client.rerun(widget.fragment_id, timeout=60)
    return "slider"


async def room(url: str, learners: int, seconds: float, cluster: Cluster, stop_one: bool) -> dict:
    stats = {"responses": [], "errors": [], "replica": {}, "reconnected": [], "reconnect_s": [], "downloads": 0,
             "uploads": 0, "per_learner_actions": []}
    stopped = asyncio.Event()
    victim = cluster.names[1] if stop_one else None

    async def stop_midway():
        await asyncio.sleep(5 + seconds / 2)
        stopped.set()  # before its connections close
        await asyncio.to_thread(cluster.stop_replica, victim)

    crowd = [learner(i, url, seconds, stopped, victim, stats) for i in range(learners)]
    if stop_one:
        crowd.append(stop_midway())
    await asyncio.gather(*crowd)
    stats["victim"] = victim
    return stats


def run(replicas: int = 3, learners: int = 60, seconds: float = 40, stop_one: bool = True) -> dict:
    if not 1 <= replicas <= 8 or not 1 <= learners <= 90 or not 5 <= seconds <= 120 or (stop_one and replicas < 2):
        raise ValueError(f"replicas must be 1..8 (2 or more to stop one), learners 1..90 and seconds 5..120, got "
                         f"{replicas}, {learners} and {seconds}")
    load_before = load_average()
    cluster = Cluster(replicas)
    try:
        stats = asyncio.run(asyncio.wait_for(room(cluster.url, learners, seconds, cluster, stop_one),
                                             timeout=seconds + 180))
        died = [n for n in cluster.names if n != stats["victim"] and cluster.apps[n][1].poll() is not None]
    finally:
        cluster.stop()
    times = stats["responses"]
    share = {n: sum(r == n for r in stats["replica"].values()) for n in cluster.names}
    report = {
        "replicas": replicas, "learners": learners, "seconds": seconds, "stopped": stats["victim"],
        "learners_per_replica": share, "interactions": len(times),
        "p50_s": round(statistics.median(times), 3) if times else None,
        "p95_s": round(percentile(times, 0.95), 3) if times else None,
        "max_s": round(max(times), 3) if times else None,
        "downloads": stats["downloads"], "uploads": stats["uploads"],
        "reconnected": len(stats["reconnected"]),
        "reconnect_p95_s": round(percentile(stats["reconnect_s"], 0.95), 2) if stats["reconnect_s"] else None,
        "moved_to": {n: sum(m == n for _, _, m in stats["reconnected"]) for n in cluster.names},
        "errors": stats["errors"] + [f"replica {n} died" for n in died],
        "load_before": load_before, "load_after": load_average(), "logs": str(cluster.dir),
    }
    report["meets_target"] = bool(times) and not report["errors"] and report["p95_s"] <= TARGET_P95_S
    if not report["errors"]:  # the processes' logs are kept only when something went wrong
        shutil.rmtree(cluster.dir, ignore_errors=True)
        report["logs"] = None
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicas", type=int, default=3)
    ap.add_argument("--learners", type=int, default=60)
    ap.add_argument("--seconds", type=float, default=40)
    ap.add_argument("--keep-all", action="store_true", help="stop no replica midway")
    ap.add_argument("--json", type=pathlib.Path, help="also write the report here")
    args = ap.parse_args()
    return print_report(run(args.replicas, args.learners, args.seconds, stop_one=not args.keep_all), args.json)


if __name__ == "__main__":
    raise SystemExit(main())
