"""Token names that are JavaScript object properties never reach Vega as strings or as a scale's values.

Vega in the browser keeps strings of a spec, and the values of a discrete scale, as keys of plain
objects: a token named ``toString``, ``constructor`` or ``__proto__`` left charts empty ("Operator not
defined"). The builders encode a token by its position and spell its name out of one-character strings;
``tests/e2e/test_token_names_e2e.py`` shows the charts drawn in a real browser.
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

import rlcore
from tests.apphelp import ALL_PAGES, charts, reveal, run_page, shared_out, spec_items
from ui import charts as builders
from ui import spec

NAMES = ("toString", "constructor", "__proto__", "valueOf", "hasOwnProperty")
SCENARIO = rlcore.Scenario(tokens=NAMES, probs=(0.3, 0.25, 0.2, 0.15, 0.1),
                           samples=((3.0, 1.0, 2.0), (5.0, 4.0), (10.0, 8.0), (6.0,), (2.0, 7.0)))
JOINED = re.compile(r"join\((\[[^\]]*\]), ''\)")


def strings(node):
    """(key, text) for every string in a spec, datasets left out."""
    return [(k, v) for k, v in spec_items(node) if isinstance(v, str)]


def quoted(text: str, name: str) -> bool:
    return f'"{name}"' in text or f"'{name}'" in text


def domains(node):
    """Every explicit scale domain and sort order in a spec."""
    return [v["domain"] if k == "scale" else v for k, v in spec_items(node)
            if (k == "scale" and isinstance(v, dict) and isinstance(v.get("domain"), list))
            or (k == "sort" and isinstance(v, list))]


def discrete_fields(node):
    """The fields a spec groups by: nominal or ordinal encodings, and facets (not a tooltip's or a text's)."""
    return [v["field"] for _, v in spec_items({"": node}, skip=("datasets", "tooltip", "text"))
            if isinstance(v, dict) and v.get("type") in ("nominal", "ordinal") and isinstance(v.get("field"), str)]


def assert_names_safe(chart_spec: dict, data: dict[str, pd.DataFrame], where: str) -> None:
    for key, text in strings(chart_spec):
        for name in NAMES:
            assert text != name, f"{where}: the string {name!r} at {key!r}"
            assert not quoted(text, name), f"{where}: {name!r} quoted in {key!r}: {text[:120]}"
    for values in domains(chart_spec):
        assert not set(map(str, values)) & set(NAMES), f"{where}: a token name in a domain or sort: {values}"
    for field in set(discrete_fields(chart_spec)):
        for df in data.values():
            if isinstance(df, pd.DataFrame) and field in df.columns:
                assert not set(df[field].astype(str)) & set(NAMES), f"{where}: Vega groups by names in {field!r}"


KEY, AXES = builders.Key("token", NAMES), builders.Axes("x", "p")
TOKEN_CHARTS = {
    "token_bars": lambda df: builders.token_bars(df, value="p", tokens=NAMES, axes=builders.Axes(y="p")),
    "lines": lambda df: builders.lines(df, x="x", y="p", key=KEY, axes=AXES),
    "bands": lambda df: builders.bands(df, x="x", mid="p", low="p", high="p", key=KEY, axes=AXES),
    "histogram": lambda df: builders.histogram(df, start="x", end="x", count="p", key=KEY, axes=builders.Axes("x")),
    "points_chart": lambda df: builders.points_chart(df, x="token", y="p", key=KEY, axes=builders.Axes("token", "p")),
    "arrows": lambda df: builders.arrows(df, x="token", start="p", end="x", label="token", tokens=NAMES),
    "labelled_points": lambda df: builders.labelled_points(df, x="x", y="p", label="token", key=KEY, axes=AXES),
    "facets": lambda df: builders.facets(builders.bands(df, x="x", mid="p", low="p", high="p", key=KEY, axes=AXES),
                                         field="panel", order=["a"], title="t"),
}


@pytest.mark.parametrize("name", TOKEN_CHARTS)
def test_builders_write_no_token_name_into_the_spec(name):
    df = pd.DataFrame({"token": list(NAMES), "p": [0.1, 0.2, 0.3, 0.25, 0.15], "x": [1.0, 2.0, 3.0, 4.0, 5.0],
                       "panel": ["a"] * 5})
    out = spec.vega_lite(TOKEN_CHARTS[name](df))
    text = json.dumps({k: v for k, v in out.items() if k != "datasets"})
    assert not any(n in text for n in NAMES), "a name is written into the spec"
    assert_names_safe(out, out["datasets"], name)
    # the names come back only as labels: each joined from its characters, in the order of the tokens
    spelled = [["".join(json.loads(m)) for m in JOINED.findall(t)] for _, t in strings(out) if "join(" in t]
    assert spelled and all(s == list(NAMES) for s in spelled), spelled


def test_an_answer_strip_does_not_group_by_the_words_themselves():
    words = pd.DataFrame({"label": ["OpenAI", "is", "__proto__", "toString"], "position": [0, 1, 2, 3],
                          "v": [0.0, 0.0, 1.0, 0.5]})
    out = spec.vega_lite(builders.answer_strip(words, value="v", axes=builders.Axes(y="v")))
    assert_names_safe(out, out["datasets"], "answer_strip")


@pytest.mark.parametrize("path", shared_out(ALL_PAGES, every=3, offset=1, ids=lambda p: p.stem))
def test_pages_keep_token_names_out_of_vegas_keys(path):
    at = run_page(path, scenario=SCENARIO)
    found = charts(at) or charts(reveal(path, None, scenario=SCENARIO))  # a page may draw its charts on the reveal
    assert found
    for i, c in enumerate(found):
        assert_names_safe(c["spec"], c["data"], f"{path.stem} chart {i}")
