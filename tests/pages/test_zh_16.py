"""Page 16, a reward model from comparisons, in Chinese (``?lang=zh``): it runs, its own text is Chinese in every
view, its live numbers are the English page's, the translated choices still mark the answer, and the notice for
a scenario with nothing to compare is Chinese too."""

from __future__ import annotations

from apphelp import charts, keys, no_exception, page_file, run_page
from zhhelp import assert_chinese, english_left, views_of

import rlcore
from ui import i18n

PAGE = page_file("16_")
K = keys(PAGE)
TERMS = {"Bradley", "Terry", "reference", "model"}  # the model's name, and "reference model" in brackets
views = views_of(PAGE, TERMS)


def test_both_views_are_chinese(views):
    default, at = views
    assert_chinese(default, at, TERMS)
    titles = [c["spec"]["title"]["text"] for c in charts(at)]
    assert titles == ["每个回答的分数，平移到均值为 0", "奖励模型离标注者有多远"]


def test_the_live_numbers_are_the_english_pages(views):
    """The article: partly scores 9; its flattering copy is read by the true judge as 9 − 0.6 = 8.4, so the
    question names a gap of 8.4 − 9 = −0.6 against partly, and the chart names the copy in Chinese."""
    _, at = views
    text = "\n".join(m.value for m in at.markdown)
    assert "相对朴素的 **partly** 为 **−0.6**" in text and "用 1,000 次比较" in text
    (bars,) = [c for c in charts(at) if c["spec"]["title"]["text"].startswith("每个回答")]
    data = max(bars["data"].values(), key=len)
    assert set(data["answer"]) == {"open", "closed", "partly", "partly + 奉承"}
    assert set(data["judge"]) == {"真实评审", "标注者", "奖励模型"}


def test_a_chinese_answer_is_marked_against_the_chinese_choices():
    """Raters who add 2 points to flattery, 20,000 comparisons and little noise: the reward model must rate the
    flattering answer above the plain one (the raters' own gap is +2), so 之上 is right."""
    at = run_page(PAGE, query={"lang": "zh"}, inputs={"flattery": 2.0, "n": 20000, "noise": 1.0})
    radio = at.radio(key="predict_rm")
    assert list(radio.options) == ["之上", "之下"]
    radio.set_value("之上").run()
    no_exception(at)
    assert [s.value.split("**")[1] for s in at.success] == ["之上"] and not at.warning


def test_nothing_to_compare_says_so_in_chinese():
    one = rlcore.Scenario(tokens=("yes", "no"), probs=(1.0, 0.0), samples=((1,), (5,)))  # only "yes" is written
    at = run_page(PAGE, query={"lang": "zh"}, scenario=one)
    no_exception(at)
    assert i18n.text("zh", "judge.nothing_to_compare") in [i.value for i in at.info]
    assert english_left(at, TERMS, one) == [], english_left(at, TERMS, one)
