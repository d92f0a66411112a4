"""Chart builders for "R1-Zero in miniature": a group of sampled answers as a grid of tokens. No maths here."""

from __future__ import annotations

import altair as alt
import pandas as pd

from .charts import _num, _title
from .spec import recipe

# orange for a token pushed down, blue for one pushed up (Okabe & Ito's pair, lightened so that the black token
# text on them stays readable), light grey for 0
DIVERGING = ("#EE9A6B", "#F2F2F2", "#6FB3E3")


@recipe
def token_grid(df: pd.DataFrame, *, x: str, row: str, row_order, text: str, value: str, value_title: str,
               value_domain, title: str, marked: str, marked_title: str, tooltips=(), subtitle: str | None = None,
               height_per_row: int = 30) -> alt.LayerChart:
    """One row per answer (``row_order``), one cell per token in writing order (``x``: its position): the token's
    text on a cell coloured by ``value`` over ``value_domain`` ([low, 0, high]), outlined where ``marked`` is true
    (e.g. clipped). ``tooltips``: (field, title) pairs of numbers shown beside the token and its value."""
    base = alt.Chart(df).encode(
        x=alt.X(f"{x}:O", title="token position", axis=alt.Axis(labelAngle=0)),
        y=alt.Y(f"{row}:N", title=None, sort=list(row_order), axis=alt.Axis(labelLimit=220)),
    )
    tips = [alt.Tooltip(f"{text}:N", title="token"), _num(value, value_title),
            *(_num(f, t) for f, t in tooltips), alt.Tooltip(f"{marked}:N", title=marked_title)]
    cells = base.mark_rect(stroke="#000000").encode(
        color=alt.Color(f"{value}:Q", title=value_title, scale=alt.Scale(domain=value_domain, range=list(DIVERGING)),
                        legend=alt.Legend(orient="bottom", gradientLength=220)),
        strokeWidth=alt.StrokeWidth(f"{marked}:N", scale=alt.Scale(domain=[False, True], range=[0, 3]),
                                    legend=None),
        tooltip=tips,
    )
    labels = base.mark_text(fontSize=14, fontWeight="bold", color="#111111").encode(text=alt.Text(f"{text}:N"),
                                                                                     tooltip=tips)
    # fit the width only: a height fitted to a discrete axis squeezes the rows together
    return alt.layer(cells, labels, title=_title(title, subtitle), height=height_per_row * max(1, len(row_order)),
                     autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))
