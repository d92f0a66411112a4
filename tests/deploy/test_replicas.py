"""Three replicas of the app behind a real HAProxy on 127.0.0.1 (deploy/local.py), sixty protocol learners across
the pages with CSV downloads and scenario uploads (bench/replicas.py), one replica stopped midway.

Asserted: no lost session, no failed download or upload, every replica takes a fair share, and the learners of
the stopped replica reconnect through the balancer to another one with their view (the link carries it) while
nobody else's connection closes. Also that the affinity matters: an upload sent to a replica that does not hold
the session is refused. About two minutes; 127.0.0.1 only; every process started here is stopped here.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import shutil
import urllib.error

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.exhaustive, pytest.mark.load]

LEARNERS = int(os.environ.get("DEPLOY_TEST_LEARNERS", "60"))  # fewer while developing on a shared machine
REPLICAS, SECONDS = 3, 40


def require_haproxy() -> None:
    if shutil.which("haproxy") is None:
        if os.environ.get("CI"):
            pytest.fail("the deployment test must run in CI: haproxy is missing (.ci/run installs it)")
        pytest.skip("haproxy is not installed (apt-get install -y haproxy)")


def test_learners_spread_over_replicas_and_survive_one_replica_stopping():
    require_haproxy()
    from bench.replicas import run

    report = run(REPLICAS, LEARNERS, SECONDS, stop_one=True)
    print(report)
    assert not report["errors"], report["errors"][:5]
    share = report["learners_per_replica"]
    assert sum(share.values()) == LEARNERS, "every learner got a session"
    fair = LEARNERS / REPLICAS
    assert min(share.values()) >= 0.6 * fair and max(share.values()) <= 1.4 * fair, share
    assert report["downloads"] >= LEARNERS // 4 and report["uploads"] >= LEARNERS // 4, report
    victim = report["stopped"]
    assert report["reconnected"] == share[victim], "every learner of the stopped replica came back, no one else"
    assert report["moved_to"][victim] == 0 and sum(report["moved_to"].values()) == share[victim]


def test_an_upload_sent_to_a_replica_without_the_session_is_refused():
    require_haproxy()
    from bench.replicas import FILES, UPLOADER, learner_scenario
    from bench.wsclient import AppClient
    from deploy.local import COOKIE, Cluster
    from ui.scenario import to_json

    cluster = Cluster(2)
    try:
        async def go():
            client = await AppClient.open(f"{cluster.url}/Reward_and_return", browser=True)
            try:
                await client.rerun(timeout=60)
                assert await client.expand(FILES)
                here = client.cookie(COOKIE)
                client.cookies[COOKIE] = next(n for n in cluster.names if n != here)  # no affinity
                with pytest.raises(urllib.error.HTTPError) as refused:
                    await client.upload(UPLOADER, "x.json", to_json(learner_scenario(0)).encode())
                assert refused.value.code == 400  # "Invalid session_id ... sticky sessions"
                client.cookies[COOKIE] = here
                await client.upload(UPLOADER, "x.json", to_json(learner_scenario(0)).encode())
                assert any(a.startswith("Loaded x") for a in client.alerts), client.alerts[-3:]
            finally:
                await client.close()
        asyncio.run(asyncio.wait_for(go(), timeout=120))
    finally:
        cluster.stop()
        shutil.rmtree(cluster.dir, ignore_errors=True)
