"""Page 2, "Reward and return", in Simplified Chinese (``?lang=zh``): the page runs before and after the question
is answered, with γ below 1, a score of 0 and answers that coincide, shows no English left in its prose, labels,
metrics and charts, and its live numbers are the ones the formulas give."""

from __future__ import annotations

import math

from apphelp import no_exception, numbers, page_file, run_page
from test_zh_1 import check_marking, drawn, english_left

import rlcore
from ui import i18n

PAGE = page_file("2_")
ZH = {"lang": "zh"}
# Latin words this page may show in Chinese: terms in brackets on first use, and a model's name
TERMS = {"sparse", "delayed", "discount", "factor", "process", "model", "DeepSeek"}
# tokens of several letters: the word finder takes the scenario's tokens out of the text, a one-letter one out of
# every word
ZERO = rlcore.Scenario(tokens=("oui", "non"), probs=(0.6, 0.4), samples=((0,), (0,)),
                       continuations=(" est-ce.", " pas du tout."))
SAME = rlcore.Scenario(tokens=("oui", "non"), probs=(0.5, 0.5), samples=((5,), (5,)))  # no continuations: one text
# the article's most likely token, "open", is scored 3, 1, 2, 1, 3: a mean of 2
SCORE = sum((3, 1, 2, 1, 3)) / 5


def zh(msgid: str, **values) -> str:
    return i18n.text("zh", f"p2.{msgid}", **values)


def show(at):
    next(b for b in at.button if b.label == i18n.text("zh", "predict.show")).click().run()
    no_exception(at)
    return at


def test_the_default_view_in_chinese_has_no_english_left():
    at = run_page(PAGE, query=ZH)
    no_exception(at)
    assert english_left(at, terms=TERMS) == [], english_left(at, terms=TERMS)
    assert zh("answer_first") in [c.value for c in at.caption], "the length chart waits for the answer"
    (question,) = [m.value for m in at.markdown if m.value.startswith(i18n.text("zh", "predict.ask", question=""))]
    assert numbers(question) == [0.9, SCORE, 5, 20], question


def test_the_finder_would_see_english_here():
    """The check above could fail: the same page in English is full of words it reports."""
    assert {"judge", "answer", "reasoning"} <= set(english_left(run_page(PAGE), terms=TERMS))


def test_after_just_show_me_the_answer_and_the_length_chart_are_chinese():
    at = show(run_page(PAGE, query=ZH))
    assert english_left(at, terms=TERMS) == [], english_left(at, terms=TERMS)
    (line,) = [i.value for i in at.info if i.value.startswith("答案是 **")]
    assert line.startswith(f"答案是 **{zh('more')}**"), line
    # the first token's return is score × γ^(length − 1): 5 and 20 tokens at γ = 0.9
    short, long = SCORE * 0.9 ** 4, SCORE * 0.9 ** 19
    got = numbers(line)  # 5 tokens, its credit, 20 tokens, its credit, γ; credits to 3 significant digits
    assert got[0::2] == [5, 20, 0.9], got
    assert math.isclose(got[1], short, rel_tol=0.005) and math.isclose(got[3], long, rel_tol=0.005), got
    n = len(rlcore.answer_tokens(rlcore.ARTICLE_SCENARIO, "open"))
    assert {zh("here", n=n), zh("curve", gamma="0.9")} <= set(drawn(at)), drawn(at)


def test_the_translated_choice_is_marked_right():
    check_marking(PAGE, "predict_gamma", [zh("more"), zh("less"), zh("same")], zh("more"), zh("same"))


def test_a_discount_below_one_in_chinese():
    at = show(run_page(PAGE, query=ZH, inputs={"gamma": 0.9}))
    assert english_left(at, terms=TERMS) == [], english_left(at, terms=TERMS)
    n = len(rlcore.answer_tokens(rlcore.ARTICLE_SCENARIO, "open"))
    text = next(m.value for m in at.markdown if m.value.startswith("γ = 0.9 时"))
    # the last token keeps the score, the first gets score × 0.9^(n − 1)
    assert math.isclose(numbers(text)[1], SCORE) and math.isclose(numbers(text)[2], SCORE * 0.9 ** (n - 1),
                                                                    rel_tol=0.005), text
    assert zh("curve_slider", gamma="0.9") not in drawn(at), "0.9 is one of the lines, not the slider's own"


def test_a_score_of_zero_and_answers_that_coincide_in_chinese():
    at = show(run_page(PAGE, query=ZH, scenario=ZERO))
    assert english_left(at, ZERO, TERMS) == [], english_left(at, ZERO, TERMS)
    assert any(i.value.endswith("都还是 0）。") for i in at.info), [i.value for i in at.info]
    at = show(run_page(PAGE, query=ZH, scenario=SAME))
    assert english_left(at, SAME, TERMS) == [], english_left(at, SAME, TERMS)
    assert zh("coincide") in [c.value for c in at.caption]
    assert zh("both_same") in [m.value for m in at.markdown]
