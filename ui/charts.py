"""Altair chart builders: a tidy DataFrame in, a chart out. No maths here.

Every builder takes the column names it plots, so one builder serves many pages; every mark
that carries a number has a tooltip; every axis has a title in the reader's words.

As in the Altair gallery, a chart is a base and its layers: ``lines``, ``bands``, ``rules``, ``labelled_points``
... draw one kind of mark each and carry no title; ``layer(lines(...), rules(...), title=..., subtitle=...)``
puts them on one chart with its title, ``titled(grouped_bars(...), title=...)`` gives one chart its title, and
``facets`` repeats a chart in one panel per value of a column. What a builder needs besides its columns comes in
two small groups rather than a long list of keywords: ``Axes`` (the axes' titles, domains, log scales) and
``Key`` (the column that names the series, and their colours: the tokens', or the methods' ``colors``). A
series is coloured either by token (``tokens=``, the token palette, by position) or by ``colors=``
({label: colour}, from ``ui.colors.method_colors``): nothing takes a colour from the order of its data.

Each builder is wrapped in ``@recipe(live=...)``: calling it returns a ``ui.spec.Recipe``, which
``ui.page.chart`` converts once per chart shape and then refills with data and the arguments named live
(titles, domains, colour labels; see ``ui.spec``). So a builder takes everything that shapes its chart from its
arguments, never from the data's values, and passes live arguments to Altair unchanged.

Token names are the learner's own text, and Vega in the browser keeps some strings as keys of plain
JavaScript objects, so a token named ``toString``, ``constructor`` or ``__proto__`` would leave a chart
empty. So no token name is written into a spec, nor used as a scale's value: ``_by_position`` adds each
row's position in ``tokens`` as a hidden field, the chart encodes that number, and axes, legends and
headers turn it back into the name with ``labelExpr`` (``_names`` spells the names out safely).
"""

from __future__ import annotations

import json
from typing import NamedTuple

import altair as alt
import pandas as pd

from .colors import ACCENT, CELL_TEXT, DIVERGING, LABEL, NEUTRAL, OVERLAY, token_colors
from .i18n import t
from .spec import recipe

HEIGHT = 260
LEGEND_SYMBOL = {"symbolOpacity": 1, "symbolStrokeWidth": 3}  # swatches as strong as the marks (bands are faint)


@recipe(live=("title", "subtitle"))
def layer(*charts, title: str | None = None, subtitle=None, height: int | None = None, **properties) -> alt.LayerChart:
    """Draw charts on top of each other, with the chart's title: ``layer(lines(...), rules(...), title="...")``.

    Same result as ``a + b + c``, but ``+`` deep-copies the growing chart at every step; one
    ``alt.layer`` call copies once.
    """
    if title is not None:
        properties["title"] = _title(title, subtitle)
    if height is not None:
        properties["height"] = height
    return alt.layer(*charts, **properties)


class Axes(NamedTuple):
    """A chart's axes: their titles and, where fixed, their domains (live: they change without changing the shape),
    which of them are logarithmic ("x", "y" or "xy"), and which count (``whole``: ticks at whole numbers)."""

    x: str | None = None
    y: str | None = None
    x_domain: list | None = None
    y_domain: list | None = None
    log: str = ""
    whole: str = ""   # the axes ("x", "y") that count something: ticks at whole numbers only
    LIVE = ("x", "y", "x_domain", "y_domain")  # a plain class attribute: not a field


class Key(NamedTuple):
    """What tells a chart's series apart: the column that names them, and their colours, either the tokens'
    (``tokens``: the token palette, by position) or ``colors`` ({label: colour}, from ``ui.colors.method_colors``);
    ``title`` names them in the legend and the tooltip (live, like the labels of ``colors``)."""

    field: str
    tokens: tuple | None = None
    colors: dict | None = None
    title: str | None = None
    LIVE = ("colors", "title")


NO_AXES = Axes()  # a layer whose axes another layer titles


@recipe(live=("title", "subtitle"))
def titled(chart, *, title: str, subtitle=None, height: int | None = None):
    """A chart with its title (and subtitle, and the plot's height): ``titled(grouped_bars(...), title="...")``."""
    return chart.properties(title=_title(title, subtitle), **({"height": height} if height is not None else {}))


# ui.page.chart's autosize for a single chart: it keeps its set height and fits only its width (a bottom legend
# must not squash the plot)
FIT_WIDTH = {"type": "fit-x", "contains": "padding"}


def _title(text: str, subtitle=None) -> alt.TitleParams:
    # a mid grey subtitle reads on the light and on the dark theme alike
    return alt.TitleParams(text=text, subtitle=subtitle or "", anchor="start", fontSize=14, subtitleColor=LABEL)


