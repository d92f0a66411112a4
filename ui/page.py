"""What every page does first and last: config, the scenario sidebar, guarded calls, show-the-code."""

from __future__ import annotations

import inspect
import threading

import altair as alt
import pandas as pd
import streamlit as st

from . import scenario as scenario_panel
from .format import esc

SIDEBAR_WIDTH = 430  # pixels: wide enough for the scenario table


def setup(title: str, icon: str, intro: str):
    """Page config, title, a short explanation, and the shared scenario sidebar; returns the scenario."""
    st.set_page_config(page_title=f"{title} · RL for LLMs", page_icon=icon, layout="wide",
                       initial_sidebar_state=SIDEBAR_WIDTH)
    st.title(f"{icon} {title}")
    st.markdown(intro)
    st.session_state[_LINK] = {k: st.query_params.get_all(k) for k in st.query_params}
    return scenario_panel.sidebar()


def run(fn, *args, **kwargs):
    """Call into rlcore; on a ValueError show it to the learner and stop this rerun (no traceback)."""
    try:
        return fn(*args, **kwargs)
    except ValueError as err:
        st.error(f"That input can't be used: {err}", icon="⚠️")
        st.stop()


def show_code(*functions) -> None:
    """An expander with the real source of the rlcore functions behind the page (the page's last call)."""
    with st.expander("Show the code behind this page"):
        for fn in functions:
            st.code(inspect.getsource(fn), language="python")
    check_link()


_LINK = "_link_params"
_NOTICED = "_link_noticed"


def _same(raw: list[str], value) -> bool:
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value] == raw
    if len(raw) != 1:
        return False
    if isinstance(value, bool):
        return raw[0].lower() == str(value).lower()
    if isinstance(value, (int, float)):
        try:
            return float(raw[0]) == float(value)
        except ValueError:
            return False
    return raw[0] == str(value)


def check_link() -> None:
    """After the page's widgets exist: tell the learner which link parameters were not used, and why.

    Streamlit drops a bound parameter whose value does not fit its widget; an unknown parameter does
    nothing. Either way the learner gets a small notice (once per parameter and value), never an error.
    """
    raw = st.session_state.pop(_LINK, {})
    noticed = st.session_state.setdefault(_NOTICED, set())
    for key, values in raw.items():
        if key == scenario_panel.URL_KEY:
            continue
        shown = esc(", ".join(v[:40] for v in values)[:80])  # link text is visitor text: shown literally
        if key not in st.session_state:
            message = f"The link's parameter “{esc(key[:40])}” means nothing on this page and was ignored."
        elif not _same(values, st.session_state[key]):
            message = (f"The link's value “{shown}” for “{esc(key)}” does not fit that input, so it shows "
                       f"{esc(str(st.session_state[key])[:40])} instead.")
        else:
            continue
        if (key, tuple(values)) not in noticed:
            noticed.add((key, tuple(values)))
            st.toast(message, icon="🔗")


def chart(ch, data, *, alt_text: str, name: str) -> None:
    """Show an Altair chart with its text alternative: the data as a table and a CSV download.

    Args:
        ch: the ``alt.Chart`` (built by a ``ui.charts`` builder, with a title).
        data: the tidy DataFrame the chart plots (already aggregated; a few hundred rows at most).
        alt_text: one sentence describing the chart for screen readers.
        name: a short slug, used for the CSV file name and the widget keys.
    """
    st.vega_lite_chart(vega_lite_spec(ch), alt=alt_text)
    with st.expander(f"Data behind this chart ({len(data)} rows)"):
        st.dataframe(data, hide_index=True, width="stretch")
        st.download_button("Download as CSV", lambda: data.to_csv(index=False).encode(), file_name=f"{name}.csv",
                           mime="text/csv", key=f"csv_{name}", on_click="ignore")  # CSV built only on click


try:  # Streamlit's own lock around Altair's global settings, so our conversion never races with its own
    from streamlit.elements.vega_charts import _altair_globals_lock as _ALTAIR_LOCK
except ImportError:  # pragma: no cover - a later Streamlit may move it
    _ALTAIR_LOCK = threading.Lock()


def vega_lite_spec(ch: alt.TopLevelMixin) -> dict:
    """The chart's Vega-Lite spec, with each DataFrame kept whole as a named dataset.

    This is what ``st.altair_chart`` does, minus one step: Altair's JSON-schema validation of the
    finished spec, which costs about half of the conversion. The builders in ``ui.charts`` are
    validated once by the page tests (``tests/test_chart_specs.py``), so every rerun need not repeat it.
    """
    frames: dict[int, tuple[str, pd.DataFrame]] = {}

    def to_named(data):
        if isinstance(data, pd.DataFrame):
            if id(data) not in frames:  # named by content, and never data_N: Vega uses those names itself
                try:
                    digest = int(pd.util.hash_pandas_object(data, index=False).sum()) & 0xFFFFFFFFFFFF
                except TypeError:  # a column of unhashable cells (lists): fall back to the object's id
                    digest = id(data)
                frames[id(data)] = (f"explorer_{digest:x}_{len(frames)}", data)
            name = frames[id(data)][0]
            return {"name": name}
        return data

    alt.data_transformers.register("explorer_named", to_named)
    with _ALTAIR_LOCK, alt.data_transformers.enable("explorer_named"), alt.theme.enable("none"):
        spec = ch.to_dict(validate=False)
    spec["datasets"] = {name: df for name, df in frames.values()}
    return spec


def presets(views: dict, *, label: str = "Views an instructor might show") -> None:
    """A row of buttons, each setting several widgets at once (keys → values).

    Use before the widgets are drawn: ``presets({"λ = 0": {"lam": 0.0}, "λ = 1": {"lam": 1.0}})``.
    """
    def apply(values: dict) -> None:
        for k, v in values.items():
            st.session_state[k] = v

    st.caption(label)
    cols = st.columns(len(views))
    for col, (name, values) in zip(cols, views.items(), strict=True):
        col.button(name, on_click=apply, args=(values,), width="stretch", key=f"view_{name}")


def predict(question: str, options: list[str], answer: str, explanation: str, *, key: str) -> None:
    """Predict, then reveal: the learner commits to an answer before seeing it explained.

    ``answer`` must be computed from the current state (rlcore), so it stays right when the
    scenario changes. ``explanation`` is markdown; escape user text in it with ``ui.format.esc``.
    """
    with st.container(border=True):
        st.markdown(f"**Predict first.** {question}")
        choice = st.radio(question, options, index=None, key=key, horizontal=True, label_visibility="collapsed")
        if choice is None:
            st.caption("Choose an answer to reveal what happens.")
        elif choice == answer:
            st.success(f"Right: **{answer}**. {explanation}")
        else:
            st.warning(f"Not this time: the answer is **{answer}**. {explanation}")
