"""Turns on the server: work that runs for one session at a time, the least-served visitor's first.
``Line`` is plain threading; below it, what pages use through ``ui.page`` (``page.study(..., heavy=True)``,
``page.panel(turns=True)``, ``page.live``): the two lines, the session's token and visitor, and its notice.

Streamlit runs every session's script in a thread of one process. Heavy work side by side (the training lab's
panels) hands the interpreter lock back and forth and costs several times the CPU of the same work done in
turn, so such work waits in a ``Line``. A line is fair between visitors:

- **visitors, not tabs.** A visitor is one browser (``visitor``: the balancer's cookie, else the address its session
  comes from); its tabs are sessions. The line serves the visitor that has held it least, counted in seconds of
  turns since the line was last empty, so a visitor with fifty tabs gets one visitor's share, not fifty. Among a
  visitor's own sessions, and between visitors served alike, the first to ask goes first. A visitor who joins a busy
  line starts level with the visitor being served, less six turns (``GRACE_S``): it goes next and keeps the line
  for about six seconds of turns before the two alternate, so a newcomer's short run (five steps of page 19: 3 s on
  a loaded machine) ends before the other visitor's next step, near its time alone; it cannot bank time from before
  it came. It waits for the step in progress only: a turn in slices ends early for a newcomer (``Line.wanted``).
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
    visitor: str
    replaced: bool = False
    since: float = 0.0  # when its turn began
    fresh: bool = False  # an uncut run of a visitor new to the busy line (it may run beside, with ``beside``)
    new: bool = False    # its visitor came to the busy line unserved since it was last empty (``wanted``)


@dataclass
class Line:
    """A line of sessions for one piece of work, the least-served visitor first; ``what`` names it in the notice;
    ``clock`` measures what a visitor has taken (a test passes a step counter). ``beside``: a visitor new to a busy
    line, asking for a run that cannot be cut (``uncut``), runs it beside the run in progress instead of after it
    (one such run at a time: at most two at once), so a newcomer never waits for a long run."""

    what: str
    clock: Callable[[], float] = time.monotonic
    beside: bool = False
    _cond: threading.Condition = field(default_factory=threading.Condition)
    _waiting: list = field(default_factory=list)   # tickets
    _serving: list = field(default_factory=list)   # the run in progress, and a newcomer's beside it
    _used: dict = field(default_factory=dict)      # visitor → seconds of turns since the line was last empty
    _kept: dict = field(default_factory=dict)      # session → (seq, until): the place of a superseded wait
    _seqs: itertools.count = field(default_factory=itertools.count)
    _held: threading.local = field(default_factory=threading.local)
    _sorted: list | None = None  # the order, until the line changes (every waiting run looks at it 4 times a second)

    def _order(self) -> list:
        """The waiting tickets in the order they will be served: least-served visitor, then first asked."""
        if self._sorted is None:
            self._sorted = sorted(self._waiting, key=lambda t: (self._used.get(t.visitor, 0.0), t.seq))
        return self._sorted

    def _in_line(self) -> set:
        return {t.visitor for t in [*self._waiting, *self._serving]}

    def ahead(self, session: str | None = None) -> int:
        """How many runs are ahead of ``session``'s waiting run (everyone in line, when it has none)."""
        with self._cond:
            order = self._order()
            mine = next((i for i, t in enumerate(order) if t.session == session), len(order))
            return mine + len(self._serving)

    def used(self, visitor: str) -> float:
        """What ``visitor`` has held the line for since the line was last empty (by ``clock``)."""
        with self._cond:
            return self._used.get(visitor, 0.0)

    def holds(self) -> bool:
        """Whether the calling thread has its turn now."""
        return getattr(self._held, "ticket", None) is not None

    def wanted(self) -> bool:
        """Whether a visitor new to the line (unserved since it was last empty) waits for it while another visitor
        holds it: a turn that comes in slices (``in_turns``) then ends after its current step rather than its full
        length, so a newcomer's short run waits for one step of the run in progress, not a whole turn."""
        ticket = getattr(self._held, "ticket", None)
        with self._cond:
            return any(t.new and t.visitor != getattr(ticket, "visitor", None) for t in self._waiting)

    def _join(self, session: str, visitor: str, uncut: bool) -> _Ticket:
        now = time.monotonic()
        here = self._in_line()
        new = bool(here) and visitor not in here and visitor not in self._used
        if visitor not in here and here:  # joins a busy line: level with the run in progress, less a turn
            floor = self._level() - GRACE_S
            self._used[visitor] = max(self._used[visitor], floor) if visitor in self._used else floor
        self._kept = {s: kept for s, kept in self._kept.items() if kept[1] > now}
        seq = self._kept.pop(session, (None,))[0]
        for old in [t for t in self._waiting if t.session == session]:  # a second thread of the same session
            old.replaced = True
            self._waiting.remove(old)
            seq = old.seq if seq is None else min(seq, old.seq)
        ticket = _Ticket(session, next(self._seqs) if seq is None else seq, visitor,
                         fresh=uncut and bool(here) and visitor not in here, new=new)
        self._waiting.append(ticket)
        self._sorted = None
        return ticket

    def _level(self) -> float:
        """Where the line stands: what the visitor of the run in progress has taken (not a newcomer's beside it,
        so newcomers that come one after another start level with each other, first come first served); between
        turns, the least any visitor in line has taken."""
        main = [t.visitor for t in self._serving if not t.fresh] or self._in_line()
        return min(self._used.get(v, 0.0) for v in main)

    def _may_start(self, ticket: _Ticket, order: list) -> bool:
        """Whether ``ticket`` may start now: the line is free and it is first in order, or it is the first
        newcomer's uncut run in order and goes beside a run in progress that is not one."""
        if not self._serving:
            return order[0] is ticket
        return (self.beside and ticket.fresh and len(self._serving) == 1 and not self._serving[0].fresh
                and next(t for t in order if t.fresh) is ticket)

    def _wait(self, ticket: _Ticket, notice) -> None:
        """Block until ``ticket`` is first and the work is free; ``notice(ahead)`` is called while waiting."""
        start, told = time.monotonic(), None
        while True:
            with self._cond:
                if ticket.replaced:
                    raise Replaced()
                order = self._order()
                if self._may_start(ticket, order):
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
                self._used[ticket.visitor] = self._used.get(ticket.visitor, 0.0) + self.clock() - ticket.since
            self._forget()
            self._sorted = None
            self._cond.notify_all()

    def _forget(self) -> None:
        """Keep only what still decides an order: nothing once the line is empty; else what visitors out of the
        line have taken beyond the least-served one in it (below that, they would start at the floor anyway)."""
        here = self._in_line()
        if not here:
            self._used.clear()
            return
        floor = min(self._used.get(v, 0.0) for v in here) - GRACE_S
        self._used = {v: u for v, u in self._used.items() if v in here or u > floor}

    def _take(self, session: str, notice, visitor: str | None, uncut: bool = False) -> None:
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
    def turn(self, notice=None, *, session: str | None = None, visitor: str | None = None, uncut: bool = False):
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

    def take(self, session: str, notice=None, visitor: str | None = None, uncut: bool = False) -> None:
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
VISITOR_COOKIE = "rl_visitor"  # a browser's id, set by the balancer (deploy/haproxy.py) on its first request
_VISITOR_ID = re.compile(r"[0-9a-fA-F-]{36}")  # what the balancer sets (a UUID); anything else is no cookie


