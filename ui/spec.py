"""Chart recipes, and their conversion to Vega-Lite done once per chart shape.

The path in one paragraph. Converting an Altair chart to Vega-Lite takes 3–30 ms, most of a page rerun, yet
moving a slider usually changes only a chart's data and the words and numbers in its titles. So a builder in
``ui.charts`` is declared ``@recipe(live=("title", "y_domain", ...))``: calling it returns a ``Recipe`` (which
builder, which arguments), and ``vega_lite`` converts each *shape* once. The shape is everything but the data and
the live arguments: the builder, its other arguments, and each DataFrame's column names and dtypes. A live
argument is a title (a string), a list of numbers or strings (a scale's domain, a subtitle's lines) or a dict
whose keys are live and whose values are shape (labels → colours); when it is None or empty it is shape too. A
group of arguments (``ui.charts.Axes``, ``ui.charts.Key``: a named tuple whose class names its live fields in
``LIVE``) is live field by field, its other fields shape.
The shape is converted with a stand-in for each DataFrame (``alt.NamedData`` ``explorer_k``, whose values cannot
be read) and a marker (``"\\ue000k"``) for each live value; each call copies the cached spec, puts its own live
values where the markers are and attaches its own DataFrames. So a builder must treat live values as opaque
(pass them to Altair unchanged) and never look at its data's values: reading a stand-in's values raises at once,
and with ``CHECK`` on (``EXPLORER_CHECK_CHARTS=1``; ``tests/ui/test_chart_specs.py`` runs every page so) every
cached spec is compared with a fresh conversion of the same call, so a builder that shapes its chart from a live
value fails on its first call.

Conversions use ``to_dict(context={"top_level": False})``, which reads neither Altair's data transformer nor its
theme, so they touch no global state and need no lock.
"""

from __future__ import annotations

import os

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from . import format, i18n

_MARK = "\ue000"  # a private-use character: a marker is this and the number of the live value it stands for
CHECK = os.environ.get("EXPLORER_CHECK_CHARTS") == "1"  # compare every cached spec with a fresh conversion


class Recipe:
    """What a ``ui.charts`` builder returns: the call that makes the Altair chart, not yet made.

    ``recipe.altair()`` makes the chart; ``ui.page.chart`` draws it through the cache below. The
    Altair methods pages use on a finished chart are recorded the same way.
    """

    __slots__ = ("args", "fn", "kwargs", "live")

    def __init__(self, fn, args: tuple = (), kwargs: dict | None = None, live: frozenset = frozenset()):
        self.fn, self.args, self.kwargs, self.live = fn, args, kwargs or {}, live

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
        """The plain Altair chart this recipe makes, with its own DataFrames and live values."""
        return _Shape().build(self)


def _call_method(chart, method: str, **kwargs):
    return getattr(chart, method)(**kwargs)


def recipe(builder=None, *, live: tuple[str, ...] = ()):
    """Decorator for a chart builder: calling it returns a ``Recipe``; ``builder.make`` is the plain builder.

    ``live`` names the keyword arguments that change from call to call without changing the chart's shape
    (titles, a scale's domain, the labels of a colour scale); every other argument is part of the shape.
    """
    def wrap(fn):
        names = frozenset(live)

        def deferred(*args, **kwargs) -> Recipe:
            if isinstance(kwargs.get("subtitle"), str):  # Vega-Lite cuts a long subtitle off at the chart's edge
                kwargs["subtitle"] = format.wrap(kwargs["subtitle"])  # lines that fit a phone's chart
            return Recipe(fn, args, kwargs, names)
        deferred.__name__, deferred.__qualname__, deferred.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
        deferred.__module__, deferred.__wrapped__, deferred.make, deferred.live = fn.__module__, fn, fn, names
        return deferred
    return wrap(builder) if builder is not None else wrap


def dataset_name(i: int) -> str:
    """The name under which a spec carries the i-th DataFrame of its recipe (never data_N: Vega's own names)."""
    return f"explorer_{i}"


