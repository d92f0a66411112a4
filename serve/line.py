"""The fair line: work that runs for one session at a time on the server, the least-served visitor's first.
``Line`` is plain threading; below it, what pages use through ``ui.page`` (``page.one_at_a_time``, ``page.live``,
``page.panel(whole_page=True)``, and ``page.study(..., heavy=True)`` through ``serve.cache``): the two lines and a
waiting run's notice. Who a session's visitor is: ``serve.visitors``.

Streamlit runs every session's script in a thread of one process. Heavy work side by side (the training lab's
panels) hands the interpreter lock back and forth and costs several times the CPU of the same work done in
turn, so such work waits in a ``Line``. A line is fair between visitors:

- **visitors, not tabs.** A visitor is one browser (``serve.visitors.visitor_of``: the balancer's signed cookie,
  else the token of Streamlit's XSRF cookie, which every tab of a browser sends; with neither, the session alone);
  its tabs are sessions. Where the server knows the address a session comes from (a plain server's peer, the balancer's
  X-Forwarded-For), the browsers of one address draw on one share: the line is fair between addresses first, then
  between the browsers of each; where it does not (this machine, Community Cloud's proxy: ``st.context.ip_address``
  is None), each browser is a share. The line serves the share that has held it least, counted in seconds of turns
  since the line was last empty, so fifty tabs, or fifty made-up cookies from one address, get one share. Among a
  share's own sessions, and between shares served alike, the first to ask goes first. A share that joins a busy
  line starts level with the share being served, less six turns (``GRACE_S``): those are its first turns, and they
  come before anyone else's, so a newcomer's short run (five steps of page 19: 3 s on a loaded machine) ends before
  the other visitor's next step; it cannot bank time from before it came. Newcomers' first turns go to the newest
  newcomer, and once after each arrival to the oldest, so a client that made up a new identity for every tab (where
  no address tells them apart) before a newcomer came cannot put the newcomer behind them: its first turns come
  before the forger's next ones but one; a forger who keeps making new ones buys the oldest newcomer a turn with
  each. The server's own work (``serve.jobs.in_background``) goes after every visitor's. A newcomer waits
  for the step in progress only: a turn in slices ends early for it (``Line.wanted``).
  Heavy work comes in bounded slices where it can (``in_turns``: page 19's training, a second at a time); a lab run
  is one call that cannot be cut, so on the training line a newcomer's such run goes beside a heavy user's run in
  progress (``Line.beside``, ``turn(..., uncut=True)``: one such run at a time, so at most two at once), never beside
  another newcomer's nor a run whose visitor has held the line less than its grace, unless the caller knows the run
  to be light (``light=True``: page 9's panel within ``rlcore.lab_is_light``), which goes beside any run: a crowd of
  made-up identities, each a newcomer with one heavy run, then holds a newcomer's short view up for none of its runs
  (a forger who asks for light runs gets light runs). A sliced run never
  goes beside: slices in turn give each visitor its half. Nor does any run while the server holds much memory
  (``serve.memory.room_beside``): then one run at a time keeps the peak down.
- **one waiting run per session.** A session runs one script at a time; when a newer input supersedes a run
  that is waiting, the waiting run leaves the line at its next Streamlit call (the position notice below) and
  the newer run takes its place in the line, not the back of it. A second waiting thread of the same session
  replaces the first one.
- **sessions in turn.** A session that has had its turn and asks again goes behind everyone who asked
  meanwhile, so a learner who moves a slider every second cannot keep the others waiting.
- **a learner sees where they stand.** While waiting, the session's notice slot says how many runs are ahead
  of theirs, and is cleared when the turn comes. The words are the caller's (``say``: ``ui.page`` passes
  ``ui.i18n.t``), looked up by the line's catalogue id ``turns.<what>``; this package knows no catalogue.

The lab uses two lines (below): one for drawing its panel (short turns, everyone) and one for the panels
that must train what the shared cache does not hold (they move there for the rest of their run), so a learner
whose view is cached never waits behind someone else's training.
"""

from __future__ import annotations

import functools
import itertools
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import streamlit as st

from . import memory, visitors
from .visitors import SERVER, thread_session, who

