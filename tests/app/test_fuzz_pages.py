"""Fuzz every page: random scenarios, every slider's extremes, hostile query parameters (AppTest + hypothesis).

Zero uncaught exceptions; anything rejected is shown as an error or notice the learner can read.
A fixed hypothesis seed keeps CI repeatable; 110 cases per page, over 1,000 in all.
"""

from __future__ import annotations

import functools

import pytest
from apphelp import ALL_PAGES, edit_scenario, no_exception, run_page
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

import rlcore
from ui import scenario as panel

CASES_PER_PAGE = 110
FUZZ = settings(max_examples=CASES_PER_PAGE, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@functools.cache
def widgets(path) -> tuple:
    """The page's own sliders (key, min, max, step) and select boxes (key, options), found by running it once."""
    at = run_page(path)
    sliders = tuple((s.key, s.min, s.max, s.step) for s in at.slider
                    if s.key and not s.key.startswith("scn_") and not isinstance(s.value, tuple))
    boxes = tuple((b.key, tuple(b.options)) for b in at.selectbox if b.key and not b.key.startswith("scenario"))
    return sliders, boxes


def grid_value(lo, hi, step, u: float):
    """A value on the slider's step grid, picked by u in [0, 1]."""
    if isinstance(lo, int) and isinstance(step, int):
        n = (hi - lo) // step
        return lo + step * round(u * n)
    n = round((hi - lo) / step)
    return round(lo + step * round(u * n), 10)


probs_near_edges = st.one_of(st.just(1e-6), st.just(1 - 1e-6), st.floats(1e-4, 1.0))
scores = st.one_of(st.just(0.0), st.just(10.0), st.just(1e6), st.floats(0, 10, allow_nan=False))


@st.composite
def scenarios(draw):
    n = draw(st.integers(2, 6))
    weights = [draw(probs_near_edges) for _ in range(n)]
    probs = rlcore.normalize_probs(weights)
    if draw(st.booleans()):
        same = draw(scores)
        samples = tuple((same,) * draw(st.integers(1, 3)) for _ in range(n))  # equal scores everywhere
    else:
        samples = tuple(tuple(draw(st.lists(scores, min_size=1, max_size=5))) for _ in range(n))
    names = draw(st.lists(st.text(alphabet="abcxyz<>[]()*_$\\ü☃", min_size=1, max_size=8).filter(str.strip),
                          min_size=n, max_size=n, unique_by=str.strip))
    return rlcore.Scenario(tokens=tuple(names), probs=probs, samples=samples,
                           continuations=tuple(draw(st.sampled_from(["", ". ok.", " <b>x</b> [l](u)"]))
                                               for _ in range(n)))


hostile = st.one_of(st.just("abc"), st.just("99"), st.just("-1e308"), st.just("nan"), st.just("x" * 5000),
                    st.just("ünï☃"), st.just("<script>alert(1)</script>"), st.text(max_size=30))


@pytest.mark.parametrize("path", ALL_PAGES, ids=lambda p: p.stem)
def test_fuzz_page(path):
    sliders, boxes = widgets(path)
    shared = run_page(path)  # cases that only set the session reuse one running app, like one learner

    @FUZZ
    @seed(20261129)
    @given(data=st.data())
    def case(data):
        scenario = data.draw(scenarios()) if data.draw(st.booleans()) else rlcore.ARTICLE_SCENARIO
        state = {}
        for key, lo, hi, step in sliders:
            state[key] = grid_value(lo, hi, step, data.draw(st.sampled_from([0.0, 1.0, 0.5]) | st.floats(0, 1)))
        for key, options in boxes:
            if set(options) == set(rlcore.ARTICLE_SCENARIO.tokens):
                options = scenario.tokens  # a token picker follows the scenario, as in the browser
            if options:
                state[key] = data.draw(st.sampled_from(list(options)))
        query = {}
        if data.draw(st.booleans()):
            keys = [k for k, *_ in sliders] + ["scn", "unknown"]
            query = {data.draw(st.sampled_from(keys)): data.draw(hostile)}
        if query:
            at = run_page(path, scenario=scenario, query=query)
        else:
            at = shared
            if at.session_state["scenario"] != scenario:
                at.session_state["scenario"] = scenario
                at.run()  # the learner switches scenario first; widgets then offer the new tokens
                no_exception(at)
            for k, v in state.items():
                at.session_state[k] = v
            at.run()
        no_exception(at)

    case()


@pytest.mark.parametrize("path", ALL_PAGES, ids=lambda p: p.stem)
def test_reset_restores_defaults_after_bad_input(path):
    sliders, _ = widgets(path)
    fresh = run_page(path)
    defaults = {s.key: s.value for s in fresh.slider if s.key in {k for k, *_ in sliders}}
    at = run_page(path, state={panel.EDITOR: True})  # the sidebar's editor open
    for key, lo, hi, step in sliders:
        at.slider(key=key).set_value(grid_value(lo, hi, step, 1.0))
    edit_scenario(at, "scores", 1, "not a score")
    no_exception(at)
    assert at.error, "the bad score should be reported"
    next(b for b in at.button if b.label == "Reset").click().run()
    no_exception(at)
    assert at.session_state["scenario"] == rlcore.ARTICLE_SCENARIO
    assert not [e for e in at.error if "score" in e.value]
    assert {s.key: s.value for s in at.slider if s.key in defaults} == defaults
