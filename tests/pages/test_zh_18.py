"""Page 18, DPO, in Chinese (``?lang=zh``): it runs, its own text is Chinese in every view, its live numbers are
the English page's, and the question's answer is still checked against the same choice."""

from __future__ import annotations

from apphelp import chart_by_title, no_exception, numbers, page_file, run_page
from zhhelp import assert_chinese, english_left, views_of

import rlcore
from ui import i18n

PAGE = page_file("18_")
# kept as written: the Bradley–Terry model, the papers' authors, IPO and RLHF, the formulas' exp and log, and the
# English terms in brackets on their first use
TERMS = {"Bradley", "Terry", "Rafailov", "Azar", "IPO", "RLHF", "exp", "log", "reward", "model", "preference",
         "margin"}
views = views_of(PAGE, TERMS)


def test_both_views_are_chinese(views):
    default, at = views
    assert_chinese(default, at, TERMS)
    assert not any("When raters" in m.value or "Each pair" in m.value for m in at.markdown)


def test_the_question_names_the_default_thousand_pairs_and_its_choices_are_chinese():
    at = run_page(PAGE, query={"lang": "zh"})
    no_exception(at)
    radio = at.radio(key="predict_dpo")
    assert "在这 1,000 对比较上" in radio.label, radio.label
    assert list(radio.options) == [i18n.text("zh", f"p18.landing_{k}") for k in ("fit", "ref", "unbeaten")]


def test_the_ipo_figures_are_the_english_pages():
    """The sentence under the IPO chart gives the least liked answer's DPO start and end and IPO's end: the same
    figures in both languages (the default view draws this chart too)."""
    def figures(at, start):
        (text,) = [m.value for m in at.markdown if m.value.startswith(start)]
        return numbers(text)
    en = run_page(PAGE)
    zh = run_page(PAGE, query={"lang": "zh"})
    no_exception(en), no_exception(zh)
    assert len(figures(en, "When raters never disagree")) >= 4
    assert figures(zh, "当评审从不意见相左时") == figures(en, "When raters never disagree")


def test_never_lost_pairs_are_told_in_chinese():
    """Twenty pairs with little noise leave some answer unbeaten: the answer is the third choice, in Chinese."""
    at = run_page(PAGE, query={"lang": "zh"}, inputs={"n": 20, "noise": 0.25})
    radio = at.radio(key="predict_dpo")
    radio.set_value(radio.options[2]).run()
    no_exception(at)
    assert any(i18n.text("zh", "p18.explain_unbeaten") in s.value for s in at.success), [s.value for s in at.success]
    assert english_left(at, TERMS) == [], english_left(at, TERMS)
    chart_by_title(at, i18n.text("zh", "p18.path_title"))


def test_the_flattering_answer_is_named_in_chinese():
    """The article's best token by Q is partly (Q 9): its flattering copy is the last answer, named in Chinese in
    the chart and the table."""
    at = run_page(PAGE, query={"lang": "zh"}, state={"predict_dpo_shown": True})
    no_exception(at)
    path = chart_by_title(at, i18n.text("zh", "p18.path_title"))
    answers = set(max(path["data"].values(), key=len)["answer"])
    assert answers == {"open", "closed", "partly", "partly + 奉承"}, answers
    assert "partly + 奉承" in list(at.dataframe[0].value[i18n.text("zh", "p18.answer")])


def test_answers_that_all_score_alike_are_told_in_chinese():
    """Two answers both scored 5 and no liking for flattery: no pair has a better side, said in Chinese."""
    flat = rlcore.Scenario(tokens=("yes", "no"), probs=(0.5, 0.5), samples=((5,), (5,)))
    at = run_page(PAGE, scenario=flat, query={"lang": "zh"}, inputs={"flattery": 0.0})
    no_exception(at)
    assert i18n.text("zh", "p18.no_better_side") in [i.value for i in at.info]
    assert english_left(at, TERMS, flat) == [], english_left(at, TERMS, flat)
