"""ui.spec: a chart's shape is converted once; data and titles are filled in afresh on every call."""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor

import altair as alt
import numpy as np
import pandas as pd
import pytest

from tests.apphelp import spec_items
from tests.ui.chartref import assert_same_as_altair
from ui import charts, spec
from ui import colors as palette


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
    return charts.titled(charts.token_bars(df, value="p", tokens=tokens, axes=charts.Axes(y="probability")),
                         title=title)


def test_new_data_and_titles_reuse_one_conversion(conversions):
    first = spec.vega_lite(bars([0.5, 0.3, 0.2], "at τ = 1"))
    second = spec.vega_lite(bars([0.1, 0.1, 0.8], "at τ = 2.5"))
    assert len(conversions) == 1
    assert second["title"]["text"] == "at τ = 2.5" and first["title"]["text"] == "at τ = 1"
    assert list(second["datasets"]["explorer_0"]["p"]) == [0.1, 0.1, 0.8]
    assert_same_as_altair(second, bars([0.1, 0.1, 0.8], "at τ = 2.5"))


def test_a_group_of_arguments_is_live_field_by_field(conversions):
    """Axes' titles and Key's colour labels change without a new conversion; Key's column is shape."""
    df = pd.DataFrame({"answer": ["a #1", "b #1"], "w": [0.5, -0.2], "m": ["GRPO", "PPO"]})

    def grouped(x_title, y_title, names, field="m"):
        frame = df.rename(columns={"m": field})
        return charts.titled(charts.grouped_bars(frame, x="answer", y="w", key=charts.Key(field, colors=dict(
            zip(names, ("#111111", "#222222"), strict=True))), axes=charts.Axes(x_title, y_title)), title="t")

    first = spec.vega_lite(grouped("answer", "weight", ("GRPO", "PPO")))
    second = spec.vega_lite(grouped("回答", "权重", ("甲", "乙")))
    assert len(conversions) == 1
    bars = second["layer"][0]["encoding"]
    assert (bars["x"]["title"], bars["y"]["title"]) == ("回答", "权重")
    assert bars["color"]["scale"]["domain"] == ["甲", "乙"] and first["layer"][0]["encoding"]["x"]["title"] == "answer"
    assert_same_as_altair(second, grouped("回答", "权重", ("甲", "乙")))
    spec.vega_lite(grouped("answer", "weight", ("GRPO", "PPO"), field="method"))  # another column: another shape
    assert len(conversions) == 2


def test_a_new_shape_is_converted_again(conversions):
    spec.vega_lite(bars([0.5, 0.3, 0.2], "t"))
    spec.vega_lite(bars([0.5, 0.5], "t", tokens=("a", "b")))  # other tokens: another sort order and colours
    spec.vega_lite(bars([1, 0, 0], "t"))  # integer column: another type
    assert len(conversions) == 3


LINE = pd.DataFrame({"x": [1.0, 2.0], "y": [3.0, 4.0], "s": ["a", "b"]})


def line(df=LINE, title="t", *, legend_title=None, y_domain=None, colors=None, points=False):
    key = charts.Key("s", colors=colors or palette.method_colors(["a", "b"]), title=legend_title)
    return charts.layer(charts.lines(df, x="x", y="y", key=key, axes=charts.Axes("x", "y", y_domain=y_domain),
                                     points=points), title=title)


PPO, GRPO = palette.METHODS["ppo"], palette.METHODS["grpo"]


