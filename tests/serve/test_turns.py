"""serve: the lines in which the lab's heavy work waits, fair between sessions (one waiting run per session,
first come first served, a superseded waiting run's place kept for the session's next run)."""

from __future__ import annotations

import itertools
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from serve import cache, jobs, memory, visitors
from serve import line as lines


@pytest.fixture(autouse=True)
def quick_notices(monkeypatch):
    monkeypatch.setattr(lines, "QUIET_S", 0.0)  # tell a waiting run its place at once
    monkeypatch.setattr(lines, "POLL_S", 0.02)


def wait_until(cond, timeout=5.0):
    stop = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < stop, "timed out"
        time.sleep(0.01)


def waiter(line, session, served, notice=None):
    """A thread that waits its turn as ``session`` (a tab of the room's one browser) and notes when it was served."""
    def work():
        try:
            with line.turn(notice, session=session, visitor="room"):
                served.append(session)
        except (lines.Replaced, RuntimeError) as err:
            served.append(f"{session} left: {type(err).__name__}")
    t = threading.Thread(target=work, daemon=True)
    t.start()
    return t


def test_sessions_are_served_in_the_order_they_asked_and_see_their_place():
    line, served, told = lines.Line("runs"), [], {}
    with line.turn(session="holder", visitor="room"):
        threads = []
        for s in "abc":
            threads.append(waiter(line, s, served, notice=lambda ahead, s=s: told.setdefault(s, []).append(ahead)))
            wait_until(lambda s=s: line.ahead(s) < line.ahead("nobody"))  # s is in the line
        assert [line.ahead(s) for s in "abc"] == [1, 2, 3]  # the holder, then everyone who asked before
        assert line.ahead("newcomer") == 4
        wait_until(lambda: all(told.get(s) for s in "abc"))
        assert told["a"][0] == 1 and told["c"][0] == 3  # what each learner read while waiting
    for t in threads:
        t.join(5)
    assert served == ["a", "b", "c"]
    assert all(told[s][-1] is None for s in "abc"), "the notice is cleared when the turn comes"


def test_a_session_that_had_its_turn_goes_behind_those_who_waited():
    line, served = lines.Line("runs"), []
    with line.turn(session="holder"):
        a = waiter(line, "a", served)
        wait_until(lambda: line.ahead("a") == 1)
        b = waiter(line, "b", served)
        wait_until(lambda: line.ahead("b") == 2)
    a.join(5), b.join(5)
    with line.turn(session="holder"):
        c = waiter(line, "c", served)
        wait_until(lambda: line.ahead("c") == 1)
        a2 = waiter(line, "a", served)  # a asks again: behind c, who asked first
        wait_until(lambda: line.ahead("a") == 2)
    c.join(5), a2.join(5)
    assert served == ["a", "b", "c", "a"]


def test_a_superseded_waiting_run_leaves_and_the_next_run_of_its_session_keeps_its_place():
    line, served = lines.Line("runs"), []
    newer_input = threading.Event()

    def stopped_by_a_newer_input(ahead):
        if ahead is not None and newer_input.is_set():
            raise RuntimeError("Streamlit's rerun, raised at the notice")

    with line.turn(session="holder"):
        a = waiter(line, "a", served, notice=stopped_by_a_newer_input)
        wait_until(lambda: line.ahead("a") == 1)
        b = waiter(line, "b", served)
        wait_until(lambda: line.ahead("b") == 2)
        newer_input.set()
        a.join(5)
        assert served == ["a left: RuntimeError"]
        assert line.ahead("b") == 1, "the stopped run left the line"
        a2 = waiter(line, "a", served)  # the newer run of session a
        wait_until(lambda: line.ahead("b") == 2)
        assert line.ahead("a") == 1, "the newer run took the older one's place, ahead of b"
    a2.join(5), b.join(5)
    assert served == ["a left: RuntimeError", "a", "b"]


