"""Chart recipes, and their conversion to Vega-Lite done once per chart shape.

Building an Altair chart and converting it to a Vega-Lite spec takes 3–30 ms per chart, most of a page
rerun, yet moving a slider usually changes only a chart's data and the numbers in its titles. So the
builders in ``ui.charts`` return a ``Recipe`` (which builder, with which arguments) and ``vega_lite``
converts each chart shape once. The cache key holds plain values only: the builders' names, their options,
and each DataFrame's column names and dtypes; never the data, never the text of a ``*title`` argument nor the
numbers of a ``*domain`` argument (a scale's range, set from the data by some pages). The chart made for the key
reads its k-th DataFrame from the named dataset ``explorer_k`` (``alt.NamedData``) and holds the marker
``"\\ue000k"`` in place of its k-th title or domain; it is converted with ``to_dict(context=
{"top_level": False})``, which reads neither Altair's data transformer nor its theme, so a conversion
touches no global state and needs no lock. Each call then copies the cached spec, puts its own titles and
domains where the markers are, and attaches its own DataFrames under those names: the spec carries exactly the data of
that call, whichever thread converted the shape.

Builders must therefore take everything that shapes the chart from their arguments, never from the
values in a DataFrame, and pass a title argument unchanged to Altair (``tests/ui/test_chart_specs.py``
checks every page's charts against Altair's own, uncached conversion).
"""

from __future__ import annotations

import functools

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

_MARK = "\ue000"  # a private-use character: a marker is this and the number of the live value it stands for


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
        """The plain Altair chart this recipe makes, with its own DataFrames and titles."""
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


def _is_domain(name: str, value) -> bool:
    """A scale's numeric range (``y_domain=[lo, hi]``): a live value like a title, never part of a chart's shape."""
    return (name.endswith("domain") and isinstance(value, (list, tuple)) and len(value) > 0
            and all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in value))


def dataset_name(i: int) -> str:
    """The name under which a spec carries the i-th DataFrame of its recipe (never data_N: Vega's own names)."""
    return f"explorer_{i}"


class _Shape:
    """One walk over a recipe: its cache key, and its DataFrames and live values (titles, domains) in the order
    met."""

    def __init__(self):
        self.frames: list[pd.DataFrame] = []
        self.fills: list = []  # titles and a domain's numbers, in the order of their markers
        self._index: dict[int, int] = {}
        self._named: dict[int, alt.NamedData] = {}
        self._marks = 0
        self.cacheable = True

    def key(self, obj, name: str = ""):
        if isinstance(obj, Recipe):
            return ("recipe", obj.fn.__module__, obj.fn.__qualname__, tuple(self.key(a) for a in obj.args),
                    tuple((k, self.key(v, k)) for k, v in obj.kwargs.items()))
        if isinstance(obj, pd.DataFrame):
            self._check(*map(str, obj.columns))
            i = self._index.setdefault(id(obj), len(self.frames))
            if i == len(self.frames):
                self.frames.append(obj)
            return ("frame", i, tuple(map(str, obj.columns)), tuple(map(str, obj.dtypes)))
        if _is_title(name, obj):
            self.fills.append(obj)
            return ("title",)
        if _is_domain(name, obj):  # one marker per number: a list of strings is a domain Altair accepts
            self.fills.extend(v.item() if isinstance(v, np.generic) else v for v in obj)
            return ("domain", len(obj))
        if isinstance(obj, (list, tuple)):
            return (type(obj).__name__, tuple(self.key(v) for v in obj))
        if isinstance(obj, dict):
            return ("dict", tuple((self.key(k), self.key(v)) for k, v in obj.items()))
        if isinstance(obj, alt.SchemaBase):
            return ("altair", repr(obj))
        if isinstance(obj, np.generic):
            obj = obj.item()
        if isinstance(obj, str):
            self._check(obj)
        if obj is None or isinstance(obj, (str, int, float, bool)):
            return (type(obj).__name__, obj)
        self.cacheable = False  # e.g. a numpy array as a scale domain: this chart is converted afresh
        return ("uncacheable",)

    def _check(self, *texts: str) -> None:
        """Text that could pass for a title marker (a token named so, say) is never cached, so never replaced."""
        if any(t.startswith(_MARK) for t in texts):
            self.cacheable = False

    def build(self, obj, name: str = "", *, named: bool = False, marks: bool = False):
        """The Altair chart. ``named``: each DataFrame becomes its named dataset; ``marks``: each title its marker.

        Call ``key`` first: it numbers the DataFrames.
        """
        if isinstance(obj, Recipe):
            return obj.fn(*(self.build(a, named=named, marks=marks) for a in obj.args),
                          **{k: self.build(v, k, named=named, marks=marks) for k, v in obj.kwargs.items()})
        if named and isinstance(obj, pd.DataFrame):
            i = self._index[id(obj)]  # one object per frame: Altair lifts data that layers share only if identical
            return self._named.setdefault(i, alt.NamedData(name=dataset_name(i)))
        if marks and _is_title(name, obj):
            self._marks += 1
            return f"{_MARK}{self._marks - 1}"
        if marks and _is_domain(name, obj):
            self._marks += len(obj)
            return [f"{_MARK}{i}" for i in range(self._marks - len(obj), self._marks)]
        if isinstance(obj, (list, tuple)):
            return type(obj)(self.build(v, named=named, marks=marks) for v in obj)
        return obj


def altair_to_dict(chart: alt.TopLevelMixin) -> dict:
    """An Altair chart's Vega-Lite spec, converted without Altair's global data transformer or theme.

    Converting as a sub-chart (``top_level: False``) skips the two global steps of ``to_dict``: the
    theme's config and the top-level merge of datasets, which we do here from our own context instead.
    Inline data (a builder's constant) is kept by Altair in that context; a DataFrame would go through
    whatever data transformer is active, so recipes pass named datasets instead. Altair's JSON-schema
    validation (about half of the conversion) is skipped too: ``tests/ui/test_chart_specs.py``
    validates every page's charts instead.
    """
    context: dict = {"top_level": False, "datasets": {}}
    spec = chart.to_dict(validate=False, context=context)
    spec["$schema"] = alt.SCHEMA_URL
    spec["datasets"] = dict(context["datasets"])
    return spec


@st.cache_resource(max_entries=256, show_spinner=False)
def _template(key: str, _recipe: Recipe) -> dict:
    """The spec of one chart shape: named datasets for the recipe's DataFrames, markers for its titles and
    domains."""
    shape = _Shape()
    shape.key(_recipe)
    return altair_to_dict(shape.build(_recipe, named=True, marks=True))


def _fill(node, fills: list):
    """A copy of a cached spec with each marker replaced by its title or domain."""
    if isinstance(node, dict):
        return {k: _fill(v, fills) for k, v in node.items()}
    if isinstance(node, list):
        return [_fill(v, fills) for v in node]
    if isinstance(node, str) and node.startswith(_MARK):
        return fills[int(node[1:])]
    return node


def vega_lite(chart: Recipe | alt.TopLevelMixin) -> dict:
    """The Vega-Lite spec of a recipe (shape converted once, then cached) or of a plain Altair chart."""
    if not isinstance(chart, Recipe):
        return altair_to_dict(chart)
    shape = _Shape()
    key = repr(shape.key(chart))
    if shape.cacheable:
        spec = _fill(_template(key, chart), shape.fills)
    else:  # converted afresh, with the real titles
        spec = altair_to_dict(shape.build(chart, named=True))
    spec["datasets"] = {**{dataset_name(i): df for i, df in enumerate(shape.frames)}, **spec["datasets"]}
    return spec
