"""The load balancer's configuration: HAProxy in front of N replicas of the app, each visitor kept on one replica.

    python deploy/haproxy.py > deploy/haproxy.cfg                     # the compose file's three replicas
    python deploy/haproxy.py --bind 0.0.0.0:8080 --replica app1:8501 --replica app2:8501 ...

Streamlit keeps a visitor's session in the process holding its websocket, and the session's uploads
(``/_stcore/upload_file``) and file downloads (``/media``) must reach that same process: a replica that does not
hold the session refuses the upload ("Invalid session_id ... sticky sessions"). So the balancer sets a cookie on
the first response (the page itself) naming the replica, and sends every later request of that browser — the
websocket, uploads, downloads — to it. A new visitor goes to the replica with the fewest connections (the open
websockets). When a replica stops, its health check fails within about three seconds (a refused connection fails at
once; a busy replica that answers late, within three seconds, stays in); its visitors' browsers
reconnect on their own, the balancer sends them to another replica (``option redispatch``) with a new cookie, and
the link in their address bar brings their view back there.

The door (SECURITY.md, "The door"): one client address holds at most ``Door.per_client`` connections; once the
balancer holds all but ``Door.reserve`` of its ``Door.maxconn``, an address that already holds ``Door.newcomer``
gets no more, so the last share is for new visitors; a websocket with no traffic either way for
``Door.tunnel_s`` closes (Streamlit pings every open websocket every 30 s, so a reader's never does).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

COOKIE = "rl_replica"  # the affinity cookie: its value is the replica's name
VISITOR_COOKIE = "rl_visitor"  # a browser's id (a UUID and its signature, set on its first request): serve.visitors'
KEY_ENV = "RL_VISITOR_KEY"  # the balancer's key for signing visitor cookies (base64), from its environment
SIGNATURE_CHARS = 32  # of the HMAC-SHA256's URL-safe base64 (192 bits)
COMPOSE_REPLICAS = [(f"app{i}", f"app{i}", 8501) for i in (1, 2, 3)]  # compose.yaml's services


DOCKER_DNS = "127.0.0.11:53"  # the resolver inside a compose network
STREAMLIT_PING_S = 30  # Streamlit 1.67 (uvicorn) pings every websocket this often, and drops one unanswered as long


@dataclass(frozen=True)
class Door:
    """How many connections the balancer lets in, and to whom (the defaults are what ships)."""

    maxconn: int = 4096     # every connection the balancer holds (the page's requests, the websockets)
    per_client: int = 500   # one client address: a class of 60 behind one NAT, two tabs each, all loading at once
    reserve: int = 1024     # the last connections: only for an address that holds fewer than ``newcomer``
    newcomer: int = 16      # a visitor's browser opening the page (6 parallel requests, a few tabs)
    tunnel_s: int = 4 * STREAMLIT_PING_S  # an open websocket with no traffic either way this long is dead

    def __post_init__(self) -> None:
        if not 0 < self.newcomer <= self.per_client < self.maxconn - self.reserve < self.maxconn:
            raise ValueError(f"need 0 < newcomer <= per_client < maxconn - reserve < maxconn, got {self}")
        if self.tunnel_s <= 2 * STREAMLIT_PING_S:
            raise ValueError(f"tunnel_s must exceed two of Streamlit's pings ({2 * STREAMLIT_PING_S} s), "
                             f"got {self.tunnel_s}")


SHIPPED = Door()  # the limits deploy/haproxy.cfg has


def config(replicas: list[tuple[str, str, int]], bind: str = "0.0.0.0:8080", *, dns: str | None = DOCKER_DNS,
           stats: str | None = None, door: Door = SHIPPED) -> str:
    """haproxy.cfg for ``replicas`` (name, host, port), listening on ``bind``; ``dns``: a resolver that finds
    replicas started after the balancer (containers), None for fixed addresses; ``stats``: an address for HAProxy's
    own status page (left out when None); ``door``: the connection limits."""
    resolve = " resolvers dns" if dns else ""
    full = door.maxconn - door.reserve  # from here on, the door is for new visitors
    signed = "%[var(txn.visitor)].%[var(txn.signature)]"
    cookies = "%[req.fhdr(cookie)]; "  # what else the request's Cookie header holds
    set_visitor = f"{VISITOR_COOKIE}={signed}; Path=/; HttpOnly; SameSite=Lax"
    sign = f'hmac(sha256,"${{{KEY_ENV}}}"),ub64enc,bytes(0,{SIGNATURE_CHARS})'
    servers = "\n".join(f"    server {name} {host}:{port} cookie {name} check inter 1s fall 3 rise 2{resolve}"
                         for name, host, port in replicas)
    resolvers = f"""
