"""Fuzz the scenario readers: every payload is refused by ``from_json`` with ValueError, or accepted and then
shown by every page without exception (hypothesis + AppTest).

Payloads: JSON of any shape, scenario-shaped documents with numbers at the float limits, texts from every
Unicode category (surrogates, controls, formatting and unassigned code points included), names taken from
JavaScript's Object.prototype (a chart's data goes through JavaScript), and bracket bombs.

The default run is small (under 40 s on a shared core); ``-m exhaustive`` runs the long version.
"""

from __future__ import annotations

import json
import math

import pytest
from apphelp import ALL_PAGES, no_exception, run_page
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

import rlcore
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
        no_exception(at)
        shown.append(scenario)

    case()
    assert shown, "no payload was accepted: the strategy no longer reaches the pages"


def test_from_json_accepts_or_refuses_with_a_reason():
    check_from_json(150)


@pytest.mark.parametrize("path", ALL_PAGES, ids=lambda p: p.stem)
def test_accepted_payloads_render_on_every_page(path):
    check_pages(path, 8)


@pytest.mark.exhaustive
def test_from_json_exhaustive():
    check_from_json(4_000)


@pytest.mark.exhaustive
@pytest.mark.parametrize("path", ALL_PAGES, ids=lambda p: p.stem)
def test_pages_exhaustive(path):
    check_pages(path, 60)
