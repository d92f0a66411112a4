"""Altair chart builders: a tidy DataFrame in, an ``alt.Chart`` out. No maths here.

Every builder takes the column names it plots, so one builder serves many pages; every mark
that carries a number has a tooltip; every axis has a title in the reader's words.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from .colors import ACCENT, NEUTRAL, PALETTE, token_scale

HEIGHT = 260


def _title(text: str, subtitle: str | None = None) -> alt.TitleParams:
    return alt.TitleParams(text=text, subtitle=subtitle or "", anchor="start", fontSize=14)


def _color(field: str, tokens, legend_title: str | None):
    """Colour by token (fixed colours) when ``tokens`` is given, else by a colour-blind-safe series scale."""
    legend = alt.Legend(title=legend_title, orient="bottom") if legend_title else None
    scale = token_scale(tokens) if tokens is not None else alt.Scale(range=list(PALETTE))
    return alt.Color(f"{field}:N", scale=scale, legend=legend, sort=list(tokens) if tokens else None)


def _num(field: str, title: str, digits: int = 3) -> alt.Tooltip:
    return alt.Tooltip(f"{field}:Q", title=title, format=f".{digits}~f")


def token_bars(df: pd.DataFrame, *, value: str, title: str, value_title: str, tokens,
               token: str = "token", digits: int = 2, subtitle: str | None = None,
               height: int = HEIGHT, domain=None) -> alt.Chart:
    """One bar per token, labelled with its value; negative values hang below a zero rule."""
    base = alt.Chart(df).encode(
        x=alt.X(f"{token}:N", sort=list(tokens), title=None, axis=alt.Axis(labelAngle=0, labelFontSize=13)),
        y=alt.Y(f"{value}:Q", title=value_title,
                scale=alt.Scale(domain=domain) if domain is not None else alt.Undefined),
        tooltip=[alt.Tooltip(f"{token}:N", title="token"), _num(value, value_title)],
    )
    bars = base.mark_bar(size=36).encode(color=_color(token, tokens, None))
    labels = base.mark_text(fontSize=13, fontWeight="bold", dy=alt.expr(f"datum['{value}'] < 0 ? 10 : -8")
                            ).encode(text=alt.Text(f"{value}:Q", format=f".{digits}~f"))
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color=NEUTRAL).encode(y="zero:Q")
    return (bars + labels + zero).properties(title=_title(title, subtitle), height=height)


def line_chart(df: pd.DataFrame, *, x: str, y: str, series: str, title: str, x_title: str,
               y_title: str, tokens=None, legend_title: str | None = None, points: bool = True,
               subtitle: str | None = None, height: int = HEIGHT, y_domain=None,
               x_type: str = "Q", dash: str | None = None) -> alt.Chart:
    """Several series over a common x, one colour each (token colours when ``tokens`` is given)."""
    enc = dict(
        x=alt.X(f"{x}:{x_type}", title=x_title),
        y=alt.Y(f"{y}:Q", title=y_title,
                scale=alt.Scale(domain=y_domain) if y_domain is not None else alt.Scale(zero=False)),
        color=_color(series, tokens, legend_title or series),
        tooltip=[alt.Tooltip(f"{series}:N", title=legend_title or series),
                 alt.Tooltip(f"{x}:{x_type}", title=x_title), _num(y, y_title)],
    )
    if dash:
        enc["strokeDash"] = alt.StrokeDash(f"{dash}:N", title=dash)
    base = alt.Chart(df).encode(**enc)
    chart = base.mark_line(strokeWidth=2.5)
    if points:
        chart = chart + base.mark_point(filled=True, size=50)
    return chart.properties(title=_title(title, subtitle), height=height)


def band_chart(df: pd.DataFrame, *, x: str, mid: str, low: str, high: str, series: str, title: str,
               x_title: str, y_title: str, tokens=None, legend_title: str | None = None,
               subtitle: str | None = None, height: int = HEIGHT, y_domain=None) -> alt.Chart:
    """A middle line per series with a shaded band from ``low`` to ``high`` (e.g. median, min–max)."""
    color = _color(series, tokens, legend_title or series)
    yscale = alt.Scale(domain=y_domain) if y_domain is not None else alt.Scale(zero=False)
    base = alt.Chart(df).encode(x=alt.X(f"{x}:Q", title=x_title), color=color)
    band = base.mark_area(opacity=0.2).encode(
        y=alt.Y(f"{low}:Q", title=y_title, scale=yscale), y2=f"{high}:Q")
    line = base.mark_line(strokeWidth=2.5).encode(
        y=alt.Y(f"{mid}:Q", title=y_title, scale=yscale),
        tooltip=[alt.Tooltip(f"{series}:N", title=legend_title or series),
                 alt.Tooltip(f"{x}:Q", title=x_title), _num(mid, y_title),
                 _num(low, "lowest"), _num(high, "highest")],
    )
    return (band + line).properties(title=_title(title, subtitle), height=height)


def histogram(df: pd.DataFrame, *, start: str, end: str, count: str, series: str, title: str,
              x_title: str, y_title: str = "share of samples", tokens=None,
              subtitle: str | None = None, height: int = 90, width: int = 520) -> alt.Chart:
    """Pre-binned counts, one small panel per series stacked in rows (aggregate before charting)."""
    base = alt.Chart(df).mark_bar(opacity=0.85).encode(
        x=alt.X(f"{start}:Q", title=x_title),
        x2=f"{end}:Q",
        y=alt.Y(f"{count}:Q", title=y_title),
        color=_color(series, tokens, None),
        tooltip=[alt.Tooltip(f"{series}:N", title=series), _num(start, "from"), _num(end, "to"),
                 _num(count, y_title)],
    ).properties(height=height, width=width)
    return base.facet(row=alt.Row(f"{series}:N", title=None, header=alt.Header(labelAngle=0,
                                  labelAlign="left", labelFontSize=12))).properties(
        title=_title(title, subtitle))


def answer_strip(df: pd.DataFrame, *, value: str, title: str, y_title: str, label: str = "label",
                 position: str = "position", highlight: str | None = None, subtitle: str | None = None,
                 height: int = 220, line: str | None = None, line_title: str | None = None,
                 digits: int = 2) -> alt.Chart:
    """A value per token of one answer: bars over the tokens in order, optionally a line on top.

    ``label`` holds the token text shown on the axis; ``position`` keeps the order. Bars where
    ``highlight`` is true are drawn in the accent colour.
    """
    order = df.sort_values(position)[label].tolist()
    x = alt.X(f"{label}:N", sort=order, title=None,
              axis=alt.Axis(labelAngle=0, labelFontSize=12, labelOverlap=False))
    tooltip = [alt.Tooltip(f"{label}:N", title="token"), _num(value, y_title)]
    color = (alt.condition(f"datum['{highlight}']", alt.value(ACCENT), alt.value(NEUTRAL))
             if highlight else alt.value(NEUTRAL))
    base = alt.Chart(df).encode(x=x)
    bars = base.mark_bar().encode(y=alt.Y(f"{value}:Q", title=y_title), color=color, tooltip=tooltip)
    labels = base.mark_text(fontSize=11, dy=alt.expr(f"datum['{value}'] < 0 ? 9 : -7")).encode(
        y=f"{value}:Q", text=alt.Text(f"{value}:Q", format=f".{digits}~f"))
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color=NEUTRAL).encode(y="zero:Q")
    chart = bars + labels + zero
    if line:
        chart = chart + base.mark_line(color="#0072B2", strokeWidth=2.5, point=True, interpolate="step-after"
                                       ).encode(y=f"{line}:Q", tooltip=[alt.Tooltip(f"{label}:N", title="token"),
                                                                     _num(line, line_title or line)])
    return chart.properties(title=_title(title, subtitle), height=height)


def rules(df: pd.DataFrame, *, at: str, label: str, axis: str = "y", color: str = NEUTRAL,
          dash=(6, 4), align: str = "left") -> alt.Chart:
    """Labelled reference lines (e.g. V, a clip bound, the article's point) to layer on a chart."""
    enc = {axis: alt.Y(f"{at}:Q") if axis == "y" else alt.X(f"{at}:Q")}
    rule = alt.Chart(df).mark_rule(color=color, strokeDash=list(dash), strokeWidth=1.5).encode(
        **enc, tooltip=[alt.Tooltip(f"{label}:N", title="line"), _num(at, "value")])
    text = alt.Chart(df).mark_text(align=align, dx=4 if axis == "x" else 0, dy=-6, color=color,
                                   fontSize=12).encode(**enc, text=f"{label}:N")
    text = text.encode(x=alt.value(4)) if axis == "y" else text.encode(y=alt.value(8))
    return rule + text


def points_chart(df: pd.DataFrame, *, x: str, y: str, color: str, title: str, x_title: str,
                 y_title: str, tokens=None, x_type: str = "N", jitter: str | None = None,
                 subtitle: str | None = None, height: int = HEIGHT, size: int = 90) -> alt.Chart:
    """Individual observations as points, coloured by token (e.g. each sampled answer's score)."""
    x_enc = (alt.X(f"{x}:N", sort=list(tokens) if tokens else None, title=x_title,
                   axis=alt.Axis(labelAngle=0, labelFontSize=13))
             if x_type == "N" else alt.X(f"{x}:Q", title=x_title))
    enc = dict(x=x_enc, y=alt.Y(f"{y}:Q", title=y_title), color=_color(color, tokens, None),
               tooltip=[alt.Tooltip(f"{color}:N", title="token"), _num(y, y_title)])
    if jitter:
        enc["xOffset"] = alt.XOffset(f"{jitter}:Q", scale=alt.Scale(domain=[-1, 1]))
    return alt.Chart(df).mark_circle(size=size, opacity=0.8).encode(**enc).properties(
        title=_title(title, subtitle), height=height)
