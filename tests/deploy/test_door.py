"""The balancer's door (deploy/haproxy.py, SECURITY.md "The door"): one client that opens as many websockets as it
can does not keep a new visitor out.

A real HAProxy before one replica on 127.0.0.1 (deploy/local.py). The hostile client connects from other loopback
addresses (127.0.0.2, ...: Linux routes all of 127/8 to this machine), so the balancer sees it as another client
than the newcomer (127.0.0.1). Asserted: the client gets exactly its share of connections and no more, it keeps
them (nobody else's connection is closed), and while it holds them and keeps asking for more, a newcomer gets the
page (its HTML, its websocket and the home page's first run) within 2 s, and again the moment the client lets go
(which then gets its whole share back). Then the share kept for new visitors:
with a small door, two clients fill all but the reserve, a third gets only a newcomer's few connections of it, and
a real newcomer still gets in. And the visitor cookie serve.visitors shares by: one per browser. About half a minute;
every process started here is stopped here.
"""

from __future__ import annotations

import asyncio
import shutil
import time
import urllib.request

import pytest
from websockets.asyncio.client import connect

from tests.deploy.test_replicas import require_haproxy

pytestmark = [pytest.mark.exhaustive, pytest.mark.load]  # hundreds of sockets: the machine to itself

NEWCOMER_S = 2.0  # the page within this long, or the newcomer's request fails


async def open_socket(netloc: str, source: str):
    """One Streamlit websocket from ``source`` (a loopback address), as a hostile client holds it: idle, answering
    the server's pings (the websockets library does), never running a script. None when the door refused it."""
    try:
        return await connect(f"ws://{netloc}/_stcore/stream", subprotocols=["streamlit"], origin=f"http://{netloc}",
                             proxy=None, open_timeout=10, ping_interval=None, local_addr=(source, 0))
    except Exception:  # refused: reset, closed, timed out or an HTTP error
        return None


async def hold_all(netloc: str, source: str, limit: int, batch: int = 20) -> list:
    """Open websockets from ``source`` ``batch`` at a time until a whole batch is refused (or ``limit`` tries)."""
    held = []
    while len(held) < limit:
        opened = [ws for ws in await asyncio.gather(*(open_socket(netloc, source) for _ in range(batch))) if ws]
        held += opened
        if not opened:
            break
    return held


async def keep_asking(netloc: str, source: str, stop: asyncio.Event, tally: dict) -> None:
    """The hostile client keeps trying for more while the newcomer loads the page."""
    while not stop.is_set():
        ws = await open_socket(netloc, source)
        tally["opened" if ws else "refused"] += 1
        if ws:
            tally["extra"].append(ws)
        await asyncio.sleep(0.02)


def get(url: str, timeout: float) -> bytes:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=timeout) as r:
        return r.read()


async def newcomer(url: str) -> float:
    """A new visitor from 127.0.0.1: the page's HTML, then the app over its websocket until the home page's first
    run is over. Seconds it took; fails when it took longer than ``NEWCOMER_S``."""
    from bench.wsclient import AppClient

    start = time.monotonic()

    async def visit():
        html = await asyncio.to_thread(get, f"{url}/", NEWCOMER_S)
        assert b"<html" in html.lower()
        client = await AppClient.open(f"{url}/", browser=True)
        try:
            assert await client.rerun(timeout=NEWCOMER_S) == "app"
            assert not client.problems, client.problems
        finally:
            await client.close()
    await asyncio.wait_for(visit(), NEWCOMER_S)
    return time.monotonic() - start


async def still_open(sockets: list) -> bool:
    """Every socket still answers: a ping comes back (the server, through the balancer, is at its other end)."""
    pongs = await asyncio.gather(*(ws.ping() for ws in sockets))
    await asyncio.wait_for(asyncio.gather(*pongs), 10)
    return True


def warm(port: int) -> None:
    """The replica's first run imports the app (seconds): done once on the replica itself, not through the door."""
    asyncio.run(asyncio.wait_for(newcomer_direct(f"http://127.0.0.1:{port}"), 120))


async def newcomer_direct(url: str) -> None:
    from bench.wsclient import AppClient

    client = await AppClient.open(f"{url}/", browser=True)
    try:
        await client.rerun(timeout=120)
    finally:
        await client.close()


