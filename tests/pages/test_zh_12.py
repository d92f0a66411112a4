"""Page 12, recipe composer, in Chinese (``?lang=zh``): it runs, its own text is Chinese in every view, its live
numbers are the English page's, and the switches read in Chinese while the link keeps rlcore's values."""

from __future__ import annotations

from apphelp import keys, no_exception, numbers, page_file, run_page
from zhhelp import assert_chinese, english_left, views_of

import rlcore
from ui import i18n

PAGE = page_file("12_")
K = keys(PAGE)
# kept as written: the recipes' and methods' names, the papers' authors, the arXiv, the terms in brackets
TERMS = {"REINFORCE", "RLOO", "Dr", "DAPO", "GSPO", "CISPO", "DeepSeekMath", "MiniMax", "M1", "Williams",
         "Ahmadian", "Shao", "Liu", "Yu", "Zheng", "Hu", "arXiv", "entropy", "model",
         "high"}  # ε_high, a symbol
views = views_of(PAGE, TERMS)
SHOWN = {"predict_recipe_shown": True}
FAR = {"baseline": "batch mean", "scale": "batch std", "aggregation": "token-mean", "ratio": "sequence",
       "clip": "cispo", "kl": "in reward", "dynamic_sampling": True, "step": 0.6}  # every switch away from GRPO's


def test_both_views_are_chinese(views):
    default, at = views
    assert_chinese(default, at, TERMS)
    assert [s.value.split("**")[1] for s in at.success] == ["GRPO"], "GRPO's switches light GRPO up"


def test_every_switch_away_from_grpo_is_explained_in_chinese_with_the_english_pages_numbers():
    zh = run_page(PAGE, query={"lang": "zh"}, inputs=FAR, state=SHOWN)
    en = run_page(PAGE, inputs=FAR, state=SHOWN)
    no_exception(zh), no_exception(en)
    assert english_left(zh, TERMS) == [], english_left(zh, TERMS)

    def lines(at, head):
        text = next(m.value for m in at.markdown if m.value.startswith(head))
        return [line for line in text.split("\n") if line.startswith("- ")]
    zh_lines = lines(zh, "**在这个示例上，与 GRPO 不同的地方**")
    en_lines = lines(en, "**What differs from GRPO")
    assert len(zh_lines) == len(en_lines) == 7, "all seven switches differ from GRPO's"
    assert [sorted(numbers(z)) for z in zh_lines] == [sorted(numbers(e)) for e in en_lines]  # word order differs
    assert "- **除以标准差**：批标准差，而 GRPO 是组标准差。" in zh_lines[1]


def test_the_switches_read_in_chinese_and_the_link_keeps_rlcores_values():
    at = run_page(PAGE, query={"lang": "zh", "baseline": "leave-one-out"})
    no_exception(at)
    box = at.selectbox(key=K("baseline"))
    assert box.value == "leave-one-out" and list(box.options) == ["无", "批均值", "组均值", "留一均值"]
    box.set_value("batch mean").run()  # shown as 批均值
    no_exception(at)
    assert at.query_params["baseline"] == "batch mean"


def test_the_question_is_checked_against_the_same_choice_in_chinese():
    """GRPO's own switches: the worst answer's advantage is the same as under GRPO, the third choice."""
    at = run_page(PAGE, query={"lang": "zh"})
    radio = at.radio(key="predict_recipe")
    assert list(radio.options) == ["更大", "更小", "一样"]
    radio.set_value("一样").run()
    no_exception(at)
    assert any(s.value.startswith(i18n.text("zh", "predict.right", answer="一样", explanation="")[:8])
               for s in at.success), [s.value for s in at.success]


def test_a_dead_group_in_an_edited_scenario_is_told_in_chinese():
    """Both answers scored 5: every advantage is 0, and dynamic sampling drops the group, said in Chinese."""
    flat = rlcore.Scenario(tokens=("yes", "no"), probs=(0.5, 0.5), samples=((5,), (5,)))
    at = run_page(PAGE, scenario=flat, query={"lang": "zh"}, inputs={"dynamic_sampling": True}, state=SHOWN)
    no_exception(at)
    text = "\n".join(m.value for m in at.markdown)
    assert "所有回答得分相同：动态采样会丢掉这一组" in text
    assert english_left(at, TERMS, flat) == [], english_left(at, TERMS, flat)
