"""Page 8, KL penalty, in Chinese (``?lang=zh``): it runs, its own text is Chinese in every view, and its live
numbers are the ones the English page shows."""

from __future__ import annotations

import re

from apphelp import metrics, no_exception, page_file, run_page
from zhhelp import assert_chinese, english_left, views_of

import rlcore

PAGE = page_file("8_KL")
# the flattery example's two answers are its data (quoted as written); then the terms in brackets (the page's,
# and the glossary's in the sliders' and metrics' help), the algorithms' names and the formulas' symbols
ANSWERS = {w for c in rlcore.FLATTERY.continuations for w in re.findall(r"[A-Za-z]{2,}", c)}
TERMS = frozenset(ANSWERS | {"reference", "model", "penalty", "nats", "critic", "weight", "divergence", "log",
                             "exp", "RLHF"})
views = views_of(PAGE, TERMS)


def test_both_views_are_chinese(views):
    default, at = views
    assert_chinese(default, at, TERMS)


def test_the_live_numbers_are_the_english_pages(views):
    """At β = 1 the best policy is π* ∝ π_ref · exp(score): flattery's share is 0.05·e^9.6 / (0.95·e^9 +
    0.05·e^9.6) = 0.05·e^0.6 / (0.95 + 0.05·e^0.6) = 0.0911 / 1.0411 = 8.8%."""
    _, at = views
    assert metrics(at)["最佳奉承比例"] == "8.8%"
    text = "\n".join(m.value for m in at.markdown)
    assert "有 8.8% 的时间奉承" in text, text


def test_no_penalty_and_another_seed_stay_chinese():
    """β = 0 with ten tokens: the objective is the judge's score, so more flattery raises it; still no English."""
    at = run_page(PAGE, query={"lang": "zh", "beta": "0.0", "share": "0.3", "n": "10"},
                  state={"predict_kl_shown": True})
    no_exception(at)
    text = "\n".join(m.value for m in at.markdown)
    assert "这会**提高**目标" in text, text
    assert english_left(at, TERMS) == [], english_left(at, TERMS)