POLL_S = 0.25         # how often a waiting run looks at the line (and lets a newer input stop it)
QUIET_S = 0.5         # a wait shorter than this shows no notice (no flash for a short turn)
KEEP_PLACE_S = 30.0   # a superseded waiting run's place is kept this long for the session's next run
GRACE_S = 6.0         # a visitor joining a busy line starts this far below the visitor being served (six turns)


class Replaced(Exception):
    """A newer run of the same session took this waiting run's place (the caller ends this run quietly)."""


@dataclass(eq=False)
class _Ticket:
    session: str
    seq: int
    share: str    # whose share it draws on: an address where the server knows it, else the browser
    visitor: str  # the browser (within its share)
    replaced: bool = False
    since: float = 0.0  # when its turn began
    fresh: bool = False  # an uncut run of a share new to the busy line (it may run beside, with ``beside``)
    light: bool = False  # its caller says the run is short (``Line.beside``)


@dataclass
class Line:
    """A line of sessions for one piece of work, the least-served share first, then its least-served browser;
    ``what`` names it in the notice; ``clock`` measures what a share has taken (a test passes a step counter).
    ``beside``: a share new to a busy line, asking for a run that cannot be cut (``uncut``), runs it beside the run in
    progress instead of after it (one such run at a time: at most two at once): beside a heavy user's run, or beside
    any run when the caller says it is light, so a newcomer never waits for a long run; not while the server holds
    more than ``memory.BESIDE_BELOW_MB`` (then one run at a time keeps the peak down).
    Newcomers' first turns (a share new to the busy line, for its grace) come before anyone else's: the newest
    newcomer's, and once after each arrival (after the arrival's first turn) the oldest newcomer's, so a crowd of new
    identities made before a newcomer came cannot put it behind them, and a flood of them after it gives the oldest
    newcomer a turn per arrival; the server's own work (``SERVER``) comes after every visitor's."""

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
    _owed: bool = False                            # a share joined since the oldest newcomer's last first turn
    _kept: dict = field(default_factory=dict)      # session → (seq, until): the place of a superseded wait
    _seqs: itertools.count = field(default_factory=itertools.count)
    _came: itertools.count = field(default_factory=itertools.count)
    _held: threading.local = field(default_factory=threading.local)
    _sorted: list | None = None  # the order, until the line changes (every waiting run looks at it 4 times a second)

    def _firsts(self, share: str) -> bool:
        """Whether ``share`` is on its first turns: new to the busy line, and it has not yet taken its grace."""
        return share in self._first and self._used.get(share, 0.0) < self._first[share][1]

    def _order(self) -> list:
        """The waiting tickets in the order they will be served: newcomers' first turns (the newest newcomer's, the
        oldest's once after each arrival), then the least-served share, its least-served browser, the first asked;
        the server last."""
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
            return self._used.get(who(visitor)[0], 0.0)

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

    def _join(self, session: str, visitor, uncut: bool, light: bool = False) -> _Ticket:
        now = time.monotonic()
        share, browser = who(visitor)
        here = self._in_line()
        if share != SERVER and share not in here and here:  # joins a busy line: level with the run in progress, less
            floor = self._level() - GRACE_S                   # the grace; a share unserved since it was last empty
            if share not in self._used:                       # is on its first turns until it is level again,
                self._first[share] = (next(self._came), floor + GRACE_S)  # the first of them next
                self._newest_next = self._owed = True
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
                         fresh=uncut and bool(here) and share not in here and share != SERVER, light=light)
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
        """Whether ``ticket`` may start now: the line is free and it is first in order, or it is the first newcomer's
        uncut run in order that may go beside the run in progress: a light one beside any run, any other beside a
        heavy user's run only (``_heavy_user``)."""
        if not self._serving:
            return order[0] is ticket
        if not (self.beside and ticket.fresh and len(self._serving) == 1):
            return False
        heavy = self._heavy_user(self._serving[0])
        return next((t for t in order if t.fresh and (t.light or heavy)), None) is ticket and memory.room_beside()

    def _heavy_user(self, serving: _Ticket) -> bool:
        """Whether the run in progress is a heavy user's, one a newcomer may run beside: not a newcomer's, and its
        share has held the line for more than ``GRACE_S`` counting this run. A crowd of made-up identities is all
        newcomers with one run each, so none is a heavy user: else the first of them, which found the line empty,
        would let the next go beside it, and two heavy runs side by side cost several times the CPU of the two in
        turn. Beside such a crowd a newcomer waits for the one run in progress."""
        held = self._used.get(serving.share, 0.0) + self.clock() - serving.since
        return not serving.fresh and held > GRACE_S

    def _wait(self, ticket: _Ticket, notice) -> None:
        """Block until ``ticket`` is first and the work is free; ``notice(ahead)`` is called while waiting."""
        start, told = time.monotonic(), None
        while True:
            with self._cond:
                if ticket.replaced:
                    raise Replaced()
                order = self._order()
                if self._may_start(ticket, order):
                    if self._firsts(ticket.share):  # a newcomer's first turn: the newest's next, but the oldest's
                        newest = max(self._first[t.share][0] for t in order if self._firsts(t.share))  # once after
                        if self._first[ticket.share][0] != newest:                               # each arrival
                            self._newest_next = True
                        else:
                            self._newest_next, self._owed = not self._owed, False
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
            self._owed = False
            return
        floor = min((self._used.get(s, 0.0) for s in here if s != SERVER), default=0.0) - GRACE_S
        self._used = {s: u for s, u in self._used.items() if s in here or u > floor}
        self._inner = {k: u for k, u in self._inner.items() if k[0] in self._used}
        self._first = {s: f for s, f in self._first.items() if s in self._used}

    def _take(self, session: str, notice, visitor=None, uncut: bool = False, light: bool = False) -> None:
        """Join the line and wait for the turn; the calling thread holds it afterwards."""
        with self._cond:
            ticket = self._join(session, visitor or session, uncut, light)
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
    def turn(self, notice=None, *, session: str | None = None, visitor=None, uncut: bool = False,
             light: bool = False):
        """Wait for this session's turn, hold it for the block, then let the next session in.

        ``notice(ahead)`` is told the number of runs ahead while waiting (after ``QUIET_S``) and ``notice(None)``
        once the turn came; it may raise (Streamlit stops a superseded run there): the run then leaves the line
        and its place is kept for the session's next run. ``session``: who asks (a Streamlit session's token;
        the calling thread by default); ``visitor``: whose session it is (the session itself by default); ``uncut``:
        the block is one long run that cannot be cut into turns (see ``beside``); ``light``: the caller knows it to be
        short (a newcomer's such run may go beside any run). Raises ``Replaced`` when another run of the same session
        took its place."""
        if self.holds():  # already this thread's turn: nothing to wait for
            yield
            return
        self._take(session or thread_session(), notice, visitor, uncut, light)
        try:
            yield
        finally:
            if self.holds():
                self._give_back()

    def take(self, session: str, notice=None, visitor=None, uncut: bool = False, light: bool = False) -> None:
        """Wait for ``session``'s turn and keep it (until ``release``); nothing to wait for when already held."""
        if not self.holds():
            self._take(session, notice, visitor, uncut, light)

    def release(self) -> None:
        """Give the calling thread's turn back, if it holds one."""
        if self.holds():
            self._give_back()


