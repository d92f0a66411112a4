"""Page 7, exploration, in Chinese (``?lang=zh``): it runs, its own text is Chinese in every view, its live
numbers are the English page's, and the baseline's choices are Chinese while the link keeps rlcore's names."""

from __future__ import annotations

from apphelp import metrics, no_exception, page_file, run_page
from zhhelp import assert_chinese, english_left, views_of

PAGE = page_file("7_")
TERMS = {"greedy", "decoding", "temperature", "policy", "exploration", "log", "softmax"}  # bracketed terms, a formula
views = views_of(PAGE, TERMS)


def test_both_views_are_chinese(views):
    default, at = views
    assert_chinese(default, at, TERMS)


def test_the_live_numbers_are_the_english_pages(views):
    """The article: π(partly) = 0.2 at τ = 1. A batch of 8 holds a `partly` answer with chance 1 − 0.8⁸ = 83.2%;
    1 − 0.8^k passes 50% at k = 4 (0.8⁴ = 0.41, 0.8³ = 0.51) and 95% at k = 14 (0.8¹⁴ = 0.044, 0.8¹³ = 0.055)."""
    _, at = views
    assert metrics(at)["一批里出现 partly"] == "83.2%"
    text = "\n".join(m.value for m in at.markdown)
    assert "k = 4 时超过 50%，k = 14 时超过 95%" in text, text


def test_another_baseline_and_a_hot_temperature_stay_chinese():
    """No baseline and τ = 2: the greedy sentence of that baseline, the temperature's other sentence, and the
    selectbox shows Chinese while the link keeps rlcore's name."""
    at = run_page(PAGE, query={"lang": "zh", "baseline": "none", "temp": "2.0", "seeds": "1"},
                  state={"predict_explore_shown": True})
    no_exception(at)
    box = at.selectbox(key=next(s.key for s in at.selectbox if s.value == "none"))
    assert list(box.options) == ["无", "批均值", "V"]
    text = "\n".join(m.value for m in at.markdown)
    assert "不用基线时" in text and "τ = 2 时，策略的" in text, text
    assert english_left(at, TERMS) == [], english_left(at, TERMS)
