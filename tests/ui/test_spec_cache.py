"""ui.spec: a chart's shape is converted once; data and titles are filled in afresh on every call."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

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


def same(a: dict, b: dict) -> None:
    strip = lambda s: json.dumps({k: v for k, v in s.items() if k != "datasets"}, sort_keys=True)  # noqa: E731
    assert strip(a) == strip(b)
    assert a["datasets"].keys() == b["datasets"].keys()
    for name, df in a["datasets"].items():
        pd.testing.assert_frame_equal(df, b["datasets"][name])


def test_new_data_and_titles_reuse_one_conversion(conversions):
    first = spec.vega_lite(bars([0.5, 0.3, 0.2], "at τ = 1"))
    second = spec.vega_lite(bars([0.1, 0.1, 0.8], "at τ = 2.5"))
    assert len(conversions) == 1
    assert second["title"]["text"] == "at τ = 2.5" and first["title"]["text"] == "at τ = 1"
    assert list(second["datasets"]["explorer_0"]["p"]) == [0.1, 0.1, 0.8]
    same(second, spec.fresh(bars([0.1, 0.1, 0.8], "at τ = 2.5")))


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
        same(out[legend], spec.fresh(chart))


def test_an_option_that_cannot_be_a_key_is_converted_without_the_cache(conversions):
    df = pd.DataFrame({"token": ["a", "b"], "p": [0.4, 0.6]})
    chart = charts.token_bars(df, value="p", title="t", value_title="p", tokens=("a", "b"), domain=np.array([0.0, 1.0]))
    out = spec.vega_lite(chart)
    spec.vega_lite(chart)
    assert len(conversions) == 2  # each call converts afresh
    same(out, spec.fresh(chart))


def test_the_same_frame_twice_is_one_dataset():
    df = pd.DataFrame({"at": [0.5], "label": ["V"]})
    out = spec.vega_lite(charts.layer(charts.rules(df, at="at", label="label"),
                                      charts.rules(df, at="at", label="label", axis="x")))
    assert [n for n in out["datasets"] if n.startswith("explorer_") and n[9:].isdigit()] == ["explorer_0"]
