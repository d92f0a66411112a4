"""Turns on the server: work that runs for one session at a time, the least-served visitor's first.
``Line`` is plain threading; below it, what pages use through ``ui.page`` (``page.study(..., heavy=True)``,
``page.panel(turns=True)``, ``page.live``): the two lines, the session's token and visitor, and its notice.

Streamlit runs every session's script in a thread of one process. Heavy work side by side (the training lab's
panels) hands the interpreter lock back and forth and costs several times the CPU of the same work done in
turn, so such work waits in a ``Line``. A line is fair between visitors:

- **visitors, not tabs.** A visitor is one browser (``visitor_of``: the balancer's signed cookie, else the token of
  Streamlit's XSRF cookie, which every tab of a browser sends; with neither, the session alone); its tabs are
  sessions. Where the server knows the address a session comes from (a plain server's peer, the balancer's
  X-Forwarded-For), the browsers of one address draw on one share: the line is fair between addresses first, then
  between the browsers of each; where it does not (this machine, Community Cloud's proxy: ``st.context.ip_address``
  is None), each browser is a share. The line serves the share that has held it least, counted in seconds of turns
  since the line was last empty, so fifty tabs, or fifty made-up cookies from one address, get one share. Among a
  share's own sessions, and between shares served alike, the first to ask goes first. A share that joins a busy
  line starts level with the share being served, less six turns (``GRACE_S``): those are its first turns, and they
  come before anyone else's, so a newcomer's short run (five steps of page 19: 3 s on a loaded machine) ends before
  the other visitor's next step; it cannot bank time from before it came. Newcomers' first turns go to the newest
  and the oldest newcomer in turn, so a client that makes up a new identity for every tab (where no address tells
  them apart) cannot put a newcomer behind all of them: the newcomer's first turns come before the forger's next
  ones but one. The server's own work (``in_background``) goes after every visitor's. A newcomer waits for the step
  in progress only: a turn in slices ends early for it (``Line.wanted``).
  Heavy work comes in bounded slices where it can (``in_turns``: page 19's training, a second at a time); a lab run
  is one call that cannot be cut, so on the training line a newcomer's such run goes beside the run in progress
  (``Line.beside``, ``turn(..., uncut=True)``: one such run at a time, so at most two at once). A sliced run never
  goes beside: slices in turn give each visitor its half.
- **one waiting run per session.** A session runs one script at a time; when a newer input supersedes a run
  that is waiting, the waiting run leaves the line at its next Streamlit call (the position notice below) and
  the newer run takes its place in the line, not the back of it. A second waiting thread of the same session
  replaces the first one.
- **sessions in turn.** A session that has had its turn and asks again goes behind everyone who asked
  meanwhile, so a learner who moves a slider every second cannot keep the others waiting.
- **a learner sees where they stand.** While waiting, the session's notice slot says how many runs are ahead
  of theirs, and is cleared when the turn comes.

The lab uses two lines (below): one for drawing its panel (short turns, everyone) and one for the panels
that must train what the shared cache does not hold (they move there for the rest of their run), so a learner
whose view is cached never waits behind someone else's training.
"""

from __future__ import annotations

import ctypes
import functools
import itertools
import os
import pathlib
import re
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import streamlit as st

import rlcore

POLL_S = 0.25         # how often a waiting run looks at the line (and lets a newer input stop it)
QUIET_S = 0.5         # a wait shorter than this shows no notice (no flash for a short turn)
KEEP_PLACE_S = 30.0   # a superseded waiting run's place is kept this long for the session's next run
GRACE_S = 6.0         # a visitor joining a busy line starts this far below the visitor being served (six turns)
BESIDE_BELOW_MB = 560.0  # above this much resident memory, a run goes beside no other (two heavy runs' arrays at once
                         # took a burst past Community Cloud's 690 MB: their memory counts in the line, not only time)


