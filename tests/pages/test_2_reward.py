"""Page 2, "Reward and return": AppTest checks of what the learner sees.

With the default example (the answer "OpenAI is open. It's in the name.", 10 tokens, score 2):
reward 0 on tokens 1–9 and 2 on the last; return 2 at every token for γ = 1; the first token's
credit for γ = 0.9 is 2·0.9⁴ = 1.3122 in a 5-token answer and 2·0.9¹⁹ ≈ 0.27 in a 20-token one;
the outcome-only judge gives "OpenAI is partly. It's in the name." and "OpenAI is partly: some open
weights." the same full marks.
"""

from __future__ import annotations

import pytest

import rlcore
from tests.apphelp import (
    charts,
    just_shown,
    metrics,
    moves_charts,
    numbers,
    page_kit,
    page_text,
    preset_cases,
    run_page,
)
from ui.format import esc

PAGE, K, en = page_kit("2_", "p2")
TEN = ["OpenAI", "is", "open", ".", "It", "'s", "in", "the", "name", "."]
FOUR = rlcore.Scenario(tokens=("yes", "no", "maybe", "depends"), probs=(0.4, 0.3, 0.2, 0.1),
                       samples=((6, 7), (1, 2, 3), (5,), (9, 9, 8)),
                       continuations=(", clearly.", "", ": it varies.", " on the day"))
ZERO = rlcore.Scenario(tokens=("a", "b"), probs=(0.5, 0.5), samples=((0,), (0, 0)), continuations=(". x", ". y"))
SHOWN = just_shown("predict_short")  # as after "Just show me"


def strip_data(at):
    """The reward/return strip's data frame."""
    return next(df for df in charts(at)[0]["data"].values() if "reward" in df.columns)


def curve_data(at):
    return next(df for df in charts(at)[1]["data"].values() if "answer length" in df.columns)


def captions(at) -> list[str]:
    return [c.value for c in at.caption]


def test_defaults_show_the_articles_numbers():
    at = run_page(PAGE)
    strip = strip_data(at)
    assert list(strip["token"]) == TEN
    assert list(strip["reward"]) == [0.0] * 9 + [2.0]     # sparse: 0, then 2 on the last of 10 tokens
    assert list(strip["return"]) == [2.0] * 10           # γ = 1: return 2 at every token
    shown = metrics(at)
    assert shown[en("reward_before", last=9)] == "0" and shown[en("reward_last", n=10)] == "2"
    assert shown[en("judge_score")] == "2" and shown[en("return_first")] == "2"
    assert en("flat", value="2", first="OpenAI", last=esc(".")) in [m.value for m in at.markdown]
    assert en("answer_caption", n=10, before=2, token="open") in captions(at)  # 10 tokens, 2 of the prefix
    assert at.code[0].value == "Is OpenAI open?\nOpenAI is open. It's in the name."
    assert all(c["alt"] for c in charts(at))


def test_length_chart_shows_why_discounting_favours_short_answers():
    at = run_page(PAGE, state=SHOWN)
    curves = curve_data(at)
    assert set(curves["γ"]) == {"γ = 1", "γ = 0.99", "γ = 0.95", "γ = 0.9"}
    assert len(curves) == 4 * 60
    flat = curves[curves["γ"] == "γ = 1"]
    assert list(flat["return at the first token"]) == [2.0] * 60
    tenth = curves[curves["γ"] == "γ = 0.9"].set_index("answer length")["return at the first token"]
    assert tenth[1] == 2.0
    assert tenth[5] == pytest.approx(2 * 0.9**4)  # 1.3122
    assert tenth[20] == pytest.approx(2 * 0.9**19, abs=1e-6)
    assert tenth.is_monotonic_decreasing


def test_gamma_slider_changes_the_returns():
    at = run_page(PAGE, state=SHOWN)
    moves_charts(at, lambda at: at.slider(key=K("gamma")).set_value(0.5).run())
    strip = strip_data(at)
    assert list(strip["reward"]) == [0.0] * 9 + [2.0]  # the reward does not depend on γ
    # G_t = 2 · 0.5^(9 − t): 0.00390625 at the first token, 1 at the ninth, 2 at the last
    assert list(strip["return"]) == pytest.approx([2 * 0.5 ** (9 - t) for t in range(10)])
    assert en("curve_slider", gamma="0.5") in set(curve_data(at)["γ"])
    assert 0.004 in numbers(page_text(at))                     # the first token's return, said in the text


