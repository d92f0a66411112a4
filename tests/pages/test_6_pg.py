"""Page 6, Policy gradient: AppTest checks of the article's steps, the widgets, bad input and the URL."""

from __future__ import annotations

import numpy as np
import pytest

import rlcore
from tests.apphelp import (
    charts,
    choose_preset,
    just_shown,
    largest_frame,
    moves_charts,
    numbers,
    page_kit,
    page_text,
    preset_cases,
    run_page,
    shared_out,
)

PAGE, K, en = page_kit("6_", "p6")
FOUR = rlcore.Scenario(tokens=("yes", "no", "maybe", "depends"), probs=(0.4, 0.3, 0.2, 0.1),
                       samples=((7, 9), (2,), (5, 6, 4), (8,)))
TWO = rlcore.Scenario(tokens=("up", "down"), probs=(0.7, 0.3), samples=((1, 3), (6,)))
SIX = rlcore.Scenario(tokens=tuple("abcdef"), probs=(0.3, 0.2, 0.2, 0.1, 0.1, 0.1),
                      samples=((1,), (2,), (3,), (4,), (5,), (6,)))
SHOWN = just_shown("predict_pg")  # as after "Just show me"
PROBS, VALUES = en("probs_title"), en("v_title")  # the two charts of the path


def inside_step(at) -> int | None:
    """The step the "Inside step N" section takes apart (None when it is not shown)."""
    headings = {en("inside.heading", step=k): k for k in range(51)}
    return next((headings[h.value] for h in at.subheader if h.value in headings), None)


def sampled(at, runs: int):
    """The sampled runs' chart data: median, lowest and highest per step and token."""
    return largest_frame(at, en("sampled.title", runs=runs), "highest")


def logit_bars(at):
    return largest_frame(at, en("inside.title", step=inside_step(at))).set_index("token")["logit change"]


def test_defaults_show_the_article_numbers():
    at = run_page(PAGE, state=SHOWN, query={"step": "2"})
    text = page_text(at)
    # 0.50/0.30/0.20 → 0.15/0.36/0.49 → 0.04/0.11/0.86 (the article rounds 0.855 once more) and V 4.3 → 6.5 → 8.3.
    assert "0.5 / 0.3 / 0.2 → 0.152 / 0.356 / 0.492 → 0.039 / 0.106 / 0.855" in text
    assert "V: 4.3 → 6.5 → 8.3" in text
    # closed rises in step 1 (5 > 4.3) and falls in step 2 (5 < 6.5).
    # ... the turning token's sentence: up to step 1, down in step 2, from V = 6.51 above its Q = 5
    assert [1, 2, 6.51, 5] in [numbers(md.value)[:4] for md in at.markdown]
    probs = largest_frame(at, PROBS)
    assert len(probs) == 9 and probs["step"].max() == 2
    v = largest_frame(at, VALUES).set_index("step")["score"]
    assert v.round(1).tolist() == [4.3, 6.5, 8.3]
    # The logit change of step 1 is π·A: 0.5·(−2.3), 0.3·0.7, 0.2·4.7.
    at = run_page(PAGE, state=SHOWN, query={"step": "1"})
    np.testing.assert_allclose(logit_bars(at)[["open", "closed", "partly"]], [-1.15, 0.21, 0.94])


def test_the_steps_stay_hidden_until_the_learner_commits():
    at = run_page(PAGE)
    text = page_text(at)
    assert at.radio(key="predict_pg").value is None and "0.356" not in text and inside_step(at) is None
    assert len(largest_frame(at, PROBS)) == 3, "only the start before the answer"
    assert at.button(key="pg_play").disabled and at.button(key="pg_step").disabled
    at.radio(key="predict_pg").set_value(en("down")).run()
    assert at.warning and {0.3, 0.356} <= set(numbers(at.warning[0].value))  # π(closed) before and after
    assert inside_step(at) == 1 and not at.button(key="pg_play").disabled
    assert predicted(at) == en("up")                                # 5 > V = 4.3


