"""Fuzz every page (AppTest): every input at its min, max and default, odd scenarios, hostile links.

Zero uncaught exceptions; anything rejected is shown as an error or notice the learner can read.
The grid runs in the default suite: each page's own inputs one at a time at their bounds and default
(every option of a select box or radio, both states of a toggle, every keyed button), then every
input at once at its min and at its max under scenarios at the edges of what the editor accepts, then
hostile scenario links (every page input's hostile link values: tests/app/test_sharing.py). The seeded
random version (hypothesis,
110 cases per page, over 1,000 in all) is marked ``exhaustive``; ``.ci/run`` runs it after the quick suite.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

import rlcore
from tests.apphelp import ALL_PAGES, edit_scenario, first_run, has_scenario, run_page, shared_out, slot
from ui import scenario as panel

CASES_PER_PAGE = 110
FUZZ = settings(max_examples=CASES_PER_PAGE, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PAGE_IDS = {"ids": lambda p: p.stem}


def own(key) -> bool:
    """A page's own input, not the shared scenario sidebar's."""
    return bool(key) and not key.startswith(("scn_", "scenario"))


def cast(value, like):
    """AppTest reads a widget's bounds as floats; an integer widget gets integers."""
    return int(value) if isinstance(like, int) and not isinstance(like, bool) else value


def inputs(at) -> list[tuple[str, str, list]]:
    """(kind, key, values to try) for the page's own inputs; each list ends with the input's default."""
    out = []
    for s in at.slider:
        if own(s.key):
            lo, hi = s.min, s.max
            if isinstance(s.value, tuple):
                tries = [(lo, lo), (hi, hi), (lo, hi)]
            else:
                tries = [cast(lo, s.value), cast(hi, s.value)]
            out.append(("slider", s.key, [*tries, s.value]))
    for n in at.number_input:
        if own(n.key):
            out.append(("number_input", n.key,
                        [*(cast(v, n.value) for v in (n.min, n.max) if v is not None), n.value]))
    for kind in ("selectbox", "radio"):
        for w in getattr(at, kind):
            if own(w.key):
                out.append((kind, w.key, [*w.options, *([w.value] if w.value is not None else [])]))
    for kind in ("toggle", "checkbox"):
        for w in getattr(at, kind):
            if own(w.key):
                out.append((kind, w.key, [not w.value, w.value]))
    return out


def bounds(at, end: int) -> dict:
    """Every slider and number input at its min (end=0) or max (end=1), every select box at its first or last option."""
    state = {}
    for s in at.slider:
        if own(s.key) and not isinstance(s.value, tuple):
            state[s.key] = cast((s.min, s.max)[end], s.value)
    for n in at.number_input:
        if own(n.key) and (n.min, n.max)[end] is not None:
            state[n.key] = cast((n.min, n.max)[end], n.value)
    for b in at.selectbox:
        if own(b.key) and b.options:
            state[b.key] = b.options[-end]
    return state


@pytest.mark.parametrize("path", shared_out(ALL_PAGES, offset=3, ids=lambda p: p.stem))
def test_every_input_at_min_max_and_default(path):
    at = run_page(path)
    grid = inputs(at)
    for kind, key, values in grid:
        *tries, default = values
        for value in tries:
            at = getattr(at, kind)(key=key).set_value(value).run()
            assert not at.error, (key, value, [e.value for e in at.error])  # a value the page offers is usable
            got = getattr(at, kind)(key=key).value
            assert got == value, (f"{path.name}: {key} set to {value!r} reads {got!r} (kept, not clamped away); a "
                                  "choice's options are the names English shows, not keys (README, Adding a page)")
        getattr(at, kind)(key=key).set_value(default)  # back to its default with the next input's first move
    at.run()
    for b in [b.key for b in at.button if own(b.key)]:  # the instructor's preset views, "sample", ...
        at = at.button(key=b).click().run()


N = rlcore.MAX_TOKENS
ODD_SCENARIOS = {  # the editor's extremes: fewest and most tokens, no spread at all, near-zero and huge values
    "one-token": rlcore.Scenario(tokens=("only",), probs=(1.0,), samples=((3.0,),)),
    "all-scores-zero": rlcore.Scenario(tokens=("a<b>", "ü☃"), probs=(1e-6, 1 - 1e-6), samples=((0.0,), (0.0, 0.0, 0.0)),
                                       continuations=(" <b>x</b> [l](u)", "")),
    f"{N}-tokens": rlcore.Scenario(
        tokens=("$x$", "*_*", "[l](u)", *(f"t{i}" for i in range(N - 3))),
        probs=(1e-6, *((1 - 1e-6) / (N - 1),) * (N - 1)),
        samples=((1e6, 0.0), *((5.0, 5.0),) * (N - 2), (0.0,)), continuations=("", *(". ok.",) * (N - 1))),
}


