"""What every page does first and last: config, the scenario sidebar, guarded calls, show-the-code, presets,
and ``end()``, which reports what the link did once every input has been drawn; and what the server shares
between sessions: bounded caches keyed cheaply (``cached``), panels that take turns (``one_at_a_time``)."""

from __future__ import annotations

import functools
import inspect
import threading
import time
import uuid
from collections.abc import Iterable, Iterator

import streamlit as st

import rlcore

from . import charts, i18n, inputs, nav, spec, turns
from . import scenario as scenario_panel
from .format import csv_text, esc
from .i18n import t

SIDEBAR_WIDTH = 430  # pixels: wide enough for the scenario table
# Streamlit hashes a dataclass argument field by field through pickle, about 0.2 ms each; its repr names every
# field exactly (floats round-trip), so it makes the same cache key for a tenth of that.
HASH_BY_REPR = {rlcore.Scenario: repr, rlcore.LabConfig: repr}


# Two lines of sessions (``ui.turns``): the lab's panel is drawn for one session at a time, and a panel that must
# train what the shared cache lacks moves to the training line, one session at a time there too.
PANELS = turns.Line("lab panels")
TRAININGS = turns.Line("training runs")
_SLOT = threading.local()  # the calling thread's notice slot (drawn by one_at_a_time)
TURN_KEY = "turns_session"  # the session's token in its lines


def _session() -> str:
    """Who is asking for a turn: this Streamlit session (a token kept in its state); outside a server (tests,
    scripts), the calling thread."""
    if not st.runtime.exists():
        return turns.thread_session()
    return st.session_state.setdefault(TURN_KEY, uuid.uuid4().hex)


def _notice(line: turns.Line, slot=None):
    """What a waiting run shows in its notice slot (the panel's by default): how many runs are ahead (None outside
    Streamlit)."""
    slot = slot if slot is not None else getattr(_SLOT, "slot", None)
    if slot is None or not st.runtime.exists():
        return None

    def tell(ahead: int | None) -> None:
        if ahead is None:
            slot.empty()
        else:
            slot.info(turns.ahead_text(ahead, line.what), icon=":material/hourglass_top:")
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
        except turns.Replaced:
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
    except turns.Replaced:
        st.stop()  # a newer run of this session took this one's place in line
    finally:
        TRAININGS.release()


class _NotCached(Exception):
    """A look into a ``cached(..., take_turns=True)`` function's cache found nothing (never stored: an exception)."""


def cached(max_entries: int, *, take_turns: bool = False):
    """``st.cache_data`` for a page's rlcore results: bounded, without a spinner, rlcore's dataclasses keyed by
    their repr (``HASH_BY_REPR``).

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
            except turns.Replaced:
                st.stop()
            return look(*args, **kwargs)
        call.clear = look.clear
        return call
    return decorate


def setup(intro: str, *, scenario: bool = True):
    """Page config, title, a short explanation, the page list and the shared scenario sidebar; returns the
    scenario (None when ``scenario`` is False).

    The title and icon are the calling page's entry in ``ui.nav`` (found from the calling file's path); a
    script with no entry there is an error: add its ``PageInfo`` to ``nav.PAGES``.
    """
    caller = inspect.currentframe().f_back.f_code.co_filename
    here = nav.path_of(caller)
    if here is None:
        raise LookupError(f"{caller} has no entry in ui.nav.PAGES: add PageInfo(path, title, icon) there")
    entry = nav.info(here)
    inputs.enter(inputs.page_id(entry.title))  # first: it reads the link, which may name the language
    raw = inputs.take(i18n.KEY)
    if i18n.start(raw):
        inputs.unfit(i18n.KEY, raw)
    st.set_page_config(page_title=t("page.tab_title", title=nav.title(entry)), page_icon=entry.icon,
                       layout="wide", initial_sidebar_state=SIDEBAR_WIDTH)
    st.title(f"{entry.icon} {nav.heading(entry)}")
    st.markdown(intro)
    nav.sidebar(here)
    return scenario_panel.sidebar() if scenario else None


def run(fn, *args, **kwargs):
    """Call into rlcore; on a ValueError show it to the learner and stop this rerun (no traceback)."""
    try:
        return fn(*args, **kwargs)
    except ValueError as err:
        st.error(t("page.unusable", error=esc(i18n.error(err))), icon="⚠️")  # it may quote visitor text
        st.stop()


NOTHING_TO_COMPARE = "judge.nothing_to_compare"  # the catalogue id of pages 16–18's notice


def answer_names(items) -> tuple[str, ...]:
    """The names of ``rlcore.judge.JudgeItems``' answers as the page shows them: the tokens, then the
    flattering answer named in the page's language (rlcore names it "<best token> + flattery")."""
    return (*items.names[:items.flattering], t("judge.flattering", answer=items.names[items.best]))


