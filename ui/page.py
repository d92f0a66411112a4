"""What every page does first and last: config, the scenario sidebar, guarded calls, show-the-code."""

from __future__ import annotations

import inspect

import streamlit as st

from . import scenario as scenario_panel

SIDEBAR_WIDTH = 430  # pixels: wide enough for the scenario table


def setup(title: str, icon: str, intro: str):
    """Page config, title, a short explanation, and the shared scenario sidebar; returns the scenario."""
    st.set_page_config(page_title=f"{title} · RL for LLMs", page_icon=icon, layout="wide",
                       initial_sidebar_state=SIDEBAR_WIDTH)
    st.title(f"{icon} {title}")
    st.markdown(intro)
    return scenario_panel.sidebar()


def run(fn, *args, **kwargs):
    """Call into rlcore; on a ValueError show it to the learner and stop this rerun (no traceback)."""
    try:
        return fn(*args, **kwargs)
    except ValueError as err:
        st.error(f"That input can't be used: {err}", icon="⚠️")
        st.stop()


def show_code(*functions) -> None:
    """An expander with the real source of the rlcore functions behind the page."""
    with st.expander("Show the code behind this page"):
        for fn in functions:
            st.code(inspect.getsource(fn), language="python")
