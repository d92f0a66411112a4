"""Screenshot pages of the running app in headless Chromium, to look at them.

Usage: python scripts/screenshots.py [URL_PATH ...]   (default: every page)
Starts `streamlit run dashboard.py` on a free port, saves PNGs under artifacts/screenshots/.
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
OUT = ROOT / "artifacts" / "screenshots"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]


def page_paths() -> list[str]:
    paths = [""]
    for f in sorted((ROOT / "pages").glob("*.py")):
        stem = f.stem.split("_", 2)[-1]
        paths.append(stem)
    return paths


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


def main(argv: list[str]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    port = free_port()
    proc = start_server(port)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            for path in argv or page_paths():
                page.goto(f"http://127.0.0.1:{port}/{path}")
                wait_idle(page)
                height = page.evaluate(
                    "() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
                page.set_viewport_size({"width": 1400, "height": min(max(height, 1000), 12000)})
                wait_idle(page)
                name = path.split("?")[0] or "home"
                target = OUT / f"{name}.png"
                page.screenshot(path=str(target), full_page=True)
                print(target)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main(sys.argv[1:])
