"""ui.spec: a chart's shape is converted once; data and titles are filled in afresh on every call."""

from __future__ import annotations

import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import altair as alt
import numpy as np
import pandas as pd
import pytest
from chartref import assert_same_as_altair

from ui import charts, spec


@pytest.fixture
def conversions(monkeypatch):
    """Count the Altair → Vega-Lite conversions (the expensive step the cache saves)."""
    spec._template.clear()
    calls = []
    real = spec.altair_to_dict

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(spec, "altair_to_dict", counted)
    return calls


def bars(values, title, tokens=("a", "b", "c")):
    df = pd.DataFrame({"token": list(tokens), "p": values})
    return charts.token_bars(df, value="p", title=title, value_title="probability", tokens=tokens)


def test_new_data_and_titles_reuse_one_conversion(conversions):
    first = spec.vega_lite(bars([0.5, 0.3, 0.2], "at τ = 1"))
    second = spec.vega_lite(bars([0.1, 0.1, 0.8], "at τ = 2.5"))
    assert len(conversions) == 1
    assert second["title"]["text"] == "at τ = 2.5" and first["title"]["text"] == "at τ = 1"
    assert list(second["datasets"]["explorer_0"]["p"]) == [0.1, 0.1, 0.8]
    assert_same_as_altair(second, bars([0.1, 0.1, 0.8], "at τ = 2.5"))


def test_a_new_shape_is_converted_again(conversions):
    spec.vega_lite(bars([0.5, 0.3, 0.2], "t"))
    spec.vega_lite(bars([0.5, 0.5], "t", tokens=("a", "b")))  # other tokens: another sort order and colours
    spec.vega_lite(bars([1, 0, 0], "t"))  # integer column: another type
    assert len(conversions) == 3


def test_a_title_that_is_empty_is_part_of_the_shape(conversions):
    df = pd.DataFrame({"x": [1.0, 2.0], "y": [3.0, 4.0], "s": ["a", "b"]})
    made = {legend: charts.line_chart(df, x="x", y="y", series="s", title="t", x_title="x", y_title="y",
                                      legend_title=legend) for legend in ("", "series", "other")}
    out = {legend: spec.vega_lite(chart) for legend, chart in made.items()}
    assert len(conversions) == 2  # "" means no legend title; "series" and "other" share a shape
    for legend, chart in made.items():
        assert_same_as_altair(out[legend], chart)



def test_a_new_scale_domain_reuses_one_conversion(conversions):
    """A page may set a scale's range from its data (the lab's score axis): like a title, never part of the shape."""
    df = pd.DataFrame({"x": [1.0, 2.0], "y": [3.0, 4.0], "s": ["a", "b"]})
    made = [charts.line_chart(df, x="x", y="y", series="s", title="t", x_title="x", y_title="y", y_domain=domain)
            for domain in ([0, 10], [4.3, 9.6], (np.float64(2.5), np.float64(7.25)))]
    out = [spec.vega_lite(chart) for chart in made]
    assert len(conversions) == 1
    assert [o["layer"][0]["encoding"]["y"]["scale"]["domain"] for o in out] == [[0, 10], [4.3, 9.6], [2.5, 7.25]]
    for o, chart in zip(out, made, strict=True):
        assert_same_as_altair(o, chart)
    spec.vega_lite(charts.line_chart(df, x="x", y="y", series="s", title="t", x_title="x", y_title="y",
                                     y_domain=[0, 5, 10]))
    assert len(conversions) == 2  # three numbers: another shape

def test_an_option_that_cannot_be_a_key_is_converted_without_the_cache(conversions):
    df = pd.DataFrame({"token": ["a", "b"], "p": [0.4, 0.6]})
    chart = charts.token_bars(df, value="p", title="t", value_title="p", tokens=("a", "b"), domain=np.array([0.0, 1.0]))
    out = spec.vega_lite(chart)
    spec.vega_lite(chart)
    assert len(conversions) == 2  # each call converts afresh
    assert_same_as_altair(out, chart)


def test_text_that_looks_like_a_title_marker_is_never_replaced(conversions):
    """A marker is a private-use character and a number; typed text may hold the same (a token name)."""
    odd = ("\ue0000", "b")  # a token named like the marker of the first title
    chart = bars([0.5, 0.5], "\ue0001", tokens=odd)  # and a title named like the marker of the second
    out = spec.vega_lite(chart)
    assert out["title"]["text"] == "\ue0001"
    assert_same_as_altair(out, chart)