def resident_mb() -> float:
    """The server's resident memory now, in MB (Linux's /proc; 0 where there is none)."""
    try:
        statm = pathlib.Path("/proc/self/statm").read_text()  # a fixed path: the app opens no file a visitor names
        return int(statm.split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


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


def _who(visitor) -> tuple[str, str]:
    """A visitor as the line counts it: (its share, its browser). ``visitor_of`` gives the pair (the share is the
    address where one is known, else the browser itself); a plain string is one browser with a share of its own."""
    return tuple(visitor) if isinstance(visitor, tuple) else (visitor, visitor)


@dataclass(eq=False)
class _Ticket:
    session: str
    seq: int
    share: str    # whose share it draws on: an address where the server knows it, else the browser
    visitor: str  # the browser (within its share)
    replaced: bool = False
    since: float = 0.0  # when its turn began
    fresh: bool = False  # an uncut run of a share new to the busy line (it may run beside, with ``beside``)


@dataclass
class Line:
    """A line of sessions for one piece of work, the least-served share first, then its least-served browser;
    ``what`` names it in the notice; ``clock`` measures what a share has taken (a test passes a step counter).
    ``beside``: a share new to a busy line, asking for a run that cannot be cut (``uncut``), runs it beside the run in
    progress instead of after it (one such run at a time: at most two at once), so a newcomer never waits for a long
    run; not while the server holds more than ``BESIDE_BELOW_MB`` (then one run at a time keeps the peak down).
    Newcomers' first turns (a share new to the busy line, for its grace) come before anyone else's: the newest
    newcomer's next, then the oldest and the newest in turn, so a crowd of new identities cannot put a newcomer behind
    all of them (nor, under a flood of them, keep it waiting longer than twice the crowd that came before it); the
    server's own work (``SERVER``) comes after every visitor's."""

    what: str
    clock: Callable[[], float] = time.monotonic
    beside: bool = False
    _cond: threading.Condition = field(default_factory=threading.Condition)
    _waiting: list = field(default_factory=list)   # tickets
    _serving: list = field(default_factory=list)   # the run in progress, and a newcomer's beside it
    _used: dict = field(default_factory=dict)      # share → seconds of turns since the line was last empty
    _inner: dict = field(default_factory=dict)     # (share, browser) → the same, of one browser within its share
    _first: dict = field(default_factory=dict)     # share → (when it came, the use that ends its first turns)
    _newest_next: bool = True                      # which newcomer's first turn comes next: the newest, or the oldest
    _kept: dict = field(default_factory=dict)      # session → (seq, until): the place of a superseded wait
    _seqs: itertools.count = field(default_factory=itertools.count)
    _came: itertools.count = field(default_factory=itertools.count)
    _held: threading.local = field(default_factory=threading.local)
    _sorted: list | None = None  # the order, until the line changes (every waiting run looks at it 4 times a second)

    def _firsts(self, share: str) -> bool:
        """Whether ``share`` is on its first turns: new to the busy line, and it has not yet taken its grace."""
        return share in self._first and self._used.get(share, 0.0) < self._first[share][1]

    def _order(self) -> list:
        """The waiting tickets in the order they will be served: newcomers' first turns (the newest and the oldest
        newcomer in turn), then the least-served share, its least-served browser, the first asked; the server last."""
        if self._sorted is None:
            def rank(t):
                return self._inner.get((t.share, t.visitor), 0.0), t.seq
            firsts = sorted({t.share for t in self._waiting if self._firsts(t.share)}, key=lambda s: self._first[s][0])
            picked, newest = [], self._newest_next
            while firsts:
                picked.append(firsts.pop(-1 if newest else 0))
                newest = not newest
            first = [t for s in picked for t in sorted((t for t in self._waiting if t.share == s), key=rank)]
            rest = sorted((t for t in self._waiting if not self._firsts(t.share)),
                          key=lambda t: (t.share == SERVER, self._used.get(t.share, 0.0), *rank(t)))
            self._sorted = first + rest
        return self._sorted

    def _in_line(self) -> set:
        return {t.share for t in [*self._waiting, *self._serving]}

    def ahead(self, session: str | None = None) -> int:
        """How many runs are ahead of ``session``'s waiting run (everyone in line, when it has none)."""
        with self._cond:
            order = self._order()
            mine = next((i for i, t in enumerate(order) if t.session == session), len(order))
            return mine + len(self._serving)

    def used(self, visitor) -> float:
        """What ``visitor``'s share has held the line for since the line was last empty (by ``clock``)."""
        with self._cond:
            return self._used.get(_who(visitor)[0], 0.0)

    def holds(self) -> bool:
        """Whether the calling thread has its turn now."""
        return getattr(self._held, "ticket", None) is not None

    def wanted(self) -> bool:
        """Whether a newcomer (a share on its first turns) waits for the line while a share past its own holds it (or
        anyone waits while the server holds it): a turn that comes in slices (``in_turns``) then ends after its
        current step rather than its full length, so a newcomer's short run waits for one step, not a whole turn."""
        ticket = getattr(self._held, "ticket", None)
        with self._cond:
            if ticket is not None and ticket.share == SERVER:
                return any(t.share != SERVER for t in self._waiting)
            if ticket is not None and self._firsts(ticket.share):
                return False
            return any(self._firsts(t.share) and t.share != getattr(ticket, "share", None) for t in self._waiting)

    def _join(self, session: str, visitor, uncut: bool) -> _Ticket:
        now = time.monotonic()
        share, browser = _who(visitor)
        here = self._in_line()
        if share != SERVER and share not in here and here:  # joins a busy line: level with the run in progress, less
            floor = self._level() - GRACE_S                   # the grace; a share unserved since it was last empty
            if share not in self._used:                       # is on its first turns until it is level again,
                self._first[share] = (next(self._came), floor + GRACE_S)  # the first of them next
                self._newest_next = True
            self._used[share] = max(self._used.get(share, floor), floor)
        mine = [v for (s, v) in self._inner if s == share]
        if (share, browser) not in self._inner and mine:  # a browser new to its share: level with its least-served
            self._inner[share, browser] = min(self._inner[share, v] for v in mine) - GRACE_S
        self._kept = {s: kept for s, kept in self._kept.items() if kept[1] > now}
        seq = self._kept.pop(session, (None,))[0]
        for old in [t for t in self._waiting if t.session == session]:  # a second thread of the same session
            old.replaced = True
            self._waiting.remove(old)
            seq = old.seq if seq is None else min(seq, old.seq)
        ticket = _Ticket(session, next(self._seqs) if seq is None else seq, share, browser,
                         fresh=uncut and bool(here) and share not in here and share != SERVER)
        self._waiting.append(ticket)
        self._sorted = None
        return ticket

    def _level(self) -> float:
        """Where the line stands: what the share of the run in progress has taken (not a newcomer's beside it, so
        newcomers that come one after another start level with each other); between turns, the least any share in
        line has taken (the server's work counts for nothing here)."""
        main = [t.share for t in self._serving if not t.fresh] or self._in_line()
        return min((self._used.get(s, 0.0) for s in main if s != SERVER), default=0.0)

    def _may_start(self, ticket: _Ticket, order: list) -> bool:
        """Whether ``ticket`` may start now: the line is free and it is first in order, or it is the first
        newcomer's uncut run in order and goes beside a run in progress that is not one."""
        if not self._serving:
            return order[0] is ticket
        return (self.beside and ticket.fresh and len(self._serving) == 1 and not self._serving[0].fresh
                and next(t for t in order if t.fresh) is ticket and resident_mb() < BESIDE_BELOW_MB)

    def _wait(self, ticket: _Ticket, notice) -> None:
        """Block until ``ticket`` is first and the work is free; ``notice(ahead)`` is called while waiting."""
        start, told = time.monotonic(), None
        while True:
            with self._cond:
                if ticket.replaced:
                    raise Replaced()
                order = self._order()
                if self._may_start(ticket, order):
                    if self._firsts(ticket.share):  # a newcomer's first turn: the other end of them next
                        newest = max(self._first[t.share][0] for t in order if self._firsts(t.share))
                        self._newest_next = self._first[ticket.share][0] != newest
                    self._waiting.remove(ticket)
                    self._sorted = None
                    self._serving.append(ticket)
                    ticket.since = self.clock()
                    break
                ahead = order.index(ticket) + len(self._serving)
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
            if ticket in self._serving:
                self._serving.remove(ticket)
                took = self.clock() - ticket.since
                self._used[ticket.share] = self._used.get(ticket.share, 0.0) + took
                key = (ticket.share, ticket.visitor)
                self._inner[key] = self._inner.get(key, 0.0) + took
            self._forget()
            self._sorted = None
            self._cond.notify_all()

    def _forget(self) -> None:
        """Keep only what still decides an order: nothing once the line is empty; else what shares out of the line
        have taken beyond the least-served one in it (below that, they would start at the floor anyway)."""
        here = self._in_line()
        if not here:
            self._used.clear(), self._inner.clear(), self._first.clear()
            return
        floor = min((self._used.get(s, 0.0) for s in here if s != SERVER), default=0.0) - GRACE_S
        self._used = {s: u for s, u in self._used.items() if s in here or u > floor}
        self._inner = {k: u for k, u in self._inner.items() if k[0] in self._used}
        self._first = {s: f for s, f in self._first.items() if s in self._used}

    def _take(self, session: str, notice, visitor=None, uncut: bool = False) -> None:
        """Join the line and wait for the turn; the calling thread holds it afterwards."""
        with self._cond:
            ticket = self._join(session, visitor or session, uncut)
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
    def turn(self, notice=None, *, session: str | None = None, visitor=None, uncut: bool = False):
        """Wait for this session's turn, hold it for the block, then let the next session in.

        ``notice(ahead)`` is told the number of runs ahead while waiting (after ``QUIET_S``) and ``notice(None)``
        once the turn came; it may raise (Streamlit stops a superseded run there): the run then leaves the line
        and its place is kept for the session's next run. ``session``: who asks (a Streamlit session's token;
        the calling thread by default); ``visitor``: whose session it is (the session itself by default); ``uncut``:
        the block is one long run that cannot be cut into turns (see ``beside``). Raises ``Replaced`` when another
        run of the same session took its place."""
        if self.holds():  # already this thread's turn: nothing to wait for
            yield
            return
        self._take(session or thread_session(), notice, visitor, uncut)
        try:
            yield
        finally:
            if self.holds():
                self._give_back()

    def take(self, session: str, notice=None, visitor=None, uncut: bool = False) -> None:
        """Wait for ``session``'s turn and keep it (until ``release``); nothing to wait for when already held."""
        if not self.holds():
            self._take(session, notice, visitor, uncut)

    def release(self) -> None:
        """Give the calling thread's turn back, if it holds one."""
        if self.holds():
            self._give_back()


# Streamlit hashes a dataclass argument field by field through pickle, about 0.2 ms each; its repr names every
# field exactly (floats round-trip), so it makes the same cache key for a tenth of that.
HASH_BY_REPR = {rlcore.Scenario: repr, rlcore.LabConfig: repr}


# ---------------------------------------------------------------- the server's two lines, as pages use them
# Two lines of sessions, each serving the least-served visitor first: the lab's panel is drawn for one session at a
# time, and a panel that must train what the shared cache lacks moves to the training line, one session at a time
# there too (and a newcomer's lab run beside it), where page 19's trainings take their slices.
PANELS = Line("lab panels")
TRAININGS = Line("training runs", beside=True)  # a lab run cannot be cut: a newcomer's goes beside it
_SLOT = threading.local()  # the calling thread's notice slot (drawn by one_at_a_time)
TURN_KEY = "turns_session"  # the session's token in its lines
VISITOR_COOKIE = "rl_visitor"  # a browser's id, set (and signed) by the balancer (deploy/haproxy.py)
_VISITOR_ID = re.compile(r"([0-9a-fA-F-]{36})\.[0-9a-zA-Z_-]{20,64}")  # what the balancer sets: a UUID, its signature
XSRF_COOKIE = "_streamlit_xsrf"  # Streamlit's XSRF cookie: one random token per browser, every tab sends it
_XSRF = re.compile(r"2\|([0-9a-f]{8})\|([0-9a-f]{32})\|[0-9]{1,12}")  # Streamlit's version 2: 2|mask|masked token|time


def _session() -> str:
    """Who is asking for a turn: this Streamlit session (a token kept in its state); outside a server (tests,
    scripts), the calling thread."""
    if not st.runtime.exists():
        return thread_session()
    return st.session_state.setdefault(TURN_KEY, uuid.uuid4().hex)


def xsrf_token(cookie) -> str | None:
    """The browser's own token in Streamlit's XSRF cookie, or None. Streamlit sends the token masked afresh on every
    page it serves (``2|mask|token XOR mask|time``, the mask 4 random bytes repeated), so two tabs of a browser
    carry different cookie values for one token: unmasked, they are the same."""
    found = _XSRF.fullmatch(cookie) if isinstance(cookie, str) else None
    if found is None:
        return None
    mask, masked = bytes.fromhex(found[1]), bytes.fromhex(found[2])
    return bytes(b ^ mask[i % 4] for i, b in enumerate(masked)).hex()


def visitor_of(cookies, address, session: str = "") -> tuple[str, str]:
    """The visitor a session belongs to, as the lines count it: (its share, its browser).

    The browser: behind the balancer, its ``rl_visitor`` cookie (signed by the balancer, which passes no other);
    else the token of Streamlit's XSRF cookie (every tab of a browser sends one token, two browsers never share one);
    a session with neither is a browser of its own (``session``). The share: where the server knows the address
    (``st.context.ip_address``: a plain server's peer, the balancer's X-Forwarded-For), that address, so the
    browsers of one address, forged or not, share one; where it does not (None: this machine, Community Cloud's
    proxy), the browser itself."""
    cookie = cookies.get(VISITOR_COOKIE)
    signed = _VISITOR_ID.fullmatch(cookie) if isinstance(cookie, str) else None
    token = xsrf_token(cookies.get(XSRF_COOKIE))
    browser = (f"browser {signed[1].lower()}" if signed else f"browser xsrf {token}" if token
               else f"session {session}")
    if isinstance(address, str) and address:
        share = f"address {address}"
        return share, f"{share} {browser}"
    return browser, browser


def _visitor() -> tuple[str, str]:
    """This session's visitor (``visitor_of``, from Streamlit's ``st.context``); outside a server, the thread."""
    if not st.runtime.exists():
        return _who(thread_session())
    return visitor_of(st.context.cookies, st.context.ip_address, _session())


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
        _SLOT.session, _SLOT.visitor = _session(), _visitor()
        try:
            with PANELS.turn(_notice(PANELS), session=_SLOT.session, visitor=_SLOT.visitor):
                return panel(*args, **kwargs)
        except Replaced:
            st.stop()  # a newer run of this session took this one's place in line
        finally:
            TRAININGS.release()  # a panel that trained drew the rest in its training turn
            _SLOT.slot = _SLOT.session = _SLOT.visitor = None
    return in_turn


TURN_S = 1.0  # the longest a live training holds the training line before the next session's turn


def in_turns(steps: Iterable, *, where, seconds: float = TURN_S, clock=time.monotonic) -> Iterator:
    """The items of ``steps`` (a long computation, step by step), computed in turns with the other sessions'
    trainings: this session holds the training line (``TRAININGS``) for at most ``seconds`` of steps at a time,
    then goes to the back of it, so twenty learners training at once all advance, and nobody's run holds up the
    room; a visitor new to the line cuts the turn in progress short, after its current step (``Line.wanted``). While
    waiting, ``where`` (an ``st.empty()``) says how many runs are ahead. What the caller does with
    each item (a redraw) happens in the turn. A newer input stops the run at the notice, as anywhere else.
    ``clock``: what measures a turn (a test passes one that counts steps)."""
    session, visitor, tell, it = _session(), _visitor(), _notice(TRAININGS, where), iter(steps)
    finished = False
    try:
        while True:
            TRAININGS.take(session, tell, visitor)
            end, stepped = clock() + seconds, False
            while clock() < end and not (stepped and TRAININGS.wanted()):  # a newcomer waits for one step at most
                try:
                    item = next(it)
                except StopIteration:
                    finished = True
                    return
                stepped = True
                yield item
            TRAININGS.release()  # the next learner in line goes first; this one rejoins at the back
    except Replaced:
        st.stop()  # a newer run of this session took this one's place in line
    finally:
        if not (finished and getattr(_SLOT, "keep", False)):  # ``drawn_in_turn`` gives the last turn back itself
            TRAININGS.release()


def drawn_in_turn(panel):
    """``panel``, which trains live (``in_turns``), draws what its training made in the training's last turn: that
    turn is kept after the last step until the panel returns (or stops), as the lab's panel draws in its training
    turn. So a finished run's charts and what it is compared with (``cached(..., take_turns=True)`` computes in a turn
    its caller holds: page 19's best-of-G) are drawn without another visitor's training beside them, which halved
    their pace (the room's threads share one interpreter lock); the time counts as the visitor's share."""
    @functools.wraps(panel)
    def in_turn(*args, **kwargs):
        _SLOT.keep = True
        try:
            return panel(*args, **kwargs)
        finally:
            _SLOT.keep = False
            TRAININGS.release()
    return in_turn


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
                    with TRAININGS.turn(_notice(TRAININGS), session=_session(), visitor=_visitor(), uncut=True):
                        return look(*args, **kwargs)
                PANELS.release()  # the panel moves to the training line; one_at_a_time releases it at the end
                TRAININGS.take(panel_session, _notice(TRAININGS), _SLOT.visitor, uncut=True)
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


SERVER = "server"     # the session and visitor of the server's own work (``in_background``)
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
                  seconds: float = TURN_S) -> threading.Thread | None:
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
                TRAININGS.take(session, None, job.visitor())
                end = time.monotonic() + seconds
                items.append(next(it))          # at least one step a turn
                while time.monotonic() < end and not TRAININGS.wanted():
                    items.append(next(it))
                TRAININGS.release()
        except StopIteration:
            done(items)
        except BaseException:
            with _BACKGROUND_LOCK:  # it failed: the next page that asks starts it again
                _BACKGROUND.discard(key)
            raise
        finally:
            TRAININGS.release()
            with _BACKGROUND_LOCK:
                _JOBS.pop(key, None)
            job.done.set()

    thread = threading.Thread(target=work, name=f"background {key}", daemon=True)
    thread.start()
    return thread


