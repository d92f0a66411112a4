"""Page 9, the training lab, in Chinese (``?lang=zh``): it runs, its own text is Chinese in every view, its live
numbers are the English page's, the question is marked against its Chinese options, and the algorithms' and the
judge's choices read in Chinese while the link keeps the English values."""

from __future__ import annotations

import json

from apphelp import charts, choose_preset, keys, no_exception, page_file, run_page
from zhhelp import assert_chinese, english_left, views_of

from ui import i18n

PAGE = page_file("9_")
K = keys(PAGE)
SHOWN = {"predict_lab_shown": True}  # as if the learner had pressed "Just show me"
SMALL = {"steps": 40, "seeds": 2}
# kept as written: the algorithms' names (REINFORCE, Dr. GRPO, RLOO, DAPO, GSPO, CISPO), the loss aggregations'
# names as verl writes them (token-mean, seq-mean-token-sum-norm, …), ε_high, Schulman's k3, and the English
# terms in brackets on their first use (seed, epoch, reference model, dynamic sampling, critic, entropy, dead group)
TERMS = {"REINFORCE", "Dr", "RLOO", "DAPO", "GSPO", "CISPO", "verl", "token", "mean", "seq", "sum", "norm", "high",
         "Schulman", "seed", "epoch", "reference", "model", "dynamic", "sampling", "critic", "entropy", "dead"}
views = views_of(PAGE, TERMS)


def zh(msgid: str, **values) -> str:
    return i18n.text("zh", msgid, **values)


def spec_text(at) -> str:
    """Every chart's spec as text, its panels' titles included (the word finder reads the chart's own titles)."""
    return "\n".join(json.dumps(c["spec"], ensure_ascii=False) for c in charts(at))


def test_both_views_are_chinese(views):
    default, at = views
    assert_chinese(default, at, TERMS)
    # the panels of the stacked charts and the table of the answers are Chinese too
    specs = spec_text(at)
    for panel in ("p9.panel_kl", "p9.panel_clip", "p9.panel_critic_first", "p9.panel_entropy", "p9.panel_dead"):
        assert json.dumps(zh(panel), ensure_ascii=False) in specs, panel
    assert list(at.dataframe[0].value.columns) == ["回答", "参考概率", "平均评审分"]
    assert list(at.dataframe[0].value["回答"])[-1] == "partly + 奉承"  # the flattering leaf, in Chinese


def test_the_live_numbers_are_the_english_pages(views):
    """The article's flattery branch: the judge gives partly's plain answer 9 and its flattery 9.6, the reference
    flatters 5% of the time, and the start is 0.5·2 + 0.3·5 + 0.2·(0.95·9 + 0.05·9.6) = 4.306."""
    _, at = views
    text = "\n".join(m.value for m in at.markdown)
    assert "评审平均给 9 分；或者奉承，评审给 9.6 分" in text
    assert "参考模型有 5% 的时间在奉承" in text and "那里的平均评审分是 4.31。" in text
    assert round(0.5 * 2 + 0.3 * 5 + 0.2 * (0.95 * 9 + 0.05 * 9.6), 2) == 4.31


def test_the_flattery_question_is_marked_against_the_chinese_options():
    """One algorithm, β = 0 for 150 steps: nothing holds GRPO back from the flattery bonus (the English test's
    "Above 75%")."""
    at = run_page(PAGE, query={"lang": "zh"}, inputs={"beta": 0.0, "steps": 150, "algos": ["GRPO"]})
    no_exception(at)
    radio = at.radio(key="predict_lab")
    assert list(radio.options) == [zh("p9.share_below"), zh("p9.share_between"), zh("p9.share_above")]
    radio.set_value(zh("p9.share_above")).run()
    no_exception(at)
    assert len(at.success) == 1 and at.success[0].value.startswith("答对了：**高于 75%**"), at.success
    assert english_left(at, TERMS) == [], english_left(at, TERMS)


def test_length_drift_in_chinese_asks_about_length_and_has_no_english_left():
    at = run_page(PAGE, query={"lang": "zh"}, inputs={"seeds": 2}, state=SHOWN)
    choose_preset(at, zh("p9.preset_length"))
    no_exception(at)
    assert at.query_params["algos"] == ["GRPO", "GSPO", "DAPO"]  # the link keeps rlcore's names
    assert any(i.value.startswith("答案是 **") and "平均回答长度（词元数）的中位数" in i.value for i in at.info)
    text = "\n".join(m.value for m in at.markdown)
    assert "- **GRPO**：**partly** 之后的回答从 " in text and "错误开头 **open** 之后" in text
    assert any(c.value.startswith("动态采样：DAPO 不断写新的组") for c in at.caption)
    assert json.dumps(zh("p9.length_title"), ensure_ascii=False) in spec_text(at)
    assert english_left(at, TERMS) == [], english_left(at, TERMS)


def test_the_choices_read_in_chinese_while_the_link_keeps_the_english_values():
    at = run_page(PAGE, query={"lang": "zh", "algos": ["GRPO", "REINFORCE + running mean"],
                               "judge": "its mean plus noise", "steps": "40", "seeds": "2"}, state=SHOWN)
    no_exception(at)
    algos = at.multiselect(key=K("algos"))
    assert algos.value == ["GRPO", "REINFORCE + running mean"]
    assert "REINFORCE + 滑动平均" in algos.options and "REINFORCE + running mean" not in algos.options
    score = next(c for c in charts(at) if c["spec"]["title"]["text"] == zh("p9.score_title"))
    assert set(next(iter(score["data"].values()))["algorithm"]) == {"GRPO", "REINFORCE + 滑动平均"}
    judge = at.radio(key=K("judge"))
    assert list(judge.options) == [zh("p9.judge.samples"), zh("p9.judge.noise")]
    assert at.slider(key=K("noise")).label == zh("p9.noise")  # only the noise judge has a σ
    assert english_left(at, TERMS) == [], english_left(at, TERMS)
    judge.set_value("the leaf's sampled scores").run()  # the option's value; the learner reads its Chinese label
    no_exception(at)
    assert "judge" not in at.query_params and at.query_params["algos"] == ["GRPO", "REINFORCE + running mean"]
    assert not [s for s in at.slider if s.key == K("noise")]


def test_an_english_run_of_the_same_settings_leaves_the_chinese_charts_chinese():
    """The runs are cached for the whole server and shared across languages; the charts' tables are built from them
    in each run's language, so a Chinese learner after an English one with the same settings reads Chinese panels
    and names."""
    run = {"inputs": {**SMALL, "algos": ["REINFORCE + running mean", "PPO"]}, "state": SHOWN}
    english = run_page(PAGE, **run)
    no_exception(english)
    assert "KL to the reference (nats)" in spec_text(english)
    at = run_page(PAGE, query={"lang": "zh"}, **run)
    no_exception(at)
    specs = spec_text(at)
    assert "KL to the reference (nats)" not in specs and json.dumps(zh("p9.panel_kl"), ensure_ascii=False) in specs
    curves = next(c for c in charts(at) if c["spec"]["title"]["text"] == zh("p9.curves_title"))
    assert set(next(iter(curves["data"].values()))["algorithm"]) == {"REINFORCE + 滑动平均", "PPO"}