def test_the_same_frame_twice_is_one_dataset():
    df = pd.DataFrame({"at": [0.5], "label": ["V"]})
    out = spec.vega_lite(charts.layer(charts.rules(df, at="at", label="label"),
                                      charts.rules(df, at="at", label="label", axis="x")))
    assert [n for n in out["datasets"] if n.startswith("explorer_")] == ["explorer_0"]


def test_a_conversion_leaves_altairs_global_settings_alone():
    before = (alt.data_transformers.active, alt.theme.active, alt.data_transformers.names())
    spec._template.clear()
    spec.vega_lite(bars([0.2, 0.3, 0.5], "t"))
    assert (alt.data_transformers.active, alt.theme.active, alt.data_transformers.names()) == before


def named_data(node) -> set[str]:
    """The names of the datasets a spec reads."""
    if isinstance(node, dict):
        data = node.get("data")
        own = {data["name"]} if isinstance(data, dict) and "name" in data else set()
        return own.union(*(named_data(v) for k, v in node.items() if k != "datasets"))
    if isinstance(node, list):
        return set().union(*(named_data(v) for v in node))
    return set()


def title_texts(node) -> list[str]:
    """The text of every chart title in a spec (layers included)."""
    if isinstance(node, dict):
        own = [node["title"]["text"]] if isinstance(node.get("title"), dict) and "text" in node["title"] else []
        return own + [t for k, v in node.items() if k != "datasets" for t in title_texts(v)]
    if isinstance(node, list):
        return [t for v in node for t in title_texts(v)]
    return []


def random_chart(rng: random.Random):
    """A chart of one of several shapes on fresh random data: (recipe, its DataFrames in order, its title)."""
    title = f"chart {rng.random():.6f}"
    kind = rng.randrange(4)
    if kind == 0:
        n = rng.choice([2, 3])
        tokens = tuple("abc"[:n])
        df = pd.DataFrame({"token": list(tokens), "p": [rng.random() for _ in tokens]})
        return charts.token_bars(df, value="p", title=title, value_title="p", tokens=tokens), [df], title
    if kind == 1:
        df = pd.DataFrame({"x": [0.0, 1.0, 2.0] * 2, "y": [rng.random() for _ in range(6)], "s": ["u"] * 3 + ["v"] * 3})
        rule = pd.DataFrame({"at": [rng.random()], "label": [f"r{rng.randrange(99)}"]})
        chart = charts.layer(charts.line_chart(df, x="x", y="y", series="s", title=title, x_title="x", y_title="y"),
                             charts.rules(rule, at="at", label="label"))
        return chart, [df, rule], title
    if kind == 2:
        df = pd.DataFrame({"label": ["The", "answer", "is"], "position": [0, 1, 2],
                           "v": [rng.random() for _ in range(3)]})
        return charts.answer_strip(df, value="v", title=title, y_title="v"), [df], title
    df = pd.DataFrame({"step": [0, 1] * 2, "m": [rng.random() for _ in range(4)], "lo": [0.0] * 4, "hi": [1.0] * 4,
                       "token": ["a", "a", "b", "b"]})
    chart = charts.band_chart(df, x="step", mid="m", low="lo", high="hi", series="token", tokens=("a", "b"),
                              title=title, x_title="step", y_title="p")
    return chart, [df], title


def test_conversions_from_many_threads_each_carry_their_own_data():
    """Eight threads convert charts of several shapes at once, starting with an empty cache, for about two seconds.

    Every spec must read only datasets it carries, carry no other, hold the caller's own DataFrames
    under the names it reads, and show the caller's own title.
    """
    spec._template.clear()
    deadline = time.perf_counter() + 2.0
    start = threading.Barrier(8)
    problems: list[str] = []

    def convert(seed: int) -> int:
        rng, done = random.Random(seed), 0
        start.wait()
        while time.perf_counter() < deadline and done < 2_000:
            chart, frames, title = random_chart(rng)
            out = spec.vega_lite(chart)
            names = named_data(out)
            if names != set(out["datasets"]):
                problems.append(f"reads {sorted(names)}, carries {sorted(out['datasets'])}")
            for i, df in enumerate(frames):
                if out["datasets"].get(spec.dataset_name(i)) is not df:
                    problems.append(f"dataset {i} is not the caller's DataFrame")
            if title_texts(out) != [title]:
                problems.append(f"titles {title_texts(out)}, expected {title!r}")
            done += 1
        return done

    with ThreadPoolExecutor(max_workers=8) as pool:
        counts = list(pool.map(convert, range(8)))
    assert not problems, problems[:5]
    assert min(counts) >= 10, counts  # every thread really converted charts while the others did
