"""Chart builders for the KL-gradient, off-policy and entropy pages. No maths here.

Like ``ui.charts``: a tidy DataFrame in, a ``ui.spec`` recipe out; every mark that carries a number has
a tooltip; token colours only for tokens.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from .charts import HEIGHT, LABEL, _by_position, _color, _num, _position, _title
from .colors import NEUTRAL
from .spec import recipe

REF_COLOR = NEUTRAL  # the reference marks (the true gradient): grey, apart from every token colour


@recipe
def grouped_hbars(df: pd.DataFrame, *, row: str, token: str, value: str, ref: str, tokens, row_order,
                  title: str, x_title: str, ref_title: str, subtitle: str | None = None,
                  row_height: int = 44) -> alt.Chart:
    """Horizontal bars, one group per ``row`` (e.g. a KL placement) and one bar per token in it, with a dark
    tick at each token's ``ref`` value (e.g. the true gradient) so a bar that misses it shows at once."""
    y = alt.Y(f"{row}:N", sort=list(row_order), title=None, axis=alt.Axis(labelLimit=200, labelFontSize=12))
    tooltip = [alt.Tooltip(f"{row}:N", title=row), alt.Tooltip(f"{token}:N", title="token"),
               _num(value, x_title), _num(ref, ref_title)]
    base = _by_position(alt.Chart(df), token, tokens).encode(  # tokens by position: any name is safe
        y=y, yOffset=alt.YOffset(field=_position(token), type="nominal", sort="ascending"), tooltip=tooltip)
    bars = base.mark_bar().encode(x=alt.X(f"{value}:Q", title=x_title), color=_color(token, tokens, "token"))
    ticks = base.mark_tick(color=REF_COLOR, thickness=2.5, size=10).encode(x=alt.X(f"{ref}:Q"))
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color=NEUTRAL).encode(x=alt.X("zero:Q"))
    return alt.layer(bars, ticks, zero, title=_title(title, subtitle),
                     height=alt.Step(max(8, row_height // max(1, len(tokens)))))


@recipe
def stacked_shares(df: pd.DataFrame, *, x: str, token: str, value: str, tokens, title: str, x_title: str,
                   y_title: str, subtitle: str | None = None, height: int = HEIGHT) -> alt.Chart:
    """Bars stacked per x, one segment per token (positive segments up, negative down), e.g. each token's
    part of a change step by step."""
    base = _by_position(alt.Chart(df), token, tokens).encode(
        x=alt.X(f"{x}:O", title=x_title, axis=alt.Axis(labelAngle=0)),
        y=alt.Y(f"{value}:Q", title=y_title, stack="zero"),
        color=_color(token, tokens, "token"),
        tooltip=[alt.Tooltip(f"{x}:O", title=x_title), alt.Tooltip(f"{token}:N", title="token"),
                 _num(value, y_title, 4)])
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color=LABEL).encode(y=alt.Y("zero:Q"))
    return alt.layer(base.mark_bar(), zero, title=_title(title, subtitle), height=height)


@recipe
def binned_bars(df: pd.DataFrame, *, start: str, end: str, value: str, title: str, x_title: str, y_title: str,
                subtitle: str | None = None, height: int = HEIGHT, color: str = NEUTRAL) -> alt.Chart:
    """Pre-binned shares as bars from ``start`` to ``end`` (aggregate before charting); width follows the page."""
    bars = alt.Chart(df).mark_bar(color=color, opacity=0.85).encode(
        x=alt.X(f"{start}:Q", bin="binned", title=x_title), x2=alt.X2(end),
        y=alt.Y(f"{value}:Q", title=y_title),
        tooltip=[_num(start, "from"), _num(end, "to"), _num(value, y_title)])
    return alt.layer(bars, title=_title(title, subtitle), height=height)


@recipe
def method_curves(df: pd.DataFrame, *, x: str, y: str, method: str, methods: dict, title: str, x_title: str,
                  y_title: str, subtitle: str | None = None, height: int = HEIGHT, log_x: bool = True,
                  log_y: bool = False, points: bool = True, y_domain=None) -> alt.Chart:
    """One line per method over x (log scale by default), colours fixed by ``methods`` (name → hex); the legend
    sits below in two columns, so it fits a phone."""
    color = alt.Color(f"{method}:N", scale=alt.Scale(domain=list(methods), range=list(methods.values())),
                      legend=alt.Legend(title=None, orient="bottom", columns=2), sort=list(methods))
    y_scale = alt.Scale(type="log") if log_y else alt.Scale(domain=y_domain) if y_domain is not None else alt.Undefined
    base = alt.Chart(df).encode(
        x=alt.X(f"{x}:Q", title=x_title, scale=alt.Scale(type="log", base=2) if log_x else alt.Undefined),
        y=alt.Y(f"{y}:Q", title=y_title, scale=y_scale), color=color,
        tooltip=[alt.Tooltip(f"{method}:N", title="method"), _num(x, x_title), _num(y, y_title, 4)])
    marks = [base.mark_line(strokeWidth=2.5)] + ([base.mark_point(filled=True, size=30)] if points else [])
    return alt.layer(*marks, title=_title(title, subtitle), height=height)


# One fixed colour per way of weighting off-policy tokens (Tol / Okabe-Ito, as ui.colors.ALGORITHM_COLORS).
CORRECTION_COLORS = {"no correction": NEUTRAL, "truncate": "#4B6BD1", "mask": "#CC79A7", "full weights": "#2F8F9F"}
# pass@1 and pass@k, exact and estimated from sampled answers: the darker shade exact, the lighter one sampled
# (each at least 3:1 on the light and on the dark theme, so neither shade can be very dark or very light).
PASS_COLORS = {"pass@1, exact": "#3F5FC8", "pass@k, exact": "#A33A75", "pass@1, sampled": "#6A7FDB",
               "pass@k, sampled": "#D46AA2"}