def stop_with_notice(msgid: str) -> None:
    """The inputs are valid but leave nothing to show: say so (a notice, not an error), end the page, stop.
    ``msgid`` is the notice's catalogue id, looked up in the page's language."""
    st.info(t(msgid), icon="ℹ️")
    end(nav.path_of(inspect.currentframe().f_back.f_code.co_filename))
    st.stop()


def show_code(*functions) -> None:
    """An expander with the real source of the rlcore functions behind the page."""
    with st.expander(t("page.show_code"), key="show_code", on_change="rerun") as box:
        if box.open:  # read and sent only when opened
            for fn in functions:
                st.code(inspect.getsource(fn), language="python")


def end(here: str | None = None) -> None:
    """The page's last call: previous / next links, one notice about link values that did not fit and
    parameters nothing used, and the link cleared of parameters that belong to no input of this page.
    ``here`` is the page's nav path; by default the calling file's."""
    here = here or nav.path_of(inspect.currentframe().f_back.f_code.co_filename)
    if here is not None:
        nav.footer(here)
    i18n.link()
    inputs.report_link(keep=(scenario_panel.URL_KEY, i18n.KEY))


def chart(ch, data, *, alt_text: str, name: str, width: str | None = None) -> None:
    """Show an Altair chart with its text alternative: the data as a table and a CSV download, their columns
    headed in the page's language (``i18n.column``; the chart's own field names do not change).

    Args:
        ch: a ``ui.charts`` recipe (or a plain Altair chart), with a title.
        data: the tidy DataFrame the chart plots (already aggregated; a few hundred rows at most).
        alt_text: one sentence describing the chart for screen readers.
        name: a short slug, used for the CSV file name and the widget keys.
        width: Streamlit's ``width``; "stretch" for a stack of layered panels (``charts.facets``), which
            Streamlit would otherwise draw at their content's width.
    """
    shown = spec.vega_lite(ch)
    if not shown.keys() & {"concat", "hconcat", "vconcat", "facet", "autosize"}:
        # the plot keeps its height and fits the width; title, legend and axes add to it (fitted into a fixed total,
        # a long title and legend squashed the plot and pushed the title off the top of a phone's chart)
        shown = {**shown, "autosize": charts.FIT_WIDTH}
    st.vega_lite_chart(shown, alt=alt_text, width=width)
    # the label stays the same whatever the data, so an open table stays open as the data change
    with st.expander(t("chart.data"), key=f"table_{name}", on_change="rerun") as box:
        if box.open:  # the table is built and sent only while it is open
            data = data.rename(columns=i18n.column)  # headed in the page's language; the chart keeps its fields
            st.caption(t("chart.rows", n=len(data)))
            st.dataframe(data, hide_index=True, width="stretch")
            # Built with the open table, not on click: a file made on click is referenced by no session, and
            # Streamlit deletes such files after the next two script runs of anyone on the server, so on a busy
            # server the browser's fetch could find it gone (404; tests/deploy/test_replicas.py met it).
            st.download_button(t("chart.csv"), csv_text(data).encode(),  # formulas neutralised
                               file_name=f"{name}.csv", mime="text/csv", key=f"csv_{name}", on_click="ignore")