def test_turning_point_is_marked_once_the_steps_pass_it():
    at = run_page(PAGE, state=SHOWN, query={"step": "2"})
    peaks = en("peaks", token="closed")
    labels = [df for c in charts(at) for df in c["data"].values() if "label" in df and "at" in df]
    assert any((peaks in df["label"].tolist()) and df.set_index("label")["at"][peaks] == 1 for df in labels)
    at = run_page(PAGE, state=SHOWN, query={"step": "1"})  # step 2, where closed turns, has not happened yet
    labels = [df for c in charts(at) for df in c["data"].values() if "label" in df and "at" in df]
    assert not any(peaks in df["label"].tolist() for df in labels)


def test_step_button_moves_one_step_and_stops_at_the_end():
    at = run_page(PAGE, state=SHOWN)
    assert at.slider(key=K("step")).value == 0
    at.button(key="pg_step").click().run()
    assert at.slider(key=K("step")).value == 1
    assert largest_frame(at, PROBS)["step"].max() == 1
    at.button(key="pg_step").click().run()
    assert at.slider(key=K("step")).value == 2 and at.button(key="pg_step").disabled  # 2 of 2 steps


def test_play_restarts_from_the_end_each_tick_takes_one_step_and_pause_stops_it():
    at = run_page(PAGE, state=SHOWN, query={"step": "2"})
    at.button(key="pg_play").click().run()
    assert at.session_state["pg_playing"] and at.slider(key=K("step")).value == 0
    assert [b.label for b in at.button if b.key == "pg_pause"] == [en("pause")]
    at.session_state["pg_last_frame"] = 0.0  # as if the timer's interval had passed
    at.run()
    assert at.slider(key=K("step")).value == 1 and at.session_state["pg_playing"]
    assert largest_frame(at, PROBS)["step"].max() == 1
    at.session_state["pg_last_frame"] = 0.0
    at.run()
    # the last step reached: playing stops and Play comes back
    assert at.slider(key=K("step")).value == 2 and not at.session_state["pg_playing"]
    at.button(key="pg_play").click().run()  # again, then Pause
    at.button(key="pg_pause").click().run()
    assert not at.session_state["pg_playing"] and at.slider(key=K("step")).value == 0
    at.session_state["pg_last_frame"] = 0.0
    at.run()
    assert at.slider(key=K("step")).value == 0, "paused: no tick moves it"


def test_inspecting_step_two():
    at = run_page(PAGE, state=SHOWN)
    moves_charts(at, lambda at: at.slider(key=K("step")).set_value(2).run())
    bars = largest_frame(at, en("inside.title", step=2))
    # Step 2 starts from π₁ = (0.152, 0.356, 0.492), V₁ = 6.512: π₁·(Q − V₁).
    np.testing.assert_allclose(bars.set_index("token")["logit change"][["open", "closed", "partly"]],
                               [0.152 * -4.512, 0.356 * -1.512, 0.492 * 2.488], atol=2e-3)
    assert bars.set_index("token")["probability"]["closed"] == en("inside.falls")


def test_step_size_and_step_count_change_the_path():
    at = run_page(PAGE, state=SHOWN)
    moves_charts(at, lambda at: at.slider(key=K("lr")).set_value(0.5).run())
    np.testing.assert_allclose(logit_bars(at)[["open", "closed", "partly"]], [-0.575, 0.105, 0.47])
    at.slider(key=K("steps")).set_value(30).run()
    at.slider(key=K("step")).set_value(30).run()
    assert largest_frame(at, PROBS)["step"].max() == 30


def test_a_step_beyond_the_last_shows_the_last():
    at = run_page(PAGE, query={"steps": "30", "step": "20"}, state=SHOWN)
    assert at.slider(key=K("step")).value == 20 and inside_step(at) == 20
    at.slider(key=K("steps")).set_value(5).run()
    assert inside_step(at) == 5 and largest_frame(at, PROBS)["step"].max() == 5
    assert at.button(key="pg_step").disabled
    at.slider(key=K("steps")).set_value(1).run()
    assert largest_frame(at, en("inside.title", step=1))["token"].tolist() == ["open", "closed", "partly"]