@pytest.fixture
def cluster_with():
    """Start a one-replica cluster with a given door; stop every process afterwards."""
    from deploy.local import Cluster

    started = []

    def start(door):
        cluster = Cluster(1, door=door)
        started.append(cluster)
        warm(cluster.apps["app1"][0])
        return cluster
    yield start
    for cluster in started:
        cluster.stop()
        shutil.rmtree(cluster.dir, ignore_errors=True)


def test_a_client_holding_all_the_websockets_it_can_does_not_keep_a_newcomer_out(cluster_with):
    require_haproxy()
    from deploy.haproxy import Door

    door = Door()  # what ships
    cluster = cluster_with(door)
    netloc = cluster.url.removeprefix("http://")

    async def go():
        alone = await newcomer(cluster.url)
        held = await hold_all(netloc, "127.0.0.2", door.per_client + 100)
        tally, stop = {"opened": 0, "refused": 0, "extra": []}, asyncio.Event()
        asking = asyncio.create_task(keep_asking(netloc, "127.0.0.2", stop, tally))
        try:
            await asyncio.sleep(0.5)
            beside = await newcomer(cluster.url)
            beside2 = await newcomer(cluster.url)
        finally:
            stop.set()
            await asking
        assert await still_open(held), "the door closed none of the client's connections"
        await asyncio.gather(*(ws.close() for ws in held + tally["extra"]))
        after = await newcomer(cluster.url)  # the moment the client lets go, the page answers as before
        again = await hold_all(netloc, "127.0.0.2", door.per_client + 100)  # and its share is its own again
        await asyncio.gather(*(ws.close() for ws in again))
        return alone, len(held), tally, (beside, beside2), after, len(again)

    alone, held, tally, beside, after, again = asyncio.run(go())
    print(f"newcomer alone {alone:.2f} s; one client held {held} websockets and was refused "
          f"{tally['refused']} more meanwhile; newcomer beside it {beside[0]:.2f} s, {beside[1]:.2f} s; "
          f"after it let go {after:.2f} s")
    assert again == door.per_client, "connections given back are counted back"
    assert held == door.per_client, "the client got its share of the door, and no more"
    assert tally["opened"] == 0 and tally["refused"] > 0, "asking again while it holds its share gets it nothing"


def test_the_last_connections_are_kept_for_new_visitors(cluster_with):
    require_haproxy()
    from deploy.haproxy import Door

    door = Door(maxconn=60, per_client=20, reserve=20, newcomer=4)
    cluster = cluster_with(door)
    netloc = cluster.url.removeprefix("http://")

    async def go():
        held = [await hold_all(netloc, f"127.0.0.{i}", 100) for i in (2, 3, 4, 5)]
        seconds = await newcomer(cluster.url)
        for sockets in held:
            for ws in sockets:
                await ws.close()
        return [len(h) for h in held], seconds

    shares, seconds = asyncio.run(go())
    print(f"shares of a door of {door.maxconn}: {shares}; a newcomer then got the page in {seconds:.2f} s")
    assert shares == [door.per_client, door.per_client, door.newcomer, door.newcomer], \
        "two clients fill all but the reserve; after that a client gets only a newcomer's few"


def test_the_balancer_gives_each_browser_one_visitor_cookie(cluster_with):
    """serve.line shares per visitor: behind the balancer a visitor is its browser's rl_visitor cookie. A browser's
    first request gets one (a UUID), its later requests keep it (every tab of the browser is one visitor), and
    another browser gets another."""
    require_haproxy()
    from bench.wsclient import AppClient
    from deploy.haproxy import SHIPPED, VISITOR_COOKIE
    from serve.visitors import visitor_of

    cluster = cluster_with(SHIPPED)

    async def go():
        first = await AppClient.open(f"{cluster.url}/", browser=True)
        mine = first.cookie(VISITOR_COOKIE)
        await first.close()
        tab = AppClient(None, first.netloc, "", "")
        tab.cookies = dict(first.cookies)
        await asyncio.to_thread(tab._http, "GET", "/Training_lab")
        other = await AppClient.open(f"{cluster.url}/", browser=True)
        await other.close()
        return mine, tab.cookie(VISITOR_COOKIE), other.cookie(VISITOR_COOKIE)

    mine, same_browser, other_browser = asyncio.run(go())
    assert visitor_of({VISITOR_COOKIE: mine}, None)[1].startswith("browser "), mine  # what serve.visitors takes as one
    assert same_browser == mine, "a browser keeps its visitor cookie"
    assert other_browser != mine and visitor_of({VISITOR_COOKIE: other_browser}, None) != visitor_of(
        {VISITOR_COOKIE: mine}, None)
