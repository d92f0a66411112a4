"""The training lab page: runs for every algorithm and scenario, follows its widgets, URL and presets.

The page's numbers and state are checked (chart data, metrics, widgets, notices); elements are found by their
catalogue text, and a sentence is compared with its catalogue entry filled with hand-worked values."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rlcore
from tests.apphelp import (
    chart_by_title,
    charts,
    choose_preset,
    largest_frame,
    moves_charts,
    numbers,
    opening,
    page_kit,
    run_page,
    shared_out,
)

LAB, K, en = page_kit("9_", "p9")
FOUR = rlcore.Scenario(tokens=("yes", "no", "maybe", "later"), probs=(0.4, 0.3, 0.2, 0.1),
                       samples=((6, 7), (2,), (8, 9, 10), (4, 5)))
TWO = rlcore.Scenario(tokens=("left", "right"), probs=(0.7, 0.3), samples=((1, 2), (6, 8)))
SIX = rlcore.Scenario(tokens=("a", "b", "c", "d", "e", "f"), probs=(0.3, 0.2, 0.2, 0.1, 0.1, 0.1),
                      samples=((1,), (2, 3), (4,), (5, 6), (7,), (9, 10)))
SMALL = {"steps": 40, "seeds": 2}   # keeps the runs short where the test is not about the numbers
SHOWN = {"predict_lab_shown": True}  # as if the learner had pressed "Just show me"
SCORE, CURVES, FIRST, HEALTH, LENGTH, QUESTIONS = (en(f"{c}_title") for c in ("score", "curves", "first", "health",
                                                                               "length", "questions"))


def open_lab(*, state: dict | None = None, **kwargs):
    """The lab with its question answered: the charts show the whole run, the numbers at its end."""
    return run_page(LAB, state={**SHOWN, **(state or {})}, **kwargs)


def test_defaults_show_the_article_numbers():
    at = open_lab()
    # the flattery branch of the article: judge 9 for the plain answer, 9.6 for flattery, reference 5%;
    # start: 0.5·2 + 0.3·5 + 0.2·(0.95·9 + 0.05·9.6) = 4.306
    start = en("start_flattery", best="partly", plain="9", flat="9.6", ref="5%", start="4.31")
    assert start in [m.value for m in at.markdown]
    probs = largest_frame(at, FIRST)
    start = probs[probs["step"] == 0].set_index("token")["median"].groupby(level=0).first()
    assert start.to_dict() == pytest.approx({"open": 0.5, "closed": 0.3, "partly": 0.2}, abs=1e-12)
    assert [m.label for m in at.metric][:3] == [en("score_metric"), en("flattery_metric", best="partly"),
                                                en("kl_metric")]
    # the score, the dashboard of curves, the first token, length/entropy/pass@k, the two questions (no length
    # chart: off)
    assert len(charts(at)) == 5
    assert set(largest_frame(at, SCORE)["step"]) >= {0, 100}   # the whole default run
    panels = list(dict.fromkeys(largest_frame(at, CURVES)["quantity"]))
    assert panels == [en("panel_flattery", best="partly"), en("panel_kl"), en("panel_clip"),
                      en("panel_critic_first"), en("panel_critic_branch", best="partly")]


def test_every_chart_has_a_title_alt_text_and_few_rows():
    at = open_lab(scenario=SIX, inputs={"steps": 300, "G": 4, "seeds": 10,
                                            "algos": ["GRPO", "RLOO", "PPO"]})
    for c in charts(at):
        assert c["alt"] and c["spec"].get("title")
        assert sum(len(df) for df in c["data"].values()) < 2000


@pytest.mark.parametrize("algo", shared_out(list(rlcore.ALGORITHM_NAMES.values()), every=3, ids=str))  # CI: all
def test_every_algorithm_runs_alone(algo):
    at = open_lab(inputs={**SMALL, "algos": [algo]})
    assert not at.error and not at.warning
    assert set(largest_frame(at, CURVES)["algorithm"]) == {algo}
    score = largest_frame(at, SCORE)
    assert score["median"].iloc[-1] > score["median"].iloc[0]   # every algorithm learns on the article


SCENARIO_NAMES = {**rlcore.PRESETS, "four": FOUR, "two": TWO, "six": SIX}


@pytest.mark.parametrize("scenario", shared_out(list(SCENARIO_NAMES.values()), every=2,
                                                ids=lambda s: next(k for k, v in SCENARIO_NAMES.items() if v is s)))
def test_every_scenario_runs(scenario):
    """The charts follow the scenario: its tokens, and its best one (FOUR: Q 6.5, 2, 9, 4.5, maybe) flatters."""
    at = open_lab(scenario=scenario, inputs=SMALL)
    probs = largest_frame(at, FIRST)
    assert list(dict.fromkeys(probs["token"])) == list(scenario.tokens)
    best = scenario.tokens[int(scenario.q.argmax())]
    assert en("panel_flattery", best=best) in set(largest_frame(at, CURVES)["quantity"])
    assert en("flattery_metric", best=best) in [m.label for m in at.metric]


MOVES = [("beta", 0.5), ("lr", 0.1), ("G", 4), ("epochs", 1), ("eps", 0.1), ("lam", 0.5), ("steps", 60), ("seeds", 3),
         ("len", 4), ("k", 32)]


@pytest.mark.parametrize(("key", "value"), shared_out(MOVES, every=3, ids=lambda c: c[0]))  # CI: every move
def test_moving_a_slider_changes_the_chart_data(key, value):
    at = open_lab(inputs=SMALL if key not in SMALL else {})
    moves_charts(at, lambda at: at.slider(key=K(key)).set_value(value).run())


def test_flattery_toggle_and_judge_change_the_charts():
    at = open_lab(inputs=SMALL)
    moves_charts(at, lambda at: at.toggle(key=K("flat")).set_value(False).run())
    assert en("panel_flattery", best="partly") not in set(largest_frame(at, CURVES)["quantity"])
    moves_charts(at, lambda at: at.radio(key=K("judge")).set_value("its mean plus noise").run())
    # a noiseless judge: every leaf always gets its mean
    moves_charts(at, lambda at: at.slider(key=K("noise")).set_value(0.0).run())


def test_loss_is_zero_at_step_one_but_the_gradient_is_not():
    at = open_lab(inputs={**SMALL, "algos": ["GRPO", "Dr. GRPO"], "beta": 0.0})
    losses = [m.value for m in at.metric if m.label == en("loss0")]
    grads = [float(m.value) for m in at.metric if m.label == en("grad0")]
    assert losses == ["0", "0"]                      # GRPO, then Dr. GRPO
    assert len(grads) == 2 and all(g > 0.05 for g in grads)
    # REINFORCE has no group to cancel against: its first loss is not 0
    at = open_lab(inputs={**SMALL, "algos": ["REINFORCE"], "beta": 0.0})
    assert [m.value for m in at.metric if m.label == en("loss0")] != ["0"]


def test_dead_groups_show_up_with_a_small_group():
    at = open_lab(inputs={"algos": ["GRPO"], "G": 2, "steps": 100, "seeds": 5})
    q = largest_frame(at, QUESTIONS)
    dead = q[q["quantity"] == en("panel_dead")]
    assert dead["median"].max() > 0.2 and (dead["lowest"] == dead["median"]).all()   # one share per step
    share = next(c.value for c in at.caption if c.value.startswith(opening("p9.dead_total")))
    assert numbers(share)[0] > 5   # two answers, two scores per leaf: many are dead


def test_no_algorithm_and_a_diverging_run_are_explained():
    at = open_lab(inputs={"algos": []})
    assert at.info and not charts(at)
    at = open_lab(inputs={"algos": ["Dr. GRPO", "GRPO"], "lr": 1.0, "beta": 1.0, "epochs": 8, "G": 16})
    # "<name> could not finish: the run diverged at step <step> …": the step as written, the step size asked for
    warned = [name for name in ("Dr. GRPO", "GRPO") for w in at.warning
              if w.value == en("diverged", name=name, step=int(numbers(w.value)[0]), lr="1")]
    assert warned   # a run that diverged is named, and left out of the charts (or none finished: an error)
    if at.error:
        assert at.error[0].value == en("none_finished") and not charts(at)
    else:
        assert set(largest_frame(at, SCORE)["algorithm"]) == {"Dr. GRPO", "GRPO"} - set(warned)


def test_a_link_and_the_presets_set_the_widgets():
    at = open_lab(query={"algos": ["GRPO", "RLOO"], "steps": "40", "seeds": "2"})
    assert at.multiselect(key=K("algos")).value == ["GRPO", "RLOO"]
    assert set(largest_frame(at, CURVES)["algorithm"]) == {"GRPO", "RLOO"}
    choose_preset(at, en("preset_groups"))
    assert at.multiselect(key=K("algos")).value == ["GRPO", "Dr. GRPO", "RLOO"]
    assert at.slider(key=K("G")).value == 4
    choose_preset(at, en("preset_kl"))
    assert at.slider(key=K("beta")).value == 0.5


def reveal(at, choice) -> bool:
    """Answer the question with ``choice``; True when it was right."""
    at.radio(key="predict_lab").set_value(choice).run()
    return bool(at.success)


def test_predict_answer_follows_beta_and_the_scenario():
    # one algorithm: how much of the best branch flatters, or which first token wins
    at = run_page(LAB, inputs={"beta": 0.0, "steps": 150, "algos": ["GRPO"]})
    assert reveal(at, en("share_above"))
    at = run_page(LAB, inputs={"beta": 0.5, "steps": 150, "algos": ["GRPO"]})
    assert reveal(at, en("share_below"))
    # without flattery the question is which first token wins: partly here, maybe in FOUR
    at = run_page(LAB, inputs={"flat": False, **SMALL, "algos": ["GRPO"]})
    assert reveal(at, "partly")
    at = run_page(LAB, scenario=FOUR, inputs={"flat": False, **SMALL, "algos": ["GRPO"]})
    assert reveal(at, "maybe")


@pytest.mark.parametrize("algos", [["REINFORCE + running mean", "GRPO", "PPO"], ["REINFORCE", "GRPO"]])
def test_predict_which_algorithm_ends_highest_hides_the_runs_until_answered(algos):
    at = run_page(LAB, inputs={**SMALL, "algos": algos})
    assert at.radio(key="predict_lab").options == algos
    # before the answer: no number at the end of the runs, no empty frame and no greyed-out player, one note of
    # what the answer opens, and the start state (the reference's mean score, 4.306 as worked out above)
    after = [en("after", name=name, shown=40) for name in algos]
    assert not any(m.label == en("score_metric") for m in at.metric)
    assert not set(after) & {m.value for m in at.markdown}
    assert charts(at) == []
    assert not [b for b in at.button if b.key in ("lab_play", "lab_step")]
    note = en("hidden_flattery", steps=40, names=en("sep").join(algos))   # one note of what the answer opens
    assert [i.value for i in at.info] == [note]
    assert en("start_flattery", best="partly", plain="9", flat="9.6", ref="5%", start="4.31") in [
        m.value for m in at.markdown]                     # the start state, the reference's 4.306 as worked out above
    at.button(key="predict_lab_show").click().run()
    score = largest_frame(at, SCORE)
    end = score[score["step"] == 40].set_index("algorithm")["median"]
    assert len(end) == len(algos) and end.max() > end.min()
    best = end.idxmax()                                   # the run that ends highest is the answer
    assert f"**{best}**" in at.info[0].value
    assert set(after) <= {m.value for m in at.markdown} and note not in [i.value for i in at.info]
    shown = [float(m.value) for m in at.metric if m.label == en("score_metric")]
    assert shown == pytest.approx(end[algos].round(2).tolist(), abs=0.005)   # the metrics are the curves' ends
    wrong = next(a for a in algos if a != best)
    at = run_page(LAB, inputs={**SMALL, "algos": algos})
    assert not reveal(at, wrong) and at.warning


def score_steps(at) -> set:
    return set(largest_frame(at, SCORE)["step"])


def after(at, steps: int, name: str = "REINFORCE + running mean") -> bool:
    """Whether the numbers under the main chart are those at ``steps``."""
    return en("after", name=name, shown=steps) in [m.value for m in at.markdown]


def test_step_button_shows_one_frame_more_and_stops_at_the_end():
    at = open_lab(inputs={**SMALL, "progress": 0})     # 40 steps, 5% a frame: two steps per frame
    assert score_steps(at) == {0}
    at.button(key="lab_step").click().run()
    assert at.slider(key=K("progress")).value == 5 and score_steps(at) == {0, 1, 2}
    assert after(at, 2)
    # every chart follows the step shown
    assert all(next(iter(c["data"].values()))["step"].max() == 2 for c in charts(at))
    at.slider(key=K("progress")).set_value(95).run()
    assert max(score_steps(at)) == 38
    at.button(key="lab_step").click().run()
    assert at.slider(key=K("progress")).value == 100 and max(score_steps(at)) == 40
    assert at.button(key="lab_step").disabled                           # the end: nothing further


def test_a_frame_of_a_long_run_takes_several_steps():
    at = open_lab(inputs={"steps": 300, "seeds": 1, "algos": ["GRPO"], "progress": 0})
    at.button(key="lab_step").click().run()
    assert after(at, 15, "GRPO")                                       # 5% of 300 steps
    assert 15 - 6 < max(score_steps(at)) <= 15     # the charts' points thinned to about 60 (every 6th step here)


def test_play_restarts_from_the_end_and_each_tick_takes_one_frame():
    at = open_lab(inputs=SMALL)                        # a new run shows its end: 100%
    assert at.slider(key=K("progress")).value == 100
    at.button(key="lab_play").click().run()
    assert at.session_state["lab_playing"] and at.slider(key=K("progress")).value == 0
    assert [b.label for b in at.button if b.key == "lab_pause"] == ["Pause"]
    at.session_state["lab_last_frame"] = 0.0  # as if the timer's interval had passed
    at.run()
    assert at.slider(key=K("progress")).value == 5 and max(score_steps(at)) == 2
    at.button(key="lab_pause").click().run()
    assert not at.session_state["lab_playing"] and any(b.key == "lab_play" for b in at.button)


def test_the_share_shown_holds_when_the_number_of_steps_changes():
    at = open_lab(inputs={**SMALL, "progress": 50})
    assert max(score_steps(at)) == 20
    at.slider(key=K("steps")).set_value(80).run()
    assert max(score_steps(at)) == 40 and after(at, 40)


# ---------------------------------------------------------------- DAPO, GSPO, CISPO; length; entropy and pass@k

NEW = ["DAPO", "GSPO", "CISPO"]


def panel(at, title: str, quantity: str):
    df = largest_frame(at, title)
    return df[df["quantity"] == quantity]


def test_new_algorithms_with_length_tokens_on_an_edited_scenario():
    at = open_lab(scenario=FOUR, inputs={**SMALL, "algos": NEW, "len": 4})
    assert not at.error and not at.warning
    assert set(largest_frame(at, HEALTH)["algorithm"]) == set(NEW)
    lengths = largest_frame(at, LENGTH)
    assert list(dict.fromkeys(lengths["token"])) == list(FOUR.tokens)
    # at the reference: 1 + (1 + ½ + ¼ + ⅛) = 2.875 tokens, and maybe (the best token) one more for its continuation
    start = lengths[lengths["step"] == 0].groupby("token")["median"].first()
    assert start.to_dict() == pytest.approx({"yes": 2.875, "no": 2.875, "maybe": 3.875, "later": 2.875}, abs=1e-12)
    assert en("health_text", right="**maybe**") in [m.value for m in at.markdown]   # the one right first token
    said = next(m.value for m in at.markdown if m.value.startswith(en("length_text")))
    dapo = next(line for line in said.split("\n") if line.startswith("- **DAPO**"))
    # the best token, maybe, from 3.88 at the start; the wrong token the reference writes most (0.4): yes, from 2.88
    assert numbers(dapo)[0] == 3.88 and "**yes**" in dapo and numbers(dapo)[2] == 2.88
    assert any(c.value.startswith(opening("p9.dapo_caption")) for c in at.caption)


def test_entropy_pass_and_length_panels_start_at_the_reference_and_k_moves_only_pass_at_k():
    at = open_lab(inputs={**SMALL, "seeds": 3})
    # entropy of (0.5, 0.3, 0.2): −(0.5 ln 0.5 + 0.3 ln 0.3 + 0.2 ln 0.2) ≈ 1.0297 nats
    ent = panel(at, HEALTH, en("panel_entropy"))
    h0 = -(0.5 * math.log(0.5) + 0.3 * math.log(0.3) + 0.2 * math.log(0.2))
    assert ent[ent["step"] == 0]["median"].tolist() == pytest.approx([h0] * 3, abs=1e-12)
    # pass@1 = π(partly) = 0.2; pass@8 = 1 − 0.8⁸ ≈ 0.8322; length 1 + 0.2 (partly's continuation) = 1.2
    p1 = panel(at, HEALTH, "pass@1")
    assert p1[p1["step"] == 0]["median"].tolist() == pytest.approx([0.2] * 3, abs=1e-12)
    p8 = panel(at, HEALTH, "pass@8")
    assert p8[p8["step"] == 0]["median"].tolist() == pytest.approx([1 - 0.8**8] * 3, abs=1e-12)
    length = panel(at, HEALTH, en("panel_length"))
    assert length[length["step"] == 0]["median"].tolist() == pytest.approx([1.2] * 3, abs=1e-12)
    # with 3 seeds the median is one seed's value and pass@k is increasing in pass@1: pass@8 = 1 − (1 − pass@1)⁸
    merged = p1.merge(p8, on=["step", "algorithm"], suffixes=("_1", "_8"))
    np.testing.assert_allclose(merged["median_8"], 1 - (1 - merged["median_1"]) ** 8, atol=1e-12)
    # training sharpens the first choice: the entropy falls for every algorithm
    last = ent[ent["step"] == ent["step"].max()]
    assert (last["median"] < h0 - 0.3).all()
    before = largest_frame(at, HEALTH)  # the k slider changes only the pass@k panel
    at.slider(key=K("k")).set_value(32).run()
    moved = largest_frame(at, HEALTH)
    assert list(dict.fromkeys(moved["quantity"]))[-1] == "pass@32"
    others = [en("panel_length"), en("panel_entropy"), "pass@1"]
    keep = before["quantity"].isin(others)
    assert before[keep].reset_index(drop=True).equals(moved[moved["quantity"].isin(others)].reset_index(drop=True))
    p8 = before[before["quantity"] == "pass@8"]["median"].to_numpy()
    p32 = moved[moved["quantity"] == "pass@32"]["median"].to_numpy()
    assert np.all(p32 >= p8) and np.any(p32 > p8 + 0.05)     # 1 − (1 − p)^k grows with k


def test_length_drift_asks_about_length_and_the_aggregation_picker_moves_it():
    at = run_page(LAB, inputs={"seeds": 2})
    choose_preset(at, en("preset_length"))
    question = at.radio(key="predict_lab")
    assert question.label == en("ask_length", steps=150, length=8)   # the length, not the score
    assert question.options == ["GRPO", "GSPO", "DAPO"]
    at.button(key="predict_lab_show").click().run()
    health = largest_frame(at, HEALTH)
    length = health[health["quantity"] == en("panel_length")]
    end = length[length["step"] == length["step"].max()].set_index("algorithm")["median"]
    assert f"**{end.idxmax()}**" in at.info[0].value   # the answer: the run whose answers end longest
    assert at.multiselect(key=K("algos")).value == ["GRPO", "GSPO", "DAPO"]
    assert at.slider(key=K("len")).value == 8 and at.slider(key=K("beta")).value == 0.0
    lengths = largest_frame(at, LENGTH)
    end = lengths[lengths["step"] == lengths["step"].max()].set_index(["algorithm", "token"])["median"]
    # seq-mean-token-mean lengthens the wrong start (open, 2.99 tokens at the reference) more than token-mean
    assert end["GRPO", "open"] > end["DAPO", "open"]
    moves_charts(at, lambda at: at.selectbox(key=K("agg")).set_value("token-mean").run())


def test_eps_high_and_resample_move_dapo():
    at = open_lab(inputs={**SMALL, "algos": ["DAPO"], "G": 2})
    moves_charts(at, lambda at: at.slider(key=K("resample")).set_value(1).run())
    moves_charts(at, lambda at: at.slider(key=K("eps_high")).set_value(0.5).run())


def test_a_run_too_large_trains_fewer_seeds_and_says_so():
    # 300 steps × 8 epochs × G 32 × (2 + 4 length tokens) = 460,800 token updates per seed: two seeds fit in
    # rlcore.lab.MAX_TOKEN_UPDATES (1,000,000), three do not
    big = {"algos": ["GRPO"], "steps": 300, "epochs": 8, "G": 32, "len": 4, "seeds": 10}
    at = open_lab(inputs=big)
    assert en("fewer_seeds", n=2, asked=10) in [c.value for c in at.caption]
    assert subtitle(at) == en("band_note", n=2)
    small = open_lab(inputs={"algos": ["GRPO"], "steps": 300, "G": 4, "seeds": 10})  # 96,000 for all ten
    assert not any(c.value.startswith(opening("p9.fewer_seeds")) for c in small.caption)
    assert subtitle(small) == en("band_note", n=10)


def subtitle(at) -> str:
    """The main chart's subtitle, its lines joined."""
    return " ".join(chart_by_title(at, SCORE)["spec"]["title"]["subtitle"])


def test_the_runs_download_as_logs_once_asked():
    def logs(at):
        return sorted(b.proto.label for b in at.get("download_button") if "verl" in b.proto.label
                      or "TRL" in b.proto.label)

    at = open_lab(inputs=SMALL | {"algos": ["GRPO", "PPO"]})
    assert logs(at) == []  # nothing made until asked
    at.toggle(key="lab_logs").set_value(True).run()
    names = list(at.session_state[K("algos")])
    assert logs(at) == sorted([en("log_verl", name=n) for n in names] + [en("log_trl", name=names[0])])  # PPO: no
    # file with GRPO's keys
