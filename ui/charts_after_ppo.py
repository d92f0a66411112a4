"""Chart builders for the pages after PPO (length and aggregation, clips, recipes). No maths here."""

from __future__ import annotations

import altair as alt
import pandas as pd

from .charts import LABEL, _num, _title
from .spec import recipe


def answer_labels(tokens, actions) -> list[str]:
    """Axis labels for sampled answers: their first token and a counter, "open #1", "open #2", "closed #1"."""
    seen: dict[int, int] = {}
    out = []
    for a in actions:
        seen[a] = seen.get(a, 0) + 1
        out.append(f"{tokens[a]} #{seen[a]}")
    return out


@recipe(live=("title", "subtitle", "x_title", "y_title", "colors"))
def grouped_bars(df: pd.DataFrame, *, x: str, y: str, group: str, title: str, x_title: str, y_title: str,
                 colors: dict, subtitle: str | None = None, height: int = 280,
                 tooltips=(), digits: int = 3) -> alt.LayerChart:
    """Bars side by side: one cluster per value of ``x``, one bar per ``group`` (a method), zero rule.

    ``colors`` maps each group value to its colour (``ui.colors.method_colors``); ``tooltips`` names extra
    numeric columns shown on hover. Clusters keep the order in which the rows first name them (no sort list in
    the spec, so a chart whose labels change with the inputs keeps one cached shape).
    """
    color = alt.Color(f"{group}:N", scale=alt.Scale(domain=list(colors), range=list(colors.values())),
                      legend=alt.Legend(title=None, orient="bottom", labelLimit=260, columns=1))
    tips = [alt.Tooltip(f"{x}:N", title=x_title), alt.Tooltip(f"{group}:N", title="method"),
            _num(y, y_title, digits)] + [_num(t, t, digits) for t in tooltips]
    bars = alt.Chart(df).mark_bar().encode(
        x=alt.X(f"{x}:N", sort=None, title=x_title,
                axis=alt.Axis(labelAngle=-50, labelLimit=110, labelOverlap=False, labelFontSize=10)),
        xOffset=alt.XOffset(f"{group}:N", sort=list(colors)),
        y=alt.Y(f"{y}:Q", title=y_title), color=color, tooltip=tips)
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color=LABEL).encode(y=alt.Y("zero:Q"))
    return alt.layer(bars, zero, title=_title(title, subtitle), height=height)