# one page in four (by its id, apphelp.slot) meets one odd scenario in the quick suite, every one in CI
ODD_CASES = [pytest.param(path, scenario, id=f"{path.stem}-{name}",
                          marks=() if slot(path.stem) % (4 * len(ODD_SCENARIOS)) == j else pytest.mark.exhaustive)
             for path in ALL_PAGES for j, (name, scenario) in enumerate(ODD_SCENARIOS.items())]


@pytest.mark.parametrize("path, scenario", ODD_CASES)
def test_odd_scenario_with_every_input_at_min_and_max(path, scenario):
    at = run_page(path, scenario=scenario)
    for end in (0, 1):
        for key, value in bounds(at, end).items():
            at.session_state[key] = value
        at.run()
    assert at.session_state["scenario"] == scenario


# how the sidebar reads a hostile scenario link (the page inputs' link values: tests/app/test_sharing.py)
HOSTILE_TYPED = ["abc", "99", "-1e308", "nan", "inf", ""]
HOSTILE_TEXT = ["x" * 5000, "ünï☃", "<script>alert(1)</script>", "[l](u) **b**"]


@pytest.mark.parametrize("value", HOSTILE_TYPED + HOSTILE_TEXT, ids=lambda v: v[:12])
def test_hostile_scenario_link(value):
    path = ALL_PAGES[(HOSTILE_TYPED + HOSTILE_TEXT).index(value) % len(ALL_PAGES)]  # the sidebar reads it alike
    at = run_page(path, query={panel.URL_KEY: value})
    assert at.session_state["scenario"] == rlcore.ARTICLE_SCENARIO, path.stem


# The seeded random fuzz (exhaustive) and the reset check, which share the helpers below.


def own_sliders_and_boxes(path) -> tuple:
    """The page's own sliders (key, min, max, step) and select boxes (key, options)."""
    at = first_run(path)
    sliders = tuple((s.key, s.min, s.max, s.step) for s in at.slider if own(s.key) and not isinstance(s.value, tuple))
    boxes = tuple((b.key, tuple(b.options)) for b in at.selectbox if own(b.key))
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


hostile_text = st.one_of(st.just("abc"), st.just("99"), st.just("-1e308"), st.just("nan"), st.just("x" * 5000),
                    st.just("ünï☃"), st.just("<script>alert(1)</script>"), st.text(max_size=30))


@pytest.mark.exhaustive
@pytest.mark.parametrize("path", ALL_PAGES, **PAGE_IDS)
def test_fuzz_page_seeded(path):
    """110 random cases per page: scenarios, widget values and hostile links drawn together."""
    sliders, boxes = own_sliders_and_boxes(path)
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
            query = {data.draw(st.sampled_from(keys)): data.draw(hostile_text)}
        if query:
            at = run_page(path, scenario=scenario, query=query)
        else:
            at = shared
            if has_scenario(path) and at.session_state["scenario"] != scenario:  # (a page without one ignores it)
                at.session_state["scenario"] = scenario
                at.run()  # the learner switches scenario first; widgets then offer the new tokens
            for k, v in state.items():
                at.session_state[k] = v
            at.run()

    case()


@pytest.mark.parametrize("path", shared_out([p for p in ALL_PAGES if has_scenario(p)], every=3, offset=1,
                                             ids=lambda p: p.stem))  # (a page without a scenario has no editor)
def test_reset_restores_defaults_after_bad_input(path):
    sliders, _ = own_sliders_and_boxes(path)
    defaults = {s.key: s.value for s in first_run(path).slider if s.key in {k for k, *_ in sliders}}
    at = run_page(path, state={panel.EDITOR: True})  # the sidebar's editor open
    for key, lo, hi, step in sliders:
        at.slider(key=key).set_value(grid_value(lo, hi, step, 1.0))
    edit_scenario(at, "scores", 1, "not a score")
    assert at.error, "the bad score should be reported"
    next(b for b in at.button if b.label == "Reset").click().run()
    assert at.session_state["scenario"] == rlcore.ARTICLE_SCENARIO
    assert not [e for e in at.error if "score" in e.value]
    assert {s.key: s.value for s in at.slider if s.key in defaults} == defaults
