"""Page 12, recipe composer: names light up for their switches, live numbers against GRPO, edited scenarios."""

from __future__ import annotations

import numpy as np
import pytest

from rlcore import recipes
from tests.apphelp import (
    FLAT,
    FOUR_ANSWERS,
    charts,
    choose_preset,
    largest_frame,
    moves_charts,
    numbers,
    opening,
    page_kit,
    run_page,
)

PAGE, K, en = page_kit("12_", "p12")
ARTICLE_SCORES = [3, 1, 2, 1, 3, 5, 4, 6, 10, 8]
WEIGHTS, ADVANTAGES, GRADIENT = en("weights_title"), en("advantages_title"), opening("p12.gradient_title")
THIS, LARGER, SAME = en("this_recipe"), en("larger"), en("same")


def differences(at) -> list[str]:
    """The explanation's lines, one per switch that differs from GRPO."""
    text = next(md.value for md in at.markdown if md.value.startswith(en("diff.heading")))
    return [line for line in text.split("\n") if line.startswith("- ")]


def lit(at) -> list[str]:
    return [s.value.split("**")[1] for s in at.success if s.value.startswith("**")]


@pytest.mark.parametrize("name", ["Dr. GRPO", "DAPO", "GSPO"])
def test_presets_light_their_recipe(name):
    at = run_page(PAGE)
    choose_preset(at, name)
    assert lit(at) == [name]


def test_switches_compose_cispo_and_the_nearest_hint():
    at = run_page(PAGE)
    at.selectbox(key=K("aggregation")).set_value("token-mean").run()
    assert not lit(at)                                              # GRPO with token-mean is no named recipe
    assert at.info[0].value.split("**")[1] in {r.name for r in recipes.RECIPES}  # ... but the info names the nearest
    at.selectbox(key=K("clip")).set_value("cispo").run()
    assert lit(at) == ["CISPO"]
    df = largest_frame(at, WEIGHTS)
    np.testing.assert_allclose(df[df["recipe"] == THIS]["token weight"], 1 / 108)  # Σ|o| = 50+42+16


def test_prediction_and_dr_grpo_numbers():
    at = run_page(PAGE)
    choose_preset(at, "Dr. GRPO")
    assert len(charts(at)) == 2                                      # the advantages only after the answer
    # worst answer scores 1; mean 4.3; Dr. GRPO −3.3; GRPO divides by std (N − 1) of the ten scores ≈ 3.0
    std = np.std(ARTICLE_SCORES, ddof=1)
    assert std > 1                                                   # so dividing makes it smaller
    at.radio(key="predict_recipe").set_value(LARGER).run()
    mark = next(s.value for s in at.success if f"**{LARGER}**" in s.value)
    assert numbers(mark)[0] == -3.3 and numbers(mark)[1] == pytest.approx(-3.3 / std, abs=5e-4)
    adv = largest_frame(at, ADVANTAGES)
    grpo = adv[adv["recipe"] == "GRPO"]["advantage"].to_numpy()
    np.testing.assert_allclose(grpo, (np.array(ARTICLE_SCORES) - 4.3) / (std + 1e-6))
    # what differs from GRPO: one line per switch, the scale (advantages R − 4.3) and the aggregation
    scale, aggregation = differences(at)
    assert numbers(scale)[-20:-10] == pytest.approx(list(np.array(ARTICLE_SCORES) - 4.3))
    # the longest answer has 14 tokens; L_max defaults to it: 1/(G·L_max) = 1/(10·14), as GRPO's 1/(G·|o|)
    assert numbers(aggregation)[-3:] == [14, round(1 / 140, 4), round(1 / 140, 4)]


def test_rloo_stops_nothing_with_an_on_policy_step():
    at = run_page(PAGE)
    for key, value in {"baseline": "leave-one-out", "scale": "none", "ratio": "none", "clip": "none",
                       "kl": "in reward"}.items():
        at.selectbox(key=K(key)).set_value(value).run()
    assert lit(at) == ["RLOO"]
    at.radio(key="predict_recipe").set_value(LARGER).run()
    kept = largest_frame(at, GRADIENT)
    assert (kept[kept["recipe"] == THIS]["gradient kept"] == 1).all()   # no ratio, no clip


@pytest.mark.parametrize(("key", "value"), [("baseline", "none"), ("scale", "none"),
                                             ("aggregation", "seq-mean-token-sum")])
def test_switches_move_the_charts(key, value):
    at = run_page(PAGE, state={"predict_recipe": LARGER})
    moves_charts(at, lambda at: at.selectbox(key=K(key)).set_value(value).run())


