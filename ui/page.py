"""How to write a page: this module is the page-writing API, and this docstring its guide.

A page is a short script that reads top to bottom, draws, and computes nothing itself::

    import rlcore
    from ui import charts, inputs, page
    from ui.format import fmt
    from ui.i18n import t

    scenario = page.setup("p2")                       # language, title, the [p2] table's intro and why, sidebar
    page.presets({t("p2.preset_far"): {"gamma": 0.5}})  # a row of whole views, by the inputs' link names

    @page.panel                                       # the inputs, the question and what they drive: rerun alone
    def reward_panel():
        gamma = inputs.slider(t("p2.gamma"), 0.5, 1.0, 1.0, 0.01, key="gamma")   # bound to the link
        result = page.study(rlcore.reward_study, scenario, gamma)  # cached for the server, errors shown
        if page.predict(t("p2.question"), options, answer, t("p2.explanation"), key="predict_gamma"):
            page.chart(charts.bars(...), frame, alt_text=t("p2.alt"), name="returns")
            st.markdown(t("p2.text", first=fmt(result.first)))

    reward_panel()
    page.end(code=(rlcore.reward_study,))             # the code behind it, previous / next, the link's notices

The rules the suites hold every page to (tests/app, tests/pages, tests/e2e):

- **Text** lives in the catalogue, in both languages: ``t("pN.id", value=...)`` in ``locales/en.toml`` and
  ``locales/zh.toml`` under the page's own table, with its ``intro`` and ``why``; a chart's new field name goes in
  ``[columns]`` of both; its table holds the page's ``nav_title`` (and, in en.toml, ``nav_icon``; in zh.toml,
  ``keep_english``, the English words its Chinese shows on purpose), from which ``ui.nav`` reads the map: the page
  needs no entry anywhere else.
- **Numbers** come from one ``page.study`` (or ``page.run``) call into rlcore and are formatted with
  ``ui.format``; nothing is typed into a page, nothing is fixed to the article's three tokens.
- **Inputs** are declared through ``ui.inputs`` (each mirrored in the link), in a panel; an input drawn only after
  the question is answered is named with ``inputs.later``; every concept page has at least one slider (or
  select_slider) that drives its main chart (the sharing tests move it, the browser tests drag it).
- **The question** (``predict``) comes before what gives it away. It quotes no live value of an input it does not
  also mark (when its text or answer changes, the question starts over and says so).
- **Charts** are ``ui.charts`` recipes shown with ``page.chart`` (with a text alternative and the data as a table);
  a chart whose lesson is a curve's shape under the main input is drawn with ``page.scrub`` over a study's rows for
  every step of that input (``ui.scrub``): it marks the committed value and says which value it shows.
- **Bad input** raises ValueError in rlcore; ``study`` and ``run`` show it and stop that rerun; ``attempt`` shows it
  and lets the rest of the page draw (a part that may fail alone, such as a problem the learner typed).

And what the server shares between sessions: bounded caches keyed cheaply (``study``), panels that take turns
(``one_at_a_time``), long trainings in turns (``live``), a bounded shelf of results no cache can make (``shelf``:
page 19's finished runs), work done once ahead of time in the server's own turns (``ahead_of_time``: page 19's
default run, ready for a newcomer); all are the ``serve`` package's, which pages reach only through here. A page
that trains live with a Stop button draws its panel with ``panel(whole_page=True)`` (a click inside a fragment
cannot interrupt the fragment)."""

from __future__ import annotations

import functools
import inspect

import streamlit as st

from serve import cache, jobs, line, memory, shelves

from . import charts, i18n, inputs, nav, spec
from . import scenario as scenario_panel
from . import scrub as scrub_mod
from .format import csv_text, esc, tidy
from .i18n import t

SIDEBAR_WIDTH = 430  # pixels: wide enough for the scenario table
# Headings break into lines of even length (a Chinese title left one character alone on a phone's last line); a link
# to a place on the page (the Glossary's index) moves to the next line whole, never broken inside a term; a chart
# keeps room above it for its toolbar, which Streamlit draws 44 px above the chart while the pointer is on it, over
# what is there (a slider's end, a table's last row, a line of text); on a laptop the page starts 40 px higher
# (Streamlit's 6rem above the title), so that room costs no chart its place on the first screen; a metric's label
# wraps in a narrow column (page 19's six to a row on a laptop) instead of being cut off
PAGE_CSS = """<style>
h1, h2, h3 { text-wrap: balance; }
[data-testid="stMarkdownContainer"] a[href^="#"] { display: inline-block; }
[data-testid="stElementContainer"]:has([data-testid="stVegaLiteChart"]) { margin-top: 2.5rem; }
@media (min-width: 641px) { [data-testid="stMainBlockContainer"] { padding-top: 3.5rem; } }
[data-testid="stMetricLabel"] [data-testid="stMarkdownContainer"] p { white-space: normal; }
@media (max-width: 640px) {
  [data-testid="stElementContainer"]:has([data-testid="stVegaLiteChart"]) { margin-top: 2.75rem; }
}
</style>"""
# Chinese reads across, not down: a vertical axis's title stands level above the axis (rotated, it lay sideways)
LEVEL_Y_TITLES = {"axisY": {"titleAngle": 0, "titleAlign": "left", "titleAnchor": "end", "titleBaseline": "bottom",
                            "titleY": -6, "titleX": 0}}