def table(df, *, digits: int | None = None, formats: dict | None = None) -> None:
    """A small table whose rows are named by its first column: that column stays pinned while a phone (or a laptop,
    for a wide table) scrolls the others beside it, so a number is never read against a row it does not belong to.
    ``digits``: decimals of every numeric column after the first; ``formats``: {column: printf format}, for some."""
    numeric = [c for c in df.columns[1:] if df[c].dtype.kind in "iuf"]  # numbers, not booleans
    shown = ({c: f"%.{digits}f" for c in numeric} if digits is not None else {}) | (formats or {})
    st.dataframe(df, hide_index=True, width="stretch",
                 column_config={df.columns[0]: st.column_config.Column(pinned=True),
                                **{c: st.column_config.NumberColumn(format=f) for c, f in shown.items()}})


PRESETS_KEY = "views"  # the session key of a page's preset control


def _apply_view(views: dict) -> None:
    """The preset control's callback: apply the chosen view, then clear the choice, so choosing the same view
    again (after moving a slider) applies it again instead of being a no-op."""
    name = st.session_state.get(PRESETS_KEY)
    if name in views:
        inputs.set_view(views[name])
    st.session_state[PRESETS_KEY] = None


def presets(views: dict, *, label: str | None = None) -> None:
    """One compact row of choices, each one a complete view: the inputs it names take its values, every other
    input of the page goes back to its default (so a view never depends on the choice before).

    ``presets({"λ = 0": {"lam": 0.0}, "λ = 1": {"lam": 1.0}})``; names are the inputs' link names. Keep the
    names short: they are the labels of the control.
    """
    st.segmented_control(label or t("page.views"), list(views), key=PRESETS_KEY, on_change=_apply_view,
                         args=(views,), help=t("page.views_help"))


def _reveal(state_key: str) -> None:
    st.session_state[state_key] = True


ASKED_AGAIN = "asked again"  # the "_shown" state of a question whose inputs changed after the learner answered


def predict(question: str, options: list[str], answer: str, explanation: str, *, key: str) -> bool:
    """Predict, then observe: the learner commits to an answer before the page shows what gives it away.

    The one place a page's question lives: place it right after the intro, above the first chart, and draw
    what answers it only when it returns True::

        revealed = page.predict("Is A positive?", ["yes", "no"], answer, why, key="predict_a")
        if revealed:
            st.metric("A", fmt(a))

    Returns True once the learner has chosen or pressed "Just show me" (kept in ``st.session_state``
    under ``key`` and ``key + "_shown"``, so it stays revealed as the page reruns); what either reveals is
    the same. A page never reads those keys itself. ``answer`` must be computed from the current state
    (rlcore), so it stays right when the scenario changes. ``explanation`` is markdown; escape user text
    in it with ``ui.format.esc``.

    An answer is marked only against the question it answered: when the inputs change the question or its
    answer after the learner chose, the choice is cleared and the box says the question changed; the page
    stays revealed, and choosing again marks the new question.
    """
    shown, asked, now = f"{key}_shown", f"{key}_asked", (question, answer)
    if st.session_state.get(key) is not None and st.session_state.get(asked, now) != now:
        st.session_state[key] = None  # before the radio is drawn, so it shows no choice
        st.session_state[shown] = ASKED_AGAIN
    st.session_state[asked] = now
    with st.container(border=True):
        st.markdown(t("predict.ask", question=question))
        # one row: the choices, and a way out for who would rather just look (stacked on a phone)
        left, right = st.columns([4, 1], vertical_alignment="center")
        choice = left.radio(question, options, index=None, key=key, horizontal=True, label_visibility="collapsed",
                            help=t("predict.help"))
        if choice is None and not st.session_state.get(shown):
            right.button(t("predict.show"), key=f"{key}_show", on_click=_reveal, args=(shown,), width="stretch")
            return False
        if choice is None and st.session_state.get(shown) == ASKED_AGAIN:
            st.info(t("predict.asked_again", answer=answer, explanation=explanation))
        elif choice is None:
            st.info(t("predict.shown", answer=answer, explanation=explanation))
        elif choice == answer:
            st.success(t("predict.right", answer=answer, explanation=explanation))
        else:
            st.warning(t("predict.wrong", answer=answer, explanation=explanation))
    return True


def why(text: str) -> None:
    """A closed "Why this matters" expander under a page's intro: the motivation, for who wants it."""
    with st.expander(t("predict.why"), icon=":material/lightbulb:"):
        st.markdown(text)
