"""Screenshot pages of the running app in headless Chromium, to look at them.

Usage: python scripts/screenshots.py [--lang zh] [URL_PATH ...]   (default: every page; "" or "home" is the home
page; ``--lang`` opens each page in that language, ``?lang=zh``, and adds it to the file names)
Starts `streamlit run dashboard.py` on a free port and saves, for every page, a phone (390 × 844) and a
laptop (1440 × 900) screenshot in the light and the dark theme under artifacts/screenshots/:
``<page>-<phone|desktop>-<light|dark>.png`` (the first screen) and ``...-full.png`` (the whole page).
"""

from __future__ import annotations

import pathlib
import socket
import subprocess
import sys
import time
import urllib.request

from playwright.sync_api import sync_playwright

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from ui import nav  # noqa: E402

OUT = ROOT / "artifacts" / "screenshots"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]


VIEWPORTS = {"phone": (390, 844), "desktop": (1440, 900)}
THEMES = ("light", "dark")


def page_paths() -> list[str]:
    """Every page of the map (``ui.nav``), home first, as URL paths."""
    return [nav.url_path(p.path) for p in nav.PAGES]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "dashboard.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("streamlit did not start")


def wait_idle(page, timeout_ms: int = 30_000) -> None:
    """Wait until the app has finished its rerun (Streamlit marks the app root with data-test-script-state)."""
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=timeout_ms)
    page.wait_for_function("() => document.querySelectorAll('[data-testid=\"stSkeleton\"]').length === 0",
                           timeout=timeout_ms)
    page.wait_for_timeout(600)


def shoot(browser, base: str, path: str, viewport: str, theme: str, lang: str = "") -> list[pathlib.Path]:
    """The first screen and the whole page of one page at one size in one theme."""
    width, height = VIEWPORTS[viewport]
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=theme)
    try:
        page = context.new_page()
        page.goto(f"{base}/{path}" + (f"?lang={lang}" if lang else ""))
        page.wait_for_selector("[data-testid='stMain'] h1", timeout=60_000)
        wait_idle(page)
        name = f"{path or 'home'}-{viewport}-{theme}" + (f"-{lang}" if lang else "")
        first, full = OUT / f"{name}.png", OUT / f"{name}-full.png"
        page.screenshot(path=str(first))
        # the main area scrolls on its own: grow the window to its height to take the whole page
        total = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
        page.set_viewport_size({"width": width, "height": min(max(total, height), 12_000)})
        wait_idle(page)
        page.screenshot(path=str(full), full_page=True)
        return [first, full]
    finally:
        context.close()


def main(argv: list[str]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    lang = ""
    if argv[:1] == ["--lang"]:
        lang, argv = argv[1], argv[2:]
    paths = ["" if a == "home" else a.strip("/") for a in argv] or page_paths()
    port = free_port()
    proc = start_server(port)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            for path in paths:
                for viewport in VIEWPORTS:
                    for theme in THEMES:
                        for target in shoot(browser, f"http://127.0.0.1:{port}", path, viewport, theme, lang):
                            print(target)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main(sys.argv[1:])
