"""Turns on the server: work that runs for one session at a time, the sessions served in the order they asked.
``Line`` is plain threading; below it, what pages use through ``ui.page`` (``page.study(..., heavy=True)``,
``page.panel(turns=True)``, ``page.live``): the two lines, the session's token and its notice.

Streamlit runs every session's script in a thread of one process. Heavy work side by side (the training lab's
panels) hands the interpreter lock back and forth and costs several times the CPU of the same work done in
turn, so such work waits in a ``Line``. A line is fair between visitors:

- **one waiting run per session.** A session runs one script at a time; when a newer input supersedes a run
  that is waiting, the waiting run leaves the line at its next Streamlit call (the position notice below) and
  the newer run takes its place in the line, not the back of it. A second waiting thread of the same session
  replaces the first one.
- **sessions in turn.** The line is first come, first served; a session that has had its turn and asks again
  goes to the back, behind everyone who asked meanwhile, so a learner who moves a slider every second cannot
  keep the others waiting.
- **a learner sees where they stand.** While waiting, the session's notice slot says how many runs are ahead
  of theirs, and is cleared when the turn comes.

The lab uses two lines (below): one for drawing its panel (short turns, everyone) and one for the panels
that must train what the shared cache does not hold (they move there for the rest of their run), so a learner
whose view is cached never waits behind someone else's training.
"""

from __future__ import annotations

import functools
import itertools
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import streamlit as st

import rlcore

POLL_S = 0.25         # how often a waiting run looks at the line (and lets a newer input stop it)
QUIET_S = 0.5         # a wait shorter than this shows no notice (no flash for a short turn)
KEEP_PLACE_S = 30.0   # a superseded waiting run's place is kept this long for the session's next run


class Replaced(Exception):
    """A newer run of the same session took this waiting run's place (the caller ends this run quietly)."""


def thread_session() -> str:
    """The session of a thread outside Streamlit: the thread itself."""
    return f"thread-{threading.get_ident()}"


def ahead_text(ahead: int, what: str) -> str:
    """The notice a waiting learner reads, in the run's language: the catalogue's ``[turns]`` entry named by
    the line's ``what`` (imported here, so importing this module imports no Streamlit)."""
    from .i18n import t

    return t(f"turns.{what}", n=ahead)


@dataclass(eq=False)
class _Ticket:
    session: str
    seq: int
    replaced: bool = False


