"""N replicas of the app and HAProxy in front of them, on this machine, without containers.

    python deploy/local.py --replicas 3 --port 8080     # then open http://127.0.0.1:8080; Ctrl-C stops all

What the exhaustive deployment test and bench/replicas.py start: each replica is a ``streamlit run dashboard.py``
on 127.0.0.1 and a free port, the balancer is Debian's ``haproxy`` (``apt-get install -y haproxy``) with the
configuration of ``deploy/haproxy.py``. Every process is started here and stopped by ``stop``.
"""

from __future__ import annotations

import argparse
import base64
import os
import pathlib
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "deploy"))
from haproxy import COOKIE, KEY_ENV, SHIPPED, Door, config  # noqa: E402,F401 (COOKIE, Door: for who starts a Cluster)

HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(url: str, timeout: float) -> bool:
    """Poll ``url`` until it answers 200 (bounded by ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    while time.monotonic() < deadline:
        try:
            with opener.open(url, timeout=2) as r:
                if r.status == 200:
                    return True
        except OSError:
            time.sleep(0.2)
    return False


def start(cmd: list[str], log: pathlib.Path, env: dict | None = None) -> subprocess.Popen:
    """A process with its output in ``log`` (the child keeps the file open; this process does not); ``env``: more
    of its environment."""
    with open(log, "w") as out:
        # two malloc arenas, as deploy/Dockerfile sets: a room's freed memory goes back to the system
        return subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, "MALLOC_ARENA_MAX": "2", **(env or {})})


def new_key() -> str:
    """A key for the balancer to sign visitor cookies with (``KEY_ENV``): 32 random bytes, base64."""
    return base64.b64encode(secrets.token_bytes(32)).decode()


class Cluster:
    """``replicas`` app processes and a balancer on 127.0.0.1; ``url`` is the balancer's, ``names`` the replicas'
    (the affinity cookie's values: app1, app2, ...); ``door``: the balancer's connection limits."""

    def __init__(self, replicas: int = 3, port: int | None = None, door: Door = SHIPPED) -> None:
        if not 1 <= replicas <= 8:
            raise ValueError(f"replicas must be 1..8, got {replicas}")
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="rl-cluster-"))
        self.apps: dict[str, tuple[int, subprocess.Popen]] = {}
        self.balancer = None
        try:
            for i in range(1, replicas + 1):
                app_port = free_port()
                self.apps[f"app{i}"] = (app_port, start(
                    [sys.executable, "-m", "streamlit", "run", "dashboard.py", "--server.headless", "true",
                     "--server.port", str(app_port), "--server.address", "127.0.0.1",
                     "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
                    self.dir / f"app{i}.log"))
            for name, (app_port, _) in self.apps.items():
                if not healthy(f"http://127.0.0.1:{app_port}/_stcore/health", 90):
                    raise RuntimeError(f"{name} did not become healthy (log: {self.dir / (name + '.log')})")
            self.port = port or free_port()
            self.url = f"http://127.0.0.1:{self.port}"
            cfg = self.dir / "haproxy.cfg"
            cfg.write_text(config([(n, "127.0.0.1", p) for n, (p, _) in self.apps.items()],
                                  f"127.0.0.1:{self.port}", dns=None, door=door))
            self.key = os.environ.get(KEY_ENV) or new_key()  # the balancer's, for signing visitor cookies
            self.balancer = start([HAPROXY, "-f", str(cfg), "-db"], self.dir / "haproxy.log", {KEY_ENV: self.key})
            if not healthy(f"{self.url}/_stcore/health", 30):
                raise RuntimeError(f"the balancer did not answer (log: {self.dir / 'haproxy.log'})")
        except BaseException:
            self.stop()
            raise

    @property
    def names(self) -> list[str]:
        return list(self.apps)

    def pid(self, name: str) -> int:
        return self.apps[name][1].pid

    def stop_replica(self, name: str) -> None:
        """Stop one replica (as a crash or a redeploy would): its websockets close."""
        _, proc = self.apps[name]
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)

    def stop(self) -> None:
        for proc in [self.balancer, *(p for _, p in self.apps.values())]:
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=5)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicas", type=int, default=3)
    ap.add_argument("--port", type=int, default=8080)
    args = ap.parse_args()
    cluster = Cluster(args.replicas, args.port)
    print(f"{args.replicas} replicas behind {cluster.url} (logs in {cluster.dir}); Ctrl-C stops them")
    try:
        while all(p.poll() is None for _, p in cluster.apps.values()):
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        cluster.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