@pytest.mark.parametrize(("live", "shape"), [
    # a page may set a scale's range from its data (the lab's score axis): like a title, never part of the shape;
    # three numbers are another shape
    ([{"y_domain": d} for d in ([0, 10], [4.3, 9.6], (np.float64(2.5), np.float64(7.25)))], {"y_domain": [0, 5, 10]}),
    # a colour scale's labels are live (a legend "A = +4.7" follows the scenario); its colours are the shape
    ([{"colors": {"a": PPO, "b": GRPO}},
      {"df": LINE.assign(s=["A = +4.7", "A = −4.7"]), "colors": {"A = +4.7": PPO, "A = −4.7": GRPO}}],
     {"colors": {"a": GRPO, "b": PPO}}),
    # a legend's title is live, but an empty one means no legend title: another shape
    ([{"legend_title": "series"}, {"legend_title": "other"}], {"legend_title": ""}),
], ids=["scale domain", "colour labels", "legend title"])
def test_a_live_value_reuses_one_conversion_and_a_new_shape_is_converted_again(conversions, live, shape):
    made = [line(**kw) for kw in live]
    out = [spec.vega_lite(chart) for chart in made]
    assert len(conversions) == 1
    for o, chart in zip(out, made, strict=True):  # each its own values, after the others were converted
        assert_same_as_altair(o, chart)
    other = line(**shape)
    assert_same_as_altair(spec.vega_lite(other), other)
    assert len(conversions) == 2


def test_an_argument_not_declared_live_is_part_of_the_shape(conversions):
    spec.vega_lite(line(points=False))
    spec.vega_lite(line(points=True))
    spec.vega_lite(line(points=True, title="another title"))
    assert len(conversions) == 2
    assert charts.lines.live == {"key", "axes", "dash_order"}  # titles, domains, colour and dash labels; points: shape

def test_an_option_that_cannot_be_a_key_is_converted_without_the_cache(conversions):
    df = pd.DataFrame({"token": ["a", "b"], "p": [0.4, 0.6]})
    chart = charts.token_bars(df, value="p", tokens=("a", "b"), axes=charts.Axes(y="p", y_domain=np.array([0.0, 1.0])))
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
    return {v["data"]["name"] for _, v in spec_items({"": node})
            if isinstance(v, dict) and isinstance(v.get("data"), dict) and "name" in v["data"]}


def title_texts(node) -> list[str]:
    """The text of every chart title in a spec (layers included)."""
    return [v["title"]["text"] for _, v in spec_items({"": node})
            if isinstance(v, dict) and isinstance(v.get("title"), dict) and "text" in v["title"]]


def random_chart(rng: random.Random):
    """A chart of one of several shapes on fresh random data: (recipe, its DataFrames in order, its title)."""
    title = f"chart {rng.random():.6f}"
    kind = rng.randrange(4)
    if kind == 0:
        n = rng.choice([2, 3])
        tokens = tuple("abc"[:n])
        df = pd.DataFrame({"token": list(tokens), "p": [rng.random() for _ in tokens]})
        return charts.titled(charts.token_bars(df, value="p", tokens=tokens, axes=charts.Axes(y="p")), title=title), \
            [df], title
    if kind == 1:
        df = pd.DataFrame({"x": [0.0, 1.0, 2.0] * 2, "y": [rng.random() for _ in range(6)], "s": ["u"] * 3 + ["v"] * 3})
        rule = pd.DataFrame({"at": [rng.random()], "label": [f"r{rng.randrange(99)}"]})
        key = charts.Key("s", colors=palette.method_colors(["u", "v"]))
        chart = charts.layer(charts.lines(df, x="x", y="y", key=key, axes=charts.Axes("x", "y")),
                             charts.rules(rule, at="at", label="label"), title=title)
        return chart, [df, rule], title
    if kind == 2:
        df = pd.DataFrame({"label": ["The", "answer", "is"], "position": [0, 1, 2],
                           "v": [rng.random() for _ in range(3)]})
        return charts.titled(charts.answer_strip(df, value="v", axes=charts.Axes(y="v")), title=title), [df], title
    df = pd.DataFrame({"step": [0, 1] * 2, "m": [rng.random() for _ in range(4)], "lo": [0.0] * 4, "hi": [1.0] * 4,
                       "token": ["a", "a", "b", "b"]})
    chart = charts.layer(charts.bands(df, x="step", mid="m", low="lo", high="hi", key=charts.Key("token", ("a", "b")),
                                      axes=charts.Axes("step", "p")), title=title)
    return chart, [df], title


