"""Page 13, KL gradients, in Chinese (``?lang=zh``): it runs, its own text is Chinese in every view, its live
numbers are the English page's, and the question's answer is still one of the Chinese options it shows."""

from __future__ import annotations

import numpy as np
import pytest
from apphelp import metrics, no_exception, page_file, run_page
from zhhelp import assert_chinese, english_left, views_of

from ui import i18n

PAGE = page_file("13_")
# names kept as written: the authors, library and report the page cites, 参考模型's English name in brackets, ∇log π
TERMS = {"Schulman", "Tang", "Munos", "verl", "OpenRLHF", "DeepSeek", "reference", "model", "log"}
views = views_of(PAGE, TERMS)


def test_both_views_are_chinese(views):
    default, at = views
    assert_chinese(default, at, TERMS)


def test_the_live_numbers_are_the_english_pages(views):
    """Three policy-gradient steps of η = 0.3 from the article's π = (0.5, 0.3, 0.2), Q = (2, 5, 9), each logit
    moving by η·π·(Q − V): the KL(π‖π_ref) it shows is Σ π log(π / π_ref) of that π, the same as in English."""
    _, at = views
    ref, q = np.array([0.5, 0.3, 0.2]), np.array([2.0, 5.0, 9.0])
    logits = np.log(ref)
    for _ in range(3):
        pi = np.exp(logits) / np.exp(logits).sum()
        logits = logits + 0.3 * pi * (q - pi @ q)
    pi = np.exp(logits) / np.exp(logits).sum()
    kl = float(pi @ np.log(pi / ref))
    shown = metrics(at)["KL(π‖π_ref)"]
    assert float(shown) == pytest.approx(kl, abs=5e-4)
    assert metrics(run_page(PAGE))["KL(π‖π_ref)"] == shown, "the English page shows the same figure"
    assert any(m.value.startswith("π_ref：0.5 / 0.3 / 0.2") for m in at.markdown)


def test_the_placements_table_is_chinese(views):
    """k1 in the loss has a zero expected gradient, so no cosine: the table says so in Chinese; k2 in the loss
    follows the reverse KL exactly (cosine 1)."""
    _, at = views
    table = at.dataframe[0].value
    assert list(table.columns) == ["放法", "它的期望梯度是谁的梯度", "与真实梯度的余弦"]
    assert table.iloc[0].tolist() == ["k1 放在损失里", "什么也不是：它的平均为零", "未定义"]
    assert table.iloc[1].tolist() == ["k2 放在损失里", "反向 KL，即 KL(π‖π_ref)", "1"]


def test_the_answer_is_checked_against_the_chinese_options():
    """Away from π_ref, k3 in the loss follows the forward KL (its expected gradient is π − π_ref)."""
    at = run_page(PAGE, query={"lang": "zh"})
    no_exception(at)
    radio = at.radio(key="klg_predict")
    forward = i18n.text("zh", "p13.follow.forward")
    assert forward in radio.options and all(not o.isascii() for o in radio.options)
    radio.set_value(forward).run()
    no_exception(at)
    assert at.success and not at.error
    assert english_left(at, TERMS) == [], english_left(at, TERMS)


def test_pi_at_the_reference_says_so_in_chinese():
    at = run_page(PAGE, query={"lang": "zh", "steps": "0"}, state={"klg_predict_shown": True})
    no_exception(at)
    assert [i.value for i in at.info if i.value.startswith("π 仍然等于 π_ref")], [i.value for i in at.info]
    assert english_left(at, TERMS) == [], english_left(at, TERMS)
