"""deploy/: the balancer's configuration that ships is the one deploy/haproxy.py writes, HAProxy accepts it, and
it keeps a visitor on one replica (the affinity cookie on every server line)."""

from __future__ import annotations

import ast
import http.cookies
import http.server
import pathlib
import re
import shutil
import subprocess
import threading
import urllib.request

import pytest
import yaml  # no compose CLI or Docker daemon on the test machine: the file is read

from deploy import haproxy

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_shipped_configuration_is_the_generated_one():
    shipped = (ROOT / "deploy" / "haproxy.cfg").read_text()
    assert shipped == haproxy.config(haproxy.COMPOSE_REPLICAS), "run: python deploy/haproxy.py > deploy/haproxy.cfg"
    compose = (ROOT / "deploy" / "compose.yaml").read_text()
    for name, _, port in haproxy.COMPOSE_REPLICAS:  # every server the balancer names is a compose service
        assert re.search(rf"^  {name}:", compose, re.M), name
        assert f"{name}:{port}" in shipped


def test_every_replica_gets_the_affinity_cookie_and_a_health_check():
    cfg = haproxy.config([("a", "127.0.0.1", 9001), ("b", "127.0.0.1", 9002)], "127.0.0.1:9000", dns=None)
    servers = [line.split() for line in cfg.splitlines() if line.strip().startswith("server ")]
    assert [s[1] for s in servers] == ["a", "b"]
    for s in servers:
        assert s[s.index("cookie") + 1] == s[1] and "check" in s  # cookie value = the replica's name
    assert f"cookie {haproxy.COOKIE} insert" in cfg and "option redispatch" in cfg
    assert "option httpchk GET /_stcore/health" in cfg
    assert "resolvers" not in cfg  # fixed addresses need no resolver


@pytest.mark.skipif(shutil.which("haproxy") is None, reason="haproxy is not installed (apt-get install -y haproxy)")
def test_haproxy_accepts_the_configuration(tmp_path):
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(haproxy.config([("app1", "127.0.0.1", 9001), ("app2", "127.0.0.1", 9002)], "127.0.0.1:9000",
                                  dns=None))
    for key, valid in (("", False), ("c2VjcmV0", True)):  # no key to sign visitor cookies with: it will not start
        out = subprocess.run([shutil.which("haproxy"), "-c", "-f", str(cfg)], capture_output=True, text=True,
                             timeout=30, env={haproxy.KEY_ENV: key})
        assert (out.returncode == 0) == valid, out.stdout + out.stderr


class _Echo(http.server.BaseHTTPRequestHandler):
    """A replica that answers every request with the Cookie header it got."""

    def do_GET(self):  # http.server's name
        body = (self.headers.get("Cookie") or "").encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.mark.skipif(shutil.which("haproxy") is None, reason="haproxy is not installed (apt-get install -y haproxy)")
def test_the_balancer_signs_the_visitor_cookie_and_replaces_one_it_did_not_sign(tmp_path):
    """A real HAProxy with the shipped rules before a replica that echoes the cookies it is sent: a browser without
    the cookie gets a signed one, and the replica sees it; sent back, it is kept; a made-up value, a signed id with
    another's signature, a second copy of the cookie, and one signed with another key are replaced by a new signed
    one, which is the value the replica reads (serve.visitors: a browser)."""
    from deploy.local import free_port, healthy, new_key
    from serve import visitors

    echo = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    threading.Thread(target=echo.serve_forever, daemon=True).start()
    port, balancers = free_port(), []
    try:
        def balancer(key, port):
            cfg = tmp_path / f"{port}.cfg"
            cfg.write_text(haproxy.config([("app1", "127.0.0.1", echo.server_port)], f"127.0.0.1:{port}", dns=None))
            balancers.append(subprocess.Popen([shutil.which("haproxy"), "-f", str(cfg), "-db"],
                                              env={haproxy.KEY_ENV: key}, stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL))
            assert healthy(f"http://127.0.0.1:{port}/", 20)
        balancer(new_key(), port)
        other = free_port()
        balancer(new_key(), other)
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

        def get(cookie, at=port):
            req = urllib.request.Request(f"http://127.0.0.1:{at}/", headers={"Cookie": cookie} if cookie else {})
            with opener.open(req, timeout=10) as r:
                sent = [h.split(";")[0].split("=", 1)[1] for h in r.headers.get_all("Set-Cookie") or []
                        if h.startswith(haproxy.VISITOR_COOKIE + "=")]
                seen = http.cookies.SimpleCookie(r.read().decode())  # the last of a name wins, as in Starlette
                return sent, seen[haproxy.VISITOR_COOKIE].value if haproxy.VISITOR_COOKIE in seen else None
        (mine,), seen = get(None)
        assert seen == mine and visitors.visitor_of({visitors.VISITOR_COOKIE: mine}, None)[1].startswith("browser ")
        assert get(f"a=1; {haproxy.VISITOR_COOKIE}={mine}") == ([], mine), "a signed cookie is kept"
        uuid_ = mine.split(".")[0]
        forged = [f"{uuid_}.{'A' * haproxy.SIGNATURE_CHARS}", "89ad76d6-d1b0-49ac-b836-555830da99ec", "<x>", uuid_]
        for cookie in [f"{haproxy.VISITOR_COOKIE}={f}" for f in forged] + [
                f"{haproxy.VISITOR_COOKIE}={mine}; {haproxy.VISITOR_COOKIE}={forged[0]}"]:
            (new,), seen = get(cookie)
            assert seen == new != mine and new not in forged, cookie
        (new,), seen = get(f"{haproxy.VISITOR_COOKIE}={mine}", at=other)
        assert seen == new != mine, "another key's signature counts for nothing"
    finally:
        for b in balancers:
            b.terminate()
            b.wait(10)
        echo.shutdown()