def test_presets():
    at = run_page(PAGE, state=SHOWN)
    choose_preset(at, en("preset_thirty"))
    assert at.slider(key=K("steps")).value == 30 and at.slider(key=K("step")).value == 30
    probs = largest_frame(at, PROBS)
    assert len(probs) == 31 * 3 and probs["step"].max() == 30  # π at steps 0…30, three tokens
    choose_preset(at, en("preset_two"))
    assert at.slider(key=K("steps")).value == 2 and at.slider(key=K("step")).value == 1


def test_sampled_runs_follow_their_widgets():
    at = run_page(PAGE)
    df = sampled(at, 12)
    assert len(df) == 9
    assert (df["lowest"] <= df["median"] + 1e-12).all() and (df["median"] <= df["highest"] + 1e-12).all()
    before = df.to_csv()
    at.slider(key=K("batch")).set_value(2).run()
    assert sampled(at, 12).to_csv() != before
    at.slider(key=K("seeds")).set_value(30).run()
    assert len(sampled(at, 30)) == 9


def test_big_batches_hug_the_exact_path():
    wide = sampled(run_page(PAGE, query={"batch": "1"}), 12)
    narrow = sampled(run_page(PAGE, query={"batch": "64"}), 12)
    spread = lambda df: (df["highest"] - df["lowest"]).max()  # noqa: E731
    assert spread(narrow) < spread(wide)


@pytest.mark.parametrize("name", preset_cases(6))  # CI: every preset
def test_every_preset_sets_the_first_step(name):
    """Step 1 (lr = 1) changes each logit by π·(Q − V), and the V curve starts at V = Σ π·Q.
    (Most likely is already best: V = 6.95, changes 0.6·2.05 = 1.23, 0.25·(−1.95) = −0.4875, 0.15·(−4.95) = −0.7425.)"""
    scenario = rlcore.PRESETS[name]
    at = run_page(PAGE, scenario=scenario, state=SHOWN, inputs={"step": 1})
    pi, q = np.array(scenario.probs), np.array([np.mean(s) for s in scenario.samples])
    np.testing.assert_allclose(logit_bars(at)[list(scenario.tokens)], pi * (q - pi @ q), atol=1e-9)
    assert largest_frame(at, VALUES, "step").set_index("step")["score"][0] == pytest.approx(pi @ q)
    assert len(charts(at)) == 4


@pytest.mark.parametrize("scenario", shared_out([FOUR, TWO, SIX], every=3, offset=3, ids=lambda s: f"{s.n}-tokens"))
def test_other_scenarios_run(scenario):
    at = run_page(PAGE, scenario=scenario, query={"steps": "10", "step": "3"}, state=SHOWN)
    assert set(largest_frame(at, PROBS)["token"]) == set(scenario.tokens)
    assert len(logit_bars(at)) == scenario.n


def predicted(at) -> str:
    """Choose every option in turn; return the one the page calls right."""
    right = []
    for option in at.radio(key="predict_pg").options:
        at.radio(key="predict_pg").set_value(option).run()
        if at.success:
            right.append(option)
    assert len(right) == 1, right
    return right[0]


def test_predict_answer_follows_the_scenario():
    likely_best = rlcore.PRESETS["Most likely is already best"]    # V = 6.95 > 5
    at = run_page(PAGE, scenario=likely_best)
    assert at.radio(key="predict_pg").label == en("question", lr="1", token="closed")
    assert predicted(at) == en("down")
    assert predicted(run_page(PAGE, query={"lr": "0"})) == en("same")
    at = run_page(PAGE, scenario=FOUR)   # no closed: Q yes 8, no 2, maybe 5, depends 8 → second best by Q is "yes"
    assert at.radio(key="predict_pg").label == en("question", lr="1", token="yes")


def test_whole_number_widgets_accept_floats_from_session_state():
    # Session state (or a fuzzer) may hand an integer slider 5.0 instead of 5; indexing must not break.
    at = run_page(PAGE, inputs={"steps": 5.0, "step": 3.0, "batch": 4.0, "seeds": 3.0}, state=SHOWN)
    assert inside_step(at) == 3
    assert len(sampled(at, 3)) == 6 * 3
