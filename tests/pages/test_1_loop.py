"""Page 1, "Loop, state and action": AppTest checks of what the learner sees.

With the default example the page shows the state "Is OpenAI open?" / "OpenAI is", the policy
0.5 / 0.3 / 0.2 over open / closed / partly, and at τ = 2 the sampled distribution √π / Σ√π.
Stepping with a seed reproduces rlcore.rollout, and the typed answer is only ever shown as plain text.
"""

from __future__ import annotations

import math

import pytest

import rlcore
from tests.apphelp import (
    charts,
    choose_preset,
    moves_charts,
    numbers,
    page_kit,
    page_parts,
    page_text,
    preset_cases,
    preset_names,
    run_page,
)

PAGE, K, en = page_kit("1_", "p1")
FOUR = rlcore.Scenario(tokens=("yes", "no", "maybe", "depends"), probs=(0.4, 0.3, 0.2, 0.1),
                       samples=((6, 7), (1, 2, 3), (5,), (9, 9, 8)),
                       continuations=(", clearly.", "", ": it varies.", " on the day"))
UNIFORM = rlcore.Scenario(tokens=("a", "b"), probs=(0.5, 0.5), samples=((1,), (2,)))
HOSTILE = ["<script>alert(1)</script>", "[link](http://x)"]


def judge(at) -> list[float]:
    """The judge section's score and its maximum ("1 of 2"): the last metric of that name (the judge panel is
    below the finished answer's score)."""
    return numbers([m.value for m in at.metric if m.label == en("judge_score")][-1])


def state_heading(at) -> str:
    return next(h.value for h in at.subheader if h.value in {en("state_heading", n=k) for k in range(50)})


def policy_table(at):
    """The two policy charts' data: the policy at τ = 1, then the one sampling draws from."""
    frames = [next(df for df in c["data"].values() if "token" in df.columns) for c in charts(at)[:2]]
    assert len(frames) == 2
    return frames


def sample_all(at, limit: int = 40):
    for _ in range(limit):
        button = at.button(key="sample")
        if button.disabled:
            return at
        at = button.click().run()
    raise AssertionError("the answer never finished")


def test_defaults_show_the_state_and_the_articles_policy():
    at = run_page(PAGE, state={"table_policy_at_temperature": True})  # with its data table open
    assert at.code[0].value == "Is OpenAI open?\nOpenAI is"
    frames = policy_table(at)
    for df in frames:
        assert list(df["token"]) == ["open", "closed", "partly"]
        assert list(df["probability"]) == pytest.approx([0.5, 0.3, 0.2])
    text = page_text(at)
    assert numbers(state_heading(at)) == [0]
    assert en("choose", prefix="OpenAI is", n=3) in [m.value for m in at.markdown]
    assert "open,0.5,0.5" in text and "closed,0.3,0.3" in text and "partly,0.2,0.2" in text
    assert charts(at)[0]["alt"]


def test_temperature_reshapes_the_sampled_distribution():
    at = run_page(PAGE)
    moves_charts(at, lambda at: at.slider(key=K("temp")).set_value(2.0).run())
    trained, hot = policy_table(at)
    assert list(trained["probability"]) == pytest.approx([0.5, 0.3, 0.2])
    roots = [math.sqrt(p) for p in (0.5, 0.3, 0.2)]  # τ = 2: π^(1/2), normalised
    assert list(hot["probability"]) == pytest.approx([r / sum(roots) for r in roots])
    assert "τ = 2" in str(charts(at)[1]["spec"]) and en("sampling_title") in str(charts(at)[1]["spec"])


def test_query_parameters_set_temperature_and_seed():
    at = run_page(PAGE, query={"temp": "0.5", "seed": "7"})
    assert at.slider(key=K("temp")).value == 0.5
    assert at.number_input(key=K("seed")).value == 7
    _, hot = policy_table(at)
    assert list(hot["probability"]) == pytest.approx([0.25 / 0.38, 0.09 / 0.38, 0.04 / 0.38])


