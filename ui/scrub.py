"""Drag and see: a chart whose main input moves in the browser, frame by frame, over a grid a study computed.

A Streamlit widget reports its value to the server, which reruns the script and sends a new chart: a round trip
per move, and since Streamlit 1.5x a slider reports only on release, so nothing moves while a learner drags. A
scrubbed chart carries its curve for every value of a grid of its main input (computed by ``rlcore`` in one
vectorised call and cached with the page's study), and a Vega-Lite parameter bound to a range input under the
chart picks the rows of the value it holds: dragging redraws the chart in the browser with no script run and no
message to the server (``tests/e2e/test_scrub_e2e.py`` counts the websocket's messages).

How a scrub reaches the server: it does not. The page's Streamlit widget stays the committed value: the link,
the presets, the question and every sentence read it, and the scrubber starts at it. Writing the scrubbed value
back on release would take a custom component (a front-end bundle of its own, built, shipped and tested beside
the app) for what the widget already does; the scrubber is for finding the shape of a curve, the widget for
settling on a value. So the learner never reads a text that disagrees with the chart without a cue: the chart
marks the committed value with a rule labelled with it, and says which value it shows.

The grid is the widget's own steps where that fits the budget (≤ 1 MB of chart data), so every committed value is
a grid point; where the committed value falls between grid points, its exact rows (``EXACT`` true) stand in for
the grid point nearest it, so the chart at rest shows what the server computed for the text.

Pages that scrub, and the study that gives each its rows: 5 (λ and γ, ``answer_credit`` at γ [G, 1] and λ [V]), 7
(τ, ``discovery_curves``), 8 ratio (ε, ``clip_curve``), 8 KL (β, ``kl_curve``), 10 (the padded answer's length,
``padded_group``) and 11 (ε_high, ``clip_study``), each called with an array of the values ``at`` gives (its rows
laid out by ``frame``, or on pages 5 and 7 by the page), 13 (steps, ``kl_placement_path``: every step), 17 (β,
``over_optimisation`` at the values ``at_log10`` gives: its slider's β run 0.01 to 5, so the grid is even in log₁₀ β
and the input is named so), 18 (β, ``dpo_study``). A layer that does not move with the input (page 8 KL's judge
score and KL, page 17's rule where the committed β's run ends) comes from a dataset without the grid's column.

What a move costs (``bench/scrub.py``): Streamlit's Vega interprets its expressions (it evaluates their syntax tree,
with no compiled function), and a move runs the filter over every row of the scrubbed data, then redraws the rows it
keeps. So each row's place on the grid is computed once, when the data arrive, and a move compares one number per
row with the input's place (computed once per move); and a page keeps the rows per grid value to what its chart
needs to draw (the pages that missed a move ≤ 1.5× the floor carried 4,000–14,000 rows: BENCHMARKS.md).

``bind`` works on the Vega-Lite spec that ``ui.spec.vega_lite`` made from a ``ui.charts`` recipe: it adds the
parameter, and a filter to every view whose dataset holds the grid's column. ``ui.page.scrub`` draws it.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

import rlcore

PARAM = "scrub"       # the Vega-Lite parameter the range input is bound to
EXACT = "exact"       # a boolean column: rows the server computed at the committed value, between grid points
PARAM2, EXACT2 = "scrub2", "exact2"  # the same for a second scrubbed input (``Input``), when a chart has one
AT = "_at"            # the suffix of a row's grid place (a column the chart computes) and of the scrubber's place
GRID_TOL = 1e-6       # a grid is uniform when its steps agree to this (relative): decimals add up in binary


class Input(NamedTuple):
    """A scrubbed input: the data's column ``field`` holds its values, over ``grid``; it starts at the committed
    ``value``; its range input is named ``label``. A chart scrubbed over two inputs (page 5's λ and γ) holds its rows
    for every pair of their grids' values, and a second input's off-grid rows are marked in ``EXACT2``."""

    field: str
    grid: Sequence[float]
    value: float
    label: str


CSS = """<style>
.vega-bindings { padding-top: 0.25rem; }
.vega-bind { display: flex; align-items: center; gap: 0.5rem; flex-wrap: wrap; }
.vega-bind input[type="range"] { flex: 1 1 220px; max-width: 28rem; min-height: 2rem; }
</style>"""  # wide enough to drag with a thumb on a phone; drawn once per page by ui.page.scrub


def at(grid: Sequence[float], value: float | None, low: float = -math.inf, high: float = math.inf
       ) -> tuple[tuple[float, ...], np.ndarray]:
    """The values a study computes a scrubbed chart at: ``grid``, and after it the committed ``value`` where it lies
    between grid points (a tuple: a study's cache key); and which of them is that exact one (bool). ``value`` None:
    the grid alone (a slider that takes only grid points). ValueError
    naming ``grid`` or ``value`` when the grid is not uniform or either leaves [low, high].

    >>> at([0.1, 0.2, 0.3], 0.25, 0.0, 1.0)
    ((0.1, 0.2, 0.3, 0.25), array([False, False, False,  True]))
    """
    values, exact = rlcore.checks.scrub_grid("grid", grid, "value", value, low, high)
    return tuple(values.tolist()), exact


def at_log10(grid: Sequence[float], value: float) -> tuple[tuple[float, ...], np.ndarray, tuple[float, ...]]:
    """``at`` for an input scrubbed in log₁₀ (``grid`` even in log₁₀ of a ``value`` > 0): the log values, which is
    the committed one, and the values themselves (10 ** each, the committed ``value`` as it is)."""
    logs, exact = at(grid, np.log10(float(value)), -300.0, 300.0)  # 10 ** x: finite, > 0
    return logs, exact, tuple(np.where(exact, float(value), 10.0 ** np.asarray(logs)).tolist())


def frame(field: str, values: Sequence[float], exact: np.ndarray, keep: np.ndarray | None = None,
          **columns) -> pd.DataFrame:
    """A scrubbed chart's rows from a study computed at ``values`` (``at``): column ``field`` holds each row's value,
    then ``columns`` in their order (arrays with a leading axis per value, [V] or [V, M], or one value for every
    row), then ``EXACT``; with ``keep`` ([V, M], bool) only the rows it marks."""
    v = np.asarray(values, dtype=float)
    shape = v.shape if keep is None else np.shape(keep)
    mask = np.ones(shape, dtype=bool) if keep is None else np.asarray(keep, dtype=bool)

    def flat(x):
        if np.ndim(x) == 0:  # one value for every row: the frame repeats it
            return x
        x = np.asarray(x)
        return np.broadcast_to(x.reshape(x.shape + (1,) * (len(shape) - x.ndim)), shape)[mask]

    return pd.DataFrame({field: flat(v), **{k: flat(c) for k, c in columns.items()}, EXACT: flat(exact)})


def grid_step(grid: Sequence[float]) -> float:
    """The step of a uniform grid of at least two ascending values; ValueError naming ``grid`` otherwise.

    >>> grid_step([0.1, 0.2, 0.3])
    0.1
    """
    values = [float(v) for v in grid]
    if len(values) < 2 or not all(math.isfinite(v) for v in values):
        raise ValueError(f"grid must hold at least two finite values, got {values[:5]}")
    steps = [b - a for a, b in itertools.pairwise(values)]
    step = (values[-1] - values[0]) / (len(values) - 1)
    if step <= 0 or any(abs(s - step) > GRID_TOL * max(1.0, step) for s in steps):
        raise ValueError(f"grid must ascend in equal steps, got steps {steps[:5]}")
    return round(step, 12)


def steps(lo: float, hi: float, step: float) -> tuple[float, ...]:
    """A slider's values ``lo``, ``lo + step``, ..., ``hi``, rounded to 12 decimals (binary sums drift): the grid of a
    scrubbed input over the widget's own steps (a tuple: a study's cache key).

    >>> steps(0.05, 0.2, 0.05)
    (0.05, 0.1, 0.15, 0.2)
    """
    n = round((hi - lo) / step)
    return tuple(round(lo + i * step, 12) for i in range(n + 1))


def index_exprs(field: str, lo: float, step: float, value: float, exact: bool, param: str = PARAM,
                exact_col: str = EXACT) -> tuple[str, str]:
    """Two Vega expressions: a row's place on the grid (its ``field``'s grid index, or -1 for a row computed at the
    committed ``value`` between grid points, marked in ``exact_col``), computed once per row when the data arrive;
    and the place of the grid point nearest the scrubber (``param``), or -1 where the scrubber is nearer the
    committed ``value`` than half a step and ``exact`` rows stand in for that point, computed once per move. The
    chart keeps the rows whose place is the scrubber's: one comparison per row per move (Streamlit's Vega interprets
    its expressions, so what a move costs grows with the nodes evaluated per row).

    >>> index_exprs("b", 0.0, 0.5, 0.5, False)
    ('round((datum["b"] - 0.0) / 0.5)', 'round((scrub - 0.0) / 0.5)')
    """
    row = f"round((datum[{json.dumps(field, ensure_ascii=False)}] - {float(lo)!r}) / {float(step)!r})"
    here = f"round(({param} - {float(lo)!r}) / {float(step)!r})"
    if not exact:
        return row, here
    half = step / 2
    return (f"datum[{json.dumps(exact_col, ensure_ascii=False)}] === true ? -1 : {row}",
            f"abs({float(value)!r} - {param}) < {half!r} ? -1 : {here}")


def shown_value(value: float, step: float) -> float:
    """Where the range input starts: the committed ``value`` to two decimals finer than the grid's ``step`` (the input
    shows its number beside it; a log₁₀ β of −1.3010299956639813 ran onto a second line). Still nearer ``value`` than
    half a step, so the rows it shows at rest are those of ``value`` (``index_exprs``).

    >>> shown_value(-1.3010299956639813, 0.1), shown_value(0.12, 0.05), shown_value(40, 1)
    (-1.301, 0.12, 40.0)
    """
    return round(float(value), max(0, -math.floor(math.log10(step))) + 2)


def _inputs(field, grid, value, label, also: Input | None) -> list[tuple[Input, str, str]]:
    """Each scrubbed input with its Vega-Lite parameter and its exact column."""
    return [(Input(field, grid, value, label), PARAM, EXACT), *([(Input(*also), PARAM2, EXACT2)] if also else [])]


def bind(spec: dict, *, field: str, grid: Sequence[float], value: float, label: str, also: Input | None = None
         ) -> dict:
    """A copy of ``spec`` (``ui.spec.vega_lite``'s, its DataFrames still in ``datasets``) with a range input named
    ``label`` under it, bound to ``PARAM`` over ``grid`` and starting at ``value``, and every view whose dataset has
    the column ``field`` filtered to the rows of the value the input holds; and the same for a second input
    ``also`` (bound to ``PARAM2``, its off-grid rows in ``EXACT2``)."""
    datasets = spec.get("datasets", {})
    filters: dict[str, list[dict]] = {}
    params = list(spec.get("params", []))
    for inp, param, exact_col in _inputs(field, grid, value, label, also):
        step = grid_step(inp.grid)
        lo, hi = float(inp.grid[0]), float(inp.grid[-1])
        if not lo - step / 2 <= float(inp.value) <= hi + step / 2:
            raise ValueError(f"value must lie on the grid's range [{lo}, {hi}], got {inp.value}")
        scrubbed = [name for name, df in datasets.items() if inp.field in getattr(df, "columns", ())]
        if not scrubbed:
            raise ValueError(f"field {inp.field!r} is in none of the chart's datasets ({', '.join(datasets)})")
        exact = any(exact_col in datasets[n].columns and bool(datasets[n][exact_col].any()) for n in scrubbed)
        row, here = index_exprs(inp.field, lo, step, inp.value, exact, param, exact_col)
        for name in scrubbed:
            filters.setdefault(name, []).extend([{"calculate": row, "as": f"{param}{AT}"},
                                                 {"filter": f"datum.{param}{AT} === {param}{AT}"}])
        params.append({"name": param, "value": shown_value(inp.value, step),
                       "bind": {"input": "range", "min": lo, "max": hi, "step": step, "name": f"{inp.label} "}})
        params.append({"name": f"{param}{AT}", "expr": here})

    def visit(node):
        if isinstance(node, dict):
            node = dict(node)
            if isinstance(node.get("data"), dict) and node["data"].get("name") in filters:
                node["transform"] = [*filters[node["data"]["name"]], *node.get("transform", [])]
            for key in ("layer", "vconcat", "hconcat", "concat"):
                if key in node:
                    node[key] = [visit(v) for v in node[key]]
            if isinstance(node.get("spec"), dict):
                node["spec"] = visit(node["spec"])
        return node

    out = visit({k: v for k, v in spec.items() if k != "datasets"})
    out["params"] = params
    out["datasets"] = datasets
    return out


def rows_at(data, *, field: str, grid: Sequence[float], value: float, also: Input | None = None):
    """The rows of a scrubbed chart's ``data`` the chart shows at rest: those at the grid point nearest the committed
    ``value``, or the rows computed at ``value`` itself (``EXACT``) where it lies between grid points (and the same
    for a second input ``also``, with ``EXACT2``); and the rows with no ``field`` (NaN: a layer that does not move,
    drawn from a dataset without the column)."""
    kept = data[field].isna()
    shown = ~kept
    for inp, _, exact_col in _inputs(field, grid, value, "", also):
        step = grid_step(inp.grid)
        marked = data[exact_col].fillna(False).astype(bool) if exact_col in data.columns else None
        if marked is not None and bool(marked.any()):
            shown &= marked
        else:
            shown &= (data[inp.field] - float(inp.value)).abs() < step / 2
    out = data[kept | shown]
    return out.drop(columns=[c for c in (EXACT, EXACT2) if c in out.columns])
