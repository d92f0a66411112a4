"""Benchmark: R1-Zero in miniature — the default run against issue #31's targets, and how long it takes.

    python bench/zero_speed.py [--algorithms grpo,dr_grpo,ppo,rft,rft_offline,star] [--seeds 0,1,2,3,4]
                               [--passk 64] [--length-cost 0.0] [--beta 0.0]

For each algorithm and seed, the default config's run and the issue's targets beside the measured figures:
pass@1 from ≤ 0.30 rising by ≥ 0.35; the mean length ×1.5 or more and gradual (its rise from 10 % to 90 % spans at
least a fifth of the steps); the base's own answers in ≥ 5 lengths; at the end the largest problems' answers at
least twice as long as the smallest's; entropy falling; KL from exactly 0; the run's CPU seconds on one thread
(target ≤ 30 s of one core; the wall clock beside it), the time to the first curve point (≤ 1 s) and the slowest
step (≤ 0.5 s). BLAS is held to one thread (set before numpy loads) so the figures are one core's. On a shared
machine the wall clock is inflated by other processes: CPU time is printed beside it.

Issue #42's figures are printed beside them (not checked): pass@1 and pass@k of the base, the trained model and a
uniform guesser at k = passk (the run's ``passk_max``; the page's learner runs use 64) and where the base catches up;
PPO's explained variance (the mean of the last 10 updates); the smallest and largest sizes' lengths at step 0 and
the end, and whether that is adaptive length; the mean length of the wrong answers at the end.
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


def run_row(algorithm: str, seed: int, passk: int = 64, length_cost: float = 0.0, beta: float = 0.0) -> bool:
    config = ZeroConfig(algorithm=algorithm, passk_max=passk, length_cost=length_cost, beta=beta)
    stamps: list[float] = []
    start, start_cpu = time.perf_counter(), time.process_time()
    run = train(config, seed=seed, progress=lambda s: stamps.append(time.perf_counter()))
    wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    rise = run.length - run.length[0]
    span = int(np.argmax(rise >= 0.9 * rise[-1]) - np.argmax(rise >= 0.1 * rise[-1]))
    ratio, size_ratio = run.length[-1] / run.length[0], run.length_by_size[-1, -1] / run.length_by_size[-1, 0]
    lengths, slowest = int(np.count_nonzero(run.length_share[0])), float(np.diff(stamps).max())
    checks = [
        (run.pass1[0] <= 0.30 and run.pass1[-1] - run.pass1[0] >= 0.35,
         f"pass@1 {run.pass1[0]:.3f} → {run.pass1[-1]:.3f} (target from ≤ 0.30, +0.35)"),
        (ratio >= 1.5 and span >= config.steps / 5,
         f"length {run.length[0]:.2f} → {run.length[-1]:.2f} (× {ratio:.2f}; 10–90 % of the rise over {span} steps)"),
        (lengths >= 5, f"{lengths} lengths among the base's answers (target ≥ 5)"),
        (size_ratio >= 2, f"largest / smallest problems' length at the end {size_ratio:.2f} (target ≥ 2)"),
        (run.entropy[-1] < run.entropy[0], f"entropy {run.entropy[0]:.3f} → {run.entropy[-1]:.3f} nats (falls)"),
        (run.kl[0] == 0.0, f"kl[0] = {float(run.kl[0])!r}, kl[-1] = {run.kl[-1]:.4f} nats/token"),
        (cpu <= 30.0, f"{cpu:.1f} s of one core (CPU), {wall:.1f} s wall (target ≤ 30 s of one core)"),
        (stamps[0] - start <= 1.0 and slowest <= 0.5,
         f"first point after {stamps[0] - start:.2f} s (≤ 1 s), slowest step {slowest:.2f} s (≤ 0.5 s)"),
    ]
    print(f"\n{algorithm}, seed {seed} (steps {config.steps}, G {config.group_size}, {config.prompts} problems per "
          f"step, lr {config.lr:g}, beta {config.beta:g}, length cost {config.length_cost:g}):")
    for ok, text in checks:
        print(f"  {'ok  ' if ok else 'MISS'} {text}")
    small, large = run.length_by_size[:, 0], run.length_by_size[:, -1]
    print(f"  pass@k (k = 1, {passk}): base {run.passk_base[0]:.3f}, {run.passk_base[-1]:.3f}; trained "
          f"{run.passk_trained[0]:.3f}, {run.passk_trained[-1]:.3f}; guess {run.passk_guess[-1]:.3f}; the base catches "
          f"up at k = {run.catches_up}")
    print(f"  lengths: smallest {small[0]:.2f} → {small[-1]:.2f}, largest {large[0]:.2f} → {large[-1]:.2f}; adaptive "
          f"{run.adaptive_length}; wrong answers {run.wrong_length[0]:.2f} → {run.wrong_length[-1]:.2f}")
    if algorithm == "ppo":
        print(f"  explained variance: first {run.explained[0]:.3f}, mean of the last 10 {run.explained_end:.3f}")
    return all(ok for ok, _ in checks)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", default="grpo", help="comma-separated, e.g. grpo,dr_grpo,ppo,rft")
    parser.add_argument("--seeds", default="0,1,2,3,4", help="comma-separated seeds")
    parser.add_argument("--passk", type=int, default=64, help="the run's passk_max")
    parser.add_argument("--length-cost", type=float, default=0.0, help="the run's length_cost")
    parser.add_argument("--beta", type=float, default=0.0, help="the run's KL coefficient (beta)")
    args = parser.parse_args()
    ok = True
    for algorithm in args.algorithms.split(","):
        for seed in args.seeds.split(","):
            ok &= run_row(algorithm.strip(), int(seed), args.passk, args.length_cost, args.beta)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