_READ = ("a chart builder read the values of its DataFrame, but a chart's shape is cached: take everything that "
         "shapes the chart from the builder's arguments (see ui.spec)")


class ValuesRead(TypeError, AttributeError):
    """A builder asked a stand-in for its data's values (``df["x"]``, ``len(df)``, ``df.sort_values``)."""


class StandIn(alt.NamedData):
    """A DataFrame's place in a cached shape: a named dataset whose values a builder cannot read."""

    def _refuse(self, *args, **kwargs):
        raise ValuesRead(_READ)

    __getitem__ = __len__ = __iter__ = _refuse

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name.startswith("_"):  # Altair probes data for protocols (``__dataframe__``): a plain "no"
                raise
            raise ValuesRead(f"{_READ}: it asked for .{name}") from None


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


def _group(value) -> bool:
    """Whether ``value`` is a group of arguments (``ui.charts.Axes``, ``Key``): a named tuple whose class lists in
    ``LIVE`` the fields that are live; its other fields are part of the shape."""
    return isinstance(value, tuple) and hasattr(type(value), "LIVE") and hasattr(value, "_fields")


def _live_parts(name: str, value) -> list | None:
    """The live values an argument holds (markers go in their place), or None when it is part of the shape."""
    if _group(value):
        parts = [p for field, v in zip(value._fields, value, strict=True) if field in type(value).LIVE
                 for p in (_live_parts(field, v) or [])]
        return parts or None
    if not isinstance(value, (str, list, tuple, dict)) or len(value) == 0:
        return None  # None, empty, or a value no marker can stand for (a numpy array: converted afresh)
    if isinstance(value, str):
        return [value]
    parts = list(value.keys() if isinstance(value, dict) else value)
    if all(isinstance(_plain(v), (str, int, float)) and not isinstance(v, bool) for v in parts):
        return [_plain(v) for v in parts]
    raise TypeError(f"the live argument {name}={value!r} must be a string, a list of numbers or strings, or a dict")


