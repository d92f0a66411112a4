"""Helpers for the browser tests: a real `streamlit run` server, Chromium settings, waiting for reruns."""

from __future__ import annotations

import os
import pathlib
import re
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.apphelp import slot
from ui import i18n, nav

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHROMIUM = pathlib.Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"]
SHOTS = ROOT / "artifacts" / "screenshots"


def require_browser() -> None:
    problem = None
    if not CHROMIUM.exists():
        problem = f"no Chromium at {CHROMIUM} (install it with: apt-get install -y chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = "the playwright package is not installed (pip install -r requirements-dev.txt)"
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests must run in CI: {problem}")
        pytest.skip(problem)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A `streamlit run dashboard.py` process (or another ``script`` of the repository) on 127.0.0.1 and a free
    port."""

    def __init__(self, script: str = "dashboard.py") -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", script, "--server.headless", "true",
             "--server.port", str(self.port), "--server.address", "127.0.0.1",
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.ready_after = self._wait_healthy()

    def _wait_healthy(self, timeout: float = 60) -> float:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited early:\n{self.proc.stdout.read()}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return time.perf_counter() - self.started
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("streamlit did not become healthy in time")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def wait_for_run(page, timeout_ms: int = 30_000, settle_ms: int = 300) -> None:
    """Wait until the app is connected and its script has finished running (as Streamlit's own e2e suite does)."""
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']", timeout=timeout_ms)
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=timeout_ms)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"] [data-testid=\"stStatusWidgetRunningIcon\"]')",
        timeout=timeout_ms)
    page.wait_for_function("() => document.querySelectorAll('[data-testid=\"stSkeleton\"]').length === 0",
                           timeout=timeout_ms)  # charts still being drawn show a skeleton placeholder
    if settle_ms:
        page.wait_for_timeout(settle_ms)


url_path = nav.url_path  # the URL path Streamlit serves a page file at ("" for home)


# --- layout: what a page looks like at a phone's and a laptop's size -------------------------------------------

VIEWPORTS = {"phone": (390, 844), "desktop": (1440, 900)}


QUICK_SCREENS = {"desktop": 3, "phone": 4}  # a page opens in the quick suite when its slot (apphelp) % 11 is this


def quick_share(paths: list[str], viewport: str, ids) -> list:
    """pytest params over page paths for one screen size, marked ``exhaustive`` outside the quick suite's share:
    the quick suite opens two pages in eleven in a browser, one in eleven on a laptop (test_pages_e2e) and another
    one in eleven on a phone (test_layout), chosen by the page's address (``apphelp.slot``: a new page moves no other);
    CI's exhaustive run opens every page at both sizes."""
    return [pytest.param(p, id=ids(p), marks=() if slot(p or "Home") % 11 == QUICK_SCREENS[viewport]
                         else pytest.mark.exhaustive) for p in paths]
FILE_NAME = re.compile(r"\.py\b|dashboard|\b\d+_[A-Z]\w*")  # "pages/3_Value_Q_advantage.py", "dashboard"
MEASURE = """() => {
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  const charts = [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')].map((el, i) => {
    const box = (el.closest('[data-testid="stColumn"]') || main).getBoundingClientRect();
    const marks = el.querySelector('canvas, svg.marks');
    const r = (marks || el).getBoundingClientRect();
    return {i, top: r.top + window.scrollY, left: r.left, right: r.right,
            boxLeft: box.left, boxRight: box.right};
  });
  const side = document.querySelector('[data-testid="stSidebar"]');
  const scroller = document.querySelector('[data-testid="stMain"]');  // the main area scrolls on its own
  return {
    scrollWidth: Math.max(document.documentElement.scrollWidth, scroller.scrollWidth),
    innerWidth: window.innerWidth, charts,
    links: [...document.querySelectorAll('[data-testid="stPageLink"]')].map(a => a.textContent),
    streamlitNav: !!document.querySelector('[data-testid="stSidebarNav"]'),
  };
}"""


