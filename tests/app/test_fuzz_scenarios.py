"""Fuzz the scenario readers: every payload is refused by ``from_json`` with ValueError, or accepted and then
shown by every page without exception (hypothesis + AppTest).

Payloads: JSON of any shape, scenario-shaped documents with numbers at the float limits, texts from every
Unicode category (surrogates, controls, formatting and unassigned code points included), names taken from
JavaScript's Object.prototype (a chart's data goes through JavaScript), and bracket bombs.

The default run is small (under 40 s on a shared core); ``-m exhaustive`` runs the long version. Below it, the
sweep of accepted edge scenarios over every page of ``ui.nav`` (about a minute of CPU), and the editor's Add.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

import rlcore
from tests.apphelp import (
    ALL_PAGES,
    QUICK_SHARE,
    ROOT,
    edit_scenario,
    has_scenario,
    run_page,
    shared_out,
    show_all,
    slot,
)
from ui import nav
from ui import scenario as panel

JS_NAMES = ["toString", "constructor", "__proto__", "valueOf", "hasOwnProperty", "isPrototypeOf",
            "propertyIsEnumerable", "toLocaleString", "__defineGetter__", "__defineSetter__", "__lookupGetter__",
            "__lookupSetter__", "prototype", "length", "name", "then", "undefined", "null", "NaN"]
LIMITS = [0, 0.0, -0.0, 1, 2, 1e6, 1e6 + 1e-9, 1e6 + 1, -1, 5e-324, 2.2250738585072014e-308, 1 - 2**-53, 0.5,
          1e308, 1.7976931348623157e308, 2**53 + 1, 10**400, -(10**400), 10**4000]
NOT_FINITE = [math.nan, math.inf, -math.inf]  # json.dumps writes NaN, Infinity, -Infinity

finite = st.one_of(st.sampled_from(LIMITS), st.floats(allow_nan=False, allow_infinity=False), st.floats(0, 1e6),
                   st.integers(-(10**30), 10**30))
numbers = st.one_of(finite, finite, finite, st.sampled_from(NOT_FINITE))
chars = st.one_of(st.characters(codec="utf-8"), st.characters(codec="utf-8"), st.characters(categories=["Cs"]),
                  st.characters(categories=["Cc", "Cf", "Co", "Cn", "Zl", "Zp"]))
texts = st.one_of(st.sampled_from(JS_NAMES), st.text(chars, max_size=30), st.text("ab[]{}\"\\", max_size=8))
json_values = st.recursive(st.none() | st.booleans() | numbers | texts,
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
                           max_leaves=12)


@st.composite
def scenario_docs(draw) -> dict:
    """A document shaped like a scenario, whose fields may each be valid, at a bound, or just past it."""
    n = draw(st.integers(1, 7))
    if draw(st.booleans()):
        probs = list(rlcore.normalize_probs(draw(st.lists(st.floats(1e-9, 1.0), min_size=n, max_size=n))))
    else:
        probs = draw(st.lists(numbers, min_size=n, max_size=n))
    group = st.one_of(st.lists(numbers, min_size=0, max_size=4), st.lists(st.floats(0, 1e6), max_size=4),
                      st.integers(99, 101).flatmap(lambda k: st.lists(finite, min_size=k, max_size=k)))
    doc = {"tokens": draw(st.lists(texts, min_size=n, max_size=n)),
           "probs": probs, "samples": draw(st.lists(group, min_size=n, max_size=n))}
    if draw(st.booleans()):
        doc["continuations"] = draw(st.lists(texts, min_size=n, max_size=n))
    for name in ("prompt", "prefix"):
        if draw(st.booleans()):
            doc[name] = draw(texts | st.text(max_size=210))
    if draw(st.integers(0, 4)) == 0:
        doc[draw(st.sampled_from(JS_NAMES))] = draw(json_values)
    return doc


printable = st.characters(categories=["L", "M", "N", "P", "S", "Zs"])
names = st.one_of(st.sampled_from(JS_NAMES), st.text(printable, min_size=1, max_size=24)).filter(str.strip)
scores = st.one_of(st.sampled_from([0.0, 1e6, 5e-324, 0.5, 10.0, 999_999.999_999_999_9]), st.floats(0, 1e6))


@st.composite
def valid_docs(draw) -> dict:
    """A scenario document inside every bound, often right at one (1e6, 100 scores, 24-character names)."""
    n = draw(st.integers(panel.EDITOR_MIN_TOKENS, panel.EDITOR_MAX_TOKENS))
    weights = draw(st.lists(st.sampled_from([0.0, 1e-300, 1e-9, 1.0]) | st.floats(0, 1), min_size=n, max_size=n))
    weights[draw(st.integers(0, n - 1))] = 1.0  # not all zero
    sizes = st.one_of(st.integers(1, 5), st.just(rlcore.example.MAX_SAMPLES))
    return {"tokens": draw(st.lists(names, min_size=n, max_size=n, unique_by=str.strip)),
            "probs": list(rlcore.normalize_probs(weights)),
            "samples": [draw(sizes.flatmap(lambda k: st.lists(scores, min_size=k, max_size=k))) for _ in range(n)],
            "prompt": draw(st.text(printable, max_size=200)), "prefix": draw(st.text(printable, max_size=200)),
            "continuations": draw(st.lists(st.text(printable, max_size=80), min_size=n, max_size=n))}


@st.composite
def payloads(draw) -> str | bytes:
    doc = draw(st.one_of(scenario_docs(), scenario_docs(), valid_docs(), json_values))
    text = json.dumps(doc, ensure_ascii=draw(st.booleans()))  # ensure_ascii=False leaves surrogates raw
    kind = draw(st.sampled_from(["as is", "as is", "as is", "as is", "bomb", "cut"]))
    if kind == "bomb":  # a bracket bomb, alone or in front of the document
        text = draw(st.sampled_from("[{")) * draw(st.integers(3, 50_000)) + draw(st.sampled_from(["", text]))
    elif kind == "cut":  # a cut-off document
        text = text[:draw(st.integers(0, len(text)))]
    if draw(st.sampled_from(["str", "str", "str", "bytes"])) == "bytes":
        # as an uploaded file's bytes; a raw surrogate becomes bytes that are not UTF-8
        return text.encode("utf-8", "surrogatepass")
    return text


def read(payload) -> rlcore.Scenario | None:
    """``from_json``'s verdict: the scenario, or None for a ValueError; any other exception fails the test."""
    try:
        scenario = panel.from_json(payload)
    except ValueError as err:
        assert str(err) and len(str(err)) < 400, str(err)[:400]
        return None
    assert isinstance(scenario, rlcore.Scenario)
    assert panel.from_json(panel.to_json(scenario)) == scenario  # what is accepted can be saved and read back
    assert all(math.isfinite(q) for q in scenario.q)
    return scenario


