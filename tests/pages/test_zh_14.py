"""Page 14, when the sampler is not the trainer, in Chinese (``?lang=zh``): it runs, its own text is Chinese in
every view, its live numbers are the English page's, and its choices read in Chinese while the link keeps the
English values."""

from __future__ import annotations

from apphelp import choose_preset, keys, no_exception, page_file, run_page
from zhhelp import assert_chinese, english_left, views_of

from ui import i18n

PAGE = page_file("14_")
K = keys(PAGE)
# kept as written: the engines and methods named (vLLM, SGLang, TIS, MIS, Yao), the symbols π_train, π_rollout,
# top-p, min, log₂, and the English terms in brackets on their first use (importance sampling, on-policy, …)
TERMS = {"vLLM", "SGLang", "TIS", "MIS", "Yao", "train", "rollout", "top", "min", "log", "on", "importance",
         "sampling", "truncated", "masked", "temperature", "bias", "variance"}
views = views_of(PAGE, TERMS)


def zh(msgid: str, **values) -> str:
    return i18n.text("zh", msgid, **values)


def test_both_views_are_chinese(views):
    default, at = views
    assert_chinese(default, at, TERMS)
    assert list(at.dataframe[0].value.columns) == ["方法", "偏差²", "方差", "总误差"]


def test_the_live_numbers_are_the_english_pages(views):
    """The trainer's π is the article's 0.5 / 0.3 / 0.2, and the question's choices are the four methods at the
    default cap C = 2, each with its total error."""
    _, at = views
    text = "\n".join(m.value for m in at.markdown)
    assert "训练端的 π 是 0.5 / 0.3 / 0.2" in text and "在 C = 2 处**截断**" in text
    (shown,) = [i.value for i in at.info if i.value.startswith("答案是")]
    for choice in ("不校正：", "在 C = 2 处截断：", "掩码去掉 C = 2 以上：", "完整权重（不设上限）："):
        assert choice in shown, shown


def test_an_engine_equal_to_the_trainer_is_a_four_way_tie_in_chinese():
    """No noise: every weight ρ is 1, so the four weightings are the same update and tie."""
    at = run_page(PAGE, query={"lang": "zh"}, state={"mm_predict_shown": True})
    choose_preset(at, zh("p14.preset_same"))
    no_exception(at)
    tie = zh("p14.tie", methods=" = ".join(zh(f"p14.choice.{m}", cap="2")
                                           for m in ("no correction", "truncate", "mask", "full weights")))
    assert any(i.value.startswith(f"答案是 **{tie}**") for i in at.info), [i.value for i in at.info]
    assert english_left(at, TERMS) == [], english_left(at, TERMS)


def test_top_p_cuts_partly_and_the_link_keeps_the_english_choice():
    """Top-p 0.7 keeps open (0.5) and closed (0.3): 0.8 ≥ 0.7, so partly (0.2) is never sampled."""
    at = run_page(PAGE, query={"lang": "zh"}, state={"mm_predict_shown": True})
    choose_preset(at, zh("p14.preset_top_p"))
    no_exception(at)
    assert [i.value for i in at.info if i.value.startswith("top-p")] == [zh("p14.never", tokens="**partly**")]
    kind = at.segmented_control(key=K("kind"))
    assert kind.value == "top-p" and list(kind.options) == ["logit 噪声", "温度", "top-p"]
    kind.set_value("温度").run()  # AppTest, like the browser, sends the label the learner clicks
    no_exception(at)
    assert at.query_params["kind"] == "temperature"
    assert english_left(at, TERMS) == [], english_left(at, TERMS)