def test_query_parameters_set_token_and_gamma_and_an_unknown_token_is_not_taken():
    at = run_page(PAGE, query={"gamma": "0.9", "tok": "partly"})
    assert at.slider(key=K("gamma")).value == 0.9
    assert at.selectbox(key=K("tok")).value == "partly"
    strip = strip_data(at)
    # "OpenAI is partly: some open weights." → 8 tokens, score Q(partly) = 9
    assert list(strip["token"]) == ["OpenAI", "is", "partly", ":", "some", "open", "weights", "."]
    assert list(strip["reward"]) == [0.0] * 7 + [9.0]
    assert strip["return"].iloc[0] == pytest.approx(9 * 0.9**7)
    at = run_page(PAGE, query={"tok": "<b>nope</b>"})  # an unknown token: the most likely instead
    assert at.selectbox(key=K("tok")).value == "open"


def test_choosing_closed_then_a_scenario_without_it():
    at = run_page(PAGE)
    at = at.selectbox(key=K("tok")).set_value("closed").run()
    strip = strip_data(at)
    assert strip["reward"].iloc[-1] == 5.0  # Q(closed) = (5 + 4 + 6) / 3
    assert metrics(at)[en("judge_score")] == "5"
    # the same answer, as long, as on the Loop page, whose seed 0 writes "closed"
    steps = rlcore.rollout(rlcore.ARTICLE_SCENARIO, 0, 1.0)
    assert steps[0].action == "closed" and len(strip) == 14 == len(steps) + 2
    assert en("answer_caption", n=14, before=2, token="closed") in captions(at)
    at.session_state["scenario"] = FOUR  # closed is gone: the most likely token of FOUR
    at = at.run()
    assert at.selectbox(key=K("tok")).value == "yes"
    assert list(strip_data(at)["token"]) == ["OpenAI", "is", "yes", ",", "clearly", "."]


def test_outcome_only_judges_blind_spot():
    at = run_page(PAGE)
    codes = [c.value for c in at.code]
    assert "OpenAI is partly. It's in the name." in codes
    assert "OpenAI is partly: some open weights." in codes
    judged = [numbers(m.value) for m in at.metric if m.label == en("outcome_judge")]
    assert judged == [[10, 10], [10, 10]]
    assert en("both_same") in [m.value for m in at.markdown]


@pytest.mark.parametrize("name", preset_cases(2))  # CI: every preset
def test_every_preset_runs(name):
    scenario = rlcore.PRESETS[name]
    at = run_page(PAGE, scenario=scenario)
    likely = scenario.tokens[max(range(scenario.n), key=lambda i: scenario.probs[i])]
    assert at.selectbox(key=K("tok")).value == likely
    assert list(strip_data(at)["token"]) == list(rlcore.answer_tokens(scenario, likely))


def test_four_token_scenario():
    at = run_page(PAGE, scenario=FOUR)
    assert at.selectbox(key=K("tok")).options == ["yes", "no", "maybe", "depends"]
    strip = strip_data(at)
    assert list(strip["token"]) == ["OpenAI", "is", "yes", ",", "clearly", "."]
    assert list(strip["reward"]) == [0.0] * 5 + [6.5]  # Q(yes) = (6 + 7) / 2
    at = at.selectbox(key=K("tok")).set_value("no").run()  # no continuation: a 3-token answer
    assert list(strip_data(at)["reward"]) == [0.0, 0.0, 2.0]


def test_the_length_chart_waits_for_the_prediction_and_the_answer_follows_the_scenario():
    at = run_page(PAGE)
    assert len(charts(at)) == 1 and "1.312" not in page_text(at)  # 2 · 0.9⁴ = 1.3122, the answer's figure
    at = at.radio(key="predict_short").set_value(en("less")).run()
    assert at.warning and "1.312" in page_text(at)
    assert curve_data(at)["return at the first token"].max() == 2.0
    at = at.radio(key="predict_short").set_value(en("more")).run()
    assert at.success and {1.312, 0.27} <= set(numbers(at.success[0].value))
    at = run_page(PAGE, scenario=ZERO)  # a score of 0 stays 0 however it is discounted
    at = at.radio(key="predict_short").set_value(en("more")).run()
    assert at.warning and not at.success
    assert f"**{en('same')}**" in at.warning[0].value  # the answer it names