def test_conversions_from_many_threads_each_carry_their_own_data():
    """Eight threads convert 150 charts each of several shapes at once, starting with an empty cache.

    Every spec must read only datasets it carries, carry no other, hold the caller's own DataFrames
    under the names it reads, and show the caller's own title.
    """
    spec._template.clear()
    start = threading.Barrier(8)
    problems: list[str] = []

    def convert(seed: int) -> int:
        rng, done = random.Random(seed), 0
        start.wait()
        while done < 150:
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
    assert counts == [150] * 8, counts


# ------------------------------------------------------------------- what a builder may not do, and how it is caught

@spec.recipe(live=("title",))
def sorted_by_value(df, *, title):
    """Wrong: sorts by the data's values, which a cached shape cannot follow."""
    return alt.Chart(df).mark_bar().encode(x=alt.X("token:N", sort=list(df.sort_values("p")["token"])),
                                           y="p:Q").properties(title=title)


@spec.recipe(live=("title",))
def sized_by_title(df, *, title):
    """Wrong: a long title makes a wider chart, so the shape depends on a live value."""
    return alt.Chart(df).mark_bar().encode(x="token:N", y="p:Q").properties(title=title,
                                                                            width=400 if len(title) > 20 else 200)


@spec.recipe(live=("title",))
def shouted(df, *, title):
    """Wrong: transforms a live value, so the cache would put the caller's own title back unchanged."""
    return alt.Chart(df).mark_bar().encode(x="token:N", y="p:Q").properties(title=title.upper())


DF = pd.DataFrame({"token": ["a", "b"], "p": [0.7, 0.3]})


def test_a_builder_that_reads_its_datas_values_fails_at_once():
    spec._template.clear()
    with pytest.raises(TypeError, match="read the values of its DataFrame"):
        spec.vega_lite(sorted_by_value(DF, title="t"))
    assert sorted_by_value(DF, title="t").altair().to_dict()  # the same builder given real data: no error


@pytest.mark.parametrize("builder", [sized_by_title, shouted], ids=lambda b: b.__name__)
def test_the_check_catches_a_builder_shaped_by_a_live_value_on_its_first_call(builder, monkeypatch):
    spec._template.clear()
    monkeypatch.setattr(spec, "CHECK", True)
    with pytest.raises(spec.StaleChart, match=builder.__name__):
        spec.vega_lite(builder(DF, title="a title longer than twenty characters"))


def test_without_the_check_such_a_builder_serves_a_wrong_chart(monkeypatch):
    """Why the check exists (and runs in the tests): the cache cannot see inside a builder."""
    spec._template.clear()
    monkeypatch.setattr(spec, "CHECK", False)
    long = "a title longer than twenty characters"
    assert spec.vega_lite(sized_by_title(DF, title=long))["width"] == 200  # Altair's own would be 400
    assert sized_by_title(DF, title=long).altair().to_dict()["width"] == 400
    assert spec.vega_lite(shouted(DF, title="quiet"))["title"] == "quiet"  # not "QUIET"


def test_the_checked_builders_pass_the_check(monkeypatch):
    spec._template.clear()
    monkeypatch.setattr(spec, "CHECK", True)
    for title in ("short", "a title longer than twenty characters"):
        spec.vega_lite(bars([0.5, 0.3, 0.2], title))
        key = charts.Key("s", colors=palette.method_colors(["a", "b"]))
        spec.vega_lite(charts.layer(charts.lines(LINE, x="x", y="y", key=key,
                                                 axes=charts.Axes(title, "y", y_domain=[0, len(title)])),
                                    title=title, subtitle=[title, "second line"]))


def test_a_live_argument_of_another_kind_is_refused():
    with pytest.raises(TypeError, match="live argument y_domain"):
        spec.vega_lite(line(y_domain=[{"expr": "0"}, 1]))
