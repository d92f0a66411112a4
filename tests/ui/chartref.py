"""Altair's own conversion of a chart recipe, and specs made comparable: data written inline.

``ui.spec`` converts a recipe's shape once, with named datasets and title markers, and refills it. The
reference here is what Altair itself makes of the same recipe: the real DataFrames and titles, Altair's
default data transformer, no theme (as ``ui.spec`` applies none), no cache.
"""

from __future__ import annotations

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
    with alt.theme.enable("none"), alt.data_transformers.enable("default"):
        return inline(recipe.altair().to_dict(validate=False))


def assert_same_as_altair(spec: dict, recipe) -> None:
    """``spec`` (from ``ui.spec.vega_lite``) shows what Altair's own conversion of ``recipe`` shows."""
    assert inline(spec) == reference(recipe)
