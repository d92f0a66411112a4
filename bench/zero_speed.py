"""Benchmark: R1-Zero in miniature — the base model, the default run, and how long they take.

    python bench/zero_speed.py [--algorithms grpo,dr_grpo,ppo]

Prints the issue's targets with the measured figures beside them:
- base (shipped weights): sampled pass@1 on the held-out problems (target 0.10–0.25), its share of worked
  answers, and the gap between worked and immediate answers when forced into each form (target ≥ 0.4);
- default run: pass@1 from ≤ 0.30 rising by ≥ 0.35, answer length × 1.3 or more, entropy falling,
  kl[0] = 0, the climb spread over tens of steps (the step where pass@1 first covers half its rise);
- time: the default run's CPU seconds on one thread (target ≤ 30 s of one core; the wall clock beside it)
  and the time to the first progress report (target ≤ 1 s).
BLAS is held to one thread (set before numpy loads) so the figures are one core's. On a shared machine the
wall clock is inflated by other processes: CPU time is printed beside it.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import numpy as np

from rlcore.studies.zero import ZeroConfig, train
from rlcore.studies.zero.task import held_out_problems
from rlcore.studies.zero.warmup import WARMUP, base_model, form_stats


def mark(ok: bool) -> str:
    return "ok  " if ok else "MISS"


def run_row(algorithm: str) -> bool:
    config = ZeroConfig(algorithm=algorithm)
    first: list[float] = []
    start, start_cpu = time.perf_counter(), time.process_time()
    run = train(config, seed=0, progress=lambda s: first or first.append(time.perf_counter() - start))
    wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    rise = run.pass1[1:].max() - run.pass1[0]
    half = int(np.argmax(run.pass1 >= run.pass1[0] + rise / 2)) if rise > 0 else -1
    ratio = run.length[-1] / run.length[0]
    checks = [
        (run.pass1[0] <= 0.30 and run.pass1[-1] - run.pass1[0] >= 0.35,
         f"pass@1 {run.pass1[0]:.3f} → {run.pass1[-1]:.3f} (+{run.pass1[-1] - run.pass1[0]:.3f}; "
         f"target from ≤ 0.30, +0.35)"),
        (ratio >= 1.3, f"length {run.length[0]:.2f} → {run.length[-1]:.2f} tokens (× {ratio:.2f}; target × 1.3)"),
        (run.entropy[-1] < run.entropy[0], f"entropy {run.entropy[0]:.3f} → {run.entropy[-1]:.3f} nats (falls)"),
        (run.kl[0] == 0.0, f"kl[0] = {float(run.kl[0])!r} (target exactly 0), kl[-1] = {run.kl[-1]:.4f} nats/token"),
        (half >= 10, f"half of the climb at step {half} of {config.steps} (target: tens of steps, not ≤ 5)"),
        (cpu <= 30.0, f"{cpu:.1f} s of one core (CPU), {wall:.1f} s wall (target ≤ 30 s of one core)"),
        (first[0] <= 1.0, f"first progress after {first[0]:.2f} s (target ≤ 1 s)"),
    ]
    print(f"\n{algorithm} (steps {config.steps}, G {config.group_size}, {config.prompts} problems per step, "
          f"lr {config.lr:g}, beta {config.beta:g}):")
    print(f"  pass@{run.k} {run.passk[0]:.3f} → {run.passk[-1]:.3f}; reward {run.reward[0]:.3f} → "
          f"{run.reward[-1]:.3f}; worked share {run.worked_share[0]:.3f} → {run.worked_share[-1]:.3f}")
    for ok, text in checks:
        print(f"  {mark(ok)} {text}")
    return all(ok for ok, _ in checks)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", default="grpo", help="comma-separated, e.g. grpo,dr_grpo,ppo")
    args = parser.parse_args()
    s = form_stats(base_model(), held_out_problems(), 16)
    gap = s.worked_right - s.immediate_right
    print(f"base model: {WARMUP.examples} warm-up examples, {WARMUP.worked_examples} of them worked")
    print(f"  {mark(0.10 <= s.pass1 <= 0.25)} sampled pass@1 {s.pass1:.3f} (target 0.10–0.25), "
          f"worked share {s.worked_share:.3f}")
    print(f"  {mark(gap >= 0.4)} worked right {s.worked_right:.3f}, immediate right {s.immediate_right:.3f}, "
          f"gap {gap:+.3f} (target ≥ 0.4)")
    ok = gap >= 0.4
    for algorithm in args.algorithms.split(","):
        ok &= run_row(algorithm.strip())
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