def test_the_step_slider_moves_the_clip_chart():
    at = run_page(PAGE)
    before = largest_frame(at, GRADIENT)
    assert (before["gradient kept"] == 1).sum() == 16          # GRPO at η = 0.2: both partly answers stopped
    at.slider(key=K("step")).set_value(0.0).run()
    np.testing.assert_allclose(largest_frame(at, GRADIENT)["gradient kept"], 1.0)   # nothing moved


def test_the_clip_switch_changes_the_clip_count():
    at = run_page(PAGE, state={"predict_recipe": LARGER}, inputs={"clip": "clip-higher"})
    # η = 0.2 lifts partly from 0.2 to 0.254 (ρ 1.27): the symmetric clip stops its 2 answers, clip-higher none
    (clip,) = differences(at)
    assert numbers(clip)[-4:] == [0.2, 0, 10, 2]               # η, stopped here, answers, stopped by GRPO


def test_an_edited_scenario_and_a_dead_group():
    at = run_page(PAGE, scenario=FOUR_ANSWERS)
    assert len(largest_frame(at, WEIGHTS)) == 2 * 7
    choose_preset(at, "DAPO")
    at.radio(key="predict_recipe").set_value(SAME).run()            # DAPO keeps GRPO's std
    assert at.success
    at = run_page(PAGE, scenario=FLAT, inputs={"dynamic_sampling": True})
    at.radio(key="predict_recipe").set_value(SAME).run()
    head = en("diff.head", switch=en("labels.dynamic_sampling"), this=en("values.dynamic_sampling.True"),
              theirs=en("values.dynamic_sampling.False"))
    assert differences(at) == [en("diff.dropped", head=head)]      # one score for all: the group is dropped


def test_defaults_are_grpo_and_the_family_map_names_each_change_and_links_its_page():
    at = run_page(PAGE)
    assert lit(at) == ["GRPO"] and "2402.03300" in at.success[0].value
    df = largest_frame(at, WEIGHTS)
    mine = df[df["recipe"] == THIS]
    # seq-mean-token-mean over 10 answers: 1/(10·|o|), |o| = 10 (open), 14 (closed), 8 (partly)
    np.testing.assert_allclose(mine["token weight"], [1 / 100] * 5 + [1 / 140] * 3 + [1 / 80] * 2)
    (family,) = [m.value for m in at.markdown if f"- {en('changes', name='Dr. GRPO')}" in m.value]
    lines: dict[str, list[str]] = {}
    for line in family.splitlines():
        if line.startswith("- **"):
            name = line.split("**")[1]
            lines[name] = []
        elif line.startswith("    - "):
            lines[name].append(line)
    assert set(lines) == {r.name for r in recipes.RECIPES} - {"GRPO"}        # every other recipe, a block each

    def switch(line: str) -> str:
        return line.split(":")[0].strip("- ")

    def value(key: str, v) -> str:
        return f"**{en('on' if v is True else 'off' if v is False else f'values.{key}.{v}')}**"

    # Dr. GRPO (Liu et al.): no std, and the token-sum-norm aggregation; DAPO flips four switches
    assert [switch(line) for line in lines["Dr. GRPO"]] == [en("labels.scale").lower(),
                                                            en("labels.aggregation").lower()]
    assert value("scale", "none") in lines["Dr. GRPO"][0]
    assert value("aggregation", "seq-mean-token-sum-norm") in lines["Dr. GRPO"][1]
    assert "(Length_and_aggregation)" in lines["Dr. GRPO"][1]                # the page that shows it
    assert len(lines["DAPO"]) == 4 and all("](" in line for line in lines["DAPO"])
    assert switch(lines["DAPO"][-1]) == en("labels.dynamic_sampling").lower()
    assert value("dynamic_sampling", True) in lines["DAPO"][-1]
    (gspo,) = lines["GSPO"]
    assert switch(gspo) == en("labels.ratio").lower() and value("ratio", "sequence") in gspo
    assert "(Clips_after_PPO)" in gspo
    (cispo,) = [line for line in lines["CISPO"] if switch(line) == en("labels.clip").lower()]
    assert value("clip", "cispo") in cispo and "(Clips_after_PPO)" in cispo
    # the recipe table says on/off in signs, never Python's True/False
    col = en("col_recipe")
    (table,) = [d.value for d in at.dataframe if col in d.value.columns]
    assert list(table[col]) == [r.name for r in recipes.RECIPES]
    cells = set(table.drop(columns=[col, "arXiv"]).to_numpy().ravel())
    assert {"✓", "—"} <= cells and not cells & {"True", "False"}
    assert table.set_index(col).loc["DAPO", en("labels.dynamic_sampling")] == "✓"
