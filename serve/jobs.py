"""The server's own work, done ahead of time: ``in_background`` runs a long computation once per process and key in
a daemon thread, a turn of the training line (``serve.line.TRAININGS``) at a time as the visitor ``SERVER``, whose
turns come after every visitor's; ``wait_for`` lets a learner who asks for that very work wait for it instead of
doing it twice (page 19's default run, ready for a newcomer). The test suite's processes switch it off
(``RL_EXPLORER_BACKGROUND=0``, tests/conftest.py).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import streamlit as st

from . import line, visitors
from .visitors import SERVER

BACKGROUND_ENV = "RL_EXPLORER_BACKGROUND"  # "0": no work ahead of time (the test suite's processes)
_BACKGROUND: set = set()
_BACKGROUND_LOCK = threading.Lock()
_JOBS: dict = {}  # key → _Job: the work ahead of time in progress


@dataclass
class _Job:
    """Work ahead of time in progress: ``done`` is set when it has handed its items over (or failed); ``for_whom``
    lists the visitors who wait for it, whose turns it takes (the first one's)."""

    done: threading.Event = field(default_factory=threading.Event)
    for_whom: list = field(default_factory=list)

    def visitor(self):
        return self.for_whom[0] if self.for_whom else SERVER


def in_background(key, steps: Callable[[], Iterable], done: Callable[[list], None], *,
                  seconds: float = line.TURN_S) -> threading.Thread | None:
    """Once per server process and ``key``: a daemon thread runs ``steps()`` (a long computation, step by step) a
    turn of the training line at a time, as the server's own visitor, and hands everything it yielded to ``done``.
    The server's turns come after every visitor's (it gives the line back after a step when anyone waits), so a
    learner never waits behind it; a learner who asks for this very work waits for it instead (``wait_for``), and it
    then takes that learner's turns. Returns the thread it started, or None (started before, or the environment's
    ``RL_EXPLORER_BACKGROUND`` is "0")."""
    if os.environ.get(BACKGROUND_ENV, "1") == "0":
        return None
    with _BACKGROUND_LOCK:
        if key in _BACKGROUND:
            return None
        _BACKGROUND.add(key)
        job = _JOBS[key] = _Job()

    def work():
        items, it, session = [], iter(steps()), f"{SERVER} {key}"   # a session per job: two jobs never replace
        try:                                                         # each other; one visitor, the server, for all
            while True:
                line.TRAININGS.take(session, None, job.visitor())
                end = time.monotonic() + seconds
                items.append(next(it))          # at least one step a turn
                while time.monotonic() < end and not line.TRAININGS.wanted():
                    items.append(next(it))
                line.TRAININGS.release()
        except StopIteration:
            done(items)
        except BaseException:
            with _BACKGROUND_LOCK:  # it failed: the next page that asks starts it again
                _BACKGROUND.discard(key)
            raise
        finally:
            line.TRAININGS.release()
            with _BACKGROUND_LOCK:
                _JOBS.pop(key, None)
            job.done.set()

    thread = threading.Thread(target=work, name=f"background {key}", daemon=True)
    thread.start()
    return thread


def wait_for(key, where=None, say=None) -> bool:
    """If the server's work ahead of time ``key`` (``in_background``) is in progress, wait until it is done, saying
    so in ``where`` (an ``st.empty()``), and say True: what it made is then where its ``done`` put it. Meanwhile it
    takes this session's visitor's turns, so it is served as this visitor's run would be (a run asked for twice is
    trained once). A newer input stops the wait at the notice, as anywhere else. False when no such work runs.
    ``say``: the notice's words, looked up by catalogue id (``ui.i18n.t``; ``ui.page.wait_ahead`` passes it)."""
    with _BACKGROUND_LOCK:
        job = _JOBS.get(key)
        if job is None:
            return False
        me = visitors.this_visitor()
        job.for_whom.append(me)
    try:
        while not job.done.wait(line.POLL_S):
            if where is not None and say is not None and st.runtime.exists():
                where.info(say("turns.ahead of time"), icon=":material/hourglass_top:")  # a newer input stops here
    finally:
        with _BACKGROUND_LOCK:
            job.for_whom.remove(me)
        if where is not None and st.runtime.exists():
            where.empty()
    return True

