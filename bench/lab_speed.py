"""Benchmark: how long the training lab takes for the page's heaviest view.

    python bench/lab_speed.py

Times 200 steps × group 16 × 5 seeds for three algorithms (each call vectorised over the seeds, as the
page makes it), for the page's default trio, for the slowest three algorithms, and for the "Length drift"
view's trio with 8 length tokens per answer; median of 7 repeats after one warm-up.
Target: under 1 second on the machine the app runs on. Wall-clock time is the target;
CPU time is printed beside it because other processes on a shared machine inflate the wall clock.
"""

from __future__ import annotations

import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import rlcore

STEPS, GROUP, SEEDS, REPEATS, TARGET_S = 200, 16, tuple(range(5)), 7, 1.0
DEFAULT_TRIO = ("reinforce_mean", "grpo", "ppo")
LENGTH_TRIO, LENGTH = ("grpo", "gspo", "dapo"), 8


def time_algorithm(algorithm: str, repeats: int = REPEATS, length: int = 0) -> tuple[float, float]:
    """Median wall and CPU seconds of one ``rlcore.train`` call: 200 steps × group 16 × 5 seeds."""
    config = rlcore.LabConfig(algorithm=algorithm, steps=STEPS, group_size=GROUP, length=length)
    rlcore.train(rlcore.ARTICLE_SCENARIO, config, SEEDS)  # warm-up
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        rlcore.train(rlcore.ARTICLE_SCENARIO, config, SEEDS)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def main() -> int:
    timed = {a: time_algorithm(a) for a in rlcore.ALGORITHMS}
    per_algo = {a: wall for a, (wall, _) in timed.items()}
    per_algo_cpu = {a: cpu for a, (_, cpu) in timed.items()}
    print(f"rlcore.train, {STEPS} steps × group {GROUP} × {len(SEEDS)} seeds (median of {REPEATS}):")
    for algo, (wall, cpu) in timed.items():
        print(f"  {rlcore.ALGORITHM_NAMES[algo]:<26} {wall * 1000:7.1f} ms wall, {cpu * 1000:7.1f} ms CPU")
    slowest = sorted(per_algo, key=per_algo.get, reverse=True)[:3]
    rows = [("page default: " + ", ".join(rlcore.ALGORITHM_NAMES[a] for a in DEFAULT_TRIO), DEFAULT_TRIO),
            ("slowest three: " + ", ".join(rlcore.ALGORITHM_NAMES[a] for a in slowest), slowest)]
    ok = True
    for label, trio in rows:
        total = sum(per_algo[a] for a in trio)
        total_cpu = sum(per_algo_cpu[a] for a in trio)
        ok &= total < TARGET_S
        print(f"3 algorithms × 5 seeds, {label}: {total * 1000:.0f} ms wall, {total_cpu * 1000:.0f} ms CPU "
              f"({'under' if total < TARGET_S else 'OVER'} the {TARGET_S:g} s target)")
    long = [time_algorithm(a, length=LENGTH) for a in LENGTH_TRIO]
    names = ", ".join(rlcore.ALGORITHM_NAMES[a] for a in LENGTH_TRIO)
    wall, cpu = sum(w for w, _ in long), sum(c for _, c in long)
    ok &= wall < TARGET_S
    print(f"3 algorithms × 5 seeds, {LENGTH} length tokens, {names}: {wall * 1000:.0f} ms wall, "
          f"{cpu * 1000:.0f} ms CPU ({'under' if wall < TARGET_S else 'OVER'} the {TARGET_S:g} s target)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
