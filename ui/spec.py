"""Chart recipes, and their conversion to Vega-Lite done once per chart shape.

Building an Altair chart and converting it to a Vega-Lite spec takes 3–30 ms per chart, most of a
page rerun. Yet moving a slider usually changes only a chart's data and the numbers in its titles,
not its shape. So the builders in ``ui.charts`` return a ``Recipe`` (which builder, on which
DataFrames, with which options) instead of an Altair chart, and ``vega_lite`` converts each shape
once: its cache key holds the builders, their options and the DataFrames' columns, never the data
or the title text; the data and the titles are put into a copy of the cached spec on every rerun.

Builders must therefore take everything that shapes the chart from their arguments, never from the
values in a DataFrame (``tests/test_chart_specs.py`` checks every page's charts against a fresh,
uncached conversion).
"""

from __future__ import annotations

import functools
import re
import secrets
import threading

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

# A title's stand-in while its recipe is converted: private-use characters around a number, with a random
# tag so that no text a learner types (a token name, say) can ever look like one.
_TAG = secrets.token_hex(4)
_MARK = re.compile(f"\ue000{_TAG}:(\\d+)\ue001")


class Recipe:
    """What a ``ui.charts`` builder returns: the call that makes the Altair chart, not yet made.

    ``recipe.altair()`` makes the chart; ``ui.page.chart`` draws it through the cache below. The
    Altair methods pages use on a finished chart are recorded the same way.
    """

    __slots__ = ("args", "fn", "kwargs")

    def __init__(self, fn, args: tuple = (), kwargs: dict | None = None):
        self.fn, self.args, self.kwargs = fn, args, kwargs or {}

    def _then(self, method: str, kwargs: dict) -> Recipe:
        return Recipe(_call_method, (self, method), kwargs)

    def properties(self, **kwargs) -> Recipe:
        return self._then("properties", kwargs)

    def encode(self, **kwargs) -> Recipe:
        return self._then("encode", kwargs)

    def resolve_scale(self, **kwargs) -> Recipe:
        return self._then("resolve_scale", kwargs)

    def configure_axisX(self, **kwargs) -> Recipe:  # Altair's name
        return self._then("configure_axisX", kwargs)

    def altair(self) -> alt.TopLevelMixin:
        """The plain Altair chart this recipe makes."""
        return _Shape().build(self)


def _call_method(chart, method: str, **kwargs):
    return getattr(chart, method)(**kwargs)


def recipe(builder):
    """Decorator for a chart builder: calling it returns a ``Recipe``; ``builder.make`` is the plain builder."""
    @functools.wraps(builder)
    def deferred(*args, **kwargs) -> Recipe:
        return Recipe(builder, args, kwargs)
    deferred.make = builder
    return deferred


def _is_title(name: str, value) -> bool:
    return name.endswith("title") and isinstance(value, str) and value != ""


class _Shape:
    """One walk over a recipe: its cache key, and its DataFrames and titles in the order met."""

    def __init__(self):
        self.frames: list[pd.DataFrame] = []
        self.titles: list[str] = []
        self._index: dict[int, int] = {}
        self._marks = 0
        self.cacheable = True

    def key(self, obj, name: str = ""):
        if isinstance(obj, Recipe):
            return ("recipe", obj.fn.__module__, obj.fn.__qualname__, tuple(self.key(a) for a in obj.args),
                    tuple((k, self.key(v, k)) for k, v in obj.kwargs.items()))
        if isinstance(obj, pd.DataFrame):
            i = self._index.setdefault(id(obj), len(self.frames))
            if i == len(self.frames):
                self.frames.append(obj)
            return ("frame", i, tuple(map(str, obj.columns)), tuple(map(str, obj.dtypes)))
        if _is_title(name, obj):
            self.titles.append(obj)
            return ("title",)
        if isinstance(obj, (list, tuple)):
            return (type(obj).__name__, tuple(self.key(v) for v in obj))
        if isinstance(obj, dict):
            return ("dict", tuple((self.key(k), self.key(v)) for k, v in obj.items()))
        if isinstance(obj, alt.SchemaBase):
            return ("altair", repr(obj))
        if isinstance(obj, np.generic):
            obj = obj.item()
        if obj is None or isinstance(obj, (str, int, float, bool)):
            return (type(obj).__name__, obj)
        self.cacheable = False  # e.g. a numpy array as a scale domain: this chart is converted afresh
        return ("uncacheable",)

    def build(self, obj, name: str = "", *, marks: bool = False):
        """The Altair chart, with the recipe's own DataFrames; titles become stand-ins when ``marks``."""
        if isinstance(obj, Recipe):
            return obj.fn(*(self.build(a, marks=marks) for a in obj.args),
                          **{k: self.build(v, k, marks=marks) for k, v in obj.kwargs.items()})
        if marks and _is_title(name, obj):
            self._marks += 1
            return f"\ue000{_TAG}:{self._marks - 1}\ue001"
        if isinstance(obj, (list, tuple)):
            return type(obj)(self.build(v, marks=marks) for v in obj)
        return obj