def test_a_second_waiting_thread_of_a_session_replaces_the_first():
    line, served = lines.Line("runs"), []
    with line.turn(session="holder"):
        first = waiter(line, "a", served)
        wait_until(lambda: line.ahead("a") == 1)
        b = waiter(line, "b", served)
        wait_until(lambda: line.ahead("b") == 2)
        second = waiter(line, "a", served)
        first.join(5)
        assert served == ["a left: Replaced"]
        assert line.ahead("a") == 1 and line.ahead("b") == 2  # one waiting run for a, in the first one's place
    second.join(5), b.join(5)
    assert served == ["a left: Replaced", "a", "b"]


def test_a_cached_result_waits_for_nobody_and_a_new_one_waits_for_its_turn(monkeypatch):
    monkeypatch.setattr(visitors, "this_visitor", lambda: "someone training")  # another tab of the visitor training
    calls = []

    @cache.cached(8, take_turns=True)
    def train(x):
        calls.append(x)
        return 10 * x

    assert train(1) == 10 and calls == [1]  # a miss with the line free: trained at once
    results = {}
    with lines.TRAININGS.turn(session="someone training"):
        hit = threading.Thread(target=lambda: results.setdefault("hit", train(1)))
        miss = threading.Thread(target=lambda: results.setdefault("miss", train(2)))
        hit.start(), miss.start()
        hit.join(2)
        assert results == {"hit": 10}, "the cached result came back while someone else trained"
        time.sleep(0.1)
        assert "miss" not in results and calls == [1], "the new run waited for its turn"
    miss.join(5)
    assert results["miss"] == 20 and calls == [1, 2]


def test_a_panel_that_must_train_lets_cached_panels_be_drawn_meanwhile(monkeypatch):
    monkeypatch.setattr(visitors, "this_visitor", lambda: "someone training")  # another tab of the visitor training
    @cache.cached(8, take_turns=True)
    def train(x):
        return -x

    @lines.one_at_a_time
    def training_panel(x):
        return train(x)

    @lines.one_at_a_time
    def cached_panel():
        return train(1)

    assert cached_panel() == -1  # trained once, now in the cache
    results = {}
    with lines.TRAININGS.turn(session="someone training"):
        a = threading.Thread(target=lambda: results.setdefault("a", training_panel(7)))
        a.start()
        wait_until(lambda: lines.TRAININGS.ahead("newcomer") == 2)  # the one training, then a's panel
        assert lines.PANELS.ahead("newcomer") == 0, "a's panel gave its panel turn up while it waits to train"
        b = threading.Thread(target=lambda: results.setdefault("b", cached_panel()))
        b.start()
        b.join(2)
        assert results == {"b": -1}, "a panel whose run is cached was drawn while another waited to train"
    a.join(5)
    assert results["a"] == -7
    assert lines.PANELS.ahead("newcomer") == 0 and lines.TRAININGS.ahead("newcomer") == 0, "every turn given back"


