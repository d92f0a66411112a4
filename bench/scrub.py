"""Benchmark: dragging a scrubbed chart in headless Chromium, page by page, beside a floor measured in the same run.

    python bench/scrub.py [--repeats 3] [--pages KL_penalty DPO]

Starts `streamlit run dashboard.py` (tests/e2e/e2ehelp.Server), opens each page with a scrubbed chart, answers
nothing ("Just show me"), and on its first range input (``ui.scrub``):

* drag: the input set to every value of its grid in turn, one value per animation frame (the value, then an
  'input' event, as a drag does; then one requestAnimationFrame): frames per second = moves / elapsed;
* move: the median time from setting a value to the second animation frame after it (``TIMED_MOVE`` of
  tests/e2e/test_scrub_e2e.py), over 30 moves;
* floor: the same two measures on the same page, with the same chart and its rows drawn, for an input bound to
  no parameter (a range input added beside the chart): what a frame costs when nothing redraws.

The check (issue #33): move ≤ 1.5 × floor. Medians of ``--repeats`` runs per page. Wall clock in a browser: a
machine shared with other work inflates every figure; the ratio, measured in the same run, less so.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from playwright.sync_api import sync_playwright

from tests.e2e.e2ehelp import CHROMIUM, CHROMIUM_ARGS, Server, wait_for_run
from tests.e2e.test_scrub_e2e import PAGES, RANGE, TIMED_MOVE
from ui import i18n

MOVES, RATIO = 30, 1.5
FLOOR = """(chart) => {  // a range input beside the chart, bound to nothing: a move redraws nothing
  const el = document.createElement('input');
  el.type = 'range'; el.min = 0; el.max = 100; el.step = 1; el.id = 'bench-floor';
  chart.closest('[data-testid="stVegaLiteChart"]').appendChild(el);
}"""
DRAG = """async (input) => {  // every grid value once, one per animation frame
  const lo = +input.min, hi = +input.max, step = +input.step, n = Math.round((hi - lo) / step) + 1;
  const frame = () => new Promise(r => requestAnimationFrame(r));
  await frame();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    input.value = lo + i * step;
    input.dispatchEvent(new Event('input', {bubbles: true}));
    await frame();
  }
  return [n, performance.now() - t0];
}"""


def measure(pg, el) -> tuple[float, float]:
    """Frames per second while dragging ``el`` through its grid, and the median ms from a move to its second frame."""
    n, ms = el.evaluate(DRAG)
    lo, step = float(el.get_attribute("min")), float(el.get_attribute("step"))
    times = [el.evaluate(TIMED_MOVE, str(lo + (i % 5) * step)) for i in range(MOVES)]
    return n / (ms / 1000), statistics.median(times)


def bench_page(server, browser, path: str) -> dict:
    pg = browser.new_page(viewport={"width": 1440, "height": 900})
    pg.goto(f"{server.url}/{path}")
    pg.wait_for_selector("[data-testid='stMain'] h1", timeout=60_000)
    wait_for_run(pg)
    pg.get_by_role("button", name=i18n.text("en", "predict.show")).first.click()
    pg.wait_for_selector(RANGE, timeout=60_000)
    wait_for_run(pg)
    scrub = pg.locator(RANGE).first
    scrub.evaluate(FLOOR)
    floor = pg.locator("#bench-floor")
    out = dict(zip(("fps", "move"), measure(pg, scrub), strict=True))
    out.update(zip(("floor_fps", "floor_move"), measure(pg, floor), strict=True))
    pg.close()
    return out


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pages", nargs="+", choices=list(PAGES), default=list(PAGES), metavar="PAGE",
                        help=f"the url paths of the pages to measure (default: all of {', '.join(PAGES)})")
    args = parser.parse_args(argv)
    repeats = args.repeats
    server = Server()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the start", flush=True)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            print(f"{'page':<22}{'fps':>7}{'floor fps':>11}{'move ms':>9}{'floor ms':>10}{'ratio':>7}  check")
            for path in args.pages:
                runs = [bench_page(server, browser, path) for _ in range(repeats)]
                med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
                ratio = med["move"] / med["floor_move"]
                print(f"{path:<22}{med['fps']:>7.1f}{med['floor_fps']:>11.1f}{med['move']:>9.1f}"
                      f"{med['floor_move']:>10.1f}{ratio:>7.2f}  {'ok' if ratio <= RATIO else 'OVER'}", flush=True)
            browser.close()
        print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end", flush=True)
    finally:
        server.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
