"""The caches the server's sessions share: ``cached`` is ``st.cache_data`` for rlcore's results (``ui.page.study``
is what pages call), bounded, keyed cheaply, and for heavy work (``take_turns=True``) computed in a turn of the
training line (``serve.line``) while a result the cache holds comes back at once.

A cache is keyed by the function it wraps (its module, name and source, followed through ``__wrapped__``), never by
this module, so where this code lives changes no key.
"""

from __future__ import annotations

import functools

import streamlit as st

import rlcore

from . import line

# Streamlit hashes a dataclass argument field by field through pickle, about 0.2 ms each; its repr names every
# field exactly (floats round-trip), so it makes the same cache key for a tenth of that.
HASH_BY_REPR = {rlcore.Scenario: repr, rlcore.LabConfig: repr}


class _NotCached(Exception):
    """A look into a ``cached(..., take_turns=True)`` function's cache found nothing (never stored: an exception)."""


def cached(max_entries: int, *, take_turns: bool = False):
    """``st.cache_data`` for rlcore's results (``ui.page.study`` is what pages call): bounded, without a spinner,
    rlcore's dataclasses keyed by their repr (``HASH_BY_REPR``).

    ``take_turns=True``: a result the cache holds comes back at once; one it must compute waits for its turn in
    ``line.TRAININGS`` (inside a ``one_at_a_time`` panel, the panel moves there for the rest of its run), so the
    sessions' heavy runs go one at a time and in turn, and a learner whose result is cached waits for nobody's. The
    cached function takes one more keyword, ``light_run`` (False by default): the caller knows the run to be short,
    so a newcomer's may go beside a run in progress (``serve.line.Line.beside``); it is not part of the key."""
    store = st.cache_data(max_entries=max_entries, show_spinner=False, hash_funcs=HASH_BY_REPR)
    if not take_turns:
        return store

    def decorate(fn):
        @functools.wraps(fn)  # the cache keys the function by fn's name and source (followed through __wrapped__)
        def body(*args, **kwargs):
            if not line.TRAININGS.holds():
                raise _NotCached
            return fn(*args, **kwargs)
        look = store(body)

        @functools.wraps(fn)
        def call(*args, light_run: bool = False, **kwargs):
            try:
                return look(*args, **kwargs)
            except _NotCached:
                pass
            return line.in_a_training_turn(look, *args, light=light_run, **kwargs)
        call.clear = look.clear
        return call
    return decorate
