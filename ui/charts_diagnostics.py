"""Chart builders for the KL-gradient, off-policy and entropy pages. No maths here.

Like ``ui.charts``: a tidy DataFrame in, a ``ui.spec`` recipe out; every mark that carries a number has
a tooltip; token colours only for tokens.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from .charts import HEIGHT, LABEL, _color, _num, _title
from .colors import NEUTRAL
from .spec import recipe

REF_COLOR = "#333333"  # the reference marks (the true gradient): dark, apart from every token colour


@recipe
def grouped_hbars(df: pd.DataFrame, *, row: str, token: str, value: str, ref: str, tokens, row_order,
                  title: str, x_title: str, ref_title: str, subtitle: str | None = None,
                  row_height: int = 44) -> alt.Chart:
    """Horizontal bars, one group per ``row`` (e.g. a KL placement) and one bar per token in it, with a dark
    tick at each token's ``ref`` value (e.g. the true gradient) so a bar that misses it shows at once."""
    y = alt.Y(f"{row}:N", sort=list(row_order), title=None, axis=alt.Axis(labelLimit=200, labelFontSize=12))
    tooltip = [alt.Tooltip(f"{row}:N", title=row), alt.Tooltip(f"{token}:N", title="token"),
               _num(value, x_title), _num(ref, ref_title)]
    base = alt.Chart(df).encode(y=y, yOffset=alt.YOffset(f"{token}:N", sort=list(tokens)), tooltip=tooltip)
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
    base = alt.Chart(df).encode(
        x=alt.X(f"{x}:O", title=x_title, axis=alt.Axis(labelAngle=0)),
        y=alt.Y(f"{value}:Q", title=y_title, stack="zero"),
        color=_color(token, tokens, "token"),
        tooltip=[alt.Tooltip(f"{x}:O", title=x_title), alt.Tooltip(f"{token}:N", title="token"),
                 _num(value, y_title, 4)])
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color=LABEL).encode(y=alt.Y("zero:Q"))
    return alt.layer(base.mark_bar(), zero, title=_title(title, subtitle), height=height)