# the server's lines, caches, shelves and jobs (serve), their notices in the page's language (say=t)
one_at_a_time = functools.partial(line.one_at_a_time, say=t)  # the lab's panel: one session's at a time
live = functools.partial(line.in_turns, say=t)  # a long training, step by step, in turns with other sessions' (page 19)
_STUDIES: dict = {}                 # (study, entries, heavy) → its bounded cache
shelf = shelves.shelf               # results shared by the server's sessions that no cache can make (page 19's runs)
ahead_of_time = jobs.in_background  # a long computation the server does once, before anyone asks (page 19's default)
wait_ahead = functools.partial(jobs.wait_for, say=t)  # the server does that computation now: wait for it, not again


def setup(table: str, *, scenario: bool = True, why: dict | None = None):
    """Everything a page does first: settle the language (the link's ``lang``, the session's, the browser's), then
    the page config, title, the intro and a closed "Why this matters" read from the catalogue's ``[table]``
    (``intro`` and ``why``, filled with ``why``'s values if given; a table without ``why`` has no expander), the
    page list and the shared scenario sidebar. Returns the scenario (None when ``scenario`` is False).

    The title and icon are the calling page's entry in ``ui.nav``'s map (found from the calling file's path),
    which ``ui.nav`` read from this same call and the table's ``nav_title`` and ``nav_icon``.
    """
    caller = inspect.currentframe().f_back.f_code.co_filename
    here = nav.path_of(caller)
    if here is None:
        raise LookupError(f"{caller} is not in ui.nav's map: a page lives in pages/ (or is dashboard.py) and its "
                          f"catalogue table [{table}] holds nav_title and nav_icon")
    entry = nav.info(here)
    if entry.table != table:
        raise LookupError(f"{here} names [{table}] here but [{entry.table}] first: one table per page")
    inputs.enter(inputs.page_id(entry.title))  # first: it reads the link, which may name the language
    raw = inputs.take(i18n.KEY)
    if i18n.start(raw):
        inputs.unfit(i18n.KEY, raw)
    st.set_page_config(page_title=t("page.tab_title", title=nav.title(entry)), page_icon=entry.icon,
                       layout="wide", initial_sidebar_state=SIDEBAR_WIDTH)
    st.html(PAGE_CSS)
    st.title(f"{entry.icon} {nav.heading(entry)}")
    st.markdown(t(f"{table}.intro"))
    if i18n.has(f"{table}.why"):
        with st.expander(t("predict.why"), icon=":material/lightbulb:"):
            st.markdown(t(f"{table}.why", **(why or {})))
    nav.sidebar(here)
    return scenario_panel.sidebar() if scenario else None


def run(fn, *args, **kwargs):
    """Call into rlcore; on a ValueError show it to the learner and stop this rerun (no traceback)."""
    try:
        return fn(*args, **kwargs)
    except ValueError as err:
        st.error(t("page.unusable", error=esc(i18n.error(err))), icon="⚠️")  # it may quote visitor text
        st.stop()


def attempt(fn, *args, **kwargs):
    """``run``, for a part of the page that may fail alone (a problem the learner typed): a ValueError is shown
    and None comes back, and the rest of the page still draws."""
    try:
        return fn(*args, **kwargs)
    except ValueError as err:
        st.error(t("page.unusable", error=esc(i18n.error(err))), icon="⚠️")
        return None


def study(fn, *args, entries: int = 32, heavy: bool = False, light: bool = False, **kwargs):
    """``fn(*args, **kwargs)`` for a study of ``rlcore`` (or any of its functions), through a cache the server's
    sessions share, holding at most ``entries`` results of ``fn``; a ValueError is shown as ``run`` shows it.
    ``heavy=True``: a result the cache lacks is computed in turns with the other sessions' heavy work
    (``serve.cache``), while one the cache holds comes back at once; ``light``: with ``heavy``, the page knows this
    run to be short (rlcore says so, e.g. ``rlcore.lab_is_light``), so a newcomer's may go beside a long run in
    progress rather than wait for it. The page's own code computes nothing."""
    key = (fn, entries, heavy)
    if key not in _STUDIES:
        _STUDIES[key] = cache.cached(entries, take_turns=heavy)(fn)
    return run(_STUDIES[key], *args, **({"light_run": light} if heavy else {}), **kwargs)


