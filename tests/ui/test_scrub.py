"""ui.scrub: a chart's spec gains a range input bound to a parameter over the grid, and a filter on every view
whose data holds the grid's column; the table under it holds the rows the chart shows at rest."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.rejects import rejects
from ui import charts, scrub, spec

GRID = np.round(np.arange(0.0, 1.0001, 0.25), 2)  # 0, 0.25, 0.5, 0.75, 1


def curves(value: float | None = None) -> pd.DataFrame:
    """A line per grid value (y = g·x), and the committed value's own line where it is off the grid."""
    gs = [*GRID, *([value] if value is not None else [])]
    return pd.DataFrame([{"x": x, "y": g * x, "g": g, "s": "line", scrub.EXACT: value is not None and g == value}
                         for g in gs for x in (0.0, 1.0, 2.0)])


def scrubbed(df, value):
    key, axes = charts.Key("s", colors={"line": "#000"}), charts.Axes("x", "y")
    ch = charts.layer(charts.lines(df, x="x", y="y", key=key, axes=axes),
                      charts.rules(pd.DataFrame({"at": [1.0], "label": ["fixed"]}), at="at", label="label", axis="x"),
                      title="t")
    return scrub.bind(spec.vega_lite(ch), field="g", grid=GRID, value=value, label="g")


def views(node, out=None):
    out = [] if out is None else out
    if isinstance(node, dict):
        if "data" in node:
            out.append(node)
        for key in ("layer", "vconcat", "hconcat", "concat"):
            for child in node.get(key, []):
                views(child, out)
    return out


def test_the_input_spans_the_grid_and_starts_at_the_committed_value():
    out = scrubbed(curves(), 0.5)
    (param,) = out["params"]
    assert param["name"] == scrub.PARAM and param["value"] == 0.5
    assert param["bind"] | {"name": None} == {"input": "range", "min": 0.0, "max": 1.0, "step": 0.25, "name": None}
    filtered = [v for v in views(out) if v.get("transform")]
    assert len(filtered) == 1 and "scrub" in filtered[0]["transform"][0]["filter"]  # the lines, not the fixed rule
    assert set(out["datasets"]) == {"explorer_0", "explorer_1"}


def test_off_the_grid_the_exact_rows_stand_in_for_the_nearest_point():
    expr = scrub.filter_expr("g", 0.25, 0.3, exact=True)
    assert "exact" in expr and "0.3" in expr
    df = curves(0.3)
    at_rest = scrub.rows_at(df, field="g", grid=GRID, value=0.3)
    assert (at_rest["g"] == 0.3).all() and len(at_rest) == 3 and scrub.EXACT not in at_rest
    on_grid = scrub.rows_at(curves(), field="g", grid=GRID, value=0.75)
    assert (on_grid["g"] == 0.75).all() and len(on_grid) == 3


@pytest.mark.parametrize("grid", [[0.5], [0.0, 0.5, 0.6], [1.0, 0.5], [0.0, float("nan")]])
def test_a_grid_that_is_not_uniform_and_ascending_is_refused_by_name(grid):
    rejects(lambda: scrub.grid_step(grid), "grid")


def test_a_value_off_the_range_or_a_field_in_no_dataset_is_refused():
    rejects(lambda: scrubbed(curves(), 1.5), "value")
    ch = charts.lines(curves(), x="x", y="y", key=charts.Key("s", colors={"line": "#000"}), axes=charts.Axes("x", "y"))
    rejects(lambda: scrub.bind(spec.vega_lite(ch), field="nope", grid=GRID, value=0.5, label="g"), "field")


def test_rows_without_the_grid_column_are_kept_at_rest_and_steps_are_the_sliders():
    moving = curves()
    fixed = pd.DataFrame({"x": [0.0, 2.0], "y": [1.0, 1.0], "s": "fixed"})  # a layer that does not move: no "g"
    at_rest = scrub.rows_at(pd.concat([fixed, moving], ignore_index=True), field="g", grid=GRID, value=0.5)
    assert sorted(at_rest["s"]) == ["fixed"] * 2 + ["line"] * 3 and (at_rest["g"].dropna() == 0.5).all()
    assert scrub.steps(0.0, 1.0, 0.25) == tuple(GRID.tolist())
    assert scrub.steps(0.1, 3.0, 0.1)[-1] == 3.0 and len(scrub.steps(0.1, 3.0, 0.1)) == 30  # decimals, not drift


def two_inputs(h_value: float) -> pd.DataFrame:
    """A line per (g, h) of the grids (y = g·x + h), and, where ``h_value`` is off its grid, a line per g at it."""
    hs = [0.0, 1.0, *([h_value] if h_value not in (0.0, 1.0) else [])]
    return pd.DataFrame([{"x": x, "y": g * x + h, "g": g, "h": h, "s": "line", scrub.EXACT: False,
                          scrub.EXACT2: h not in (0.0, 1.0)} for g in GRID for h in hs for x in (0.0, 1.0)])


def test_a_second_input_gets_its_own_range_input_and_filter_and_its_own_exact_rows():
    df = two_inputs(0.4)
    notes = pd.DataFrame({"h": [0.0, 1.0, 0.4], scrub.EXACT2: [False, False, True], "label": ["0", "1", "0.4"]})
    key, axes = charts.Key("s", colors={"line": "#000"}), charts.Axes("x", "y")
    ch = charts.layer(charts.lines(df, x="x", y="y", key=key, axes=axes), charts.note(notes, text="label"), title="t")
    out = scrub.bind(spec.vega_lite(ch), field="g", grid=GRID, value=0.5, label="g",
                     also=scrub.Input("h", [0.0, 1.0], 0.4, "h"))
    assert [p["name"] for p in out["params"]] == [scrub.PARAM, scrub.PARAM2]
    assert out["params"][1]["bind"] | {"name": None} == {"input": "range", "min": 0.0, "max": 1.0, "step": 1.0,
                                                         "name": None} and out["params"][1]["value"] == 0.4
    filters = sorted(len(v["transform"]) for v in views(out) if v.get("transform"))
    assert filters == [1, 2]  # the notes by h alone, the lines by g and by h
    at_rest = scrub.rows_at(df, field="g", grid=GRID, value=0.5, also=scrub.Input("h", [0.0, 1.0], 0.4, "h"))
    assert len(at_rest) == 2 and (at_rest["g"] == 0.5).all() and (at_rest["h"] == 0.4).all()
    assert scrub.EXACT2 not in at_rest
    h = scrub.Input("h", [0.0, 1.0], 1.0, "h")
    on_grid = scrub.rows_at(two_inputs(1.0), field="g", grid=GRID, value=0.25, also=h)
    assert len(on_grid) == 2 and (on_grid["g"] == 0.25).all() and (on_grid["h"] == 1.0).all()