@pytest.mark.parametrize("seed", [0, 4, 9])
def test_stepping_reproduces_the_seeded_rollout(seed):
    at = run_page(PAGE, query={"seed": str(seed)})
    at = sample_all(at)
    steps = at.session_state["loop_steps"]
    expected = rlcore.rollout(rlcore.ARTICLE_SCENARIO, seed, 1.0)
    assert [s.action for s in steps] == [s.action for s in expected]
    assert steps[-1].score == expected[-1].score
    first = steps[0].action
    assert steps[-1].score in rlcore.ARTICLE_SCENARIO.samples[rlcore.ARTICLE_SCENARIO.index(first)]
    answer = rlcore.answer_text(rlcore.ARTICLE_SCENARIO, first)
    assert at.code[0].value == f"Is OpenAI open?\n{answer}"
    table = next(d.value for d in at.dataframe if "reward" in d.value.columns)  # the trajectory
    assert list(table["reward"]) == [0.0] * (len(steps) - 1) + [steps[-1].score]  # sparse reward
    assert list(table["candidates"]) == [3] + [1] * (len(steps) - 1)
    assert at.button(key="sample").disabled
    assert numbers(next(m.value for m in at.metric if m.label == en("judge_score"))) == [steps[-1].score]
    # the same answer as the Reward page: the prefix's tokens plus the steps written here
    n = len(rlcore.answer_tokens(rlcore.ARTICLE_SCENARIO, first))
    # the finished answer's sentence: its length, the prefix's share and the steps written here
    assert any(numbers(m.value)[:3] == [n, 2, len(steps)] for m in at.markdown) and n == len(steps) + 2


def test_restart_a_new_seed_and_a_new_scenario_clear_the_trajectory():
    at = run_page(PAGE)
    at = at.button(key="sample").click().run()
    at = at.button(key="sample").click().run()
    assert len(at.session_state["loop_steps"]) == 2
    assert numbers(state_heading(at)) == [2]
    at = at.button(key="restart").click().run()
    assert at.session_state["loop_steps"] == []
    at = at.button(key="sample").click().run()
    assert len(at.session_state["loop_steps"]) == 1
    at = at.number_input(key=K("seed")).set_value(3).run()  # a new seed starts a new answer
    assert at.session_state["loop_steps"] == []
    at = at.button(key="sample").click().run()
    at.session_state["scenario"] = FOUR
    at = at.run()
    assert at.session_state["loop_steps"] == []
    assert numbers(state_heading(at)) == [0]


@pytest.mark.parametrize("name", preset_cases(1))  # CI: every preset
def test_every_preset_runs_to_the_end(name):
    scenario = rlcore.PRESETS[name]
    at = sample_all(run_page(PAGE, scenario=scenario))
    trained, _ = policy_table(at)
    assert list(trained["token"]) == list(scenario.tokens)
    assert list(trained["probability"]) == pytest.approx(list(scenario.probs))


def test_four_token_scenario_with_an_empty_continuation():
    for seed in range(30):  # find a seed whose first draw is "no", which has no continuation
        if rlcore.next_step(FOUR, [], seed).action == "no":
            break
    at = run_page(PAGE, scenario=FOUR, query={"seed": str(seed)})
    assert list(policy_table(at)[0]["token"]) == ["yes", "no", "maybe", "depends"]
    at = at.button(key="sample").click().run()
    assert at.button(key="sample").disabled  # finished after one step
    assert at.session_state["loop_steps"][0].score in (1, 2, 3)
    assert at.code[0].value == "Is OpenAI open?\nOpenAI is no"


