"""Every chart's "Data behind this chart" table, and the CSV it downloads, in the page's language: with
``?lang=zh`` the columns are headed in Chinese (``ui.i18n.column``, the catalogue's ``[columns]``) and the labels
the page chose for its cells are Chinese; in English the tables are the charts' data as they were. One run per
page and language, every table opened at once after "Just show me"."""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pytest
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

import rlcore
from rlcore.studies.zero import task
from tests.apphelp import QUICK_SHARE, ROOT, charts, run_page, shared_out
from tests.pages.zhhelp import english_words
from ui import i18n, nav

PAGES = [p.path for p in nav.PAGES]
WORD = re.compile(r"[A-Za-z]{2,}")
SCENARIO = rlcore.ARTICLE_SCENARIO
# the learner's data in the cells: the scenario's text word by word (the answer's tokens, e.g. "It", "name"),
# and the R1-Zero task's own tokens ("<end>", shown as "end" in a narrow cell)
DATA_WORDS = {w for text in (SCENARIO.prompt, SCENARIO.prefix, *SCENARIO.tokens, *SCENARIO.continuations, *task.VOCAB)
              for w in WORD.findall(text)}
# names kept as written (GRPO, PPO: ALLOWED)
ALGORITHMS = {"REINFORCE", "RLOO", "Dr", "DAPO", "GSPO", "CISPO", "IPO", "RFT", "STaR"}
COMPOUND = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")  # a method's hyphenated name: seq-mean-token-mean, clip-higher
SYMBOL = re.compile(r"_[A-Za-z]+|\b(?:exp|log|min)\(")  # a symbol's subscript (ε_high, π_ref), a function in a formula
STORE = MemoryMediaFileStorage.load_and_get_id  # AppTest's file store, which ``opened`` watches