@dataclass
class Line:
    """A first-come-first-served line of sessions for one piece of work; ``what`` names it in the notice."""

    what: str
    _cond: threading.Condition = field(default_factory=threading.Condition)
    _waiting: list = field(default_factory=list)   # tickets in order of seq
    _serving: _Ticket | None = None
    _kept: dict = field(default_factory=dict)      # session → (seq, until): the place of a superseded wait
    _seqs: itertools.count = field(default_factory=itertools.count)
    _held: threading.local = field(default_factory=threading.local)

    def ahead(self, session: str | None = None) -> int:
        """How many runs are ahead of ``session``'s waiting run (of a newcomer's, when it has none)."""
        with self._cond:
            mine = next((i for i, t in enumerate(self._waiting) if t.session == session), len(self._waiting))
            return mine + (self._serving is not None)

    def holds(self) -> bool:
        """Whether the calling thread has its turn now."""
        return getattr(self._held, "ticket", None) is not None

    def _join(self, session: str) -> _Ticket:
        now = time.monotonic()
        self._kept = {s: kept for s, kept in self._kept.items() if kept[1] > now}
        seq = self._kept.pop(session, (None,))[0]
        for old in [t for t in self._waiting if t.session == session]:  # a second thread of the same session
            old.replaced = True
            self._waiting.remove(old)
            seq = old.seq if seq is None else min(seq, old.seq)
        ticket = _Ticket(session, next(self._seqs) if seq is None else seq)
        self._waiting.append(ticket)
        self._waiting.sort(key=lambda t: t.seq)
        return ticket

    def _wait(self, ticket: _Ticket, notice) -> None:
        """Block until ``ticket`` is first and the work is free; ``notice(ahead)`` is called while waiting."""
        start, told = time.monotonic(), None
        while True:
            with self._cond:
                if ticket.replaced:
                    raise Replaced()
                if self._serving is None and self._waiting[0] is ticket:
                    self._waiting.pop(0)
                    self._serving = ticket
                    break
                ahead = self._waiting.index(ticket) + (self._serving is not None)
                self._cond.wait(POLL_S)
            if notice is not None and time.monotonic() - start >= QUIET_S:
                notice(ahead)  # a Streamlit call: where a newer input stops this run (outside the lock)
                told = ahead
        if told is not None:
            notice(None)

    def _leave(self, ticket: _Ticket, keep_place: bool) -> None:
        """``ticket`` is done with the line: out of it (its place kept when ``keep_place``), or its turn over."""
        with self._cond:
            if ticket in self._waiting:
                self._waiting.remove(ticket)
                if keep_place and not ticket.replaced:
                    self._kept[ticket.session] = (ticket.seq, time.monotonic() + KEEP_PLACE_S)
            if self._serving is ticket:
                self._serving = None
            self._cond.notify_all()

    def _take(self, session: str, notice) -> None:
        """Join the line and wait for the turn; the calling thread holds it afterwards."""
        with self._cond:
            ticket = self._join(session)
        try:
            self._wait(ticket, notice)
        except BaseException:  # a newer input stopped this run while it waited (or the notice right after)
            self._leave(ticket, keep_place=True)
            raise
        self._held.ticket = ticket

    def _give_back(self) -> _Ticket:
        ticket, self._held.ticket = self._held.ticket, None
        self._leave(ticket, keep_place=False)
        return ticket

    @contextmanager
    def turn(self, notice=None, *, session: str | None = None):
        """Wait for this session's turn, hold it for the block, then let the next session in.

        ``notice(ahead)`` is told the number of runs ahead while waiting (after ``QUIET_S``) and ``notice(None)``
        once the turn came; it may raise (Streamlit stops a superseded run there): the run then leaves the line
        and its place is kept for the session's next run. ``session``: who asks (a Streamlit session's token;
        the calling thread by default). Raises ``Replaced`` when another run of the same session took its place."""
        if self.holds():  # already this thread's turn: nothing to wait for
            yield
            return
        self._take(session or thread_session(), notice)
        try:
            yield
        finally:
            if self.holds():
                self._give_back()

    def take(self, session: str, notice=None) -> None:
        """Wait for ``session``'s turn and keep it (until ``release``); nothing to wait for when already held."""
        if not self.holds():
            self._take(session, notice)

    def release(self) -> None:
        """Give the calling thread's turn back, if it holds one."""
        if self.holds():
            self._give_back()


# Streamlit hashes a dataclass argument field by field through pickle, about 0.2 ms each; its repr names every
# field exactly (floats round-trip), so it makes the same cache key for a tenth of that.
HASH_BY_REPR = {rlcore.Scenario: repr, rlcore.LabConfig: repr}


# ---------------------------------------------------------------- the server's two lines, as pages use them
# Two lines of sessions: the lab's panel is drawn for one session at a time, and a panel that must
# train what the shared cache lacks moves to the training line, one session at a time there too.
PANELS = Line("lab panels")
TRAININGS = Line("training runs")
_SLOT = threading.local()  # the calling thread's notice slot (drawn by one_at_a_time)
TURN_KEY = "turns_session"  # the session's token in its lines


def _session() -> str:
    """Who is asking for a turn: this Streamlit session (a token kept in its state); outside a server (tests,
    scripts), the calling thread."""
    if not st.runtime.exists():
        return thread_session()
    return st.session_state.setdefault(TURN_KEY, uuid.uuid4().hex)


def _notice(line: Line, slot=None):
    """What a waiting run shows in its notice slot (the panel's by default): how many runs are ahead (None outside
    Streamlit)."""
    slot = slot if slot is not None else getattr(_SLOT, "slot", None)
    if slot is None or not st.runtime.exists():
        return None

    def tell(ahead: int | None) -> None:
        if ahead is None:
            slot.empty()
        else:
            slot.info(ahead_text(ahead, line.what), icon=":material/hourglass_top:")
    return tell


def one_at_a_time(panel):
    """``panel`` is drawn for one session at a time on the server, the sessions in turn (``ui.turns``); a
    waiting learner reads, at the top of the panel, how many runs are ahead of theirs.

    Streamlit runs each session's script in a thread of one process. A panel of many small numpy and pandas
    calls lets go of the interpreter lock inside some of them (fancy indexing, argmax, Arrow conversion) and
    takes it back; twenty learners' panels side by side hand it to one another at every such call, which costs
    2.5 to 3.5 times the CPU of the same work done one panel after another. Taking turns, a workshop of twenty
    learners on the training lab went from p95 3.6 s to 0.57 s (BENCHMARKS.md). A panel that must train what
    the shared cache lacks (``cached(..., take_turns=True)``) moves to the training line: it gives its panel turn
    up, waits for a training turn and draws the rest of the panel in it, so at most two panels run at once and a
    panel whose runs are cached never waits behind a training. A superseded run stops at its next Streamlit
    call, waiting or not.
    """
    @functools.wraps(panel)
    def in_turn(*args, **kwargs):
        _SLOT.slot = st.empty() if st.runtime.exists() else None
        _SLOT.session = _session()
        try:
            with PANELS.turn(_notice(PANELS), session=_SLOT.session):
                return panel(*args, **kwargs)
        except Replaced:
            st.stop()  # a newer run of this session took this one's place in line
        finally:
            TRAININGS.release()  # a panel that trained drew the rest in its training turn
            _SLOT.slot = _SLOT.session = None
    return in_turn


