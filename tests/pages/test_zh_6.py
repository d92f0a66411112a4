"""Page 6, policy gradient, in Chinese (``?lang=zh``): it runs, its own text is Chinese in every view, its live
numbers are the English page's, and the baseline's choices are Chinese while the link keeps rlcore's names."""

from __future__ import annotations

import numpy as np
from apphelp import choose_preset, keys, no_exception, page_file, run_page
from zhhelp import assert_chinese, english_left, views_of

from ui import i18n

PAGE = page_file("6_")
K = keys(PAGE)
TERMS = {"REINFORCE"}  # an algorithm's name, kept as written
views = views_of(PAGE, TERMS)


def test_both_views_are_chinese(views):
    default, at = views
    assert_chinese(default, at, TERMS)
    assert [b.label for b in at.button if b.key in ("pg_play", "pg_step")] == ["播放", "单步"]


def test_the_live_numbers_are_the_english_pages(views):
    """The article: π = (0.5, 0.3, 0.2), Q = (2, 5, 9), so V = 1 + 1.5 + 1.8 = 4.3 and A(closed) = 5 − 4.3 = +0.7;
    its logit moves by 1 · 0.3 · 0.7 = +0.21, and the softmax of the moved logits gives its new probability."""
    _, at = views
    pi, a = np.array([0.5, 0.3, 0.2]), np.array([2, 5, 9]) - 4.3
    moved = pi * np.exp(pi * a)
    after = moved[1] / moved.sum()
    assert f"{after:.3f}" == "0.356"
    line = f"**closed**：π 0.3 × A +0.7 × η 1 = +0.21；概率 0.3 → {after:.3f}（上升）"
    assert line in [m.value for m in at.markdown]
    assert any(i.value.startswith("答案是 **上升**") for i in at.info), [i.value for i in at.info]


def test_thirty_steps_in_chinese_have_no_english_left():
    at = run_page(PAGE, query={"lang": "zh"}, state={"predict_pg_shown": True})
    choose_preset(at, i18n.text("zh", "p6.preset_thirty"))
    no_exception(at)
    assert at.slider(key=K("steps")).value == 30
    text = "\n".join(m.value for m in at.markdown)
    assert "→ …" in text and "在第 2 步下降" in text, "the path goes on, and closed's turn is told"
    assert english_left(at, TERMS) == [], english_left(at, TERMS)


def test_the_baselines_read_in_chinese_and_the_link_keeps_rlcores_names():
    at = run_page(PAGE, query={"lang": "zh", "base": "batch mean"})
    no_exception(at)
    box = at.selectbox(key=K("base"))
    assert box.value == "batch mean" and list(box.options) == ["无", "批均值", "V"]
    box.select_index(0).run()  # "无"
    no_exception(at)
    assert at.query_params["base"] == "none"


def test_playing_in_chinese():
    """While the steps play, the page shows Pause in Chinese, and its text stays Chinese."""
    at = run_page(PAGE, query={"lang": "zh", "steps": "30"}, state={"predict_pg_shown": True})
    at.button(key="pg_play").click().run()
    no_exception(at)
    assert at.session_state["pg_playing"]
    assert [b.label for b in at.button if b.key == "pg_pause"] == ["暂停"]
    assert english_left(at, TERMS) == [], english_left(at, TERMS)