def test_the_compose_file_runs_every_replica_from_the_app_image_behind_the_balancer():
    services = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())["services"]
    names = [name for name, _, _ in haproxy.COMPOSE_REPLICAS]
    for name in names:
        assert services[name]["build"]["dockerfile"] == "deploy/Dockerfile" and "ports" not in services[name]
    balancer = services["balancer"]
    assert balancer["ports"] == ["8080:8080"] and sorted(balancer["depends_on"]) == names
    assert "0.0.0.0:8080" in haproxy.config(haproxy.COMPOSE_REPLICAS)  # what the published port reaches
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    for part in ("dashboard.py", "pages/", "rlcore/", "serve/", "ui/", ".streamlit/", "requirements.txt"):
        assert f"COPY {part}" in dockerfile, part
    copied, ours = set(re.findall(r"^COPY (\S+)", dockerfile, re.M)), {p.name for p in ROOT.iterdir() if p.is_dir()}
    code = [ROOT / c for c in copied if c.endswith(".py")]
    code += [f for c in copied if c.endswith("/") for f in (ROOT / c).rglob("*.py")]
    for path in code:  # what the image's code imports from this repository is in the image too
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                tops = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                tops = {node.module.split(".")[0]}
            else:
                continue
            missing = {f"{t}/" for t in tops & ours} - copied
            assert not missing, f"{path.relative_to(ROOT)}:{node.lineno} imports {missing}: COPY it in the Dockerfile"


def test_the_door_limits_each_client_and_keeps_a_share_for_newcomers():
    door = haproxy.Door(maxconn=100, per_client=30, reserve=25, newcomer=5, tunnel_s=90)
    cfg = haproxy.config([("a", "127.0.0.1", 9001)], "127.0.0.1:9000", dns=None, door=door)
    frontend = cfg.split("frontend app", 1)[1].split("backend ", 1)[0]
    assert "maxconn 100" in cfg and "timeout tunnel 90s" in cfg
    assert "track-sc0 src" in frontend and "store conn_cur" in frontend  # counted by address, while open
    assert "reject if { sc0_conn_cur gt 30 }" in frontend
    assert "reject if { fe_conn gt 75 } { sc0_conn_cur gt 5 }" in frontend
    for bad in ({"per_client": 80}, {"newcomer": 31}, {"reserve": 100}, {"tunnel_s": 60}):
        with pytest.raises(ValueError):
            haproxy.Door(**{**door.__dict__, **bad})


def test_the_tunnel_timeout_is_above_streamlits_own_keep_alive():
    """A websocket a learner reads is never idle for the balancer: Streamlit pings it every STREAMLIT_PING_S (its
    default, which this app's config leaves alone), and the tunnel timeout is several of those."""
    from streamlit import config as st_config
    from streamlit.web.server.starlette import starlette_server_config as server_config

    assert server_config.DEFAULT_WEBSOCKET_PING_INTERVAL == haproxy.STREAMLIT_PING_S
    assert "websocketPingInterval" not in (ROOT / ".streamlit" / "config.toml").read_text()
    assert st_config.get_option("server.websocketPingInterval") is None
    assert haproxy.SHIPPED.tunnel_s >= 3 * (server_config.DEFAULT_WEBSOCKET_PING_INTERVAL
                                            + server_config.DEFAULT_WEBSOCKET_PING_TIMEOUT) / 2


def test_the_balancer_names_each_visitor_to_the_replicas():
    """serve.line shares per address and browser: the balancer passes the client's own address on in X-Forwarded-For
    after dropping whatever the client claimed there (its visitor cookie: the test above, against HAProxy)."""
    frontend = haproxy.config([("a", "127.0.0.1", 9001)], "127.0.0.1:9000", dns=None).split("frontend app")[1]
    lines = [line.strip() for line in frontend.split("backend ")[0].splitlines()]
    drop = next(i for i, line in enumerate(lines) if line.startswith("http-request del-header X-Forwarded-For"))
    assert lines.index("option forwardfor") > drop
