"""Page 3, "Value, Q and advantage", in Chinese (``?lang=zh``): it runs, before and after "Just show me", every
sentence, label and chart title it shows is Chinese (the word finder of tests/ui/test_i18n.py), the live numbers
are in those sentences, and the Chinese answers are marked as the English ones are."""

from __future__ import annotations

import json
import sys

from apphelp import ROOT, charts, no_exception, page_file, run_page

import rlcore
from ui.format import fmt

sys.path.insert(0, str(ROOT / "tests" / "ui"))
from test_i18n import chrome, english_words, prose  # the shared word finder

PAGE = page_file("3_")
ZH = {"lang": "zh"}
TERMS = {"token"}  # the English term in brackets on its first use on the page: 词元（token）


def chart_texts(node) -> list[str]:
    """Every title, subtitle and axis or legend title of a Vega-Lite spec, but the tooltips' (the shared chart
    builders name those after the data's columns)."""
    if isinstance(node, list):
        return [x for item in node for x in chart_texts(item)]
    if not isinstance(node, dict):
        return []
    out = []
    for key, value in node.items():
        if key in ("title", "subtitle", "text") and isinstance(value, str):
            out.append(value)
        elif key in ("title", "subtitle") and isinstance(value, list):
            out += [x for x in value if isinstance(x, str)]
        elif key != "tooltip":
            out += chart_texts(value)
    return out


def shown_text(at) -> list[str]:
    """What a reader of the page reads: the chrome and prose of the main area and the sidebar, the metrics, the
    sliders, the question's options, the tables' column labels, the charts' titles and text alternatives."""
    out = chrome(at.main) + prose(at.main) + chrome(at.sidebar) + prose(at.sidebar)
    out += [x for m in at.metric for x in (m.label, m.help or "")]
    out += [x for w in at.get("select_slider") for x in (w.label, w.proto.help)]
    out += [str(o) for r in at.radio for o in r.options]
    out += [json.dumps([str(c) for c in df.value.columns], ensure_ascii=False) for df in at.dataframe]
    out += [x for c in charts(at) for x in (*chart_texts(c["spec"]), c["alt"])]
    return out


def english_left(at, terms=TERMS) -> list[str]:
    return [w for w in english_words(shown_text(at)) if w not in terms]


def show(at):
    """Press the question's "Just show me" (found by its key: its label is Chinese here)."""
    next(b for b in at.button if (b.key or "").endswith("_show")).click().run()
    no_exception(at)
    return at


def test_the_page_in_chinese_has_no_english_left_before_and_after_just_show_me():
    at = run_page(PAGE, query=ZH)
    no_exception(at)
    assert len(shown_text(at)) > 30 and english_left(at) == [], english_left(at)
    show(at)
    assert english_left(at) == [], english_left(at)
    assert at.subheader[1].value == "同样的数字，一步步算出来", "the worked sums are drawn once revealed"


def test_the_word_finder_would_see_the_english_page():
    """The check above could fail: the same page in English is full of words it reports."""
    assert {"answers", "judge", "sampled"} <= set(english_left(show(run_page(PAGE))))


def test_the_live_numbers_are_in_the_chinese_sentences_and_a_chinese_answer_is_marked():
    s = rlcore.ARTICLE_SCENARIO
    q = [sum(x) / len(x) for x in s.samples]  # each token's Q: the mean of its scores
    v = sum(p * qi for p, qi in zip(s.probs, q, strict=True))  # V = Σ π·Q
    # the question asks about the best token's runner-up, whose A = Q − V is positive in the article's example
    pick = sorted(range(len(q)), key=q.__getitem__)[-2]
    assert q[pick] - v > 0
    at = run_page(PAGE, query=ZH)
    radio = at.radio(key="predict_vqa")
    assert list(radio.options) == ["正", "零", "负"]
    radio.set_value("正").run()
    no_exception(at)
    (right,) = at.success
    assert right.value.startswith("答对了：**正**")
    assert f"A({s.tokens[pick]}) = Q − V = {fmt(q[pick])} − {fmt(v)} = {fmt(q[pick] - v, sign=True)}。" in right.value
    assert f"V = {fmt(v)}" in right.value and "所以即使" in right.value
    at.radio(key="predict_vqa").set_value("负").run()
    assert at.warning and at.warning[0].value.startswith("这次没猜中：答案是 **正**")
    text = "\n".join(m.value for m in at.markdown)
    assert f"= **{fmt(v)}**" in text, "the worked V, in the Chinese page"
