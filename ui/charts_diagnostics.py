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


@recipe(live=("title", "subtitle", "x_title", "ref_title"))
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
    bars = base.mark_bar().encode(x=alt.X(f"{value}:Q", title=x_title), color=_color(token, tokens, None, "token"))
    ticks = base.mark_tick(color=NEUTRAL, thickness=2.5, size=10).encode(x=alt.X(f"{ref}:Q"))
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color=NEUTRAL).encode(x=alt.X("zero:Q"))
    return alt.layer(bars, ticks, zero, title=_title(title, subtitle),
                     height=alt.Step(max(8, row_height // max(1, len(tokens)))))


@recipe(live=("title", "subtitle", "x_title", "y_title"))
def stacked_shares(df: pd.DataFrame, *, x: str, token: str, value: str, tokens, title: str, x_title: str,
                   y_title: str, subtitle: str | None = None, height: int = HEIGHT) -> alt.Chart:
    """Bars stacked per x, one segment per token (positive segments up, negative down), e.g. each token's
    part of a change step by step."""
    base = _by_position(alt.Chart(df), token, tokens).encode(
        x=alt.X(f"{x}:O", title=x_title, axis=alt.Axis(labelAngle=0)),
        y=alt.Y(f"{value}:Q", title=y_title, stack="zero"),
        color=_color(token, tokens, None, "token"),
        tooltip=[alt.Tooltip(f"{x}:O", title=x_title), alt.Tooltip(f"{token}:N", title="token"),
                 _num(value, y_title, 4)])
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color=LABEL).encode(y=alt.Y("zero:Q"))
    return alt.layer(base.mark_bar(), zero, title=_title(title, subtitle), height=height)


@recipe(live=("title", "subtitle", "x_title", "y_title"))
def binned_bars(df: pd.DataFrame, *, start: str, end: str, value: str, title: str, x_title: str, y_title: str,
                subtitle: str | None = None, height: int = HEIGHT, color: str = NEUTRAL) -> alt.Chart:
    """Pre-binned shares as bars from ``start`` to ``end`` (aggregate before charting); width follows the page."""
    bars = alt.Chart(df).mark_bar(color=color, opacity=0.85).encode(
        x=alt.X(f"{start}:Q", bin="binned", title=x_title), x2=alt.X2(end),
        y=alt.Y(f"{value}:Q", title=y_title),
        tooltip=[_num(start, "from"), _num(end, "to"), _num(value, y_title)])
    return alt.layer(bars, title=_title(title, subtitle), height=height)
