"""Benchmark: page 18 (DPO)'s first rerun after a move of β, beside plain pages measured in the same run.

    python bench/dpo_rerun.py [--repeats 12]

Each pair of moves is a learner's first visit to a setting: the raters' noise goes to a value not seen yet, then β
moves to another of its six values, so every study keyed by noise and β has nothing in the cache before the pair
(DPO's steps, its paths over the β grid, IPO, and the RL comparison: the toy lab's PPO on the raters' scores). Both
moves are timed; the β move is issue #32's check. The page is timed as a learner sees it after answering its
question ("Just show me": every chart drawn), in AppTest as ``bench/run.py`` times every page. Beside it, in the
same process and the same run: a plain page with three charts of 50 rows each and a slider, and ``bench/run.py``'s
floor for this page (as many charts on as many rows as page 18 draws). Prints medians and the load average.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from bench.run import floor_script  # noqa: E402
from tests.apphelp import charts, input_key, page_file  # noqa: E402

PAGE = page_file("18_")
BETAS = [0.1, 0.2, 0.5, 1, 2, 5]
NOISES = [0.25 * k for k in range(1, 21)]  # the noise slider's values: a new one before each move of β


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=12)
    args = parser.parse_args()
    load = os.getloadavg()
    at = AppTest.from_file(str(PAGE), default_timeout=120).run()
    next(b for b in at.button if (b.key or "").endswith("_show")).click().run()
    drawn = [pd.DataFrame({"_row": range(sum(len(df) for df in c["data"].values()))}) for c in charts(at)]
    plains = {"three": AppTest.from_file(floor_script([pd.DataFrame({"_row": range(50)})] * 3), default_timeout=60),
              "floor": AppTest.from_file(floor_script(drawn), default_timeout=60)}
    for plain in plains.values():
        plain.run()
    times = {"beta": [], "noise": [], "three": [], "floor": []}

    def timed(name, rerun) -> None:
        t = time.perf_counter()
        rerun()
        times[name].append(time.perf_counter() - t)

    now = at.select_slider(key=input_key(PAGE, "beta")).value
    for i in range(args.repeats):  # interleaved, so that a change in the machine's load falls on all alike
        timed("noise", at.slider(key=input_key(PAGE, "noise")).set_value(NOISES[(i + 3) % len(NOISES)]).run)
        now = BETAS[(BETAS.index(now) + 1 + i % 2) % len(BETAS)]
        timed("beta", at.select_slider(key=input_key(PAGE, "beta")).set_value(now).run)
        assert not at.exception, at.exception
        for name, plain in plains.items():
            for j in range(3):
                timed(name, plain.slider(key="x").set_value((3 * i + j) % 10).run)
    ms = {name: statistics.median(x) * 1000 for name, x in times.items()}
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} -> {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name, what in (("beta", "a move of β"), ("noise", "a move of the raters' noise")):
        print(f"page 18, first rerun after {what}: median {ms[name]:.0f} ms (quartiles "
              f"{' – '.join(f'{q * 1000:.0f}' for q in statistics.quantiles(times[name], n=4)[::2])}; "
              f"{len(times[name])} moves): {ms[name] / ms['three']:.2f}× the three-chart page, "
              f"{ms[name] / ms['floor']:.2f}× the floor")
    print(f"plain three-chart page (50 rows each): {ms['three']:.1f} ms; floor, {len(drawn)} charts of "
          f"{sum(len(d) for d in drawn)} rows: {ms['floor']:.1f} ms")


if __name__ == "__main__":
    main()