FAST = dict(deadline=None, derandomize=True, database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])


def check_from_json(examples: int):
    @settings(max_examples=examples, **FAST)
    @seed(20261130)
    @given(payloads())
    def case(payload):
        read(payload)

    case()


def check_pages(path, examples: int):
    """Accepted payloads, shown on one page by one running app (as one learner loading file after file)."""
    at = run_page(path)
    shown = []

    @settings(max_examples=examples, **FAST)
    @seed(20261130)
    @given(st.one_of(valid_docs().map(json.dumps), valid_docs().map(json.dumps), payloads()))
    def case(payload):
        scenario = read(payload)
        if scenario is None:
            return
        at.session_state["scenario"] = scenario
        at.run()
        shown.append(scenario)

    case()
    assert shown, "no payload was accepted: the strategy no longer reaches the pages"


def test_from_json_accepts_or_refuses_with_a_reason():
    check_from_json(150)


@pytest.mark.parametrize("path", shared_out(ALL_PAGES, every=QUICK_SHARE, offset=1, ids=lambda p: p.stem))
def test_accepted_payloads_render_on_every_page(path):
    check_pages(path, 8)


@pytest.mark.exhaustive
def test_from_json_exhaustive():
    check_from_json(4_000)


@pytest.mark.exhaustive
@pytest.mark.parametrize("path", ALL_PAGES, ids=lambda p: p.stem)
def test_pages_exhaustive(path):
    check_pages(path, 60)


# ---------------------------------------------------------------- the accepted edges, on every page of the map
# Every scenario the app accepts can be shown by every page (SECURITY.md). The edges of what the sidebar
# editor, a link or an uploaded file lets in go to every page of ``ui.nav`` the way a visitor sends them
# (``?scn=`` in the link), and each page is shown as it first appears, after every "Just show me", and with
# each of its sliders at its largest value. Shown means: no exception and no ``st.error``. On these pages an
# ``st.error`` comes from ``ui.page.run`` ("That input can't be used: ...", rlcore refusing what the page
# passed it) or from a page giving up, so either means an accepted scenario the page cannot show. Warnings and
# infos are deliberate notices (a dead group, a run that diverged, a token that can never be sampled).

NAV_PAGES = [ROOT / p.path for p in nav.PAGES]
ARTICLE = rlcore.ARTICLE_SCENARIO
LONG = [f"{'x' * 21}{i:03d}" for i in range(6)]  # six names of 24 characters


def added(scenario: rlcore.Scenario) -> rlcore.Scenario:
    """``scenario`` after the editor's Add: a new token with probability 0 and score 5."""
    return rlcore.Scenario(tokens=(*scenario.tokens, "token1"), probs=(*scenario.probs, 0.0),
                           samples=(*scenario.samples, (5.0,)), prompt=scenario.prompt, prefix=scenario.prefix,
                           continuations=(*scenario.continuations, ""))