def _session() -> str:
    """Who is asking for a turn: this Streamlit session (a token kept in its state); outside a server (tests,
    scripts), the calling thread."""
    if not st.runtime.exists():
        return thread_session()
    return st.session_state.setdefault(TURN_KEY, uuid.uuid4().hex)


def visitor_of(cookies, address: str | None) -> str:
    """The visitor a session belongs to, from its cookies and the address it comes from: one browser. Behind the
    balancer, its ``rl_visitor`` cookie (every tab of a browser sends the same); else its address (behind the
    balancer, the visitor's own: the balancer passes it in X-Forwarded-For); None, as Streamlit says for this
    machine, is one visitor: whoever sits at it."""
    cookie = cookies.get(VISITOR_COOKIE)
    if isinstance(cookie, str) and _VISITOR_ID.fullmatch(cookie):
        return f"browser {cookie.lower()}"
    return f"address {address if isinstance(address, str) else 'this machine'}"


def _visitor() -> str:
    """This session's visitor (``visitor_of``, from Streamlit's ``st.context``); outside a server, the thread."""
    if not st.runtime.exists():
        return thread_session()
    return visitor_of(st.context.cookies, st.context.ip_address)


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


def in_background(key, steps: Callable[[], Iterable], done: Callable[[list], None], *,
                  seconds: float = TURN_S) -> threading.Thread | None:
    """Once per server process and ``key``: a daemon thread runs ``steps()`` (a long computation, step by step) a
    turn of the training line at a time, as the server's own visitor, and hands everything it yielded to ``done``.
    The server is served like any visitor, least-served first, so a learner's training never waits long behind it.
    Returns the thread it started, or None (started before, or the environment's ``RL_EXPLORER_BACKGROUND`` is
    "0")."""
    if os.environ.get(BACKGROUND_ENV, "1") == "0":
        return None
    with _BACKGROUND_LOCK:
        if key in _BACKGROUND:
            return None
        _BACKGROUND.add(key)

    def work():
        items, it, session = [], iter(steps()), f"{SERVER} {key}"   # a session per job: two jobs never replace
        try:                                                         # each other; one visitor, the server, for all
            while True:
                TRAININGS.take(session, None, SERVER)
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

    thread = threading.Thread(target=work, name=f"background {key}", daemon=True)
    thread.start()
    return thread


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
