"""Altair's own conversion of a chart recipe, specs made comparable (data written inline), and the colours a
spec gives its labels.

``ui.spec`` converts a recipe's shape once, with named datasets and title markers, and refills it. The
reference here is what Altair itself makes of the same recipe: the real DataFrames and titles, Altair's
default data transformer, no theme (as ``ui.spec`` applies none), no cache.
"""

from __future__ import annotations

import json
import re

import altair as alt
import pandas as pd


def inline(spec: dict) -> dict:
    """The spec with every named dataset written in place as ``{"values": records}``, and no ``datasets``."""
    records = {name: alt.to_values(d)["values"] if isinstance(d, pd.DataFrame) else d
               for name, d in spec.get("datasets", {}).items()}

    def walk(node):
        if isinstance(node, dict):
            data = node.get("data")
            out = {k: walk(v) for k, v in node.items() if k != "datasets"}
            if isinstance(data, dict) and set(data) == {"name"}:
                out["data"] = {"values": records[data["name"]]}  # KeyError: a dataset the spec does not carry
            return out
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(spec)


def reference(recipe) -> dict:
    """Altair's own spec of a recipe (``inline``), with the recipe's real DataFrames and titles."""
    # no row limit: a scrubbed chart (ui.scrub) carries its rows for every value of its grid, over Altair's 5,000
    with alt.theme.enable("none"), alt.data_transformers.enable("default", max_rows=None):
        return inline(recipe.altair().to_dict(validate=False))


def assert_same_as_altair(spec: dict, recipe) -> None:
    """``spec`` (from ``ui.spec.vega_lite``) shows what Altair's own conversion of ``recipe`` shows."""
    assert inline(spec) == reference(recipe)


def subspecs(spec):
    """The spec and every view nested in it (layers, concatenations, facets)."""
    if isinstance(spec, dict):
        yield spec
        for key in ("layer", "hconcat", "vconcat", "concat", "spec"):
            value = spec.get(key)
            for sub in (value if isinstance(value, list) else [value] if value else []):
                yield from subspecs(sub)


_JOINED = re.compile(r"join\((\[.*?\]), ''\)")


def _spelled(expr: str) -> list[str]:
    """The names a Vega expression spells out one character at a time (``ui.charts._names``)."""
    return ["".join(json.loads(m)) for m in _JOINED.findall(expr)]


def colours(spec: dict) -> list[tuple[str, dict | None]]:
    """Every colour scale of a chart as (kind, {label: colour}): kind "token" for a scale over tokens by position
    (labels: the token names the chart spells out for that field), "method" for one over labels, "flag" for one
    over True/False (a highlighted mark), "implicit" (and
    None) for a scale with no domain, which would colour by the order of the data."""
    positions = {}  # hidden position field -> the token names, in order
    for view in subspecs(spec):
        for t in view.get("transform", []):
            if "calculate" in t and t["as"].endswith("_position"):
                positions[t["as"]] = _spelled(t["calculate"])
    out = []
    for view in subspecs(spec):
        color = view.get("encoding", {}).get("color")
        if not isinstance(color, dict) or "field" not in color or color.get("scale", {}) is None:
            continue  # a constant colour, or colours written in the data (scale: null)
        scale = color.get("scale", {})
        if "domain" not in scale:
            out.append(("implicit", None))
        elif color["field"] in positions:
            names = positions[color["field"]]
            out.append(("token", {names[i]: c for i, c in zip(scale["domain"], scale["range"], strict=True)}))
        elif any(isinstance(v, bool) for v in scale["domain"]):
            out.append(("flag", dict(zip(map(str, scale["domain"]), scale["range"], strict=True))))
        else:
            out.append(("method", dict(zip(scale["domain"], scale["range"], strict=True))))
    return out
