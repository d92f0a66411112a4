"""Page 19, R1-Zero in miniature, in Chinese (``?lang=zh``): it runs, its own text is Chinese before and after a
short training run, its live numbers are the English page's, the question is still answered from the base model's
numbers, and the algorithm reads in Chinese while the link keeps its English value."""

from __future__ import annotations

from apphelp import (
    chart_by_title,
    charts,
    choose_preset,
    data_with,
    keys,
    no_exception,
    numbers,
    page_file,
    run_page,
)
from zhhelp import assert_chinese, english_left, english_words, views_of

from ui import i18n

PAGE = page_file("19_")
K = keys(PAGE)
# kept as written: DeepSeek, AIME, numpy, the Transformer, Adam, Dr. GRPO, π_base, and the English terms in
# brackets on their first use (base model, value head, held-out problems)
TERMS = {"DeepSeek", "AIME", "numpy", "Transformer", "Adam", "Dr", "base", "model", "head", "held", "out",
         "problems"}
views = views_of(PAGE, TERMS)


def zh(msgid: str, **values) -> str:
    return i18n.text("zh", msgid, **values)


def train(at, **settings):
    """Set the inputs, then press the Chinese Train button (训练)."""
    for name, value in settings.items():
        at.session_state[K(name)] = value
    at.run()
    next(b for b in at.button if b.label == zh("p19.train")).click().run()
    no_exception(at)
    return at


def facet_words(spec: dict) -> list[str]:
    """The panel titles, axis titles and legend titles of a faceted chart (``zhhelp.chart_words`` reads the chart's
    own title only: the panels are inside its ``vconcat``)."""
    out = []
    for panel in spec.get("vconcat", []):
        out.append((panel.get("title") or {}).get("text", ""))
        for layer in panel.get("layer", []):
            enc = layer.get("encoding", {})
            out += [enc.get("x", {}).get("title") or "", ((enc.get("color") or {}).get("legend") or {}).get("title")
                    or ""]
    return [w for w in out if w]


def test_both_views_are_chinese(views):
    default, at = views
    assert_chinese(default, at, TERMS)
    assert not any("The task." in m.value or "Press **Train**" in m.value for m in at.markdown)


def test_the_question_is_answered_in_chinese_from_the_english_pages_numbers(views):
    """The gap between worked and immediate answers, as the English page gives it; over 10 points in favour of
    working it out, so the answer is the first choice, in Chinese."""
    _, at = views
    en = run_page(PAGE, state={"predict_zero_shown": True})
    no_exception(en)
    (english,) = [i.value for i in en.info if "Made to work" in i.value]
    (chinese,) = [i.value for i in at.info if "强制它先演算时" in i.value]
    worked, immediate, gap = numbers(chinese.split("**")[2])[:3]
    assert [worked, immediate, gap] == numbers(english.split("Made to work", 1)[1])[:3]
    assert round(worked - immediate, 1) == gap and gap > 10
    assert chinese.startswith(f"答案是 **{zh('p19.worked_answers')}**")
    assert list(at.radio(key="predict_zero").options) == [zh("p19.worked_answers"), zh("p19.answers_at_once"),
                                                          zh("p19.about_the_same")]


def test_a_short_run_reads_in_chinese_with_the_english_runs_figures():
    """Five steps of GRPO in Chinese: no English left; the grid ends answers with 结束 and names its rows by score;
    the verdict table's columns are Chinese and score = right + well formed; an English learner with the same
    settings sees the same run, with the same figures in the comparison with R1-Zero."""
    at = train(run_page(PAGE, query={"lang": "zh"}), steps=5, seed=17)
    assert english_left(at, TERMS) == [], english_left(at, TERMS)
    health = data_with(chart_by_title(at, zh("p19.health_title")), "value")
    assert set(health["quantity"]) == {zh(f"p19.{q}") for q in ("pass_held_out", "mean_score", "entropy_panel",
                                                                  "kl_panel")}
    assert sorted(set(health["step"])) == [0, 1, 2, 3, 4, 5]
    for title in ("health_title", "length_title"):
        words = facet_words(chart_by_title(at, zh(f"p19.{title}"))["spec"])
        assert zh("p19.x_step") in words and zh("p19.curve") in words, words
        assert english_words(words) == [], english_words(words)
    (group,) = [c for c in charts(at) if "个回答，第 1 步" in c["spec"]["title"]["text"]]
    tokens = data_with(group, "advantage")
    assert zh("p19.end") in set(tokens["token"]) and "<end>" not in set(tokens["token"])
    assert all(a.startswith("#") and "得分" in a for a in tokens["answer"])
    (table,) = [d.value for d in at.dataframe]
    assert list(table.columns) == ["回答", "文本", "答对", "格式正确", "得分", "被裁剪的词元数"]
    assert (table["得分"] == table["答对"].astype(int) + table["格式正确"].astype(int)).all()

    en = run_page(PAGE, inputs={"steps": 5, "seed": 17})
    no_exception(en)
    assert any("trained already (5 steps)" in c.value for c in en.caption)
    (english,) = [m.value for m in en.markdown if m.value.startswith("**How this compares")]
    (chinese,) = [m.value for m in at.markdown if m.value.startswith("**和 R1-Zero 比一比。**")]
    # the same figures (the two languages order the sentence's opening differently: R1-Zero's pass@1 on AIME 2024)
    assert len(numbers(english)) >= 12 and sorted(numbers(chinese)) == sorted(numbers(english))
    assert "经过 5 步 GRPO" in chinese


def test_the_ppo_view_names_the_algorithm_in_chinese_and_keeps_the_english_value():
    at = run_page(PAGE, query={"lang": "zh"})
    radio = at.radio(key=K("algo"))
    assert list(radio.options) == ["GRPO", "Dr. GRPO", "PPO（带价值头）"]
    choose_preset(at, zh("p19.preset_ppo"))
    no_exception(at)
    assert at.radio(key=K("algo")).value == "PPO with a value head"    # the link's value, as in English
    (press,) = [m.value for m in at.markdown if m.value.startswith("按 **训练**")]
    assert "用 PPO（带价值头） 训练 100 步" in press
    assert english_left(at, TERMS) == [], english_left(at, TERMS)