EDGES = {
    "add-gives-prob-0": added(ARTICLE),
    "first-token-prob-0": rlcore.Scenario(tokens=("a", "b", "c"), probs=(0.0, 0.6, 0.4),
                                          samples=((9.0,), (1.0, 2.0), (5.0, 3.0))),
    "prob-1-one-score": rlcore.Scenario(tokens=("sure", "never"), probs=(1.0, 0.0), samples=((5.0,), (1.0, 9.0))),
    "prob-1-others-zero": rlcore.Scenario(tokens=("a", "b", "c"), probs=(0.0, 1.0, 0.0),
                                          samples=((1.0, 2.0), (4.0, 6.0), (9.0,))),
    "one-score-each": rlcore.Scenario(tokens=("a", "b", "c"), probs=(0.5, 0.3, 0.2), samples=((2.0,), (5.0,), (9.0,))),
    "scores-0-and-1e4": rlcore.Scenario(tokens=("low", "high"), probs=(0.5, 0.5), samples=((0.0,), (10_000.0,))),
    "scores-0-and-1e6": rlcore.Scenario(tokens=("low", "mid", "high"), probs=(0.2, 0.3, 0.5),
                                        samples=((0.0,), (1.0,), (1e6,))),
    "all-scores-equal": rlcore.Scenario(tokens=("a", "b"), probs=(0.5, 0.5), samples=((3.0, 3.0), (3.0,))),
    "tiny-prob": rlcore.Scenario(tokens=("rare", "common"), probs=(1e-300, 1.0), samples=((10.0,), (0.0, 1.0))),
    "max-tokens-names-scores": rlcore.Scenario(
        tokens=tuple(LONG), probs=(0.0, 0.2, 0.2, 0.2, 0.2, 0.2),
        samples=tuple(tuple(float((i * 7 + j) % 2 * 1e6) for j in range(rlcore.example.MAX_SAMPLES))
                      for i in range(6))),
}


def test_the_edges_are_what_the_app_accepts():
    """Each edge scenario is accepted by the link and file reader, so a visitor can send it."""
    for name, scenario in EDGES.items():
        assert panel.from_json(panel.to_json(scenario)) == scenario, name


def errors(at) -> list[str]:
    return [e.value for e in at.error]


def shown(at, name: str, when: str) -> None:
    assert not errors(at), (name, when, errors(at))


def sliders_at_max(at):
    """Every slider of the page itself (not the sidebar's) at its largest value: the most steps, the most drift."""
    for s in [s for s in at.slider if s.key and "." in s.key and not isinstance(s.value, tuple)]:
        at.slider(key=s.key).set_value(int(s.max) if isinstance(s.value, int) else s.max)
    return at.run()


def sweep(path, scenarios: dict) -> None:
    for name, scenario in scenarios.items():
        at = run_page(path, query={panel.URL_KEY: panel.to_json(scenario, indent=None)})
        shown(at, name, "as it opens")
        if has_scenario(path):  # the glossary and the tiny model's page have none
            assert at.session_state[panel.STATE] == scenario, (name, [w.value for w in at.warning])
        shown(show_all(at), name, "after Just show me")
        shown(sliders_at_max(at), name, "with every slider at its max")


def edge_share(path) -> dict:
    """One of the edges for a page, chosen by its id, different pages taking different ones (the exhaustive suite
    sends every edge to every page). The quick suite takes the pages of even slot; their slots' high bits
    (slot >> 16) meet all ten edges with today's pages, and a new page can only add to that."""
    name = list(EDGES)[(slot(path.stem) >> 16) % len(EDGES)]
    return {name: EDGES[name]}


@pytest.mark.parametrize("path", shared_out(NAV_PAGES, every=3, ids=lambda p: p.stem))
def test_every_page_shows_its_share_of_the_accepted_edges(path):
    sweep(path, edge_share(path))


@pytest.mark.exhaustive
@pytest.mark.parametrize("path", NAV_PAGES, ids=lambda p: p.stem)
def test_every_page_shows_every_accepted_edge(path):
    sweep(path, EDGES)


@pytest.mark.parametrize("path", [ROOT / "pages" / "13_KL_gradients.py", ROOT / "pages" / "12_Recipe_composer.py"],
                         ids=lambda p: p.stem)
def test_the_editors_add_button_gives_a_scenario_every_page_shows(path):
    """Add in the sidebar editor (a new token at probability 0) once made KL gradients refuse the scenario."""
    at = edit_scenario(run_page(path), "token", 0, "open")  # opens the editor
    at.button(key=panel.key("add", "new")).click().run()
    assert at.session_state[panel.STATE] == added(ARTICLE)
    shown(at, "Add", "after Add")
    shown(sliders_at_max(show_all(at)), "Add", "after Add, revealed, sliders at max")
