"""Page 14, Sampler and trainer: the engine's mismatch, the weights' histogram, the error against C, predict-first."""

from __future__ import annotations

import re

import numpy as np
import pytest

import rlcore
from rlcore.studies.mismatch import METHODS
from tests.apphelp import (
    FOUR_SPREAD,
    chart_frame,
    choose_preset,
    metrics,
    moves_charts,
    numbers,
    opening,
    page_kit,
    page_text,
    run_page,
)

PAGE, K, en = page_kit("14_", "p14")
def choice(method: str, cap: str = "2") -> str:
    """The question's option for ``method`` (one of rlcore's METHODS) at the cap C."""
    return en(f"choice.{method}", cap=cap)


TOTAL, BIAS, VARIANCE, METHOD = en("parts.total error"), en("parts.bias²"), en("parts.variance"), en("method")


def errors(at):
    return chart_frame(at, opening("p14.error_title"), "method")


def ratios(at):
    return chart_frame(at, en("ratio_title"), "share")


def test_defaults_run_and_hide_the_answer_until_the_learner_predicts():
    at = run_page(PAGE)
    assert ratios(at)["share"].sum() == pytest.approx(1.0)
    df = errors(at)
    assert set(df["method"]) == {en(f"methods.{m}") for m in METHODS}
    # no correction and full weights do not depend on C: one value each across the caps
    for m in ("no correction", "full weights"):
        assert df[df["method"] == en(f"methods.{m}")]["total error"].nunique() == 1
    assert not at.metric and not at.dataframe and not at.success and not at.warning
    at.radio(key="mm_predict").set_value(choice("truncate")).run()  # the answer reveals the table
    assert at.success or at.warning
    assert len(at.dataframe) == 1 and at.metric
    table = at.dataframe[0].value
    # each cell shows 12 significant digits (ui.format.tidy)
    np.testing.assert_allclose(table[TOTAL], table[BIAS] + table[VARIANCE], rtol=1e-10)
    (label,) = metrics(at)
    assert numbers(label) == [2]                             # the share above the chosen cap C = 2
    revealed_answer_is_the_tables_minimum(at)


def test_engine_equal_to_trainer_all_ratios_are_one():
    at = run_page(PAGE)
    choose_preset(at, en("preset_same"))
    assert at.slider(key=K("noise")).value == 0.0
    h = ratios(at)
    assert h[h["share"] > 0]["from"].tolist() == [0.0]  # every log₂ ρ is 0
    df = errors(at)
    values = df.groupby("cap C")["total error"].nunique()
    assert (values == 1).all()  # all four methods coincide at every cap
    tie = en("tie", methods=" = ".join(choice(m) for m in METHODS))   # every weight is 1: the four coincide
    assert at.radio(key="mm_predict").options[-1] == tie
    at.radio(key="mm_predict").set_value(tie).run()
    assert at.success and f"**{tie}**" in at.success[0].value


@pytest.mark.parametrize("widget, key, value", [("slider", "noise", 1.5), ("select_slider", "cap", 4.0),
                                                ("number_input", "seed", 4)])
def test_inputs_change_the_charts(widget, key, value):
    at = run_page(PAGE)
    moves_charts(at, lambda at: getattr(at, widget)(key=K(key)).set_value(value).run())


def test_kind_switches_the_level_input():
    at = run_page(PAGE, query={"kind": "temperature", "temp": "0.5"})
    assert at.slider(key=K("temp")).value == 0.5
    # temperature: every position has the same μ, so ρ takes one value per token: 3 bins at most
    assert (ratios(at)["share"] > 0).sum() <= 3


def test_part_switch_shows_bias():
    at = run_page(PAGE, inputs={"part": "bias²"})
    assert "bias²" in errors(at).columns


def test_top_p_preset_explains_the_missing_token():
    at = run_page(PAGE, state={"mm_predict": choice("no correction")})
    choose_preset(at, en("preset_top_p"))
    assert at.info and "partly" in at.info[0].value  # top-p 0.7 keeps open and closed only


def revealed_answer_is_the_tables_minimum(at):
    table = at.dataframe[0].value
    low = table[TOTAL].min()
    winners = table[table[TOTAL] <= low * (1 + 1e-9)][METHOD].tolist()
    message = (at.success or at.warning)[0].value
    assert all(w in message for w in winners), (winners, message)


def test_edited_four_token_scenario():
    at = run_page(PAGE, scenario=FOUR_SPREAD, state={"mm_predict": choice("no correction")})
    assert en("sep_tokens").join(FOUR_SPREAD.tokens) in page_text(at)    # the explanation names its tokens
    assert ratios(at)["share"].sum() == pytest.approx(1.0)
    revealed_answer_is_the_tables_minimum(at)
    at.slider(key=K("noise")).set_value(2.0).run()
    revealed_answer_is_the_tables_minimum(at)


def test_equal_scores_give_zero_error_without_breaking():
    flat = rlcore.Scenario(tokens=("a", "b"), probs=(0.5, 0.5), samples=((5,), (5,)))
    at = run_page(PAGE, scenario=flat)
    np.testing.assert_allclose(errors(at)["total error"], 0, atol=1e-15)  # every advantage is 0


@pytest.mark.parametrize("pick", [0, 1, 2, 3])
def test_the_feedback_gives_the_error_of_the_learners_own_choice(pick):
    at = run_page(PAGE)
    radio = at.radio(key="mm_predict")
    picked = radio.options[pick]
    radio.set_value(picked).run()
    (mark,) = [*at.success, *at.warning]
    table = next(d.value for d in at.dataframe if TOTAL in d.value.columns).set_index(METHOD)
    said = float(re.search(re.escape(en("error_of", method=picked, error="")) + r"(\d+(?:\.\d+)?)", mark.value)[1])
    assert said == pytest.approx(table.loc[picked, TOTAL], abs=5e-5)   # the same error as the table's row
