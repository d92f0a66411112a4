"""Chart builders for the pages after PPO (length and aggregation, clips, recipes). No maths here."""

from __future__ import annotations

import altair as alt
import pandas as pd

from .charts import LABEL, _num, _title
from .colors import ALGORITHM_COLORS, NEUTRAL
from .spec import recipe

# One colour per method on these pages, taken from the method palette (never a token colour).
METHOD_COLORS = (NEUTRAL, ALGORITHM_COLORS["dr_grpo"], ALGORITHM_COLORS["rloo"], ALGORITHM_COLORS["grpo"])


def method_colors(methods) -> dict[str, str]:
    """A fixed colour for each of up to four methods, in order."""
    return dict(zip(methods, METHOD_COLORS, strict=False))


def answer_labels(tokens, actions) -> list[str]:
    """Axis labels for sampled answers: their first token and a counter, "open #1", "open #2", "closed #1"."""
    seen: dict[int, int] = {}
    out = []
    for a in actions:
        seen[a] = seen.get(a, 0) + 1
        out.append(f"{tokens[a]} #{seen[a]}")
    return out


def fit_width(chart):
    """Keep a chart at its set height and fit only its width (a bottom legend must not squash the plot)."""
    return chart.properties(autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))


@recipe
def grouped_bars(df: pd.DataFrame, *, x: str, y: str, group: str, title: str, x_title: str, y_title: str,
                 colors: dict, subtitle: str | None = None, height: int = 280,
                 tooltips=(), digits: int = 3) -> alt.LayerChart:
    """Bars side by side: one cluster per value of ``x``, one bar per ``group`` (a method), zero rule.

    ``colors`` maps each group value to its colour (e.g. ``method_colors``); ``tooltips`` names extra
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


@recipe
def method_lines(df: pd.DataFrame, *, x: str, y: str, series: str, title: str, x_title: str, y_title: str,
                 colors: dict, subtitle: str | None = None, height: int = 260, y_domain=None,
                 points: bool = False, dash: str | None = None) -> alt.LayerChart:
    """One line per method over a common x, each in its fixed method colour (``colors``: method → hex)."""
    enc = dict(
        x=alt.X(f"{x}:Q", title=x_title),
        y=alt.Y(f"{y}:Q", title=y_title,
                scale=alt.Scale(domain=y_domain) if y_domain is not None else alt.Scale(zero=False)),
        color=alt.Color(f"{series}:N", scale=alt.Scale(domain=list(colors), range=list(colors.values())),
                        legend=alt.Legend(title=None, orient="bottom", labelLimit=260, columns=1)),
        tooltip=[alt.Tooltip(f"{series}:N", title="method"), _num(x, x_title), _num(y, y_title)])
    if dash:
        enc["strokeDash"] = alt.StrokeDash(f"{dash}:N", title=None, legend=alt.Legend(orient="bottom"))
    base = alt.Chart(df).encode(**enc)
    marks = [base.mark_line(strokeWidth=2.5)] + ([base.mark_point(filled=True, size=45)] if points else [])
    return alt.layer(*marks, title=_title(title, subtitle), height=height)
