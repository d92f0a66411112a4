"""Play, pause, one step: animate a page's "show up to step" input, one step per tick.

The page draws the part that animates as ``play.fragment(panel, name)``: a fragment that reruns every
``TICK`` seconds while playing and never otherwise (only a full run can start or stop a fragment's timer, so
a change of the playing state reruns the app). Inside it the panel calls ``sync`` first, ``tick`` once it
knows the number of steps, then draws its step input and ``controls`` (``player`` does the three for a
share of a run shown, 0–100 %). The state lives in
``st.session_state`` under ``<name>_playing`` and ``<name>_last_frame`` (not link inputs: a link opens
paused); the buttons' keys are ``<name>_play``, ``<name>_pause`` and ``<name>_step``, their labels and help the
catalogue's ``[play]`` (``locales/*.toml``), in the page's language.
"""

from __future__ import annotations

import time

import streamlit as st

from . import inputs
from .i18n import t

TICK = 0.8  # seconds between two frames while playing


def playing(name: str) -> bool:
    return bool(st.session_state.get(f"{name}_playing", False))


def fragment(panel, name: str, *args) -> None:
    """Draw ``panel(timed, *args)`` as a fragment, on a timer only while playing."""
    timed = playing(name)
    st.fragment(panel, run_every=TICK if timed else None)(timed, *args)


def sync(name: str, timed: bool) -> None:
    """First call of the panel: when playing started or stopped since the timer was set, rerun the app."""
    if playing(name) != timed:
        st.rerun()


def _play(name: str, step: str, total: int) -> None:
    """Play: from the last step, start again at the first; the frames then advance on the timer."""
    k = inputs.key(step)
    if int(st.session_state.get(k, 0)) >= total:
        st.session_state[k] = 0
    st.session_state[f"{name}_playing"] = True
    st.session_state[f"{name}_last_frame"] = time.monotonic()


def _pause(name: str) -> None:
    st.session_state[f"{name}_playing"] = False


def _step_forward(name: str, step: str, to: int) -> None:
    """On to step ``to``, and pause: the move the timer makes, by hand."""
    st.session_state[inputs.key(step)] = to
    st.session_state[f"{name}_playing"] = False


def tick(name: str, timed: bool, step: str, total: int, by: int = 1) -> None:
    """While playing, ``by`` steps per tick (before the step input is drawn); at the last step, stop the timer."""
    if not timed:
        return
    now = time.monotonic()
    k = inputs.key(step)
    if now - st.session_state.get(f"{name}_last_frame", 0.0) >= 0.9 * TICK:  # a widget moved mid-tick: no double step
        st.session_state[k] = min(int(st.session_state.get(k, 0)) + by, total)
        st.session_state[f"{name}_last_frame"] = now
    if int(st.session_state.get(k, 0)) >= total:
        st.session_state[f"{name}_playing"] = False
        st.rerun()  # the last frame: stop the timer


def controls(name: str, timed: bool, step: str, total: int, shown: int, *, where, enabled: bool = True,
             by: int = 1) -> None:
    """Play (or Pause while playing) and Step buttons in the two containers ``where``; ``enabled`` False greys
    them out (e.g. before the learner answered the question the animation gives away)."""
    play_at, step_at = where
    if timed:
        play_at.button(t("play.pause"), icon=":material/pause:", on_click=_pause, args=(name,), width="stretch",
                       key=f"{name}_pause")
    else:
        play_at.button(t("play.play"), icon=":material/play_arrow:", on_click=_play, args=(name, step, total),
                       width="stretch", key=f"{name}_play", disabled=not enabled,
                       help=t("play.play_help") if enabled else t("play.play_locked"))
    step_at.button(t("play.step"), icon=":material/skip_next:", on_click=_step_forward,
                   args=(name, step, min(shown + by, total)), width="stretch", key=f"{name}_step",
                   disabled=not enabled or shown >= total,
                   help=t("play.step_help", n=by))


def player(name: str, timed: bool, label: str, *, key: str, by: int, where, help: str, shown: bool = True) -> int:
    """The share of a run shown, 0–100 % (not a step: it stays at the end when the run's steps change, and fits
    every run's steps side by side): ``tick``, then a slider in ``where[0]`` with ``controls`` in ``where[1:]``;
    100 while ``shown`` is False (nothing to play before the learner answered the page's question)."""
    tick(name, timed, key, 100, by)
    if not shown:
        return 100
    progress = int(inputs.slider(label, 0, 100, 100, by, key=key, where=where[0], help=help))
    controls(name, timed, key, 100, progress, where=where[1:], by=by)
    return progress
