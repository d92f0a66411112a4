"""Page 11, clips after PPO, in Chinese (``?lang=zh``): it runs, its own text is Chinese in every view, its live
numbers are the English page's, and the question's answer is still checked against its Chinese options."""

from __future__ import annotations

from apphelp import keys, metrics, no_exception, page_file, run_page
from zhhelp import assert_chinese, english_left, views_of

import rlcore
from ui import i18n

PAGE = page_file("11_")
K = keys(PAGE)
# the methods' names, the advantage's choices (rlcore's identifiers), and ε_high / ε_low, clip(…), ∇log π
# one score for every answer, so every advantage is 0 (tokens of whole words: the finder takes them out of the text)
FLAT = rlcore.Scenario(tokens=("yes", "maybe"), probs=(0.5, 0.5), samples=((5,), (5,)))
TERMS = {"DAPO", "CISPO", "GSPO", "clip", "higher", "high", "low", "log", "grpo", "dr", "rloo", "entropy"}
views = views_of(PAGE, TERMS)


def test_both_views_are_chinese(views):
    default, at = views
    assert_chinese(default, at, TERMS)
    assert i18n.text("zh", "p11.explain.worked") in [m.value for m in at.markdown], "the explanation is shown"


def test_the_live_numbers_are_the_english_pages(views):
    """The rare token at π_old = 0.01: the clip lets its ratio reach 1 + ε, so 0.01 · 1.2 = 0.012 (+0.002) and
    with ε_high 0.01 · 1.28 = 0.0128; CISPO at ρ = 1.3 is capped at 1 + 0.28 = 1.28, and PPO's symmetric clip
    (1.3 > 1.2) keeps no gradient for a positive advantage."""
    _, at = views
    m = metrics(at)
    assert m["最高可到（ε = 0.2）"] == "0.012 +0.002" and m["最高可到（ε_high = 0.28）"] == "0.0128 +0.0028"
    text = "\n".join(x.value for x in at.markdown)
    assert "触到上限 1 + ε_high = 1.28，所以这个词元的梯度权重是 **1.28** × 它的优势" in text
    assert "优势为正时，PPO 的权重是 0）" in text


def test_an_answer_is_marked_against_the_chinese_options():
    at = run_page(PAGE, query={"lang": "zh"})
    radio = at.radio(key="predict_clip")
    assert i18n.text("zh", "p11.both") in radio.options
    radio.set_value(radio.options[0]).run()
    no_exception(at)
    marks = [x.value for x in (*at.success, *at.warning)]
    assert len(marks) == 1 and "**" in marks[0], marks
    assert english_left(at, TERMS) == [], english_left(at, TERMS)


def test_equal_scores_say_so_in_chinese():
    at = run_page(PAGE, scenario=FLAT, query={"lang": "zh"})
    no_exception(at)
    assert i18n.text("zh", "p11.dead") in [i.value for i in at.info]
    assert english_left(at, TERMS, FLAT) == [], english_left(at, TERMS, FLAT)
