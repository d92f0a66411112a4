"""Page 10, length and loss aggregation, in Chinese (``?lang=zh``): it runs, its own text is Chinese in every view,
its live numbers are the English page's, and the right answer of its question is still the right one."""

from __future__ import annotations

from apphelp import no_exception, page_file, run_page
from zhhelp import assert_chinese, english_left, views_of

from ui import i18n

PAGE = page_file("10_")
# kept as written: the aggregation modes' names (token-mean, seq-mean-token-mean, …, the link's "grpo" / "dr_grpo"),
# the methods and papers named (DAPO, Dr. GRPO, DeepSeek, Liu, arXiv), and the symbols log π, L_max, std
TERMS = {"token", "mean", "seq", "sum", "norm", "DAPO", "Dr", "grpo", "dr", "rloo", "DeepSeek", "Liu", "arXiv",
         "log", "max", "length", "bias"}
views = views_of(PAGE, TERMS)


def test_both_views_are_chinese(views):
    default, at = views
    assert_chinese(default, at, TERMS)


def test_the_live_numbers_are_the_english_pages(views):
    """The article padded: open has 40 tokens, closed 14 and partly 8, so the group has 62 tokens. token-mean
    weighs each token 1/62 = 0.0161; seq-mean-token-mean weighs a token of open 1/(3 · 40) = 1/120 = 0.0083,
    less, so open is pushed harder per token under token-mean."""
    _, at = views
    text = "\n".join(m.value for m in at.markdown)
    assert "现在有 40 个词元（其余回答分别有 14、8 个）" in text
    right = i18n.text("zh", "p10.harder_token_mean")
    (shown,) = [i.value for i in at.info if i.value.startswith("答案是")]
    assert shown.startswith(f"答案是 **{right}**")
    assert f"1/Σ|o| = {1 / 62:.4f}" in shown and f"1/(G·|o|) = {1 / 120:.4f}" in shown


def test_a_budget_below_the_longest_answer_is_told_in_chinese():
    """L_max = 30 is below open's 40 tokens: the page says it uses 40 instead, in Chinese."""
    at = run_page(PAGE, query={"lang": "zh", "budget": "30"})
    no_exception(at)
    assert any("L_max = 30 比最长的回答（40 个词元）还短，所以改用 L_max = 40" in c.value for c in at.caption)
    assert english_left(at, TERMS) == [], english_left(at, TERMS)