def wait_for(key, where=None) -> bool:
    """If the server's work ahead of time ``key`` (``in_background``) is in progress, wait until it is done, saying
    so in ``where`` (an ``st.empty()``), and say True: what it made is then where its ``done`` put it. Meanwhile it
    takes this session's visitor's turns, so it is served as this visitor's run would be (a run asked for twice is
    trained once). A newer input stops the wait at the notice, as anywhere else. False when no such work runs."""
    with _BACKGROUND_LOCK:
        job = _JOBS.get(key)
        if job is None:
            return False
        me = _visitor()
        job.for_whom.append(me)
    try:
        while not job.done.wait(POLL_S):
            if where is not None and st.runtime.exists():
                from .i18n import t
                where.info(t("turns.ahead of time"), icon=":material/hourglass_top:")  # a newer input stops here
    finally:
        with _BACKGROUND_LOCK:
            job.for_whom.remove(me)
        if where is not None and st.runtime.exists():
            where.empty()
    return True


TRIM_EVERY_S = 30.0  # how often the server gives freed memory back
_TRIMMER: list[threading.Thread] = []
_TRIMMER_LOCK = threading.Lock()

# glibc's mallopt parameters (malloc.h) and what the server asks of them
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8
ARENAS = 2                # malloc arenas the server's threads share (as MALLOC_ARENA_MAX=2 would)
OWN_PAGES_FROM = 1 << 20  # a block of 1 MB or more gets pages of its own, given back to the system when freed
KEEP_TOP = 32 << 20       # free memory an arena may keep at its top between two trims (the trimmer takes the rest)


