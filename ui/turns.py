"""Turns on the server: work that runs for one session at a time, the sessions served in the order they asked.
Plain threading, no Streamlit: ``ui.page`` names the session and draws the notice.

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

The lab uses two lines (``ui.page``): one for drawing its panel (short turns, everyone) and one for the panels
that must train what the shared cache does not hold (they move there for the rest of their run), so a learner
whose view is cached never waits behind someone else's training.
"""

from __future__ import annotations

import itertools
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

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