# Our lock around Altair's global settings (data transformers) while a chart converts. Pages draw with
# st.vega_lite_chart, so Streamlit never converts an Altair chart itself and its private lock is not needed.
_ALTAIR_LOCK = threading.Lock()


def altair_to_dict(chart: alt.TopLevelMixin, names: dict[int, str] | None = None) -> dict:
    """An Altair chart's Vega-Lite spec, each DataFrame kept whole as a named dataset.

    ``names`` maps ``id(frame)`` to the dataset name to use; other frames are named by their content
    (never data_N: Vega uses those names itself). This is what ``st.altair_chart`` does minus one step,
    Altair's JSON-schema validation of the finished spec (about half of the conversion):
    ``tests/test_chart_specs.py`` validates every page's charts instead.
    """
    names = dict(names or {})
    frames: dict[str, pd.DataFrame] = {}

    def to_named(data):
        if not isinstance(data, pd.DataFrame):
            return data
        if id(data) not in names:
            try:
                digest = int(pd.util.hash_pandas_object(data, index=False).sum()) & 0xFFFFFFFFFFFF
            except TypeError:  # a column of unhashable cells (lists): fall back to the object's id
                digest = id(data)
            names[id(data)] = f"explorer_{digest:x}"
        frames[names[id(data)]] = data
        return {"name": names[id(data)]}

    alt.data_transformers.register("explorer_named", to_named)
    with _ALTAIR_LOCK, alt.data_transformers.enable("explorer_named"), alt.theme.enable("none"):
        spec = chart.to_dict(validate=False)
    spec["datasets"] = frames
    return spec


def _frame_name(i: int) -> str:
    return f"explorer_{i}"


@st.cache_resource(max_entries=256, show_spinner=False)
def _template(key: str, _recipe: Recipe) -> dict:
    """The spec of one chart shape, with title stand-ins and without the recipe's own DataFrames."""
    shape = _Shape()
    shape.key(_recipe)  # collects the frames in the order the key numbered them
    names = _names(shape)
    spec = altair_to_dict(shape.build(_recipe, marks=True), names)
    own = set(names.values())
    spec["datasets"] = {n: df for n, df in spec["datasets"].items() if n not in own}  # builders' constants
    return spec


def _fill(node, titles: list[str]):
    if isinstance(node, dict):
        return {k: _fill(v, titles) for k, v in node.items()}
    if isinstance(node, list):
        return [_fill(v, titles) for v in node]
    if isinstance(node, str) and "\ue000" in node:
        return _MARK.sub(lambda m: titles[int(m[1])], node)
    return node


def _names(shape: _Shape) -> dict[int, str]:
    return {id(f): _frame_name(i) for i, f in enumerate(shape.frames)}


def fresh(chart: Recipe) -> dict:
    """What ``vega_lite`` returns, converted afresh from Altair with the real titles: no cache, no stand-ins."""
    shape = _Shape()
    shape.key(chart)
    return altair_to_dict(chart.altair(), _names(shape))


def vega_lite(chart: Recipe | alt.TopLevelMixin) -> dict:
    """The Vega-Lite spec of a recipe (shape converted once, then cached) or of a plain Altair chart."""
    if not isinstance(chart, Recipe):
        return altair_to_dict(chart)
    shape = _Shape()
    key = repr(shape.key(chart))
    if not shape.cacheable:
        return altair_to_dict(chart.altair(), _names(shape))
    template = _template(key, chart)
    datasets = template["datasets"]
    spec = _fill({k: v for k, v in template.items() if k != "datasets"}, shape.titles)
    spec["datasets"] = {**{_frame_name(i): df for i, df in enumerate(shape.frames)}, **datasets}
    return spec