def test_six_tokens_fit_two_charts_of_container_width():
    six = rlcore.Scenario(tokens=tuple(f"t{i}" for i in range(6)), probs=(0.3, 0.2, 0.2, 0.1, 0.1, 0.1),
                          samples=tuple((float(i),) for i in range(6)), continuations=(" a b.",) * 6)
    at = sample_all(run_page(PAGE, scenario=six, query={"temp": "3"}))
    for chart in charts(at)[:2]:  # no fixed-width panels side by side: each chart takes its column's width
        assert "hconcat" not in chart["spec"] and chart["spec"].get("width") in (None, "container")
    trained, hot = policy_table(at)
    assert list(trained["token"]) == list(six.tokens)
    # τ = 3 flattens: the rare tokens (0.1) gain, the favourite (0.3) loses
    assert hot["probability"].iloc[0] < 0.3 and hot["probability"].iloc[-1] > 0.1
    assert len(at.session_state["loop_steps"]) == 4  # the choice, then "a", "b", "."


def test_an_empty_expected_answer_is_an_error_not_a_crash():
    at = run_page(PAGE)
    at = at.text_input(key=K("expected")).set_value("   ").run()
    assert any("expected" in e.value for e in at.error)
    assert at.radio(key="predict_temperature")  # the rest of the page is still there


def test_judge_scores_the_examples():
    at = run_page(PAGE)
    assert judge(at) == [2, 2]  # the default example: tags and the right answer
    at = at.button(key="judge_No tags").click().run()
    assert at.text_area(key="judge_text").value == "partly"
    assert judge(at) == [1, 2]
    at = at.button(key="judge_Wrong answer").click().run()
    assert at.text_area(key="judge_text").value == "<think>OpenAI is open. It's in the name.</think> open"
    assert judge(at) == [1, 2]
    at = at.button(key="judge_Wrong reasoning").click().run()
    assert "It's in the name.</think> partly" in at.text_area(key="judge_text").value
    assert judge(at) == [2, 2]  # the rules never read the reasoning
    at = at.text_input(key=K("expected")).set_value("closed").run()
    assert judge(at) == [1, 2]
    typed = "<think>a</think> " + "x" * 2500  # 2,517 characters: over the cap, cut
    at = at.text_area(key="judge_text").set_value(typed).run()
    assert at.text_area(key="judge_text").value == typed[:2000]
    assert judge(at) == [1, 2]  # the format point; "xxx…" is not the expected answer


@pytest.mark.parametrize("hostile", HOSTILE)
def test_typed_text_is_shown_only_as_plain_text(hostile):
    at = run_page(PAGE)
    at = at.text_area(key="judge_text").set_value(hostile).run()
    assert hostile in [c.value for c in at.code]  # shown literally, as typed
    for _, part in page_parts(at):  # everything rendered as markdown, where a link or HTML could come alive
        assert hostile not in part
        assert "alert(1)" not in part and "http://x" not in part
    assert judge(at) == [0, 2]


def test_predict_hides_the_hot_probability_until_answered_and_the_answer_follows_the_scenario():
    roots = [math.sqrt(p) for p in (0.5, 0.3, 0.2)]  # τ = 2: π^(1/2), normalised; "partly" is the rarest
    after = f"{100 * roots[2] / sum(roots):.1f}%"   # 26.3%
    at = run_page(PAGE)
    assert after not in page_text(at)
    at = at.radio(key="predict_temperature").set_value(en("less")).run()
    assert after in page_text(at) and at.warning
    at = at.radio(key="predict_temperature").set_value(en("more")).run()
    assert at.success and "partly" in at.radio(key="predict_temperature").label
    at = run_page(PAGE, scenario=UNIFORM)
    at = at.radio(key="predict_temperature").set_value(en("more")).run()
    assert at.warning and not at.success
    assert f"**{en('same')}**" in at.warning[0].value  # the answer it names


def test_presets_are_one_compact_control():
    at = run_page(PAGE)
    assert preset_names(at) == ["τ = 0.1", "τ = 1", "τ = 2.5"]
    choose_preset(at, "τ = 2.5")
    assert at.slider(key=K("temp")).value == 2.5