CLIPPING = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const out = [], seen = new Set();
  // text cut by its box: an element that hides its overflow (or ends it in an ellipsis) and is wider inside
  for (const el of main.querySelectorAll('*')) {
    if (el.closest('svg, [data-testid="stDataFrame"], [data-testid="stCode"]')) continue;
    if (!el.textContent.trim() || el.clientWidth === 0) continue;
    const cs = getComputedStyle(el);
    const hides = ['hidden', 'clip'].includes(cs.overflowX) || cs.textOverflow === 'ellipsis';
    const text = el.textContent.trim().slice(0, 60);
    if (hides && el.scrollWidth > el.clientWidth + 1 && !seen.has(text)) {
      seen.add(text);
      out.push(`text cut (${el.scrollWidth} px in ${el.clientWidth}): "${text}"`);
    }
  }
  document.querySelectorAll('[data-testid="stVegaLiteChart"] svg.marks').forEach((svg, i) => {
    const sb = svg.getBoundingClientRect();
    // a title, label or legend entry reaching past the drawing is cut off (4 px: a glyph's ascent)
    for (const t of svg.querySelectorAll('text')) {
      const r = t.getBoundingClientRect();
      if (t.textContent.trim() && r.width && (r.left < sb.left - 4 || r.right > sb.right + 4
          || r.top < sb.top - 4 || r.bottom > sb.bottom + 4))
        out.push(`chart ${i}: "${t.textContent.slice(0, 50)}" runs off the chart`);
    }
    // the chart's own text labels (not axis labels, which may be rotated) covering one another
    const boxes = [...svg.querySelectorAll('.mark-text.role-mark text')].filter(t => t.textContent.trim())
      .map(t => [t.textContent, t.getBoundingClientRect()]);
    for (let a = 0; a < boxes.length; a++) for (let b = a + 1; b < boxes.length; b++) {
      const [ta, ra] = boxes[a], [tb, rb] = boxes[b];
      const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (w > 1 && h > 1 && w * h > 0.15 * Math.min(ra.width * ra.height, rb.width * rb.height))
        out.push(`chart ${i}: labels "${ta.slice(0, 25)}" and "${tb.slice(0, 25)}" overlap`);
    }
  });
  return out;
}"""


def clipping_problems(pg) -> list[str]:
    """Text the page open in ``pg`` cuts off or draws over other text: a caption, chip, metric or link cut by its
    box (its scroll width past its client width where it hides overflow), a chart's title, label or legend entry
    reaching past the chart's drawing, a chart's own text labels covering one another. A table that scrolls
    sideways with its first column pinned (``ui.page.table``) is by design, not cut. Empty when all is well."""
    return pg.evaluate(CLIPPING)


TOOLBAR_OVER_TEXT = """(i) => {  // the toolbar of the i-th chart (a table has one of its own)
  const chart = document.querySelectorAll('[data-testid=stVegaLiteChart]')[i];
  const tb = chart.closest('[data-testid=stElementContainer]').querySelector('[data-testid=stElementToolbar]');
  if (!tb) return [];
  const r = tb.getBoundingClientRect(), hits = [];
  // text (its lines as drawn, not its box's margins), a slider (its track and the values at its ends), a metric, a
  // table (drawn on a canvas: named, not read); not what a closed expander holds
  const covered = 'h1,h2,h3,h4,h5,p,label,li,[data-testid=stCaptionContainer],[data-testid=stSlider],'
    + '[data-testid=stSliderTickBar],[data-testid=stMetricValue],[data-testid=stDataFrame]';
  for (const el of document.querySelectorAll(covered)) {
    if (tb.contains(el) || el.closest('details:not([open])')) continue;
    const whole = el.matches('[data-testid=stSlider],[data-testid=stDataFrame]');
    const what = el.matches('[data-testid=stDataFrame]') ? 'a table' : (el.innerText || '').trim();
    if (!what) continue;
    const range = document.createRange();
    range.selectNodeContents(el);
    for (const e of whole ? [el.getBoundingClientRect()] : range.getClientRects()) {
      const w = Math.min(r.right, e.right) - Math.max(r.left, e.left);
      const h = Math.min(r.bottom, e.bottom) - Math.max(r.top, e.top);
      if (w > 2 && h > 2) { hits.push(what.slice(0, 40)); break; }
    }
  }
  return hits;
}"""


def toolbar_problems(pg, charts: int = 3) -> list[str]:
    """A chart's toolbar (Streamlit draws it above the chart while the pointer is on it) over text, a slider, a
    metric or a table: the first ``charts`` charts hovered in turn; the page is scrolled back to the top after."""
    out, found = [], pg.locator("[data-testid='stVegaLiteChart']")
    for i in range(min(charts, found.count())):
        chart = found.nth(i)
        chart.scroll_into_view_if_needed()
        chart.hover()
        pg.wait_for_timeout(200)
        out += [f"chart {i}'s toolbar covers {text!r}" for text in pg.evaluate(TOOLBAR_OVER_TEXT, i)]
    pg.mouse.move(0, 0)
    pg.evaluate("window.scrollTo(0, 0)")
    return out


def layout_problems(pg, viewport: str, has_charts: bool = True, lang: str = "en") -> list[str]:
    """What is wrong with the layout of the page open in ``pg`` (opened at ``VIEWPORTS[viewport]``, scrolled to
    the top): wider than the screen, a chart spilling out of its column, navigation showing file names or
    Streamlit's own page list, and on a laptop the first chart below the first screen. Empty when all is well."""
    m = pg.evaluate(MEASURE)
    for _ in range(20):  # Vega sizes a chart to its container just after drawing it: wait until nothing moves
        pg.wait_for_timeout(150)
        m, before = pg.evaluate(MEASURE), m
        if m == before:
            break
    problems = []
    if m["scrollWidth"] > m["innerWidth"]:
        problems.append(f"{m['scrollWidth'] - m['innerWidth']} px wider than the screen")
    spill = [(c["i"], round(max(c["right"] - c["boxRight"], c["boxLeft"] - c["left"])))
             for c in m["charts"] if c["right"] > c["boxRight"] + 1 or c["left"] < c["boxLeft"] - 1]
    if spill:
        problems.append(f"charts outside their column (index, px): {spill}")
    if m["streamlitNav"]:
        problems.append("Streamlit's own page list (file names) is shown")
    home, glossary = (i18n.text(lang, f"{table}.nav_title") for table in ("home", "glossary"))
    if not m["links"] or home not in m["links"][0] or glossary not in " ".join(m["links"]):
        problems.append(f"the page list is not ours: {m['links']}")
    problems += [f"a file name in the navigation: {t!r}" for t in m["links"] if FILE_NAME.search(t)]
    if viewport == "desktop" and has_charts and not (m["charts"] and m["charts"][0]["top"] < VIEWPORTS["desktop"][1]):
        problems.append(f"no chart starts on the first laptop screen: {[round(c['top']) for c in m['charts'][:1]]}")
    if not has_charts and m["charts"]:
        problems.append(f"{len(m['charts'])} charts on a page that has none")
    return problems + clipping_problems(pg) + (toolbar_problems(pg) if viewport == "phone" else [])
