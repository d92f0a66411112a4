"""ui.scrub: a chart's spec gains a range input bound to a parameter over the grid, and a filter on every view
whose data holds the grid's column; the table under it holds the rows the chart shows at rest."""

from __future__ import annotations

import math

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


class Datum(dict):
    """A row as Vega's expressions read it: ``datum["g"]`` and ``datum.g``."""

    __getattr__ = dict.__getitem__


def vega(expr: str, datum: dict, signals: dict):
    """One of ui.scrub's Vega expressions evaluated in Python (its few forms: ``datum["f"]``, ``datum.f``, ``round``,
    ``abs``, ``===``, ``true`` and one ``a ? b : c``); ``signals``: the parameters' values by name."""
    py = expr.replace("===", "==").replace("true", "True")
    cond, ternary, rest = py.partition(" ? ")
    if ternary:
        yes, no = rest.split(" : ", 1)
        py = f"({yes}) if ({cond}) else ({no})"
    return eval(py, {"round": lambda x: math.floor(x + 0.5), "abs": abs, "datum": Datum(datum), **signals})


def shown_by_vega(out: dict, df: pd.DataFrame, at: float) -> pd.DataFrame:
    """The rows of ``df`` the scrubbed view of ``out`` (``scrubbed``) keeps with its input at ``at``: its transforms
    run in order, each row's place computed once, the input's own place computed from ``at``."""
    (transforms,) = [v["transform"] for v in views(out) if v.get("transform")]
    signals = {scrub.PARAM: at}
    signals |= {p["name"]: vega(p["expr"], {}, signals) for p in out["params"] if "expr" in p}
    rows = [dict(r) for r in df.to_dict("records")]
    for step in transforms:
        if "calculate" in step:
            for r in rows:
                r[step["as"]] = vega(step["calculate"], r, signals)
        else:
            rows = [r for r in rows if vega(step["filter"], r, signals)]
    return pd.DataFrame(rows, columns=[*df.columns, f"{scrub.PARAM}{scrub.AT}"])


def test_the_input_spans_the_grid_and_starts_at_the_committed_value():
    out = scrubbed(curves(), 0.5)
    (param,) = [p for p in out["params"] if "bind" in p]
    assert param["name"] == scrub.PARAM and param["value"] == 0.5
    assert param["bind"] | {"name": None} == {"input": "range", "min": 0.0, "max": 1.0, "step": 0.25, "name": None}
    filtered = [v for v in views(out) if v.get("transform")]
    assert len(filtered) == 1 and "scrub" in filtered[0]["transform"][1]["filter"]  # the lines, not the fixed rule
    assert set(out["datasets"]) == {"explorer_0", "explorer_1"}


@pytest.mark.parametrize("committed", [0.5, 0.3])
def test_the_browser_keeps_the_rows_of_the_grid_point_the_input_holds(committed):
    """At rest the chart shows the rows of the table under it (``rows_at``); moved to a grid point, that point's rows;
    off the grid, the committed value's exact rows stand in for the grid point nearest it (0.3 for 0.25)."""
    df = curves(committed if committed not in GRID else None)
    out = scrubbed(df, committed)
    (start,) = [p["value"] for p in out["params"] if "bind" in p]  # where the input starts
    at_rest = shown_by_vega(out, df, start)
    pd.testing.assert_frame_equal(at_rest.drop(columns=[scrub.EXACT, f"{scrub.PARAM}{scrub.AT}"]),
                                  scrub.rows_at(df, field="g", grid=GRID, value=committed).reset_index(drop=True))
    for g in GRID:
        shown = shown_by_vega(out, df, float(g))
        stands_in = committed not in GRID and abs(g - committed) < 0.125
        assert len(shown) == 3 and (shown["g"] == (committed if stands_in else g)).all(), (g, shown)


def test_off_the_grid_the_exact_rows_stand_in_for_the_nearest_point():
    row, here = scrub.index_exprs("g", 0.0, 0.25, 0.3, exact=True)
    assert "exact" in row and "0.3" in here
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
    bound = [p for p in out["params"] if "bind" in p]
    assert [p["name"] for p in bound] == [scrub.PARAM, scrub.PARAM2]
    assert bound[1]["bind"] | {"name": None} == {"input": "range", "min": 0.0, "max": 1.0, "step": 1.0,
                                                 "name": None} and bound[1]["value"] == 0.4
    filters = sorted(len(v["transform"]) for v in views(out) if v.get("transform"))
    assert filters == [2, 4]  # the notes by h alone, the lines by g and by h (each a row's place, then a filter)
    at_rest = scrub.rows_at(df, field="g", grid=GRID, value=0.5, also=scrub.Input("h", [0.0, 1.0], 0.4, "h"))
    assert len(at_rest) == 2 and (at_rest["g"] == 0.5).all() and (at_rest["h"] == 0.4).all()
    assert scrub.EXACT2 not in at_rest
    h = scrub.Input("h", [0.0, 1.0], 1.0, "h")
    on_grid = scrub.rows_at(two_inputs(1.0), field="g", grid=GRID, value=0.25, also=h)
    assert len(on_grid) == 2 and (on_grid["g"] == 0.25).all() and (on_grid["h"] == 1.0).all()


def test_frame_lays_out_a_study_at_many_values_row_by_row():
    values, exact = scrub.at([0.0, 0.5, 1.0], 0.75, 0.0, 1.0)
    assert values == (0.0, 0.5, 1.0, 0.75) and exact.tolist() == [False, False, False, True]
    keep = np.array([[True, True], [True, False], [True, True], [False, True]])
    df = scrub.frame("b", values, exact, keep, x=np.arange(8.0).reshape(4, 2), name="k", per=[1, 2, 3, 4])
    assert list(df.columns) == ["b", "x", "name", "per", scrub.EXACT]
    assert df["b"].tolist() == [0.0, 0.0, 0.5, 1.0, 1.0, 0.75] and df["x"].tolist() == [0, 1, 2, 4, 5, 7]
    assert df["per"].tolist() == [1, 1, 2, 3, 3, 4] and set(df["name"]) == {"k"}
    assert df[scrub.EXACT].tolist() == [False] * 5 + [True]
    with pytest.raises(ValueError, match="value"):
        scrub.at([0.0, 0.5, 1.0], 1.5, 0.0, 1.0)
