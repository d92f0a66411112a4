"""Page 15, entropy and pass@k, in Chinese (``?lang=zh``): it runs, its own text is Chinese in every view (the
rare-branch example too), its live numbers are the English page's, and the rare branch is named as the sidebar
names it."""

from __future__ import annotations

import re

from apphelp import just_shown, no_exception, page_file, run_page
from zhhelp import assert_chinese, english_left, views_of

import rlcore
from ui import i18n

PAGE = page_file("15_")
RARE = "Rare branch, sometimes right"
# the papers' and benchmarks' names (DeepSeek-R1-Zero, AIME, Yue et al., Cui et al., Codex) and Cov(log π, Δz)
TERMS = {"DeepSeek", "AIME", "Yue", "Cui", "et", "al", "Codex", "log", "Cov", "entropy"}
views = views_of(PAGE, TERMS)


def test_both_views_are_chinese(views):
    default, at = views
    assert_chinese(default, at, TERMS)
    assert [b.label for b in at.button if b.key == "ent_load_rare"] == ["载入少见分支的示例"]


def test_the_live_numbers_are_the_english_pages(views):
    """The article with a right answer at score ≥ 8: only `partly` (scores 10 and 8) is ever right, so before
    training pass@1 = π(partly) = 0.2 and pass@16 = 1 − 0.8¹⁶ = 97.2%."""
    _, at = views
    assert f"{1 - 0.8 ** 16:.1%}" == "97.2%"
    question = next(m.value for m in at.markdown if "pass@16 会怎样" in m.value)
    assert "把 pass@1 从 20% 提到" in question
    assert any(i.value.startswith("答案是") and "pass@16 从训练前的 97.2% 变为" in i.value for i in at.info)


def test_the_rare_branch_in_chinese():
    """Loaded from the page, the rare-branch example is named as the sidebar names it, its trade is told, and
    the page stays Chinese; the way back is offered in Chinese."""
    at = run_page(PAGE, query={"lang": "zh"}, state=just_shown("ent_predict"))
    at.button(key="ent_load_rare").click().run()
    no_exception(at)
    name = i18n.text("zh", f"scenario.presets.{RARE}")
    assert any(f"“{name}”" in c.value for c in at.caption), [c.value for c in at.caption]
    assert [b.label for b in at.button if b.key == "ent_restore"] == ["换回你的示例"]
    assert any(m.value.startswith("**此消彼长。**") for m in at.markdown)
    # the caption names the example it replaced (the article's tokens): a word counts as English left only if
    # it is left once either example's own text is taken out; and the sidebar shows the rare example's prompt
    # escaped for Markdown ("Solve the puzzle\\."), which the finder does not recognise as the prompt
    rare = rlcore.PRESETS[RARE]
    article = set(english_left(at, TERMS, rlcore.ARTICLE_SCENARIO)) - set(re.findall(r"[A-Za-z]{2,}", rare.prompt))
    left = [w for w in english_left(at, TERMS, rare) if w in article]
    assert left == [], left


def test_before_training_says_so_in_chinese():
    """With no training step there is no step's change to chart: the page says so, in Chinese."""
    at = run_page(PAGE, query={"lang": "zh", "steps": "0"}, state=just_shown("ent_predict"))
    no_exception(at)
    assert i18n.text("zh", "p15.no_steps") in [c.value for c in at.caption]
    assert english_left(at, TERMS) == [], english_left(at, TERMS)