def opened(path: str, lang: str, monkeypatch) -> tuple[list[tuple[str, object]], list[dict], dict[str, bytes]]:
    """The page in ``lang`` after "Just show me", every chart's table open: (name, shown DataFrame) per table in
    the page's order, the charts (``apphelp.charts``), and the CSV files the open tables offer, by file name."""
    files: dict[str, bytes] = {}

    def record(self, data, mimetype, kind, filename=None):  # what the download buttons hand to Streamlit
        if filename and filename.endswith(".csv"):
            files[filename] = data
        return STORE(self, data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    at = run_page(ROOT / path, query={"lang": lang} if lang != i18n.DEFAULT else None)
    show = [b for b in at.button if (b.key or "").endswith("_show")]
    if show:
        show[0].click().run()
    for k in [k for k in at.session_state if str(k).startswith("table_")]:
        at.session_state[k] = True
    files.clear()  # only this last run's files: the open tables'
    at.run()
    label = i18n.text(lang, "chart.data")
    boxes = [e for e in at.expander if e.label == label]
    tables = [(e.proto.id.rsplit("-table_", 1)[1], e.dataframe[0].value) for e in boxes]
    assert len(boxes) == len(charts(at)), "a table for every chart"
    assert all(len(e.dataframe) == 1 for e in boxes), "every table open"
    return tables, charts(at), files


def fields(chart: dict) -> set[str]:
    """Every field name of a chart's data (its datasets' columns)."""
    return {str(c) for df in chart["data"].values() for c in df.columns}


def cell_words(values, keep=frozenset()) -> list[str]:
    """English words in a text column's cells, outside the learner's data, method and algorithm names, the
    terms the language test allows and the page's own ``keep`` (its table's ``keep_english``)."""
    texts = [SYMBOL.sub(" ", COMPOUND.sub(" ", str(v))) for v in values]
    return [w for w in english_words(texts, SCENARIO) if w not in DATA_WORDS | ALGORITHMS | keep]


def heading_words(headings) -> list[str]:
    """English words in column headings, a symbol's subscript aside (ε_high, π_ref are the same in both languages)."""
    return english_words([SYMBOL.sub(" ", str(h)) for h in headings], SCENARIO)


def csv_header_and_rows(data: bytes) -> tuple[list[str], int]:
    rows = list(csv.reader(io.StringIO(data.decode(), newline="")))
    return rows[0], len(rows) - 1


OWN_TABLE = {"policy_at_temperature"}  # page 1 tables both probabilities side by side, headed in its own words


# a share of the pages in the quick suite, every page in CI's exhaustive stage
@pytest.mark.parametrize("path", shared_out(PAGES, every=QUICK_SHARE,
                                            ids=lambda p: p.rsplit("/", 1)[-1].removesuffix(".py")))
def test_every_chart_table_and_its_csv_are_in_the_pages_language(path, monkeypatch):
    en, en_charts, en_files = opened(path, "en", monkeypatch)
    zh, zh_charts, zh_files = opened(path, "zh", monkeypatch)
    if not en:  # the Glossary: no chart at all
        assert not zh and "page.chart(" not in (ROOT / path).read_text(encoding="utf-8")
        return
    assert [name for name, _ in zh] == [name for name, _ in en]
    catalogue = i18n.catalogue("zh")
    for (name, e), (_, z), e_chart, z_chart in zip(en, zh, en_charts, zh_charts, strict=True):
        e_cols, z_cols = [str(c) for c in e.columns], [str(c) for c in z.columns]
        # English: the chart's own fields, unrenamed (a table may leave a helper field out)
        assert name in OWN_TABLE or set(e_cols) <= fields(e_chart), (name, set(e_cols) - fields(e_chart))
        # Chinese: no English heading, no two alike, each field of the chart named through the catalogue
        assert heading_words(z_cols) == [], (name, z_cols)
        assert len(set(z_cols)) == len(z_cols), f"{name}: two columns under one heading {z_cols}"
        assert len(z_cols) == len(e_cols) and z.shape == e.shape, name
        for e_col, z_col in zip(e_cols, z_cols, strict=True):
            if e_col in fields(z_chart):  # a field the page did not name in its language itself
                assert z_col == catalogue.get(f"columns.{e_col}", e_col), (name, e_col, z_col)
        numbers = [i for i in range(e.shape[1]) if e.iloc[:, i].dtype.kind in "biuf"]
        noisy = [x for i in numbers if e.iloc[:, i].dtype.kind == "f" for x in e.iloc[:, i]
                 if np.isfinite(x) and float(f"{x:.12g}") != x]
        assert not noisy, f"{name}: float noise in the table: {noisy[:3]}"  # 0.1 + 0.2 reads 0.3 (ui.format.tidy)
        assert e.iloc[:, numbers].equals(z.iloc[:, numbers].set_axis(e.columns[numbers], axis=1)), \
            f"{name}: the numbers are the English table's"
        for lang, df, files in (("en", e, en_files), ("zh", z, zh_files)):
            header, rows = csv_header_and_rows(files[f"{name}.csv"])
            assert (header, rows) == ([str(c) for c in df.columns], len(df)), f"{lang} {name}.csv is its table"
        text = [c for c in z.columns if z[c].dtype.kind not in "biufcmM"]
        left = {c: cell_words(z[c].dropna().unique(), i18n.kept_english(nav.info(path).table)) for c in text}
        assert not any(left.values()), (name, {c: w for c, w in left.items() if w})


@pytest.mark.every_page
def test_in_english_every_column_is_named_as_the_chart_names_it():
    """The English [columns] entries are the identity (so the English tables and CSVs are byte for byte what
    they were), and the Chinese ones are all different from one another (no two columns merge)."""
    en = {k: v for k, v in i18n.catalogue("en").items() if k.startswith("columns.")}
    zh = {k: v for k, v in i18n.catalogue("zh").items() if k.startswith("columns.")}
    assert len(en) > 50 and all(v == k.removeprefix("columns.") for k, v in en.items())
    assert set(zh) == set(en) and len(set(zh.values())) == len(zh)
    assert heading_words(zh.values()) == [], heading_words(zh.values())


def test_the_cell_check_finds_english_labels_but_not_names_tokens_or_symbols():
    """The cells' check could fail: an English label is reported, word by word; the learner's tokens, a method's
    hyphenated name, an algorithm's name and a symbol's subscript are not."""
    labels = ["mean judge score (0–10)", "REINFORCE + running mean", "seq-mean-token-mean · GRPO", "ε_high = 0.28",
              "π_ref·exp(r̂/β)", "closed #1", "It", "<end>"]
    assert cell_words(labels) == ["mean", "judge", "score", "running", "mean"]
    assert cell_words(labels, {"mean", "judge"}) == ["score", "running"]
