"""One address for everyone (a plain server on 127.0.0.1, which Streamlit gives no address, as behind Community
Cloud's proxy): a newcomer's browser beside one browser's many heavy tabs, beside as many made-up identities, and
beside one browser's page-19 trainings (bench/visitors.py's room, smaller). What the newcomer read while it waited
says where the line put it: at most two runs ahead of its own (the run in progress and one beside or before it),
where everyone on the address was one visitor and it read "16 runs are ahead of yours" (#44). Its time is
bench/visitors.py's to measure (BENCHMARKS.md): no clock here."""

from __future__ import annotations

import asyncio

import pytest

from bench import visitors
from bench.workshop import runs_ahead
from tests.e2e.e2ehelp import Server

pytestmark = [pytest.mark.e2e, pytest.mark.exhaustive, pytest.mark.load]  # a crowd: .ci/run gives it the machine


@pytest.mark.parametrize(("page", "crowd", "tabs"), [("lab", "browser", 16), ("lab", "forged", 16),
                                                     ("zero", "browser", 4)])
def test_a_newcomer_waits_for_no_crowd_on_one_address(page, crowd, tabs):
    server = Server()
    try:
        room = visitors.room(server.url, tabs, 2, 30, page == "zero", 0, crowd, patience=300)  # a loaded machine
        stats = asyncio.run(asyncio.wait_for(room, 1200))
    finally:
        server.stop()
    assert not stats["errors"], stats["errors"]
    newcomers = [n for n in stats["newcomers"] if not n["cached"]]
    assert len(newcomers) == 2, "every newcomer's run finished"
    ahead = [runs_ahead(text) for n in newcomers for text in n["notices"]]
    assert max(ahead, default=0) <= 2, ahead