def _names(tokens) -> str:
    """The token names as a Vega expression: an array of names, each joined from one-character strings.

    Vega in the browser fails on a string in the spec that equals a property of a JavaScript object
    (``toString``, ``constructor``), even inside an expression; no one-character string is such a name.
    """
    return "[" + ", ".join(f"join({json.dumps(list(str(t)))}, '')" for t in tokens) + "]"


def _position(field: str) -> str:
    """The hidden field that holds the position, in ``tokens``, of the token named in ``field``."""
    return f"{field}_position"


def _by_position(chart, field: str, tokens):
    """``chart`` with the hidden position field of ``field`` (nothing to add when ``tokens`` is None)."""
    if tokens is None:
        return chart
    return chart.transform_calculate(**{_position(field): f"indexof({_names(tokens)}, datum[{json.dumps(field)}])"})


def _name_of_position(tokens) -> str:
    """A ``labelExpr`` that shows a token's name in place of its position."""
    return f"{_names(tokens)}[datum.value]"


TOKEN_LABELS_PX = 300  # what a phone's plot gives the names under it, shared out between the places


def _token_x(field: str, tokens, title: str | None, **axis) -> alt.X:
    """A discrete x axis with one place per token, in the order of ``tokens``, labelled with the names. A name wider
    than its share of ``TOKEN_LABELS_PX`` ends in an ellipsis (six names of 24 wide signs ran over each other and off
    a phone's chart); the tooltip and the data table show it whole."""
    limit = max(40, TOKEN_LABELS_PX // max(len(tokens), 1))  # 100 px for three names, 50 px for six
    return alt.X(field=_position(field), type="ordinal", title=title,
                 axis=alt.Axis(labelExpr=_name_of_position(tokens), labelLimit=limit, **axis))


def _color(field: str, tokens, colors: dict | None, legend_title: str | None, columns: int = 3):
    """Colour by token (fixed colours, by position) when ``tokens`` is given, else by ``colors`` ({label: colour},
    from ``colors.method_colors``, so every chart gives a label the same colour). One of them is required."""
    if tokens is None and colors is None:
        raise ValueError(f"colouring by {field!r} needs tokens= (token colours) or colors= (ui.colors.method_colors)")
    if tokens is None:  # a label a row, long names included
        legend = (alt.Legend(title=legend_title, orient="bottom", labelLimit=320, columns=1, **LEGEND_SYMBOL)
                  if legend_title else None)
        return alt.Color(f"{field}:N", scale=alt.Scale(domain=list(colors), range=list(colors.values())),
                         legend=legend)
    legend = alt.Legend(title=legend_title, orient="bottom", columns=columns, **LEGEND_SYMBOL) if legend_title else None
    if legend is not None:
        legend.labelExpr = _name_of_position(tokens)
    token_range = list(token_colors(tokens).values())
    return alt.Color(field=_position(field), type="nominal", legend=legend,
                     scale=alt.Scale(domain=list(range(len(token_range))), range=token_range))


def _zero() -> alt.Chart:
    """A rule at zero; its one row is inline data, so it needs no DataFrame."""
    return alt.Chart(alt.InlineData(values=[{"zero": 0.0}])).mark_rule(color=NEUTRAL).encode(y=alt.Y("zero:Q"))


def _num(field: str, title: str, digits: int = 3) -> alt.Tooltip:
    return alt.Tooltip(f"{field}:Q", title=title, format=f".{digits}~f")


@recipe(live=("axes",))
def token_bars(df: pd.DataFrame, *, value: str, tokens, axes: Axes, token: str = "token", digits: int = 2
               ) -> alt.Chart:
    """One bar per token, labelled with its value; negative values hang below a zero rule. ``axes.y`` titles the
    values (and ``axes.y_domain`` fixes their range). Its title: ``titled`` (default height 260)."""
    domain = axes.y_domain
    base = _by_position(alt.Chart(df), token, tokens).encode(
        x=_token_x(token, tokens, title=None, labelAngle=0, labelFontSize=13),
        y=alt.Y(f"{value}:Q", title=axes.y,
                scale=alt.Scale(domain=domain) if domain is not None else alt.Undefined),
        tooltip=[alt.Tooltip(f"{token}:N", title=t("charts.token")), _num(value, axes.y)],
    )
    bars = base.mark_bar(size=36).encode(color=_color(token, tokens, None, None))
    labels = base.mark_text(fontSize=13, fontWeight="bold", color=LABEL, dy=alt.expr(f"datum['{value}'] < 0 ? 10 : -8")
                            ).encode(text=alt.Text(f"{value}:Q", format=f".{digits}~f"))
    return alt.layer(bars, labels, _zero(), height=HEIGHT)


def _y_scale(y_domain, log: str) -> alt.Scale:
    if "y" in log:
        return alt.Scale(type="log")
    return alt.Scale(domain=y_domain) if y_domain is not None else alt.Scale(zero=False)


def _whole(axes: Axes):
    """The x axis of a count (a step, a position): ticks at whole numbers, written without decimals."""
    return alt.Axis(tickMinStep=1, format="d") if "x" in axes.whole else alt.Undefined


@recipe(live=("key", "axes", "dash_order"))
def lines(df: pd.DataFrame, *, x: str, y: str, key: Key, axes: Axes, points: bool = False, dash: str | None = None,
          dash_order=None) -> alt.LayerChart:
    """One line per series (``key``) over a common quantitative x (``points``: a dot at each value; ``axes.log``: "x",
    "y" or "xy" for log scales; ``dash``: a column whose values dash the lines, ``dash_order`` those values in the
    order that takes the solid line, then the dashes: one style per role in every language, whatever the labels'
    alphabet). No title: ``layer`` gives it."""
    series, log = key.field, axes.log
    legend = key.title or series
    enc = dict(
        x=alt.X(f"{x}:Q", title=axes.x, scale=alt.Scale(type="log", base=2) if "x" in log else alt.Undefined,
                axis=_whole(axes)),
        y=alt.Y(f"{y}:Q", title=axes.y, scale=_y_scale(axes.y_domain, log)),
        color=_color(series, key.tokens, key.colors, legend),
        tooltip=[alt.Tooltip(f"{series}:N", title=legend), _num(x, axes.x), _num(y, axes.y, 4)],
    )
    if dash:
        # above the plot, one entry a line: beside the colour legend at the bottom it ran off a phone's chart
        enc["strokeDash"] = alt.StrokeDash(f"{dash}:N", title=None,
                                           sort=list(dash_order) if dash_order else alt.Undefined,
                                           legend=alt.Legend(orient="top", columns=1, labelLimit=320))
    base = _by_position(alt.Chart(df), series, key.tokens).encode(**enc)
    marks = [base.mark_line(strokeWidth=2.5)] + ([base.mark_point(filled=True, size=45)] if points else [])
    return alt.layer(*marks)


@recipe(live=("key", "axes"))
def bands(df: pd.DataFrame, *, x: str, mid: str, low: str, high: str, key: Key, axes: Axes) -> alt.LayerChart:
    """A middle line per series (``key``) with a shaded band from ``low`` to ``high`` (e.g. median, min–max over
    seeds). No title: ``layer`` or ``facets`` gives it."""
    series = key.field
    legend = key.title or series
    xscale = alt.Scale(nice=False, domain=axes.x_domain) if axes.x_domain is not None else alt.Scale(nice=False)
    base = _by_position(alt.Chart(df), series, key.tokens).encode(
        x=alt.X(f"{x}:Q", title=axes.x, scale=xscale, axis=_whole(axes)),
        color=_color(series, key.tokens, key.colors, legend))
    yscale = _y_scale(axes.y_domain, "")
    yaxis = alt.Axis(format=".3~g")  # a panel whose values are all 0 reads "0", not "0.000000"
    band = base.mark_area(opacity=0.2).encode(y=alt.Y(f"{low}:Q", title=axes.y, scale=yscale, axis=yaxis),
                                              y2=alt.Y2(high))
    line = base.mark_line(strokeWidth=2.5).encode(
        y=alt.Y(f"{mid}:Q", title=axes.y, scale=yscale, axis=yaxis),
        tooltip=[alt.Tooltip(f"{series}:N", title=legend), _num(x, axes.x),
                 _num(mid, t("charts.middle")), _num(low, t("charts.lowest")), _num(high, t("charts.highest"))],
    )
    # a dot on each line's last point: where a run stands now, and a curve of one point (a run at step 0) shows
    last = base.transform_joinaggregate(last_x=f"max({x})", groupby=[series]).transform_filter(
        f"datum[{x!r}] == datum.last_x").mark_point(filled=True, size=40, opacity=1).encode(
        y=alt.Y(f"{mid}:Q", title=axes.y, scale=yscale, axis=yaxis))
    return alt.layer(band, line, last)


@recipe(live=("key", "axes"))
def histogram(df: pd.DataFrame, *, start: str, end: str, count: str, key: Key, axes: Axes, size=(520, 90)
              ) -> alt.FacetChart:
    """Pre-binned counts, one small panel (``size``: width, height) per series of ``key`` stacked in rows
    (aggregate before charting). Its title: ``titled``."""
    series, tokens = key.field, key.tokens
    width, height = size
    base = _by_position(alt.Chart(df), series, tokens).mark_bar(opacity=0.85).encode(
        x=alt.X(f"{start}:Q", bin="binned", title=axes.x),  # "binned": bars stand on zero, from start to end
        x2=alt.X2(end),
        y=alt.Y(f"{count}:Q", title=axes.y),
        color=_color(series, tokens, key.colors, None),
        tooltip=[alt.Tooltip(f"{series}:N", title=series), _num(start, t("charts.from")), _num(end, t("charts.to")),
                 _num(count, axes.y)],
    ).properties(height=height, width=width)
    header = alt.Header(labelAngle=0, labelAlign="left", labelFontSize=12)
    if tokens is None:
        row = alt.Row(f"{series}:N", title=None, header=header)
    else:
        header.labelExpr = _name_of_position(tokens)
        row = alt.Row(field=_position(series), type="ordinal", title=None, header=header)
    return base.facet(row=row)


@recipe(live=("axes", "line_title"))
def answer_strip(df: pd.DataFrame, *, value: str, axes: Axes, label: str = "label", highlight: str | None = None,
                 line: str | None = None, line_title: str | None = None, digits: int = 2) -> alt.Chart:
    """A value per token of one answer: bars over the tokens in writing order (the column ``position``), optionally
    a line on top (``line``, named ``line_title``); ``axes.y`` titles the values. ``label`` holds the token text
    shown on the axis. Bars where ``highlight`` is true are drawn in the accent colour. Its title: ``titled``."""
    # the axis groups by the word itself: zero-width spaces keep a word like "__proto__" from being an object key,
    # and as many of them as the token's position keep one word written twice (": 7 4 1 5 = 1") as two bars
    shown = f"{label}_shown"
    x = alt.X(f"{shown}:N", sort=alt.EncodingSortField(field="position", op="min"), title=None,
              axis=alt.Axis(labelAngle=0, labelFontSize=12, labelOverlap=False))
    tooltip = [alt.Tooltip(f"{label}:N", title=t("charts.token")), _num(value, axes.y)]
    # a boolean field on a two-colour scale: as fast to build as a plain channel, unlike alt.condition
    color = (alt.Color(f"{highlight}:N", scale=alt.Scale(domain=[False, True], range=[NEUTRAL, ACCENT]), legend=None)
             if highlight else alt.ColorValue(NEUTRAL))
    word = f"datum[{json.dumps(label)}]"
    base = alt.Chart(df).transform_calculate(
        **{shown: f"pad({word}, length({word}) + datum.position + 1, '\u200b', 'right')"}).encode(x=x)
    bars = base.mark_bar().encode(y=alt.Y(f"{value}:Q", title=axes.y), color=color, tooltip=tooltip)
    labels = base.mark_text(fontSize=11, color=LABEL, dy=alt.expr(f"datum['{value}'] < 0 ? 9 : -7")).encode(
        y=alt.Y(f"{value}:Q"), text=alt.Text(f"{value}:Q", format=f".{digits}~f"))
    layers = [bars, labels, _zero()]
    if line:
        layers.append(base.mark_line(color=OVERLAY, strokeWidth=2.5, point=True, interpolate="step-after").encode(
            y=alt.Y(f"{line}:Q"),
            tooltip=[alt.Tooltip(f"{label}:N", title=t("charts.token")), _num(line, line_title or line)]))
    return alt.layer(*layers, height=220)


@recipe
def rules(df: pd.DataFrame, *, at: str, label: str, axis: str = "y", color: str = NEUTRAL,
          dash=(6, 4), align: str = "left", label_at: int = 8) -> alt.Chart:
    """Labelled reference lines (e.g. V, a clip bound, the article's point) to layer on a chart; a vertical rule's
    label stands ``label_at`` pixels below the plot's top (lower where a curve runs along the top)."""
    enc = {axis: alt.Y(f"{at}:Q") if axis == "y" else alt.X(f"{at}:Q")}
    rule = alt.Chart(df).mark_rule(color=color, strokeDash=list(dash), strokeWidth=1.5).encode(
        **enc, tooltip=[alt.Tooltip(f"{label}:N", title=t("charts.line")), _num(at, t("charts.value"))])
    side = -4 if align == "right" else 4  # beside a vertical rule, on the side the text runs to: clear of the line
    text = alt.Chart(df).mark_text(align=align, dx=side if axis == "x" else 0, dy=-6, color=color,
                                   fontSize=12).encode(**enc, text=alt.Text(f"{label}:N"))
    text = text.encode(x=alt.XValue(4)) if axis == "y" else text.encode(y=alt.YValue(label_at))
    return alt.layer(rule, text)


@recipe(live=("key", "axes"))
def points_chart(df: pd.DataFrame, *, x: str, y: str, key: Key, axes: Axes, x_type: str = "N",
                 jitter: str | None = None, size: int = 90) -> alt.Chart:
    """Individual observations as points, coloured by token (``key.tokens``: e.g. each sampled answer's score) or,
    with ``key.colors``, by method (e.g. which judge gave the score); the tokens also order a nominal x of token
    names. Its title: ``titled`` (default height 260)."""
    color, tokens, colors = key.field, key.tokens, key.colors
    if x_type != "N":
        x_enc = alt.X(f"{x}:Q", title=axes.x)
    elif tokens is not None:
        x_enc = _token_x(x, tokens, title=axes.x, labelAngle=0, labelFontSize=13)
    else:
        x_enc = alt.X(f"{x}:N", title=axes.x, axis=alt.Axis(labelAngle=0, labelFontSize=13))
    color_tokens = tokens if colors is None else None
    enc = dict(x=x_enc, y=alt.Y(f"{y}:Q", title=axes.y), color=_color(color, color_tokens, colors, key.title),
               tooltip=[alt.Tooltip(f"{color}:N", title=t("charts.token") if colors is None else color),
                        _num(y, axes.y)])
    if jitter:
        enc["xOffset"] = alt.XOffset(f"{jitter}:Q", scale=alt.Scale(domain=[-1, 1]))
    chart = _by_position(alt.Chart(df), color, color_tokens)
    if x_type == "N" and x != color:
        chart = _by_position(chart, x, tokens)
    return chart.mark_circle(size=size, opacity=0.8).encode(**enc).properties(height=HEIGHT)


@recipe(live=("axes", "names"))
def arrows(df: pd.DataFrame, *, x: str, start: str, end: str, label: str, tokens, axes: Axes = NO_AXES,
           names=("from", "to")) -> alt.Chart:
    """Vertical arrows from ``start`` to ``end`` at each token on ``x`` (e.g. from V up or down to each Q); ``names``
    calls the two ends in the tooltip, ``axes.x`` titles the tokens' axis.

    Each arrow ends at a short tick in the token's colour and carries the text in ``label`` beside it.
    Layer it on a chart with the same nominal ``x`` (e.g. ``points_chart``).
    """
    start_title, end_title, color = *names, LABEL
    base = _by_position(alt.Chart(df), x, tokens).encode(
        x=_token_x(x, tokens, title=axes.x),
        tooltip=[alt.Tooltip(f"{x}:N", title=t("charts.token")), _num(start, start_title), _num(end, end_title),
                 alt.Tooltip(f"{label}:N", title=t("charts.label"))])
    shaft = base.mark_rule(strokeWidth=2, color=color).encode(y=alt.Y(f"{start}:Q"), y2=alt.Y2(end))
    head = base.mark_point(filled=True, size=90, color=color, opacity=1, shape=alt.expr(
        f"datum['{end}'] >= datum['{start}'] ? 'triangle-up' : 'triangle-down'")).encode(y=alt.Y(f"{end}:Q"))
    tick = base.mark_tick(thickness=3, size=46).encode(y=alt.Y(f"{end}:Q"), color=_color(x, tokens, None, None))
    text = base.transform_calculate(mid=f"(datum['{start}'] + datum['{end}']) / 2").mark_text(
        align="left", dx=10, fontSize=13, fontWeight="bold", color=color).encode(
        y=alt.Y("mid:Q"), text=alt.Text(f"{label}:N"))
    return alt.layer(shaft, tick, head, text)


@recipe(live=("key", "axes"))
def labelled_points(df: pd.DataFrame, *, x: str, y: str, label: str, key: Key, axes: Axes, size: int = 120,
                    beside: bool = False) -> alt.Chart:
    """A few marked points (coloured by ``key``) with a short text label above each, to layer on a curve (no title
    of its own); ``beside``: the label to the lower right of its point instead, clear of a curve that runs above."""
    series = key.field
    base = _by_position(alt.Chart(df), series, key.tokens).encode(
        x=alt.X(f"{x}:Q", title=axes.x), y=alt.Y(f"{y}:Q", title=axes.y),
        color=_color(series, key.tokens, key.colors, None),
        tooltip=[alt.Tooltip(f"{series}:N", title=series), _num(x, axes.x), _num(y, axes.y)])
    return alt.layer(base.mark_point(filled=True, size=size, opacity=1),
                     base.mark_text(**({"dx": 9, "dy": 9, "align": "left"} if beside else {"dy": -14}), fontSize=12,
                                    fontWeight="bold").encode(text=alt.Text(f"{label}:N")))


@recipe
def note(df: pd.DataFrame, *, text: str, corner: str = "top right") -> alt.Chart:
    """A line of text (the column ``text``) in a corner of the plot ("top right", "bottom left", ...), to layer on a
    chart: which value a scrubbed chart shows (``ui.page.scrub``)."""
    top, right = "top" in corner, "right" in corner
    return alt.Chart(df).mark_text(align="right" if right else "left", baseline="top" if top else "bottom",
                                   dx=-6 if right else 6, dy=6 if top else -6, fontSize=12, fontWeight="bold",
                                   color=LABEL).encode(x=alt.XValue("width" if right else 0),
                                                       y=alt.YValue(0 if top else "height"), text=alt.Text(f"{text}:N"))


@recipe
def shaded_spans(df: pd.DataFrame, *, start: str, end: str, label: str, color: str | None = None,
                 opacity: float = 0.13) -> alt.Chart:
    """Shaded vertical spans on a quantitative x (e.g. where a gradient is zero), labelled at the top.

    One row per span; ``color`` optionally names a column of hex colours (one per span). Layer it
    under a chart that shares the same x (``layer(shaded_spans(...), lines(...))``).
    """
    fill = alt.Color(f"{color}:N", scale=None, legend=None) if color else alt.ColorValue(NEUTRAL)
    tooltip = [alt.Tooltip(f"{label}:N", title=t("charts.region")), _num(start, t("charts.from")),
               _num(end, t("charts.to"))]
    base = alt.Chart(df)
    rect = base.mark_rect(opacity=opacity).encode(x=alt.X(f"{start}:Q"), x2=alt.X2(end), color=fill,
                                                  tooltip=tooltip)
    text = base.transform_calculate(mid=f"(datum['{start}'] + datum['{end}']) / 2").mark_text(
        fontSize=12, fontWeight="bold", baseline="top").encode(
        x=alt.X("mid:Q"), y=alt.YValue(20), text=alt.Text(f"{label}:N"), color=fill)
    return alt.layer(rect, text)


@recipe(live=("title", "subtitle"))
def facets(chart, *, field: str, order, title: str, subtitle=None, columns: int = 1, size=(330, 150),
           independent_y: bool = True) -> alt.VConcatChart | alt.ConcatChart:
    """Small multiples: ``chart`` (e.g. ``bands(...)``) once per value of ``field`` in ``order``, each panel showing
    its rows and titled with its value (unless it is the only one); one chart, so one conversion per rerun, and one
    legend, below.

    ``columns=1`` (the default) stacks the panels, each as wide as the chart's container (Streamlit sizes every
    panel of a vertical concatenation to it; draw it with ``page.chart(..., width="stretch")``), so they fit a phone
    and fill a laptop's column; more columns wrap the panels in rows of panels ``width`` pixels wide. ``order``
    lists the panels: an argument, not read from the data, as the chart's shape is cached. ``size``: a panel's width
    (with several columns) and height.
    """
    width, height = size
    size = {"height": height} if columns == 1 else {"height": height, "width": width}
    panels = [chart.transform_filter(alt.FieldEqualPredicate(field=field, equal=value))
              .properties(**({"title": alt.TitleParams(str(value), fontSize=13, anchor="start")}
                             if len(order) > 1 else {}), **size)
              for value in order]
    out = (alt.vconcat(*panels, spacing=18) if columns == 1 else alt.concat(*panels, columns=columns, spacing=18))
    out = out.resolve_scale(y="independent" if independent_y else "shared")
    # the panels, their axes and the legend fit the width Streamlit gives (its default for a concatenation of
    # layers would add the axes beside the container's width)
    fit = {"autosize": alt.AutoSizeParams(**FIT_WIDTH)} if columns == 1 else {}
    return out.properties(title=_title(title, subtitle), **fit)


@recipe(live=("key", "axes", "size_title"))
def dot_strip(df: pd.DataFrame, *, x: str, row: str, size: str, key: Key, axes: Axes, size_title: str) -> alt.Chart:
    """A histogram as one row of dots per series on a common x: a dot's area is its ``size`` (e.g. a share of
    samples). Unlike faceted bars it takes its container's width, and discrete values stay separate dots.
    Rows keep the data's order; the dots are coloured by ``key`` (its column and ``colors``). Its title:
    ``titled``."""
    return alt.Chart(df).mark_circle(opacity=0.85).encode(
        x=alt.X(f"{x}:Q", title=axes.x),
        y=alt.Y(f"{row}:N", title=None, sort=None, axis=alt.Axis(labelLimit=170, labelFontSize=12)),
        size=alt.Size(f"{size}:Q", title=size_title, scale=alt.Scale(range=[0, 450], zero=True), legend=None),
        color=_color(key.field, None, key.colors, None),
        tooltip=[alt.Tooltip(f"{row}:N", title=row), _num(x, axes.x), _num(size, size_title)],
    ).properties(height=HEIGHT)


# --- the pages after PPO: length and aggregation, clips, recipes ------------------------------------------

def answer_labels(tokens, actions) -> list[str]:
    """Axis labels for sampled answers: their first token and a counter, "open #1", "open #2", "closed #1"."""
    seen: dict[int, int] = {}
    out = []
    for a in actions:
        seen[a] = seen.get(a, 0) + 1
        out.append(f"{tokens[a]} #{seen[a]}")
    return out


@recipe(live=("key", "axes"))
def grouped_bars(df: pd.DataFrame, *, x: str, y: str, key: Key, axes: Axes, tooltips=(), digits: int = 3,
                 scrubbed: str | None = None) -> alt.LayerChart:
    """Bars side by side: one cluster per value of ``x``, one bar per value of ``key.field`` (a method, coloured by
    ``key.colors``), a zero rule; ``tooltips`` names extra numeric columns shown on hover. Clusters keep the order in
    which the rows first name them (no sort list in the spec, so a chart whose labels change with the inputs keeps
    one cached shape). ``scrubbed``, for a chart dragged in the browser (``ui.scrub``) whose labels change as it
    moves: a numeric column whose values keep each cluster's place, smallest first (in the order of first appearance
    a new label would go last), and the y scale reaches a quarter above the tallest bar, so the ``note`` saying which
    value is shown stays clear of the bars in a top corner. Its title: ``titled`` (default height 280)."""
    group, colors = key.field, key.colors
    color = alt.Color(f"{group}:N", scale=alt.Scale(domain=list(colors), range=list(colors.values())),
                      legend=alt.Legend(title=None, orient="bottom", labelLimit=260, columns=1))
    tips = [alt.Tooltip(f"{x}:N", title=axes.x), alt.Tooltip(f"{group}:N", title=t("charts.method")),
            _num(y, axes.y, digits)] + [_num(col, col, digits) for col in tooltips]
    bars = alt.Chart(df).mark_bar().encode(
        x=alt.X(f"{x}:N", sort=None if scrubbed is None else alt.EncodingSortField(field=scrubbed, op="min"),
                title=axes.x,
                axis=alt.Axis(labelAngle=-50, labelLimit=110, labelOverlap=False, labelFontSize=10)),
        xOffset=alt.XOffset(f"{group}:N", sort=list(colors)),
        y=alt.Y(f"{y}:Q", title=axes.y), color=color, tooltip=tips)
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color=LABEL).encode(y=alt.Y("zero:Q"))
    if scrubbed is None:
        return alt.layer(bars, zero, height=280)
    top = alt.Chart(df).transform_aggregate(top=f"max({y})").transform_calculate(room="datum.top * 1.25")
    return alt.layer(bars, zero, top.mark_point(opacity=0).encode(y=alt.Y("room:Q")), height=280)  # unseen: room


