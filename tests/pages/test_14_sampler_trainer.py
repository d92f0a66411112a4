"""Page 14, Sampler and trainer: the engine's mismatch, the weights' histogram, the error against C, predict-first."""

from __future__ import annotations

import re

import numpy as np
import pytest
from apphelp import (
    FOUR_SPREAD,
    chart_fingerprint,
    chart_frame,
    choose_preset,
    keys,
    metrics,
    no_exception,
    numbers,
    page_file,
    page_text,
    run_page,
)

import rlcore

PAGE = page_file("14_")
K = keys(PAGE)


def errors(at):
    return chart_frame(at, "The update's", "method")


def ratios(at):
    return chart_frame(at, "Weights ρ", "share")


def test_defaults_run_and_hide_the_answer():
    at = run_page(PAGE)
    no_exception(at)
    assert ratios(at)["share"].sum() == pytest.approx(1.0)
    df = errors(at)
    assert set(df["method"]) == {"no correction", "truncate", "mask", "full weights"}
    # no correction and full weights do not depend on C: one value each across the caps
    for m in ("no correction", "full weights"):
        assert df[df["method"] == m]["total error"].nunique() == 1
    assert not at.metric and not at.dataframe and not at.success and not at.warning


def test_engine_equal_to_trainer_all_ratios_are_one():
    at = run_page(PAGE)
    choose_preset(at, "Engine = trainer")
    no_exception(at)
    assert at.slider(key=K("noise")).value == 0.0
    h = ratios(at)
    assert h[h["share"] > 0]["from"].tolist() == [0.0]  # every log₂ ρ is 0
    df = errors(at)
    values = df.groupby("cap C")["total error"].nunique()
    assert (values == 1).all()  # all four methods coincide at every cap
    at.radio(key="mm_predict").set_value(at.radio(key="mm_predict").options[-1]).run()
    assert at.success and "a tie" in at.success[0].value


def test_predict_reveals_the_table():
    at = run_page(PAGE)
    at.radio(key="mm_predict").set_value("truncate at C = 2").run()
    no_exception(at)
    assert at.success or at.warning
    assert len(at.dataframe) == 1 and at.metric
    table = at.dataframe[0].value
    np.testing.assert_allclose(table["total error"], table["bias²"] + table["variance"], rtol=1e-12)
    (label,) = metrics(at)
    assert numbers(label) == [2]                             # the share above the chosen cap C = 2
    revealed_answer_is_the_tables_minimum(at)


@pytest.mark.parametrize("widget, key, value", [("slider", "noise", 1.5), ("select_slider", "cap", 4.0),
                                                ("number_input", "seed", 4)])
def test_inputs_change_the_charts(widget, key, value):
    at = run_page(PAGE)
    before = chart_fingerprint(at)
    getattr(at, widget)(key=K(key)).set_value(value).run()
    no_exception(at)
    assert chart_fingerprint(at) != before


def test_kind_switches_the_level_input():
    at = run_page(PAGE, query={"kind": "temperature", "temp": "0.5"})
    no_exception(at)
    assert at.slider(key=K("temp")).value == 0.5
    # temperature: every position has the same μ, so ρ takes one value per token: 3 bins at most
    assert (ratios(at)["share"] > 0).sum() <= 3


def test_part_switch_shows_bias():
    at = run_page(PAGE, inputs={"part": "bias²"})
    no_exception(at)
    assert "bias²" in errors(at).columns


def test_top_p_preset_explains_the_missing_token():
    at = run_page(PAGE, state={"mm_predict": "no correction"})
    choose_preset(at, "Top-p 0.7")
    no_exception(at)
    assert at.info and "partly" in at.info[0].value  # top-p 0.7 keeps open and closed only


def revealed_answer_is_the_tables_minimum(at):
    table = at.dataframe[0].value
    low = table["total error"].min()
    winners = table[table["total error"] <= low * (1 + 1e-9)]["method"].tolist()
    message = (at.success or at.warning)[0].value
    assert all(w in message for w in winners), (winners, message)


def test_edited_four_token_scenario():
    at = run_page(PAGE, scenario=FOUR_SPREAD, state={"mm_predict": "no correction"})
    no_exception(at)
    assert "yes, no, maybe, unclear" in page_text(at)
    assert ratios(at)["share"].sum() == pytest.approx(1.0)
    revealed_answer_is_the_tables_minimum(at)
    at.slider(key=K("noise")).set_value(2.0).run()
    revealed_answer_is_the_tables_minimum(at)


def test_equal_scores_give_zero_error_without_breaking():
    flat = rlcore.Scenario(tokens=("a", "b"), probs=(0.5, 0.5), samples=((5,), (5,)))
    at = run_page(PAGE, scenario=flat)
    no_exception(at)
    np.testing.assert_allclose(errors(at)["total error"], 0, atol=1e-15)  # every advantage is 0


@pytest.mark.parametrize("pick", [0, 1, 2, 3])
def test_the_feedback_gives_the_error_of_the_learners_own_choice(pick):
    at = run_page(PAGE)
    radio = at.radio(key="mm_predict")
    choice = radio.options[pick]
    radio.set_value(choice).run()
    no_exception(at)
    (mark,) = [*at.success, *at.warning]
    table = next(d.value for d in at.dataframe if "total error" in d.value.columns).set_index("method")
    said = float(re.search(re.escape(choice) + r": (\d+(?:\.\d+)?)[;.]", mark.value.split("each choice: ")[1])[1])
    assert said == pytest.approx(table.loc[choice, "total error"], abs=5e-5)   # the same error as the table's row