def _glibc():
    """glibc (``libc.so.6``) with ``mallopt`` and ``malloc_trim``, or None (not Linux, or another C library)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt.argtypes, libc.mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
        libc.malloc_trim.argtypes, libc.malloc_trim.restype = [ctypes.c_size_t], ctypes.c_int
    except (OSError, AttributeError):
        return None
    return libc


def _tune_malloc():
    """Ask glibc, once, when this module is imported (by the first page's first lines, before Streamlit's later
    session threads allocate), for what the environment would set where it cannot be set (Community Cloud, a plain
    ``streamlit run``); returns glibc's ``malloc_trim``, or None without glibc.

    - **Two arenas.** glibc gives each thread that allocates an arena of its own (up to eight per core), and an arena
      keeps what is freed in it. A limit asked for late counts from the arenas already made, so the threads Streamlit
      starts afterwards share those (about five) instead of making more.
    - **Large blocks on pages of their own** (``OWN_PAGES_FROM``). glibc mmaps a block of 128 kB or more, and gives
      its pages back when it is freed, but every such free raises that threshold to the block's size, up to 32 MB:
      once a training has freed its arrays, the next arrays of a few MB are cut from the arenas among long-lived
      small objects, and the holes they leave cannot be given back. A fixed threshold stays where it is set. At
      1 MB a room of 30 sessions left +43 MB behind instead of +106 MB (128 kB: about 0; 2 MB: +71 MB), while a
      training step of page 19 took about the same time (128 kB: 1.4–2× the time, every array's fresh pages faulted
      in; bench/memory_room.py, BENCHMARKS.md).
    - **Free memory at an arena's top is kept up to** ``KEEP_TOP``: a fixed mmap threshold also fixes the trim
      threshold at 128 kB, and giving back and taking again every few arrays cost a training step 1.7× its time;
      the trimmer (``keep_memory_trimmed``) gives back what stays."""
    libc = _glibc()
    if libc is None:
        return None
    libc.mallopt(M_ARENA_MAX, ARENAS)
    libc.mallopt(M_MMAP_THRESHOLD, OWN_PAGES_FROM)
    libc.mallopt(M_TRIM_THRESHOLD, KEEP_TOP)
    return libc.malloc_trim


_TRIM = _tune_malloc()


def keep_memory_trimmed(every: float = TRIM_EVERY_S) -> bool:
    """Start, once per server process, a thread that gives the memory the server's threads freed back to the system
    every ``every`` seconds; whether one runs. glibc keeps a malloc arena per thread that allocated and holds on to
    what is freed in it, and Streamlit runs each session's script in a thread of its own: a room of 30 sessions
    left 320 MB behind after it had gone (bench/memory_room.py). ``malloc_trim(0)`` returns the free pages of every
    arena. Without glibc nothing starts."""
    with _TRIMMER_LOCK:
        if not _TRIMMER:
            if _TRIM is None:
                return False

            def loop() -> None:
                while True:
                    time.sleep(every)
                    _TRIM(0)
            _TRIMMER.append(threading.Thread(target=loop, name="malloc-trim", daemon=True))
            _TRIMMER[0].start()
        return True