resolvers dns
    nameserver dns {dns}
    hold valid 5s
""" if dns else ""
    status = f"""
frontend stats
    bind {stats}
    stats enable
    stats uri /
""" if stats else ""
    return f"""# Written by deploy/haproxy.py: HAProxy before {len(replicas)} replicas of the app, session affinity.
.if !defined({KEY_ENV}) || streq("${{{KEY_ENV}}}","")
    .alert "{KEY_ENV} is not set: the key that signs visitor cookies (e.g. head -c 32 /dev/urandom | base64)"
.endif
global
    maxconn {door.maxconn}
    log stdout format raw local0 notice   # start, stop, a replica down or up

defaults
    mode http
    log global
    default-server init-addr last,libc,none   # start even before the replicas' names resolve
    timeout connect 5s
    timeout http-request 10s
    timeout client 60s
    timeout server 60s
    timeout tunnel {door.tunnel_s}s     # a websocket silent both ways (Streamlit pings every {STREAMLIT_PING_S} s)
    timeout client-fin 5s
    timeout check 3s        # a replica busy with scripts answers its health check late, not never
    retries 3
    option redispatch 1     # a replica that is down or refuses: try another one, with a new cookie

frontend app
    bind {bind}
    # The door: connections per client address (a /64 for IPv6), counted while they are open.
    stick-table type ipv6 size 100k expire 10m store conn_cur
    tcp-request connection track-sc0 src,ipmask(32,64)
    tcp-request connection reject if {{ sc0_conn_cur gt {door.per_client} }}
    # The last {door.reserve} connections are for new visitors: an address holding {door.newcomer} gets none of them.
    tcp-request connection reject if {{ fe_conn gt {full} }} {{ sc0_conn_cur gt {door.newcomer} }}
    # Who a visitor is, for fair turns on the replica (serve.line): its address, and its browser's cookie (a UUID the
    # balancer signed with the key in {KEY_ENV}); one without a valid signature is replaced: no client chooses its own.
    http-request del-header X-Forwarded-For   # what a client says of its address counts for nothing
    option forwardfor
    http-request set-var(txn.visitor) req.cook({VISITOR_COOKIE}),field(1,.)
    http-request set-var(txn.given) req.cook({VISITOR_COOKIE}),field(2,.)
    http-request set-var(txn.signature) var(txn.visitor),{sign} if {{ var(txn.visitor) -m found }}
    acl signed var(txn.given),secure_memcmp(txn.signature) {{ req.cook_cnt({VISITOR_COOKIE}) eq 1 }}
    http-request set-var(txn.new) bool(true) if !signed
    http-request set-var(txn.visitor) uuid,lower if !signed
    http-request set-var(txn.signature) var(txn.visitor),{sign} if !signed
    http-request replace-header Cookie (^|.*;\\s*){VISITOR_COOKIE}=[^;]*(.*) \\1x-old=\\2 if !signed
    http-request set-header Cookie "{cookies}{VISITOR_COOKIE}={signed}" if !signed {{ req.fhdr(cookie) -m found }}
    http-request set-header Cookie "{VISITOR_COOKIE}={signed}" if !signed !{{ req.fhdr(cookie) -m found }}
    http-response add-header Set-Cookie "{set_visitor}" if {{ var(txn.new) -m found }}
    default_backend replicas

backend replicas
    balance leastconn       # a new visitor goes where the fewest websockets are open
    cookie {COOKIE} insert indirect nocache httponly
    option httpchk GET /_stcore/health
    http-check expect status 200
{servers}
{resolvers}{status}"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bind", default="0.0.0.0:8080")
    ap.add_argument("--replica", action="append", metavar="HOST:PORT",
                    help="a replica's address (repeat it); the compose file's three by default")
    ap.add_argument("--no-dns", action="store_true",
                    help="fixed addresses: no resolver (outside containers, where the names do not change)")
    args = ap.parse_args()
    replicas = COMPOSE_REPLICAS
    if args.replica:
        replicas = [(f"app{i}", *addr.rsplit(":", 1)) for i, addr in enumerate(args.replica, 1)]
        replicas = [(name, host, int(port)) for name, host, port in replicas]
    sys.stdout.write(config(replicas, args.bind, dns=None if args.no_dns else DOCKER_DNS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