TURN_S = 1.0  # the longest a live training holds the training line before the next session's turn


def in_turns(steps: Iterable, *, where, seconds: float = TURN_S, clock=time.monotonic) -> Iterator:
    """The items of ``steps`` (a long computation, step by step), computed in turns with the other sessions'
    trainings: this session holds the training line (``TRAININGS``) for at most ``seconds`` of steps at a time,
    then goes to the back of it, so twenty learners training at once all advance, and nobody's run holds up the
    room. While waiting, ``where`` (an ``st.empty()``) says how many runs are ahead. What the caller does with
    each item (a redraw) happens in the turn. A newer input stops the run at the notice, as anywhere else.
    ``clock``: what measures a turn (a test passes one that counts steps)."""
    session, tell, it = _session(), _notice(TRAININGS, where), iter(steps)
    try:
        while True:
            TRAININGS.take(session, tell)
            end = clock() + seconds
            while clock() < end:
                try:
                    item = next(it)
                except StopIteration:
                    return
                yield item
            TRAININGS.release()  # the next learner in line goes first; this one rejoins at the back
    except Replaced:
        st.stop()  # a newer run of this session took this one's place in line
    finally:
        TRAININGS.release()


class _NotCached(Exception):
    """A look into a ``cached(..., take_turns=True)`` function's cache found nothing (never stored: an exception)."""


def cached(max_entries: int, *, take_turns: bool = False):
    """``st.cache_data`` for rlcore's results (``ui.page.study`` is what pages call): bounded, without a spinner,
    rlcore's dataclasses keyed by their repr (``HASH_BY_REPR``).

    ``take_turns=True``: a result the cache holds comes back at once; one it must compute waits for its turn in
    ``TRAININGS`` (inside a ``one_at_a_time`` panel, the panel moves there for the rest of its run), so the
    sessions' heavy runs go one at a time and in turn, and a learner whose result is cached waits for nobody's."""
    store = st.cache_data(max_entries=max_entries, show_spinner=False, hash_funcs=HASH_BY_REPR)
    if not take_turns:
        return store

    def decorate(fn):
        @functools.wraps(fn)  # the cache keys the function by fn's name and source (followed through __wrapped__)
        def body(*args, **kwargs):
            if not TRAININGS.holds():
                raise _NotCached
            return fn(*args, **kwargs)
        look = store(body)

        @functools.wraps(fn)
        def call(*args, **kwargs):
            try:
                return look(*args, **kwargs)
            except _NotCached:
                pass
            panel_session = getattr(_SLOT, "session", None)
            try:
                if panel_session is None:  # not inside a one_at_a_time panel: a training turn for this call
                    with TRAININGS.turn(_notice(TRAININGS), session=_session()):
                        return look(*args, **kwargs)
                PANELS.release()  # the panel moves to the training line; one_at_a_time releases it at the end
                TRAININGS.take(panel_session, _notice(TRAININGS))
            except Replaced:
                st.stop()
            return look(*args, **kwargs)
        call.clear = look.clear
        return call
    return decorate


class Shelf:
    """The last ``size`` results put on it, shared by every session of the server (the least recently used goes
    first): page 19's finished runs, which no cache can hold because a live training makes them step by step."""

    def __init__(self, size: int):
        self.size, self.items, self.lock = size, OrderedDict(), threading.Lock()

    def get(self, key):
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
            return self.items.get(key)

    def put(self, key, item) -> None:
        with self.lock:
            self.items[key] = item
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)


_SHELVES: dict[str, Shelf] = {}
_SHELVES_LOCK = threading.Lock()


def shelf(name: str, size: int) -> Shelf:
    """The server's shelf ``name`` (made with room for ``size`` items the first time it is asked for)."""
    with _SHELVES_LOCK:
        return _SHELVES.setdefault(name, Shelf(size))