class _Shape:
    """One walk over a recipe: its cache key, and its DataFrames and live values in the order met."""

    def __init__(self):
        self.frames: list[pd.DataFrame] = []
        self.fills: list = []  # the live values, in the order of their markers
        self._index: dict[int, int] = {}
        self._named: dict[int, StandIn] = {}
        self._marks = 0
        self.cacheable = True

    def key(self, obj):
        if isinstance(obj, Recipe):
            return ("recipe", obj.fn.__module__, obj.fn.__qualname__, tuple(self.key(a) for a in obj.args),
                    tuple((k, self._live_key(k, v) if k in obj.live else self.key(v)) for k, v in obj.kwargs.items()))
        if isinstance(obj, pd.DataFrame):
            self._check(*map(str, obj.columns))
            i = self._index.setdefault(id(obj), len(self.frames))
            if i == len(self.frames):
                self.frames.append(obj)
            return ("frame", i, tuple(map(str, obj.columns)), tuple(map(str, obj.dtypes)))
        if isinstance(obj, (list, tuple)):
            return (type(obj).__name__, tuple(self.key(v) for v in obj))
        if isinstance(obj, dict):
            return ("dict", tuple((self.key(k), self.key(v)) for k, v in obj.items()))
        if isinstance(obj, alt.SchemaBase):
            return ("altair", repr(obj))
        obj = _plain(obj)
        if isinstance(obj, str):
            self._check(obj)
        if obj is None or isinstance(obj, (str, int, float, bool)):
            return (type(obj).__name__, obj)
        self.cacheable = False  # e.g. a numpy array as a scale domain: this chart is converted afresh
        return ("uncacheable",)

    def _live_key(self, name: str, value):
        if _group(value):  # each live field as a live argument of its own, the others as shape
            return ("group", type(value).__qualname__, tuple(
                (f, self._live_key(f, v) if f in type(value).LIVE else self.key(v)) for f, v in zip(
                    value._fields, value, strict=True)))
        parts = _live_parts(name, value)
        if parts is None:
            return self.key(value)
        self._check(*(p for p in parts if isinstance(p, str)))
        self.fills.extend(parts)
        shape = self.key(list(value.values())) if isinstance(value, dict) else ()
        kind = "text" if isinstance(value, str) else "dict" if isinstance(value, dict) else "list"  # a tuple: a list
        return ("live", kind, len(parts), shape)

    def _check(self, *texts: str) -> None:
        """Text that could pass for a marker (a token named so, say) is never cached, so never replaced."""
        if any(t.startswith(_MARK) for t in texts):
            self.cacheable = False

    def build(self, obj, *, named: bool = False, marks: bool = False):
        """The Altair chart. ``named``: each DataFrame becomes its stand-in; ``marks``: each live value its marker.

        Call ``key`` first: it numbers the DataFrames.
        """
        if isinstance(obj, Recipe):
            args = [self.build(a, named=named, marks=marks) for a in obj.args]  # in ``key``'s order: args first
            kwargs = {k: self._live(v) if marks and k in obj.live else self.build(v, named=named, marks=marks)
                      for k, v in obj.kwargs.items()}
            return obj.fn(*args, **kwargs)
        if named and isinstance(obj, pd.DataFrame):
            i = self._index[id(obj)]  # one object per frame: Altair lifts data that layers share only if identical
            return self._named.setdefault(i, StandIn(name=dataset_name(i)))
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a named tuple (a group of arguments): field by field
            return type(obj)(*(self.build(v, named=named, marks=marks) for v in obj))
        if isinstance(obj, (list, tuple)):
            return type(obj)(self.build(v, named=named, marks=marks) for v in obj)
        return obj

    def _live(self, value):
        """The value with a marker in place of each live part (in the order ``key`` met them)."""
        if _group(value):
            return value._replace(**{f: self._live(v) for f, v in zip(value._fields, value, strict=True)
                                     if f in type(value).LIVE})
        parts = _live_parts("", value)
        if parts is None:
            return value
        marks = [f"{_MARK}{i}" for i in range(self._marks, self._marks + len(parts))]
        self._marks += len(parts)
        if isinstance(value, str):
            return marks[0]
        if isinstance(value, dict):
            return dict(zip(marks, value.values(), strict=True))
        return type(value)(marks)


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
    """The spec of one chart shape: stand-ins for the recipe's DataFrames, markers for its live values."""
    shape = _Shape()
    shape.key(_recipe)
    return altair_to_dict(shape.build(_recipe, named=True, marks=True))


def _fill(node, fills: list):
    """A copy of a cached spec with each marker replaced by its live value."""
    if isinstance(node, dict):
        return {k: _fill(v, fills) for k, v in node.items()}
    if isinstance(node, list):
        return [_fill(v, fills) for v in node]
    if isinstance(node, str) and node.startswith(_MARK):
        return fills[int(node[1:])]
    return node


class StaleChart(AssertionError):
    """A builder whose cached shape does not fit a call: it shaped its chart from a live value."""


def vega_lite(chart: Recipe | alt.TopLevelMixin) -> dict:
    """The Vega-Lite spec of a recipe (shape converted once, then cached) or of a plain Altair chart."""
    if not isinstance(chart, Recipe):
        return altair_to_dict(chart)
    shape = _Shape()
    key = repr((i18n.current(), shape.key(chart)))  # a builder's fixed words (tooltip titles) are in the language
    if shape.cacheable:
        spec = _fill(_template(key, chart), shape.fills)
        if CHECK and spec != (fresh := altair_to_dict(shape.build(chart, named=True))):
            raise StaleChart(f"{chart.fn.__qualname__}: the cached spec differs from this call's own conversion; "
                             f"a live argument ({', '.join(sorted(chart.live))}) shapes the chart.\n"
                             f"cached: {spec}\nfresh: {fresh}")
    else:  # converted afresh, with the real live values
        spec = altair_to_dict(shape.build(chart, named=True))
    spec["datasets"] = {**{dataset_name(i): df for i, df in enumerate(shape.frames)}, **spec["datasets"]}
    return spec
