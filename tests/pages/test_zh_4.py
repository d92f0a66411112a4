"""Page 4, "Baseline and variance", in Chinese (``?lang=zh``): it runs, before and after "Just show me", it shows
no English but its terms (the word finder of tests/ui/test_i18n.py), the live numbers are in its sentences, and a
Chinese answer is marked as the English one is."""

from __future__ import annotations

from apphelp import no_exception, page_file, run_page
from test_zh_3 import TERMS, ZH, english_left, show, shown_text  # the checks of a page in Chinese

import rlcore
from ui import i18n
from ui.format import fmt, fmt_list

PAGE = page_file("4_")
TERMS_HERE = TERMS | {"variance"}  # 方差（variance）, on its first use


def test_the_page_in_chinese_has_no_english_left_before_and_after_just_show_me():
    at = run_page(PAGE, query=ZH)
    no_exception(at)
    assert len(shown_text(at)) > 30 and english_left(at, TERMS_HERE) == [], english_left(at, TERMS_HERE)
    show(at)
    assert len(at.metric) == 4, "the variances are drawn once revealed"
    assert english_left(at, TERMS_HERE) == [], english_left(at, TERMS_HERE)


def test_the_word_finder_would_see_the_english_page():
    """The check above could fail: the same page in English is full of words it reports."""
    assert {"baselines", "answers", "noise"} <= set(english_left(show(run_page(PAGE)), TERMS_HERE))


def test_the_live_numbers_are_in_the_chinese_sentences_and_a_chinese_answer_is_marked():
    s = rlcore.ARTICLE_SCENARIO
    q = [sum(x) / len(x) for x in s.samples]  # each token's Q: the mean of its scores
    v = sum(p * qi for p, qi in zip(s.probs, q, strict=True))  # V = Σ π·Q
    mean = fmt_list([p * (qi - v) for p, qi in zip(s.probs, q, strict=True)], sep=", ")  # E[g] = π ⊙ A, any b
    at = run_page(PAGE, query=ZH)
    radio = at.radio(key="predict_baseline")
    right = i18n.text("zh", "p4.stays")
    assert right in radio.options and len(radio.options) == 3
    radio.set_value(right).run()
    no_exception(at)
    (mark,) = at.success
    assert mark.value.startswith(f"答对了：**{right}**")
    assert f"({mean}) 和 ({mean})" in mark.value, "b = 0 and b = V: the same average"
    text = "\n".join(m.value for m in at.main.markdown)
    assert f"E[g] = π ⊙ A = ({mean}) 对四个基线都一样" in text
    likely = max(range(len(q)), key=lambda i: s.probs[i])
    centred = fmt_list([r - v for r in s.samples[likely]], sep=", ")
    assert (f"以 **{s.tokens[likely]}** 开头的 {len(s.samples[likely])} 个回答，R − V 分别为 {centred}。"
            f"它们的平均是 {fmt(q[likely] - v)}") in text
    at.radio(key="predict_baseline").set_value(i18n.text("zh", "p4.smaller")).run()
    assert at.warning and at.warning[0].value.startswith(f"这次没猜中：答案是 **{right}**")
