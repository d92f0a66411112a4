"""Benchmark: page 21's server time for a real-sized log (issue #46's targets), and the reader's memory.

    python bench/runlog_speed.py [--repeat 5]

Two logs are written here (seeded, nothing read from elsewhere): a verl console log of 1,120 steps with verl's
~45 keys a line (about 1.6 MB, the size of the issue's example) and a 100,000-step verl console log of 6 keys a
line (just under 20 MB would be more keys; this one is the step count). For each: ``rlcore.your_run`` (read,
bucket to 400, diagnose), median of ``--repeat`` runs, and the peak memory the reader allocates (tracemalloc).
Then the page's own drawing: AppTest reruns of page 21 on its 300-step example (400 buckets at most, so the
chart's rows and the drawing cost do not grow with the log's length), median of ``--repeat``. Targets: 1,120 steps
read and drawn within 1 s of server time, 100,000 steps within 3 s. CPU time is printed beside the wall clock: on a
shared machine the wall clock is inflated by other processes.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time
import tracemalloc

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import numpy as np

import rlcore

ROOT = pathlib.Path(__file__).resolve().parent.parent
VERL_KEYS = (
    [f"actor/{k}" for k in ("entropy", "pg_loss", "pg_clipfrac", "pg_clipfrac_lower", "ppo_kl", "kl_loss", "kl_coef",
                            "grad_norm", "lr")]
    + [f"critic/{q}/{s}" for q in ("score", "rewards", "advantages", "returns") for s in ("mean", "max", "min")]
    + [f"response_length/{s}" for s in ("mean", "max", "min", "clip_ratio")]
    + [f"timing_s/{k}" for k in ("gen", "reward", "old_log_prob", "ref", "adv", "update_actor", "step", "testing")]
    + [f"perf/{k}" for k in ("mfu/actor", "max_memory_allocated_gb", "total_num_tokens", "throughput")]
    + ["training/global_step", "training/epoch"])


def verl_console(steps: int, keys: list[str], *, wrapped: bool, prefix: str = "", seed: int = 0) -> bytes:
    """A verl console log: ``(TaskRunner pid=…) step:N - key:np.float64(value) - …`` (``wrapped``: numpy's repr, as
    newer verl prints with numpy 2) with a validation line every 10 steps, as verl prints them."""
    rng = np.random.default_rng(seed)
    values = rng.random((steps, len(keys)))
    shown = "np.float64({:.6g})" if wrapped else "{:.6g}"
    lines = []
    for s in range(steps):
        parts = " - ".join(f"{k}:" + shown.format(v) for k, v in zip(keys, values[s], strict=True))
        lines.append(f"{prefix}step:{s + 1} - {parts}")
        if (s + 1) % 10 == 0:
            lines.append(f"{prefix}step:{s + 1} - val-core/openai/gsm8k/reward/mean@1:{rng.random():.4f}")
    return ("\n".join(lines) + "\n").encode()


def timed(fn, repeat: int) -> tuple[float, float]:
    wall, cpu = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    logs = {"verl console, 1,120 steps": verl_console(1120, VERL_KEYS, wrapped=True, prefix="(TaskRunner pid=2841) "),
            "verl console, 100,000 steps": verl_console(100_000, ["actor/entropy", "actor/kl_loss", "actor/pg_loss",
                                                                   "critic/score/mean", "response_length/mean",
                                                                   "actor/grad_norm"], wrapped=False)}
    for name, data in logs.items():
        wall, cpu = timed(lambda d=data: rlcore.your_run(d, "bench.log", 400), repeat)
        tracemalloc.start()
        run = rlcore.your_run(data, "bench.log", 400)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"{name}: {len(data) / 1e6:.2f} MB, {run.log.steps.size:,} steps, {len(run.log.series)} concepts, "
              f"{len(run.log.extras)} other keys; read + bucket + diagnose {wall * 1000:.0f} ms "
              f"(CPU {cpu * 1000:.0f} ms), peak {peak / 1e6:.0f} MB allocated by the reader")
    from streamlit.testing.v1 import AppTest

    def page():
        at = AppTest.from_file(str(ROOT / "pages" / "21_Your_run.py"), default_timeout=60)
        at.query_params["example"] = "length_limit"
        at.run()
        assert not at.exception, at.exception
    page()  # the first run compiles the page and fills the caches
    wall, cpu = timed(page, repeat)
    print(f"page 21 drawn (AppTest, 300-step example, {repeat} reruns): {wall * 1000:.0f} ms (CPU {cpu * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
