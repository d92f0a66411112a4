"""Page 17, over-optimisation, in Chinese (``?lang=zh``): it runs, its own text is Chinese in every view, its live
numbers are the English page's, and the translated choices mark an answer as the English ones do."""

from __future__ import annotations

import pytest
from apphelp import charts, choose_preset, keys, metrics, no_exception, page_file, reveal, run_page
from zhhelp import assert_chinese, english_left, views_of

from ui import i18n

PAGE = page_file("17_")
# the paper's authors, the model's terms in brackets, and the symbols of the closed form
TERMS = {"Gao", "Schulman", "Hilton", "over", "optimisation", "reference", "model", "softmax", "exp"}
K = keys(PAGE)
views = views_of(PAGE, TERMS)


def test_both_views_are_chinese(views):
    default, at = views
    assert_chinese(default, at, TERMS)
    assert [c["spec"]["title"]["text"] for c in charts(at)] == ["从起点算起的分数提升，对离参考模型的 KL 作图",
                                                             "三种惩罚下，真实分数随 KL 的变化",
                                                             "三个奖励模型下，真实分数随 KL 的变化"]


def test_the_live_numbers_are_the_english_pages(views):
    """The three metrics show the English page's figures; and the true judge's scores of the flattering and the
    plain answer are the article's: partly's mean 9 (10 and 8), and 9 − 0.6 = 8.4 for its flattering copy."""
    _, at = views
    english = metrics(reveal(PAGE, None))
    assert list(metrics(at).values()) == list(english.values()) and len(english) == 3
    text = "\n".join(m.value for m in at.markdown)
    assert "真实评审给它们的分是 8.4 和 9" in text
    assert "100 次比较：" in text and "20,000 次比较：" in text


@pytest.mark.parametrize("choice", [0, 1])
def test_a_chinese_choice_is_marked_as_the_english_one(choice):
    zh = run_page(PAGE, query={"lang": "zh"})
    radio = zh.radio(key="predict_over")
    assert list(radio.options) == ["一直上升", "先升后降"]
    radio.set_value(radio.options[choice]).run()
    no_exception(zh)
    en = reveal(PAGE, choice)
    assert (len(zh.success), len(zh.warning)) == (len(en.success), len(en.warning)) != (0, 0)


def test_the_tight_leash_in_chinese():
    """The Chinese preset name still sets β = 1 (the link keeps the number), and the page stays Chinese."""
    at = run_page(PAGE, query={"lang": "zh"}, state={"predict_over_shown": True})
    choose_preset(at, i18n.text("zh", "p17.preset_tight"))
    no_exception(at)
    assert at.select_slider(key=K("beta")).value == 1 and at.query_params["beta"] == "1"
    assert english_left(at, TERMS) == [], english_left(at, TERMS)
