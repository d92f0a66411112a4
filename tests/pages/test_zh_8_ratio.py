"""Page 8, ratio and clipping, in Chinese (``?lang=zh``): it runs, its own text is Chinese in every view, its live
numbers are the English page's, and the question's answer is still checked against the options it shows."""

from __future__ import annotations

from apphelp import metrics, no_exception, page_file, run_page
from zhhelp import assert_chinese, english_left, views_of

PAGE = page_file("8_Ratio")
# the objective's formula, min(ρA, clip(ρ)·A), as the papers write it; 重要性比率 and 轮数 with their English names
TERMS = {"clip", "min", "importance", "epoch"}
views = views_of(PAGE, TERMS)


def test_both_views_are_chinese(views):
    default, at = views
    assert_chinese(default, at, TERMS)


def test_the_live_numbers_are_the_english_pages(views):
    """The article: π = (0.5, 0.3, 0.2), Q = (2, 5, 9), V = 4.3; the page follows `partly` (the best Q), whose
    A = 9 − 4.3 = +4.7, and with ε = 0.2 it may go from 0.2 to 1.2 × 0.2 = 0.24 and no lower than 0.8 × 0.2 = 0.16."""
    _, at = views
    m = metrics(at)
    assert m["优势 A(partly)"] == "+4.7" and m["最高（A > 0）"] == "0.24" and m["最低（A < 0）"] == "0.16"
    text = "\n".join(x.value for x in at.markdown)
    assert "直到 π(partly) 升到 **0.24** 为止" in text


def test_a_negative_advantage_asks_in_chinese_and_the_right_option_is_right():
    """`open`: A = 2 − 4.3 = −2.3, so its probability 0.5 may fall to 0.8 × 0.5 = 0.4 (not 0.5 − 0.2 = 0.3)."""
    at = run_page(PAGE, query={"lang": "zh", "token": "open"})
    no_exception(at)
    radio = at.radio(key="predict_clip")
    assert list(radio.options) == ["到 0.3", "到 0.4", "这一批没有上限"]
    radio.set_value("到 0.4").run()
    no_exception(at)
    assert any("0.8 × 0.5 = 0.4" in s.value for s in at.success), [s.value for s in at.success]
    assert english_left(at, TERMS) == [], english_left(at, TERMS)