# ---------------------------------------------------------------- the server's two lines, as pages use them
# Two lines of sessions, each serving the least-served visitor first: the lab's panel is drawn for one session at a
# time, and a panel that must train what the shared cache lacks moves to the training line, one session at a time
# there too (and a newcomer's lab run beside it), where page 19's trainings take their slices.
PANELS = Line("lab panels")
TRAININGS = Line("training runs", beside=True)  # a lab run cannot be cut: a newcomer's goes beside it
_SLOT = threading.local()  # the calling thread's panel (one_at_a_time's): its notice slot and words, session, visitor


def _notice(line: Line, slot=None, say=None):
    """What a waiting run shows in its notice slot (the panel's by default): how many runs are ahead, in ``say``'s
    words (the panel's by default): ``say(f"turns.{line.what}", n=ahead)``. None outside Streamlit or without
    words."""
    slot = slot if slot is not None else getattr(_SLOT, "slot", None)
    say = say if say is not None else getattr(_SLOT, "say", None)
    if slot is None or say is None or not st.runtime.exists():
        return None

    def tell(ahead: int | None) -> None:
        if ahead is None:
            slot.empty()
        else:
            slot.info(say(f"turns.{line.what}", n=ahead), icon=":material/hourglass_top:")
    return tell


def one_at_a_time(panel, *, say=None):
    """``panel`` is drawn for one session at a time on the server, the sessions in turn (``serve.line``); a
    waiting learner reads, at the top of the panel, how many runs are ahead of theirs, in ``say``'s words
    (``say(msgid, **values)``: ``ui.page.one_at_a_time`` passes ``ui.i18n.t``; without it, no notice).

    Streamlit runs each session's script in a thread of one process. A panel of many small numpy and pandas
    calls lets go of the interpreter lock inside some of them (fancy indexing, argmax, Arrow conversion) and
    takes it back; twenty learners' panels side by side hand it to one another at every such call, which costs
    2.5 to 3.5 times the CPU of the same work done one panel after another. Taking turns, a workshop of twenty
    learners on the training lab went from p95 3.6 s to 0.57 s (BENCHMARKS.md). A panel that must train what
    the shared cache lacks (``serve.cache.cached(..., take_turns=True)``) moves to the training line: it gives its
    panel turn up, waits for a training turn and draws the rest of the panel in it (``in_a_training_turn``), so at
    most two panels run at once and a panel whose runs are cached never waits behind a training. A superseded run
    stops at its next Streamlit call, waiting or not.
    """
    @functools.wraps(panel)
    def in_turn(*args, **kwargs):
        _SLOT.slot, _SLOT.say = (st.empty() if st.runtime.exists() else None), say
        _SLOT.session, _SLOT.visitor = visitors.this_session(), visitors.this_visitor()
        try:
            with PANELS.turn(_notice(PANELS), session=_SLOT.session, visitor=_SLOT.visitor):
                return panel(*args, **kwargs)
        except Replaced:
            st.stop()  # a newer run of this session took this one's place in line
        finally:
            TRAININGS.release()  # a panel that trained drew the rest in its training turn
            _SLOT.slot = _SLOT.say = _SLOT.session = _SLOT.visitor = None
    return in_turn


