"""Page 15, Entropy and pass@k: entropy along training, pass@k before and after, predict-first, inputs."""

from __future__ import annotations

import numpy as np
import pytest

import rlcore
from tests.apphelp import (
    FOUR_ANSWERS,
    chart_frame,
    charts,
    choose_preset,
    keys,
    moves_charts,
    numbers,
    page_file,
    run_page,
)
from ui import i18n

PAGE = page_file("15_")
K = keys(PAGE)
RARE = rlcore.PRESETS["Rare branch, sometimes right"]
RARE_NAME = i18n.text("en", "scenario.presets.Rare branch, sometimes right")
LOAD, BACK = "ent_load_rare", "ent_restore"  # the buttons' keys
FOUR = rlcore.Scenario(tokens=("yes", "no", "maybe", "unclear"), probs=(0.4, 0.3, 0.2, 0.1),
                       samples=((1, 9), (3,), (9, 8), (4, 5, 10)))


def pass_curve(at, policy):
    df = chart_frame(at, "pass@k against k", "pass@k")
    return df[df["policy"] == policy].sort_values("k")["pass@k"].to_numpy()


def test_defaults_article_example():
    at = run_page(PAGE)
    before = pass_curve(at, "before training")
    # article example, threshold 8: only "partly" (π 0.2) is ever right, on every question: pass@k = 1 − 0.8^k
    np.testing.assert_allclose(before, 1 - 0.8 ** np.arange(1, 65), atol=1e-12)
    ent = chart_frame(at, "Entropy of π along training", "entropy")
    measured = ent[ent["curve"] == "measured"].sort_values("training step")["entropy"]
    assert measured.iloc[0] == pytest.approx(-(0.5 * np.log(0.5) + 0.3 * np.log(0.3) + 0.2 * np.log(0.2)))
    assert len(measured) == 21  # steps 0…20


def test_predict_hides_then_reveals_on_the_rare_branch_preset():
    at = run_page(PAGE, scenario=RARE)
    assert len(charts(at)) == 2                              # pass@k and entropy; the rest after the answer
    radio = at.radio(key="ent_predict")
    radio.set_value(radio.options[1]).run()                  # falls
    assert at.success, "on the rare-branch scenario pass@16 falls after 20 steps"
    assert len(charts(at)) == 4
    shares = next(md.value for md in at.markdown if all(f"**{t}**" in md.value for t in RARE.tokens))
    # threshold 8, then the share of right answers per branch: simplify 3 of 4, guess none, backtrack 1 of 2
    assert numbers(shares)[:4] == [8, 75, 0, 50]
    assert i18n.text("en", "p15.trade", k=16) in [md.value for md in at.markdown]  # it names what the curves show
    before, after = pass_curve(at, "before training"), pass_curve(at, "after 20 steps")
    assert after[0] > before[0] and after[-1] < before[-1]  # pass@1 up, pass@64 down


def test_article_example_points_to_the_preset():
    at = run_page(PAGE, state={"ent_predict": "falls"})
    assert at.warning  # on the article's example pass@16 barely moves (it is already ~97%)
    load = at.button(key=LOAD).label
    assert at.info and f"**{load}**" in at.info[0].value     # it names the button it points to


def the_buttons(at) -> list[str]:
    return [b.key for b in at.button if b.key in (LOAD, BACK)]


def test_the_rare_button_loads_its_scenario_says_it_changes_every_page_and_gives_the_example_back():
    at = run_page(PAGE, scenario=FOUR_ANSWERS)
    assert the_buttons(at) == [LOAD]
    offer = i18n.text("en", "p15.offer", name=RARE_NAME, k=64)   # said where the button is, before the click
    assert offer in [c.value for c in at.caption]
    at.button(key=LOAD).click().run()
    assert at.session_state["scenario"] == RARE
    assert at.slider(key=K("steps")).value == 30 and at.slider(key=K("k")).value == 64
    assert the_buttons(at) == [BACK]
    loaded = i18n.text("en", "p15.loaded", name=RARE_NAME, tokens="yes, no, maybe, depends")  # names yours
    assert loaded in [c.value for c in at.caption]
    choose_preset(at, "Before training")
    assert at.slider(key=K("steps")).value == 0
    assert len(charts(at)) == 2                            # still hidden until the learner predicts
    at.button(key=BACK).click().run()
    assert at.session_state["scenario"] == FOUR_ANSWERS
    assert the_buttons(at) == [LOAD]


@pytest.mark.parametrize("key, value", [("steps", 40), ("k", 3), ("lr", 1.0)])
def test_sliders_change_the_charts(key, value):
    at = run_page(PAGE, scenario=RARE)
    moves_charts(at, lambda at: at.slider(key=K(key)).set_value(value).run())


def test_threshold_and_seed_change_what_they_should():
    at = run_page(PAGE, scenario=RARE, state={"ent_predict": "rises"})
    before = chart_frame(at, "pass@1 and pass@k", "value").to_csv()
    at.number_input(key=K("seed")).set_value(5).run()
    df = chart_frame(at, "pass@1 and pass@k", "value")
    assert df.to_csv() != before
    exact = df[df["curve"] == "pass@1, exact"]["value"].to_numpy()
    at.number_input(key=K("threshold")).set_value(10.0).run()  # only backtrack's 10 is right now
    df = chart_frame(at, "pass@1 and pass@k", "value")
    after = df[df["curve"] == "pass@1, exact"]["value"].to_numpy()
    assert after[0] == pytest.approx(0.05 * 0.5) and not np.allclose(after, exact)


def test_edited_four_token_scenario_and_url():
    at = run_page(PAGE, scenario=FOUR, query={"steps": "7", "k": "5"}, state={"ent_predict": "rises"})
    assert at.slider(key=K("steps")).value == 7
    drive = chart_frame(at, "Each token's part", "share of ΔH")
    assert set(drive["token"]) == set(FOUR.tokens) and drive["training step"].max() == 7
    # the revealed answer agrees with the chart: pass@5 before against after 7 steps
    before, after = pass_curve(at, "before training")[4], pass_curve(at, "after 7 steps")[4]
    expected = "rises" if after > before + 0.01 else "falls" if after < before - 0.01 else "barely moves"
    assert (at.success if expected == "rises" else at.warning), (before, after)
    assert f"**{expected}**" in (at.success or at.warning)[0].value


def test_unreachable_threshold_gives_zero_not_an_error():
    at = run_page(PAGE, inputs={"threshold": 1000.0})
    np.testing.assert_allclose(pass_curve(at, "before training"), 0, atol=1e-15)


def test_odd_inputs_run_without_error():
    """Every input is bounded, so nothing a learner can set reaches rlcore's ValueErrors (tested in
    tests/rlcore/test_collapse.py): a token with probability 0 and out-of-range link values still run."""
    zero = rlcore.Scenario(tokens=("a", "b", "c"), probs=(0.0, 0.7, 0.3), samples=((10,), (5,), (9, 1)))
    at = run_page(PAGE, scenario=zero, query={"steps": "999", "n": "100", "k": "-3"})
    assert not at.error
    assert at.slider(key=K("steps")).value == 20 and at.slider(key=K("k")).value == 16
    # "a" (always right) has π = 0 and stays there; "c" (π 0.3) solves half the questions: 0.5 (1 − 0.7^k)
    np.testing.assert_allclose(pass_curve(at, "before training")[:3], [0.5 * (1 - 0.7**k) for k in (1, 2, 3)],
                               atol=1e-12)