# --- KL gradients, sampler and trainer, entropy --------------------------------------------------------------

@recipe(live=("key", "axes", "ref_title"))
def grouped_hbars(df: pd.DataFrame, *, row: str, row_order, value: str, ref: str, key: Key, axes: Axes,
                  ref_title: str) -> alt.Chart:
    """Horizontal bars, one group per ``row`` (e.g. a KL placement, in ``row_order``) and one bar per token in it
    (``key``: the token column, the tokens, their name in the legend), with a dark tick at each token's ``ref`` value
    (e.g. the true gradient, named ``ref_title``) so a bar that misses it shows at once. Its title: ``titled``."""
    token, tokens = key.field, key.tokens
    y = alt.Y(f"{row}:N", sort=list(row_order), title=None, axis=alt.Axis(labelLimit=200, labelFontSize=12))
    tooltip = [alt.Tooltip(f"{row}:N", title=row), alt.Tooltip(f"{token}:N", title=key.title),
               _num(value, axes.x), _num(ref, ref_title)]
    base = _by_position(alt.Chart(df), token, tokens).encode(  # tokens by position: any name is safe
        y=y, yOffset=alt.YOffset(field=_position(token), type="nominal", sort="ascending"), tooltip=tooltip)
    bars = base.mark_bar().encode(x=alt.X(f"{value}:Q", title=axes.x), color=_color(token, tokens, None, key.title))
    ticks = base.mark_tick(color=NEUTRAL, thickness=2.5, size=10).encode(x=alt.X(f"{ref}:Q"))
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color=NEUTRAL).encode(x=alt.X("zero:Q"))
    return alt.layer(bars, ticks, zero, height=alt.Step(max(8, 44 // max(1, len(tokens)))))


@recipe(live=("key", "axes"))
def stacked_shares(df: pd.DataFrame, *, x: str, value: str, key: Key, axes: Axes) -> alt.Chart:
    """Bars stacked per x, one segment per token (``key``: the token column, the tokens, their name in the legend and
    the tooltip; positive segments up, negative down), e.g. each token's part of a change step by step. Its title:
    ``titled``."""
    token, tokens = key.field, key.tokens
    base = _by_position(alt.Chart(df), token, tokens).encode(
        x=alt.X(f"{x}:O", title=axes.x, axis=alt.Axis(labelAngle=0)),
        y=alt.Y(f"{value}:Q", title=axes.y, stack="zero"),
        color=_color(token, tokens, None, key.title),
        tooltip=[alt.Tooltip(f"{x}:O", title=axes.x), alt.Tooltip(f"{token}:N", title=key.title),
                 _num(value, axes.y, 4)])
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(color=LABEL).encode(y=alt.Y("zero:Q"))
    return alt.layer(base.mark_bar(), zero, height=HEIGHT)


@recipe(live=("axes",))
def binned_bars(df: pd.DataFrame, *, start: str, end: str, value: str, axes: Axes, color: str = NEUTRAL) -> alt.Chart:
    """Pre-binned shares as bars from ``start`` to ``end`` (aggregate before charting); width follows the page. Its
    title: ``titled``."""
    bars = alt.Chart(df).mark_bar(color=color, opacity=0.85).encode(
        x=alt.X(f"{start}:Q", bin="binned", title=axes.x), x2=alt.X2(end),
        y=alt.Y(f"{value}:Q", title=axes.y),
        tooltip=[_num(start, t("charts.from")), _num(end, t("charts.to")), _num(value, axes.y)])
    return alt.layer(bars, height=HEIGHT)


# --- R1-Zero in miniature: a group of sampled answers as a grid of tokens -------------------------------------



class Cells(NamedTuple):
    """What a ``token_grid``'s cells show: the token's ``text``, coloured by ``value`` (named ``title``) over
    ``domain`` ([low, 0, high]), outlined where ``marked`` is true (named ``marked_title``); the titles are live."""

    text: str
    value: str
    title: str
    domain: list
    marked: str
    marked_title: str
    LIVE = ("title", "marked_title")


@recipe(live=("cells", "axes"))
def token_grid(df: pd.DataFrame, *, x: str, row: str, row_order, cells: Cells, axes: Axes, tooltips=(),
               height_per_row: int = 30) -> alt.LayerChart:
    """One row per answer (``row_order``), one cell per token in writing order (``x``: its position, titled
    ``axes.x``), each drawn as ``cells`` says (e.g. coloured by its advantage, outlined where clipped).
    ``tooltips``: (field, title) pairs of numbers shown beside the token and its value. Its title: ``titled``."""
    text, value, value_title, marked, marked_title = cells.text, cells.value, cells.title, cells.marked, \
        cells.marked_title
    base = alt.Chart(df).encode(
        x=alt.X(f"{x}:O", title=axes.x, axis=alt.Axis(labelAngle=0)),
        y=alt.Y(f"{row}:N", title=None, sort=list(row_order), axis=alt.Axis(labelLimit=220)),
    )
    tips = [alt.Tooltip(f"{text}:N", title=t("charts.token")), _num(value, value_title),
            *(_num(f, t) for f, t in tooltips), alt.Tooltip(f"{marked}:N", title=marked_title)]
    shaded = base.mark_rect(stroke=CELL_TEXT).encode(
        color=alt.Color(f"{value}:Q", title=value_title, scale=alt.Scale(domain=cells.domain, range=list(DIVERGING)),
                        legend=alt.Legend(orient="bottom", gradientLength=220)),
        strokeWidth=alt.StrokeWidth(f"{marked}:N", scale=alt.Scale(domain=[False, True], range=[0, 3]),
                                    legend=None),
        tooltip=tips,
    )
    labels = base.mark_text(fontSize=14, fontWeight="bold", color=CELL_TEXT).encode(text=alt.Text(f"{text}:N"),
                                                                                     tooltip=tips)
    # fit the width only: a height fitted to a discrete axis squeezes the rows together
    return alt.layer(shaded, labels, height=height_per_row * max(1, len(row_order)),
                     autosize=alt.AutoSizeParams(**FIT_WIDTH))
