"""Benchmark: how fast each page reruns, against Streamlit's own floor. Prints a table, writes BENCHMARKS.md.

    python bench/run.py            # everything (needs /usr/bin/chromium for the browser part)
    python bench/run.py --no-browser
    python bench/run.py --languages   # each page's rerun in English and in Chinese, side by side
    python bench/run.py --first-loads # each page's first run: in a fresh process, and for the next visitor

Server side: AppTest rerun after a change of the page's first slider (median of 20 reruns, each to a
new value spread over the slider's range, so caches help only where values repeat),
beside a floor app in the same process: the same number of st.altair_chart calls on precomputed
DataFrames of the same sizes, so the ratio isolates this project's own cost.
Browser: key press on the first slider until the rerun finished and the chart repainted (median of 20),
beside an empty page with one slider and a page with one small chart; bytes received over the websocket
per rerun; cold start.
Scaling: the heaviest simulation at 1×, 10×, 100× its sample count, and its chart payload.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import tempfile
import textwrap
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import rlcore  # noqa: E402
from tests.apphelp import charts  # noqa: E402
from ui.nav import PAGES  # noqa: E402

ALL_PAGES = [ROOT / p.path for p in PAGES]  # every page of the sidebar, in reading order
REPEATS, BROWSER_REPEATS = 20, 20
HISTORY = "<!-- history: kept by bench/run.py, written by hand -->"
WORKSHOP = "<!-- workshop: kept by bench/run.py, written by bench/workshop.py -->"
TARGET_MS, LAB_TARGET_MS, RATIO, KB = 60, 250, 1.5, 150


def main_slider(at):
    sliders = [s for s in at.slider if s.key and not str(s.key).startswith("scn_")]
    return sliders[0] if sliders else None


def sweep(slider, n):
    """n distinct values across the slider's range (fewer if it has fewer steps), each a real change."""
    lo, hi, step = slider.min, slider.max, slider.step
    count = round((hi - lo) / step) + 1
    picks = np.unique(np.linspace(0, count - 1, min(n, count)).round().astype(int))
    out = [lo + step * int(i) for i in picks]
    out = [type(slider.value)(round(v, 10)) for v in out if v != slider.value]
    return (out * (n // max(len(out), 1) + 1))[:n]


def time_reruns(path: pathlib.Path, repeats: int = REPEATS, lang: str | None = None):
    """The page as a learner sees it after answering its question ("Just show me": every chart drawn), in
    ``lang`` (?lang=, the app's default when None)."""
    at = AppTest.from_file(str(path), default_timeout=120)
    if lang:
        at.query_params["lang"] = lang
    at.run()
    show = [b for b in at.button if (b.key or "").endswith("_show")]  # page.predict's "Just show me"
    if show:
        show[0].click().run()
    slider = main_slider(at)
    if slider is None:
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            at.run()
            times.append(time.perf_counter() - t)
        return at, statistics.median(times) * 1000, None
    key = slider.key
    values = sweep(slider, repeats)
    at.slider(key=key).set_value(values[-1]).run()  # import and first-run costs are not counted
    times = []
    for v in values:
        t = time.perf_counter()
        at.slider(key=key).set_value(v).run()
        times.append(time.perf_counter() - t)
    assert not at.exception, at.exception
    return at, statistics.median(times) * 1000, key


def floor_script(frames) -> str:
    """A page with the same number of charts on precomputed data of the same sizes."""
    tmp = pathlib.Path(tempfile.mkdtemp())
    for i, df in enumerate(frames):
        df.to_parquet(tmp / f"f{i}.parquet")
    script = tmp / "floor.py"
    script.write_text(textwrap.dedent(f"""
        import pathlib
        import altair as alt, pandas as pd, streamlit as st
        st.set_page_config(layout="wide")
        frames = [pd.read_parquet(pathlib.Path({str(tmp)!r}) / f"f{{i}}.parquet") for i in range({len(frames)})]
        st.slider("x", 0, 10, 5, key="x")
        for df in frames:
            st.altair_chart(alt.Chart(df).mark_point().encode(x="_row:Q", y="_row:Q"))
    """))
    return str(script)


def server_side():
    rows = []
    for path in ALL_PAGES:
        at, ms, key = time_reruns(path)
        found = charts(at)
        # the floor: one simple chart per chart on the page, on as many rows as that chart plots
        frames = [pd.DataFrame({"_row": range(sum(len(df) for df in c["data"].values()))}) for c in found]
        n_rows = sum(len(df) for df in frames)
        floor = AppTest.from_file(floor_script(frames), default_timeout=60).run()
        floor_times = []
        for i in range(REPEATS):
            t = time.perf_counter()
            floor.slider(key="x").set_value(i % 10).run()
            floor_times.append(time.perf_counter() - t)
        floor_ms = statistics.median(floor_times) * 1000
        rows.append({"page": path.stem, "slider": key or "-", "rerun_ms": ms, "floor_ms": floor_ms,
                     "ratio": ms / floor_ms, "charts": len(frames), "chart_rows": n_rows})
        print(f"{path.stem:32s} {ms:7.1f} ms  floor {floor_ms:6.1f} ms  x{ms / floor_ms:4.2f}  "
              f"{len(frames)} charts, {n_rows} rows", flush=True)
    return rows


def browser_side():
    from playwright.sync_api import sync_playwright

    from tests.e2e.e2ehelp import CHROMIUM, CHROMIUM_ARGS, Server, url_path, wait_for_run

    results = []
    t0 = time.perf_counter()
    srv = Server()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(srv.url)
        wait_for_run(page)
        cold_s = time.perf_counter() - t0
        received = []
        page.on("websocket", lambda ws: ws.on("framereceived", lambda f: received.append(
            len(f) if isinstance(f, (bytes, str)) else 0)))
        paths = [url_path(p.path) for p in PAGES]  # "" for home, "Loop_state_action" for 1_Loop_state_action.py
        for path in paths:
            results.append(round_trip(page, f"{srv.url}/{path}", received, path or "home", wait_for_run))
        browser.close()
    srv.stop()
    # the floor: an empty Streamlit page with one slider, on its own server; and, for scale, the same
    # page with one small Altair chart whose data follow the slider (the least a chart page can cost)
    tmp = pathlib.Path(tempfile.mkdtemp())
    (tmp / "empty.py").write_text("import streamlit as st\nst.slider('x', 0, 100, 50)\n")
    (tmp / "one_chart.py").write_text(textwrap.dedent("""
        import altair as alt, pandas as pd, streamlit as st
        x = st.slider('x', 0, 100, 50)
        df = pd.DataFrame({"a": range(10), "b": [x * i for i in range(10)]})
        st.altair_chart(alt.Chart(df).mark_bar().encode(x="a:O", y="b:Q").properties(title="one chart"))
    """))
    empty = empty_round_trip(tmp / "empty.py", wait_for_run, CHROMIUM, CHROMIUM_ARGS)
    one = empty_round_trip(tmp / "one_chart.py", wait_for_run, CHROMIUM, CHROMIUM_ARGS)
    empty["one_chart_ms"] = one["round_trip_ms"]
    return results, empty, cold_s


def round_trip(page, url, received, name, wait_for_run):
    page.goto(url)
    wait_for_run(page)
    sliders = page.locator("[data-testid='stMain'] [data-testid='stSlider'] input[type='range']")
    if sliders.count() == 0:
        return {"page": name, "round_trip_ms": None, "kB_per_rerun": None}
    thumb = sliders.first
    times, sizes = [], []
    for i in range(BROWSER_REPEATS):
        thumb.focus()
        received.clear()
        t = time.perf_counter()
        thumb.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
        page.wait_for_timeout(50)
        wait_for_run(page, settle_ms=0)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        times.append((time.perf_counter() - t) * 1000 - 50)
        sizes.append(sum(received) / 1024)
    return {"page": name, "round_trip_ms": statistics.median(times), "kB_per_rerun": statistics.median(sizes)}


def empty_round_trip(script, wait_for_run, chromium, args):
    import subprocess

    from playwright.sync_api import sync_playwright

    from tests.e2e.e2ehelp import free_port

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true",
                             "--server.port", str(port), "--server.address", "127.0.0.1",
                             "--browser.gatherUsageStats", "false"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(chromium), args=args)
            page = browser.new_page()
            deadline = time.time() + 60
            while True:
                try:
                    page.goto(f"http://127.0.0.1:{port}/")
                    break
                except Exception:
                    if time.time() > deadline:
                        raise
                    time.sleep(0.5)
            wait_for_run(page)
            received = []
            res = round_trip(page, f"http://127.0.0.1:{port}/", received, "empty", wait_for_run)
            browser.close()
            return res
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def scaling():
    """The heaviest simulation (REINFORCE gradient samples for the baseline page) at 1×, 10×, 100×."""
    s = rlcore.ARTICLE_SCENARIO
    out = []
    for mult in (1, 10, 100):
        n = 2000 * mult
        t = time.perf_counter()
        g = rlcore.gradient_samples(s.pi, s.samples, 4.3, n, 0)
        counts, _ = np.histogram(g[:, 2], bins=40)
        ms = (time.perf_counter() - t) * 1000
        out.append({"samples": n, "ms": ms, "chart_rows": counts.size})
    return out


def write_report(server_rows, browser_rows, empty, cold_s, scale_rows):
    lines = ["# Benchmarks", "", f"Measured by `python bench/run.py` on {time.strftime('%Y-%m-%d')}, "
             "on this project's 2-core machine.", "",
             "## Server-side rerun after a slider change (AppTest, median of 20)", "",
             "| page | slider | rerun ms | floor ms | ratio | charts | chart rows | meets target |",
             "|---|---|---:|---:|---:|---:|---:|---|"]
    for r in server_rows:
        # the lab trains three algorithms on every change: its budget is the simulation's, not a ratio
        # to a page that simulates nothing (see "Reading the targets" below)
        lab = "lab" in r["page"].lower()
        ok = r["rerun_ms"] <= LAB_TARGET_MS if lab else r["rerun_ms"] <= TARGET_MS and r["ratio"] <= RATIO
        lines.append(f"| {r['page']} | {r['slider']} | {r['rerun_ms']:.1f} | {r['floor_ms']:.1f} | "
                     f"{r['ratio']:.2f} | {r['charts']} | {r['chart_rows']} | {'yes' if ok else 'no'} |")
    lines += ["", f"Targets: ≤ {TARGET_MS} ms (training lab ≤ {LAB_TARGET_MS} ms) and ≤ {RATIO}× the floor app "
              "(same number of charts on precomputed data of the same size).", ""]
    if browser_rows:
        lines += ["## Browser round trip (key press → rerun finished → repaint, median of 20)", "",
                  "| page | round trip ms | × empty page | kB received per rerun | meets target |",
                  "|---|---:|---:|---:|---|"]
        base = empty["round_trip_ms"] if empty and empty["round_trip_ms"] else None
        for r in browser_rows:
            if r["round_trip_ms"] is None:
                lines.append(f"| {r['page']} | – | – | – | no slider |")
                continue
            ratio = r["round_trip_ms"] / base if base else float("nan")
            ok = ratio <= RATIO and r["kB_per_rerun"] <= KB
            lines.append(f"| {r['page']} | {r['round_trip_ms']:.0f} | {ratio:.2f} | {r['kB_per_rerun']:.1f} | "
                         f"{'yes' if ok else 'no'} |")
        if base:
            one = empty.get("one_chart_ms")
            lines += ["", f"Empty Streamlit page with one slider: {base:.0f} ms; the same page with one 10-row "
                      f"Altair chart that follows the slider: {one:.0f} ms ({one / base:.2f}× the empty page). "
                      f"Cold start (server start to first page rendered): {cold_s:.1f} s. "
                      f"Targets: ≤ {RATIO}× the empty page, ≤ {KB} kB per rerun.", ""]
    lines += ["## How cost grows with the sample count (baseline page's simulation)", "",
              "| samples | ms | chart rows |", "|---:|---:|---:|"]
    lines += [f"| {r['samples']} | {r['ms']:.1f} | {r['chart_rows']} |" for r in scale_rows]
    lines += ["", "The chart payload is the histogram's bins, so it does not grow with the sample count.", ""]
    target = ROOT / "BENCHMARKS.md"
    old = target.read_text() if target.exists() else ""
    kept = next((old[old.index(mark):] for mark in (WORKSHOP, HISTORY) if mark in old), HISTORY + "\n")
    target.write_text("\n".join(lines) + "\n" + kept)
    print("\n".join(lines))


def languages() -> None:
    """Each page's rerun in English and in Chinese, side by side (a markdown table on stdout)."""
    print("| page | English ms | Chinese ms | Chinese / English |\n|---|---:|---:|---:|")
    import streamlit as st

    def cold(lang: str) -> float:  # each language from empty caches: the second must not reuse the first's runs
        st.cache_data.clear()
        st.cache_resource.clear()
        return time_reruns(path, lang=lang)[1]

    for path in ALL_PAGES:
        en, zh = cold("en"), cold("zh")
        print(f"| {path.stem} | {en:.1f} | {zh:.1f} | {zh / en:.2f} |", flush=True)


FIRST_LOAD = """
import sys, time
sys.path.insert(0, {root!r})
from streamlit.testing.v1 import AppTest
t0 = time.perf_counter()
AppTest.from_file({path!r}, default_timeout=300).run()
first = time.perf_counter() - t0
t1 = time.perf_counter()
AppTest.from_file({path!r}, default_timeout=300).run()
print(first, time.perf_counter() - t1)
"""


def first_loads() -> None:
    """Each page's first run in a fresh process (its imports, its studies computed, its charts converted: what the
    first visitor of a freshly started server waits for) and a new visitor's first run right after (the process
    warm, the server's caches holding the default view), beside the warm rerun (a markdown table on stdout)."""
    import subprocess

    print("| page | first run, fresh process (s) | next visitor's first run (s) | warm rerun (ms) |\n"
          "|---|---:|---:|---:|")
    for path in ALL_PAGES:
        out = subprocess.run([sys.executable, "-c", FIRST_LOAD.format(root=str(ROOT), path=str(path))],
                             capture_output=True, text=True, cwd=ROOT, timeout=600)
        first, second = (float(x) for x in out.stdout.split()[-2:])
        rerun = time_reruns(path, repeats=5)[1]
        print(f"| {path.stem} | {first:.2f} | {second:.2f} | {rerun:.0f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-browser", action="store_true", help="skip the browser round trips")
    ap.add_argument("--languages", action="store_true",
                    help="only time each page in English and in Chinese (printed, BENCHMARKS.md untouched)")
    ap.add_argument("--first-loads", action="store_true",
                    help="only time each page's first run, in a fresh process and for the next visitor (printed)")
    args = ap.parse_args()
    if args.languages:
        languages()
        return
    if args.first_loads:
        first_loads()
        return
    server_rows = server_side()
    browser_rows, empty, cold_s = [], None, 0.0
    if not args.no_browser:
        browser_rows, empty, cold_s = browser_side()
    write_report(server_rows, browser_rows, empty, cold_s, scaling())


if __name__ == "__main__":
    main()