def panel(fn=None, *, whole_page: bool = False):
    """The page's panel: its inputs, its question and all they drive, drawn by ``fn`` and rerun alone when one of
    its inputs moves (a Streamlit fragment). Every page draws its inputs and question in one (or more) panels.

    ``@page.panel(whole_page=True)``: a panel whose inputs rerun the whole page, for one that trains live and has a
    Stop button: a click inside a fragment does not interrupt the fragment's run (Streamlit issue #11030), so
    only a whole-page rerun can stop a training in the middle (page 19); what it draws after its live training is
    drawn in that training's last turn (``serve.line.drawn_in_turn``)."""
    if fn is None:
        return lambda f: panel(f, whole_page=whole_page)
    return line.drawn_in_turn(fn) if whole_page else st.fragment(fn)


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


def end(here: str | None = None, *, code=()) -> None:
    """The page's last call: the source of the rlcore functions behind the page (``code``), previous / next
    links, one notice about link values that did not fit and parameters nothing used, and the link cleared of
    parameters that belong to no input of this page. ``here`` is the page's nav path; by default the calling
    file's."""
    if code:
        show_code(*code)
    here = here or nav.path_of(inspect.currentframe().f_back.f_code.co_filename)
    if here is not None:
        nav.footer(here)
    i18n.link()
    inputs.report_link(keep=(scenario_panel.URL_KEY, i18n.KEY))
    memory.keep_memory_trimmed()  # what the server's threads free goes back to the system (serve.memory)


def chart(ch, data, *, alt_text: str, name: str, width: str | None = None) -> None:
    """Show an Altair chart with its text alternative: the data as a table and a CSV download, their columns
    headed in the page's language (``i18n.column``; the chart's own field names do not change).

    Args:
        ch: a ``ui.charts`` recipe (or a plain Altair chart), with a title.
        data: the tidy DataFrame the chart plots (already aggregated; a few hundred rows at most); None for a
            chart redrawn live while a run trains (no table).
        alt_text: one sentence describing the chart for screen readers.
        name: a short slug, used for the CSV file name and the widget keys.
        width: Streamlit's ``width``; "stretch" for a stack of layered panels (``charts.facets``), which
            Streamlit would otherwise draw at their content's width.
    """
    _draw(spec.vega_lite(ch), data, alt_text=alt_text, name=name, width=width)


def scrub(ch, data, *, field: str, grid, value: float, label: str, alt_text: str, name: str,
          width: str | None = None, also: scrub_mod.Input | None = None) -> None:
    """``chart``, for a chart drawn over a grid of its main input: ``data`` holds its rows for every value of
    ``grid`` in the column ``field`` (a study computed them at once), and a range input named ``label`` under the
    chart picks the rows it shows, starting at the committed ``value`` (the page's widget): dragging it redraws the
    chart in the browser, with no rerun (``ui.scrub``). The table under it holds the rows at ``value``. ``also``: a
    second scrubbed input (``ui.scrub.Input``), its own range input beside the first."""
    st.html(scrub_mod.CSS)
    shown = scrub_mod.bind(spec.vega_lite(ch), field=field, grid=grid, value=value, label=label, also=also)
    _draw(shown, scrub_mod.rows_at(data, field=field, grid=grid, value=value, also=also), alt_text=alt_text,
          name=name, width=width)


def _draw(shown: dict, data, *, alt_text: str, name: str, width: str | None) -> None:
    if i18n.current() == "zh":
        config = shown.get("config", {})
        shown = {**shown, "config": {**config, "axisY": {**LEVEL_Y_TITLES["axisY"], **config.get("axisY", {})}}}
    if not shown.keys() & {"concat", "hconcat", "vconcat", "facet", "autosize"}:
        # the plot keeps its height and fits the width; title, legend and axes add to it (fitted into a fixed total,
        # a long title and legend squashed the plot and pushed the title off the top of a phone's chart)
        shown = {**shown, "autosize": charts.FIT_WIDTH}
    st.vega_lite_chart(shown, alt=alt_text, width=width)
    if data is None:  # a chart redrawn live, many times a run: no table (its keys would repeat)
        return
    # the label stays the same whatever the data, so an open table stays open as the data change
    with st.expander(t("chart.data"), key=f"table_{name}", on_change="rerun") as box:
        if box.open:  # the table is built and sent only while it is open
            data = tidy(data.rename(columns=i18n.column))  # headed in the page's language, no float noise
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
    st.dataframe(tidy(df), hide_index=True, width="stretch",
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
    (rlcore), so it stays right when the scenario changes. ``explanation``, ``options`` and ``answer`` are
    markdown; escape user text in them (a token) with ``ui.format.esc``.

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
    """A closed "Why this matters" expander (``setup`` draws the page's own from its ``why`` entry)."""
    with st.expander(t("predict.why"), icon=":material/lightbulb:"):
        st.markdown(text)