def in_a_training_turn(fn, *args, light: bool = False, **kwargs):
    """``fn(*args, **kwargs)``, one run that cannot be cut (``uncut``), in a turn of the training line: inside a
    ``one_at_a_time`` panel, the panel gives its panel turn up and keeps the training turn for the rest of its run
    (``one_at_a_time`` gives it back); elsewhere, a training turn for this call alone (``serve.cache.cached``'s
    results the cache lacks). ``light``: the caller knows the run (the panel's, for the rest of it) to be short, so
    a newcomer's may go beside whatever runs (``Line.beside``)."""
    panel_session = getattr(_SLOT, "session", None)
    try:
        if panel_session is None:  # not inside a one_at_a_time panel: a training turn for this call
            with TRAININGS.turn(_notice(TRAININGS), session=visitors.this_session(), visitor=visitors.this_visitor(),
                                uncut=True, light=light):
                return fn(*args, **kwargs)
        PANELS.release()  # the panel moves to the training line; one_at_a_time releases it at the end
        TRAININGS.take(visitors.this_session(), _notice(TRAININGS), _SLOT.visitor, uncut=True, light=light)
    except Replaced:
        st.stop()
    return fn(*args, **kwargs)


TURN_S = 1.0  # the longest a live training holds the training line before the next session's turn


def in_turns(steps: Iterable, *, where, say=None, seconds: float = TURN_S, clock=time.monotonic) -> Iterator:
    """The items of ``steps`` (a long computation, step by step), computed in turns with the other sessions'
    trainings: this session holds the training line (``TRAININGS``) for at most ``seconds`` of steps at a time,
    then goes to the back of it, so twenty learners training at once all advance, and nobody's run holds up the
    room; a visitor new to the line cuts the turn in progress short, after its current step (``Line.wanted``). While
    waiting, ``where`` (an ``st.empty()``) says how many runs are ahead, in ``say``'s words (``ui.page.live`` passes
    ``ui.i18n.t``). What the caller does with each item (a redraw) happens in the turn. A newer input stops the run
    at the notice, as anywhere else, or where it asks for its session before each turn (``visitors.this_session``).
    ``clock``: what measures a turn (a test passes one that counts steps)."""
    visitor, it = visitors.this_visitor(), iter(steps)
    tell = _notice(TRAININGS, where, say)
    finished = False
    try:
        while True:
            TRAININGS.take(visitors.this_session(), tell, visitor)  # asked afresh: where a superseded run stops
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