def test_live_trainings_take_turns_of_a_bounded_length(monkeypatch):
    """lines.in_turns: two learners' long trainings, started together, advance in alternating chunks of the turn's
    length each, and the line is free once both are done (or one stops early). The turn, and what each learner has
    taken of the line, are measured by a clock that counts steps (one tick a step), so a chunk is exactly
    ``per_turn`` steps on any machine, at any load."""
    log, per_turn, n, done = [], 10, 40, set()
    ticks = itertools.count(1)  # the clock reads 0 before the first step, k after the k-th
    clock_now = [0]
    monkeypatch.setattr(lines.TRAININGS, "clock", lambda: clock_now[0])
    monkeypatch.setattr(visitors, "this_visitor", lambda: "room")  # one visitor's tabs: nobody runs beside another

    def steps(who, other):
        for i in range(n):
            # the other learner is back in the line (or finished) before this one takes a step: the order below is
            # the line's, not the threads' speed
            wait_until(lambda: other in done or lines.TRAININGS.ahead("nobody") >= 2)
            clock_now[0] = next(ticks)
            yield who, i
        done.add(who)

    def learner(who, other):
        for item in lines.in_turns(steps(who, other), where=None, seconds=per_turn, clock=lambda: clock_now[0]):
            log.append(item)

    threads = [threading.Thread(target=learner, args=pair) for pair in (("a", "b"), ("b", "a"))]
    with lines.TRAININGS.turn(session="holder", visitor="room"):  # both learners are in line before either starts
        threads[0].start()
        wait_until(lambda: lines.TRAININGS.ahead("nobody") == 2)
        threads[1].start()
        wait_until(lambda: lines.TRAININGS.ahead("nobody") == 3)
    for t in threads:
        t.join(10)
    assert sorted(log) == sorted((w, i) for w in "ab" for i in range(n)), "every step of both, once"
    chunks = [(who, len(list(g))) for who, g in itertools.groupby(who for who, _ in log)]
    assert chunks == [("a", per_turn), ("b", per_turn)] * (n // per_turn), "alternating turns of per_turn steps"
    assert lines.TRAININGS.ahead("newcomer") == 0, "the turn is given back at the end"

    stopped = lines.in_turns(steps("c", "a"), where=None, seconds=per_turn, clock=lambda: clock_now[0])
    next(stopped)
    assert lines.TRAININGS.ahead("newcomer") == 1  # holding the turn mid-chunk
    stopped.close()  # the learner stopped (a rerun, or Stop): the generator is closed
    assert lines.TRAININGS.ahead("newcomer") == 0, "a stopped training gives its turn back"


# ---------------------------------------------------------------- fair shares per visitor, not per tab
# Each line below measures what a visitor took with a clock that counts steps: a turn of cost k moves it k steps
# while the turn is held. So every order asserted is the line's, on any machine, at any load.

def stepped_line():
    now = [0]
    return lines.Line("runs", clock=lambda: now[0]), now


def tab(line, now, session, visitor, served, cost=1):
    """A tab of ``visitor`` that waits its turn as ``session``, takes ``cost`` steps in it, and notes it."""
    def work():
        with line.turn(session=session, visitor=visitor):
            now[0] += cost
            served.append(session)
    t = threading.Thread(target=work, daemon=True)
    t.start()
    wait_until(lambda: line.ahead(session) < line.ahead("nobody"))  # in the line before the next one asks
    return t


def test_a_visitor_with_many_tabs_gets_one_visitors_share():
    line, now = stepped_line()
    served = []
    with line.turn(session="v0", visitor="many tabs"):  # the visitor's first tab holds the line
        tabs = [tab(line, now, f"v{i}", "many tabs", served) for i in range(1, 6)]
        tabs.append(tab(line, now, "n1", "newcomer", served))
        assert line.ahead("n1") == 1  # in order of asking, the newcomer would be last
    for t in tabs:
        t.join(5)
    assert served == ["n1", "v1", "v2", "v3", "v4", "v5"], "the newcomer waited for none of the five tabs"


def test_two_visitors_with_many_tabs_take_turns(monkeypatch):
    monkeypatch.setattr(lines, "GRACE_S", 0.0)  # the shares alone: nobody is on first turns
    line, now = stepped_line()
    served = []
    with line.turn(session="holder"):
        tabs = [tab(line, now, f"{v}{i}", v, served) for v in "vw" for i in range(1, 4)]
    for t in tabs:
        t.join(5)
    assert served == ["v1", "w1", "v2", "w2", "v3", "w3"]


def test_a_share_is_the_time_a_visitor_held_the_line_not_its_number_of_turns(monkeypatch):
    monkeypatch.setattr(lines, "GRACE_S", 0.0)  # the shares alone: nobody is on first turns
    line, now = stepped_line()
    served = []
    with line.turn(session="holder"):
        tabs = [tab(line, now, f"v{i}", "v", served, cost=3) for i in range(1, 4)]
        tabs += [tab(line, now, f"w{i}", "w", served, cost=1) for i in range(1, 4)]
    for t in tabs:
        t.join(5)
    # v's first turn took 3 steps: w's three turns of 1 step each come before v's second one
    assert served == ["v1", "w1", "w2", "w3", "v2", "v3"]


def test_a_visitor_joining_a_busy_line_goes_next_but_cannot_bank_time():
    line, now = stepped_line()
    served, gate = [], threading.Event()

    def gate_tab():  # a tab of v that holds its turn until the newcomer is in the line
        with line.turn(session="g", visitor="v"):
            served.append("g")
            gate.wait(5)
    with line.turn(session="v0", visitor="v"):
        tabs = [tab(line, now, f"v{i}", "v", served, cost=2) for i in (1, 2)]
        holding = threading.Thread(target=gate_tab, daemon=True)
        holding.start()
        wait_until(lambda: line.ahead("g") == 3)
        tabs += [tab(line, now, f"v{i}", "v", served, cost=2) for i in (3, 4)]
    wait_until(lambda: served == ["v1", "v2", "g"])
    assert line.used("v") == 4  # v's two turns of 2 steps
    newcomer = [tab(line, now, f"n{i}", "n", served, cost=2) for i in (1, 2, 3, 4)]
    assert line.used("n") == line.used("v") - lines.GRACE_S, "level with the least served, less the grace"
    gate.set()
    for t in [*tabs, holding, *newcomer]:
        t.join(5)
    # n starts at 4 − 6 = −2: its turns of 2 take it to 0, 2, then 4 (level with v: v asked first), then turn about
    assert lines.GRACE_S == 6
    assert served[3:] == ["n1", "n2", "n3", "v3", "n4", "v4"], "next, for the grace's worth of turns, then turn about"
    assert line.used("v") == 0 and line.used("n") == 0, "an empty line forgets what everyone took"


def test_new_identities_cannot_put_a_newcomer_behind_them_and_one_address_is_one_share(monkeypatch):
    """Where no address is known, six identities made up before a newcomer came (each new to the busy line) do not go
    first: the newest newcomer's first turns come before theirs but one (the oldest's, once after each arrival), so
    the newcomer's four turns are the first, third, fourth and fifth. Where it is known, forged browsers of address A
    take turns with address B's one browser, as one share. The server's own work goes after every visitor's, whatever
    it has taken."""
    line, now = stepped_line()
    served = []
    with line.turn(session="v0", visitor="v"):
        tabs = [tab(line, now, f"f{i}", f"forged {i}", served) for i in range(1, 7)]
        tabs += [tab(line, now, f"n{i}", "newcomer", served) for i in (1, 2, 3, 4)]
    for t in tabs:
        t.join(5)
    assert served[:5] == ["n1", "f1", "n2", "n3", "n4"] and sorted(served[5:]) == [f"f{i}" for i in range(2, 7)]

    monkeypatch.setattr(lines, "GRACE_S", 0.0)  # the shares alone
    served.clear()
    with line.turn(session="holder"):
        tabs = [tab(line, now, f"a{i}", ("address A", f"forged {i}"), served) for i in range(1, 5)]
        tabs += [tab(line, now, f"b{i}", ("address B", "browser"), served) for i in (1, 2)]
        tabs += [tab(line, now, "server", visitors.SERVER, served), tab(line, now, "c1", "c", served)]
    for t in tabs:
        t.join(5)
    assert served == ["a1", "b1", "c1", "a2", "b2", "a3", "a4", "server"], "four forged browsers: one share of A"


def test_a_newcomer_cuts_a_sliced_turn_short_after_its_current_step(monkeypatch):
    """in_turns: a visitor's training holds the line for turns of ``per_turn`` steps; a visitor new to the line who
    asks during step 3 waits for that step only (the turn ends there, not at its 10th step), runs its own steps, and
    then the first visitor goes on. A visitor already served in this busy stretch does not cut anyone's turn short."""
    log, per_turn, now = [], 10, [0]
    monkeypatch.setattr(lines.TRAININGS, "clock", lambda: now[0])
    who = {}
    monkeypatch.setattr(visitors, "this_visitor", lambda: who[threading.current_thread().name])

    def training(name, visitor, n, at=None, then=None):
        def steps():
            for i in range(n):
                if i == at:  # while this step runs, the other visitor asks for the line
                    then.start()
                    wait_until(lambda: lines.TRAININGS.ahead("nobody") == 2)
                now[0] += 1
                yield name, i
        who[name] = visitor
        return threading.Thread(target=lambda: log.extend(lines.in_turns(steps(), where=None, seconds=per_turn,
                                                                           clock=lambda: now[0])), name=name)

    newcomer = training("n", "newcomer", 2)
    visitor = training("v", "visitor", 14, at=3, then=newcomer)
    visitor.start()
    visitor.join(10), newcomer.join(10)
    assert [w for w, _ in log] == ["v"] * 4 + ["n"] * 2 + ["v"] * 10, "the newcomer waited for v's step 3 only"
    assert lines.TRAININGS.ahead("nobody") == 0

    log.clear()  # the same visitor asking again, once served: turns run their full length
    with lines.TRAININGS.turn(session="holder", visitor="visitor"):
        first = training("v2", "visitor", 12, at=2, then=training("w", "visitor", 1))
        first.start()
        wait_until(lambda: lines.TRAININGS.ahead("nobody") >= 2)
    first.join(10)
    assert [w for w, _ in log][:per_turn] == ["v2"] * per_turn


def test_what_a_live_training_draws_after_its_last_step_is_drawn_in_that_turn(monkeypatch):
    """drawn_in_turn (page 19's panel): the turn of a training's last step is kept while the panel draws what it made,
    so a session waiting for the line starts only once the panel returns; a panel that stops gives it back too."""
    monkeypatch.setattr(visitors, "this_visitor", lambda: "visitor")
    order, asked = [], threading.Event()

    def other():
        asked.set()
        with lines.TRAININGS.turn(session="other", visitor="other"):
            order.append("other's turn")

    @lines.drawn_in_turn
    def panel(fail=False):
        for _ in lines.in_turns(iter(range(3)), where=None, seconds=60):
            order.append("step")
        waiting = threading.Thread(target=other, daemon=True)
        waiting.start()
        wait_until(lambda: asked.is_set() and lines.TRAININGS.ahead("nobody") == 2)  # held, and other waits
        order.append("drawn")
        if fail:
            raise RuntimeError("stopped")
        return waiting

    panel().join(5)
    assert order == ["step"] * 3 + ["drawn", "other's turn"]
    assert lines.TRAININGS.ahead("nobody") == 0
    order.clear(), asked.clear()
    with pytest.raises(RuntimeError):
        panel(fail=True)
    wait_until(lambda: order[-1:] == ["other's turn"])
    assert lines.TRAININGS.ahead("nobody") == 0, "a stopped panel gives its turn back"


def test_a_visitor_is_a_browser_by_its_cookie_within_its_address_where_one_is_known():
    """visitor_of → (share, browser). Streamlit's XSRF cookie (made by Streamlit's own code here) carries one token
    per browser, masked afresh on each page: two tabs are one browser; the balancer's signed cookie goes first; a
    session with no usable cookie is a browser of its own; browsers share their address's share where it is known."""
    from streamlit.web.server.starlette.starlette_app_utils import generate_xsrf_token_string as xsrf

    from deploy import haproxy

    assert visitors.VISITOR_COOKIE == haproxy.VISITOR_COOKIE and visitors.XSRF_COOKIE == "_streamlit_xsrf"
    token, other = bytes(range(16)), bytes(range(1, 17))
    tab1, tab2, browser2 = ({visitors.XSRF_COOKIE: xsrf(t)} for t in (token, token, other))
    assert tab1 != tab2, "Streamlit masks the token afresh"
    signed = {visitors.VISITOR_COOKIE: "89ad76d6-d1b0-49ac-b836-555830da99ec." + "A_b-9" * 8, **tab1}
    v = visitors.visitor_of
    assert v(tab1, None, "s1") == v(tab2, None, "s2") != v(browser2, None, "s1"), "tabs of one browser, not two"
    assert v(tab1, None)[0] == v(tab1, None)[1], "no known address: each browser has a share of its own"
    assert v(signed, None) != v(tab1, None) and v(signed, None) == v({**signed, visitors.XSRF_COOKIE: "x"}, None)
    assert v(tab1, "10.0.0.7")[0] == v(browser2, "10.0.0.7")[0] == v({}, "10.0.0.7", "s")[0], "one address's share"
    assert v(tab1, "10.0.0.7")[1] != v(browser2, "10.0.0.7")[1] and v(tab1, "10.0.0.7")[0] != v(tab1, "10.0.0.8")[0]
    junk = ("", "x" * 36, "2|zz|00|1", "2|00000000|" + "0" * 31 + "|1", "<script>", "a" * 5000, None, object())
    for bad in junk:  # neither cookie as Streamlit or the balancer writes it: a browser of its own, per session
        cookies = {visitors.VISITOR_COOKIE: bad, visitors.XSRF_COOKIE: bad}
        assert v(cookies, None, "s1") == v({}, None, "s1") != v(cookies, None, "s2")
    stand_in = object()  # what AppTest's st.context hands over: neither a cookie nor an address
    assert v({visitors.VISITOR_COOKIE: stand_in}, stand_in, "s") == v({}, None, "s")


def test_the_servers_training_line_serves_visitors_not_tabs(monkeypatch):
    """What pages use (``cached(..., take_turns=True)``) asks for its turn as the session's visitor: two tabs of one
    visitor and one of another, all waiting, are served one visitor, the other, then the first one's second tab."""
    now, who, calls = [0], {}, []
    monkeypatch.setattr(lines, "GRACE_S", 0.0)  # the shares alone: nobody is on first turns
    monkeypatch.setattr(lines.TRAININGS, "clock", lambda: now[0])
    monkeypatch.setattr(lines.TRAININGS, "beside", False)  # the line's order alone (the newcomer's lane: below)
    monkeypatch.setattr(visitors, "this_visitor", lambda: who[threading.current_thread().name])

    @cache.cached(8, take_turns=True)
    def train_for_visitors(x):
        now[0] += 1
        calls.append(x)
        return x

    threads = []
    with lines.TRAININGS.turn(session="holder"):
        for waiting, (name, visitor, x) in enumerate((("tab a", "v", 1), ("tab b", "v", 2), ("tab c", "w", 3)), 1):
            who[name] = visitor
            threads.append(threading.Thread(target=train_for_visitors, args=(x,), name=name, daemon=True))
            threads[-1].start()
            wait_until(lambda waiting=waiting: lines.TRAININGS.ahead("nobody") == waiting + 1)
    for t in threads:
        t.join(5)
    assert calls == [1, 3, 2]


@pytest.mark.parametrize("held", ["low", "high"])
def test_a_newcomer_runs_beside_the_run_in_progress_one_newcomer_at_a_time(held, monkeypatch):
    """``beside`` (the training line: a lab run cannot be cut): a visitor new to a busy line starts its uncut run
    beside the run in progress once that run's visitor has held the line past its grace (a heavy user's: beside a
    crowd of made-up identities, each with one run, a newcomer waits); a second newcomer waits until the first is
    done; the visitor's own tabs never go beside, nor does a newcomer's sliced run (``in_turns``: its slices take
    turns). With the server's memory above ``BESIDE_BELOW_MB``, nothing goes beside: the newcomers go first, one run
    at a time."""
    now = [0.0]
    if held == "high":
        monkeypatch.setattr(memory, "BESIDE_BELOW_MB", memory.resident_mb() / 2)
        line, served = lines.Line("runs", beside=True, clock=lambda: now[0]), []

        def uncut():
            with line.turn(session="n", visitor="n", uncut=True):
                served.append("n")
        with line.turn(session="v0", visitor="v"):
            now[0] += lines.GRACE_S + 1  # a heavy user's run: only the memory keeps n from going beside
            n = threading.Thread(target=uncut, daemon=True)
            n.start()
            wait_until(lambda: line.ahead("n") == 1)
            time.sleep(0.2)
            assert served == [] and memory.resident_mb() > 0, "no run beside another"
        n.join(5)
        assert served == ["n"]
        return
    line = lines.Line("runs", beside=True, clock=lambda: now[0])
    served, done = [], {s: threading.Event() for s in ("n", "m")}

    def newcomer(session):  # a run that keeps its turn until it is told it is done
        def work():
            with line.turn(session=session, visitor=session, uncut=True):
                served.append(session)
                done[session].wait(5)
        t = threading.Thread(target=work, daemon=True)
        t.start()
        return t

    with line.turn(session="v0", visitor="v"):  # visitor v's long run, in progress
        v1 = tab(line, now, "v1", "v", served)  # v's next tab waits for it
        sliced = tab(line, now, "s", "s", served)  # a newcomer's sliced run: it waits its turn
        n = newcomer("n")
        wait_until(lambda: line.ahead("n") == 1)
        time.sleep(3 * lines.POLL_S)
        assert served == [], "v has held the line less than its grace: n waits for v's run"
        now[0] += lines.GRACE_S + 1  # v's run goes on past the grace: a heavy user's
        wait_until(lambda: served == ["n"])  # started beside v's run
        m = newcomer("m")
        wait_until(lambda: line.ahead("m") < line.ahead("nobody"))
        assert line.ahead("m") == 2 and served == ["n"], "one newcomer beside at a time: m is next, after n"
        done["n"].set()
        wait_until(lambda: served == ["n", "m"])  # n is done: m goes beside v's run
        assert "v1" not in served and "s" not in served, "v's own tab and the sliced run wait for v's run"
        done["m"].set()
        m.join(5), n.join(5)
    v1.join(5), sliced.join(5)
    assert served == ["n", "m", "s", "v1"]


def test_a_newcomers_light_run_goes_beside_a_made_up_identitys_run_and_a_heavy_one_waits():
    """A crowd of made-up identities is all newcomers with one run each: no heavy user, so a newcomer's heavy uncut run
    waits for the run in progress. A run its caller says is light (``light=True``: page 9's panel at most
    ``rlcore.lab_is_light``) goes beside it at once, ahead of the crowd's heavy runs; a light run of a visitor already
    in line does not."""
    line, served = lines.Line("runs", beside=True, clock=lambda: 0.0), []

    def run(session, light, visitor=None):
        def work():
            with line.turn(session=session, visitor=visitor or session, uncut=True, light=light):
                served.append(session)
        t = threading.Thread(target=work, daemon=True)
        t.start()
        return t

    with line.turn(session="f0", visitor="f0", uncut=True):  # the first made-up identity's run, found the line empty
        crowd = [run(f"f{i}", light=False) for i in (1, 2)]
        wait_until(lambda: line.ahead("nobody") == 3)
        heavy = run("h", light=False)
        wait_until(lambda: line.ahead("nobody") == 4)
        own = run("f0b", light=True, visitor="f0")  # f0's second tab: light, but f0 is in line already
        wait_until(lambda: line.ahead("nobody") == 5)
        time.sleep(3 * lines.POLL_S)
        assert served == [], "no heavy user: nobody's heavy run goes beside f0's"
        light = run("n", light=True)
        wait_until(lambda: served == ["n"])  # beside f0's run, ahead of the crowd
        light.join(5)
        time.sleep(3 * lines.POLL_S)
        assert served == ["n"], "the light run is done; the heavy ones still wait for f0's"
    for t in (*crowd, heavy, own):
        t.join(5)
    assert served[0] == "n" and sorted(served[1:]) == ["f0b", "f1", "f2", "h"]


def test_one_thread_per_server_gives_freed_memory_back():
    """keep_memory_trimmed starts one malloc-trim thread however often pages ask for it (here, on glibc)."""
    assert memory.keep_memory_trimmed() and memory.keep_memory_trimmed()
    assert [t.name for t in threading.enumerate()].count("malloc-trim") == 1


_BLOCK_AFTER_A_FREED_LARGER_ONE = """
import ctypes, sys
if sys.argv[1] == "tuned":
    from ui import page  # tunes malloc at import (serve.memory, which ui.page imports)
libc = ctypes.CDLL("libc.so.6")
libc.malloc.argtypes, libc.malloc.restype = [ctypes.c_size_t], ctypes.c_void_p
libc.free.argtypes, libc.free.restype = [ctypes.c_void_p], None
libc.free(libc.malloc(16 << 20))
block = libc.malloc(8 << 20)
print(ctypes.c_size_t.from_address(block - ctypes.sizeof(ctypes.c_size_t)).value & 2 == 2)
"""


@pytest.mark.parametrize("malloc, mmapped", [("tuned", True), ("untuned", False)])
def test_a_large_block_gets_pages_of_its_own_even_after_a_larger_one_was_freed(malloc, mmapped):
    """The server's malloc tuning (``serve.memory._tune_malloc``, at its import, through ``ui.page``): a block of 8 MB
    (above ``OWN_PAGES_FROM``) is mmapped, so its pages go back to the system when it is freed, even after a freed 16 MB
    block; untuned, that free raises glibc's own threshold to 16 MB and the block comes from the arena. Read from the
    chunk's header: glibc marks an mmapped chunk with bit 2 of its size field, the word before the block. Each case
    runs in a fresh process: in a long test process an arena can hold a free hole of 8 MB, which glibc serves before
    it maps (it did, once, in CI)."""
    if memory._glibc() is None:
        pytest.skip("not glibc")
    assert memory.OWN_PAGES_FROM < 8 << 20
    run = subprocess.run([sys.executable, "-c", _BLOCK_AFTER_A_FREED_LARGER_ONE, malloc], capture_output=True,
                         text=True, timeout=60, cwd=Path(__file__).resolve().parents[2], check=True)
    assert run.stdout.split() == [str(mmapped)]


def test_work_ahead_of_time_runs_once_per_key_in_the_servers_own_turns(monkeypatch):
    """in_background: once per key and process, a thread computes the steps only while it holds the training line
    (a learner holding the line holds it up), hands every item to ``done``; the suites' switch starts nothing. A
    learner who asks for the same work meanwhile (``wait_for``) waits for it, and the rest of it takes that learner's
    turns; once it is done, or for work nobody does, ``wait_for`` says False at once."""
    monkeypatch.setattr(jobs, "_BACKGROUND", set())
    monkeypatch.setenv(jobs.BACKGROUND_ENV, "0")
    assert jobs.in_background("k", lambda: iter(()), lambda items: None) is None
    monkeypatch.setenv(jobs.BACKGROUND_ENV, "1")
    monkeypatch.setattr(visitors, "this_visitor", lambda: ("w", "w"))
    held, got, whose, asked = [], [], [], threading.Event()

    def steps():
        for i in range(5):
            held.append(lines.TRAININGS.holds())
            whose.append(lines.TRAININGS._held.ticket.share)
            if i == 1:
                asked.wait(5)
            yield i

    with lines.TRAININGS.turn(session="learner", visitor="learner"):
        thread = jobs.in_background("k", steps, got.append, seconds=0.0)
        assert thread is not None and jobs.in_background("k", steps, got.append) is None   # once per key
        time.sleep(0.2)
        assert held == [], "it waits while a learner holds the line"
    wait_until(lambda: len(held) == 2)
    waited = []
    waiter_thread = threading.Thread(target=lambda: waited.append(jobs.wait_for("k")))
    waiter_thread.start()
    wait_until(lambda: jobs._JOBS["k"].for_whom == [("w", "w")])
    asked.set()
    waiter_thread.join(5), thread.join(5)
    assert waited == [True] and got == [[0, 1, 2, 3, 4]] and held == [True] * 5
    assert whose[:2] == [visitors.SERVER] * 2 and whose[-1] == "w", "the rest in the waiting learner's turns"
    assert jobs.wait_for("k") is False and jobs.wait_for("nothing") is False
    assert lines.TRAININGS.ahead("nobody") == 0
