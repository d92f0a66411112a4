"""Page 11, clips after PPO: the predicted answer, every input moving the charts, edited scenarios, bad input."""

from __future__ import annotations

import numpy as np
import pytest

import rlcore
from rlcore import clips
from tests.apphelp import (
    FLAT,
    FOUR_ANSWERS,
    chart_by_title,
    choose_preset,
    labels,
    languages,
    largest_frame,
    metrics,
    moves_charts,
    numbers,
    opening,
    page_kit,
    question_key,
    run_page,
    scrubbers,
)
from ui import i18n

PAGE, K, en = page_kit("11_", "p11")
WEIGHTS = en("weights_title")
PPO, HIGHER, CISPO = en("names.ppo"), en("names.clip-higher"), en("names.cispo")  # the kept-answers metrics
BOTH, ONLY_HIGHER, NEITHER = en("both"), en("only_higher"), en("neither")
METHOD, WEIGHT, CLIPPED, RATIO = en("col.method"), en("col.weight"), en("col.clipped"), en("col.ratio")


def weights_at(at, eps_high: float = 0.28):
    """The weights chart's rows at the committed ε_high (the chart holds them for every step of its slider)."""
    df = largest_frame(at, WEIGHTS)
    return df[np.isclose(df["eps_high"], eps_high)]


def stepped(probs, q, lr):
    """One policy-gradient step on the logits, written out: π ∝ π_old · exp(η·π_old·(Q − V))."""
    p, q = np.asarray(probs, float), np.asarray(q, float)
    new = p * np.exp(lr * p * (q - p @ q))
    return new / new.sum()


def expected_answer(scenario, lr, eps_low=0.2, eps_high=0.28):
    scores = [s for group in scenario.samples for s in group]
    first = [k for k, group in enumerate(scenario.samples) for _ in group]
    k = first[int(np.argmax(scores))]  # the best answer (GRPO's largest advantage goes to the highest score)
    rho = stepped(scenario.pi, scenario.q, lr)[k] / scenario.pi[k]
    sym, higher = rho > 1 + eps_low, rho > 1 + eps_high
    return NEITHER if sym and higher else ONLY_HIGHER if sym else BOTH


def test_defaults_the_rare_token_numbers_and_the_prediction():
    at = run_page(PAGE)
    m = {tuple(numbers(label)): numbers(value) for label, value in metrics(at).items()}
    # ε = 0.2: 0.01 → 0.012; ε_high = 0.28: 0.0128; a likely 0.9 → min(1, 1.08) = 1
    assert m[(0.2,)] == [0.012, 0.002]
    assert m[(0.28,)] == [0.0128, 0.0028]
    assert m[(0.9,)] == [1, 0.1]
    # article, η = 0.2: π(partly) = 0.2·e^(0.2·0.2·4.7) / Σ = 0.254, ρ = 1.27: past 1.2, inside 1.28
    assert expected_answer(rlcore.ARTICLE_SCENARIO, 0.2) == ONLY_HIGHER
    assert PPO not in metrics(at)                            # hidden before the choice
    at.radio(key="predict_clip").set_value(ONLY_HIGHER).run()
    assert at.success and not at.warning
    m = metrics(at)
    assert numbers(m[PPO]) == [8, 10]                        # the two partly answers dropped
    assert numbers(m[HIGHER]) == [10, 10] and numbers(m[CISPO]) == [10, 10]
    df = weights_at(at)
    cispo = df[df[METHOD] == CISPO]
    assert (cispo[WEIGHT] != 0).all()                        # CISPO keeps a gradient on every answer


@pytest.mark.parametrize(("key", "value"), [("lr", 0.7), ("high", 0.5), ("low", 0.1), ("gspo", 0.2),
                                             ("adv", "Dr. GRPO"), ("rare", 0.5)])
def test_each_input_moves_the_charts(key, value):
    kind = {"gspo": "select_slider", "rare": "select_slider", "adv": "selectbox"}.get(key, "slider")
    moves_charts(run_page(PAGE), lambda at: getattr(at, kind)(key=K(key)).set_value(value).run())


def test_no_step_clips_nothing():
    at = run_page(PAGE, inputs={"lr": 0.0})
    df = largest_frame(at, WEIGHTS)  # at every ε_high
    assert not df[CLIPPED].any()
    np.testing.assert_allclose(df[RATIO], 1.0)


@pytest.mark.parametrize("lr", [0.1, 0.4, 1.2])
def test_prediction_under_an_edited_scenario(lr):
    at = run_page(PAGE, scenario=FOUR_ANSWERS, inputs={"lr": lr})
    answer = expected_answer(FOUR_ANSWERS, lr)
    at.radio(key="predict_clip").set_value(answer).run()
    assert at.success, (lr, answer)
    assert len(weights_at(at)) == 7 * 4 and weights_at(at)["answer"].nunique() == 7      # 2 + 1 + 3 + 1 sampled answers


def test_a_dead_batch_is_explained():
    at = run_page(PAGE, scenario=FLAT)
    assert at.info and question_key(at) is None              # no question: nothing for a clip to stop


def test_a_view_that_changes_the_question_clears_the_answer_instead_of_re_marking_it():
    # issue #22: "Right" at η = 0.2 used to turn into "Not this time" after the "Big step" view, unasked
    at = run_page(PAGE)
    at.radio(key="predict_clip").set_value(expected_answer(rlcore.ARTICLE_SCENARIO, 0.2)).run()
    assert at.success
    choose_preset(at, en("preset_big"))
    assert at.slider(key=K("lr")).value == 0.6
    assert not at.success and not at.warning and at.radio(key="predict_clip").value is None
    assert f"**{expected_answer(rlcore.ARTICLE_SCENARIO, 0.6)}**" in at.info[0].value
    assert numbers(metrics(at)[PPO])[1] == 10, "the page stays revealed"
    choose_preset(at, en("preset_rare"))
    assert at.select_slider(key=K("rare")).value == 0.01


def test_worked_numbers_gspo_over_moved_tokens_and_cispo_at_a_chosen_ratio():
    at = run_page(PAGE, state={"predict_clip_shown": True})
    text = next(m.value for m in at.markdown if m.value.startswith(opening("p11.explain.gspo_worked")))
    # every token of the article's example moved in the step of η = 0.2: s is the geometric mean of their ratios
    p = rlcore.ARTICLE_SCENARIO.pi
    rho = stepped(p, rlcore.ARTICLE_SCENARIO.q, 0.2) / p
    (s,) = numbers(text.split(" = **")[1].split("**")[0])
    assert s == pytest.approx(np.prod(rho) ** (1 / rho.size), abs=5e-5)
    assert rho.min() < s < rho.max()

    def cispo(rho, high, cap, w, ppo):
        """The CISPO paragraph at ρ: the cap it names (one of the catalogue's three) and the weights."""
        shown = [m.value for m in at.markdown if m.value.startswith(opening("p11.explain.cispo_worked"))]
        assert shown == [en("explain.cispo_worked", rho=rho, low="0.2", high=high, cap=cap, w=w, ppo=ppo)]

    # ρ = 1.3 is above 1 + ε_high = 1.28: the upper cap applies, the weight is 1.28 (PPO: 0, past its clip)
    cispo("1.3", "0.28", en("explain.cap_upper", cap="1.28"), "1.28", "0")
    at.slider(key=K("high")).set_value(0.2).run()        # ε = 0.2 on both sides: the cap is 1.2
    cispo("1.3", "0.2", en("explain.cap_upper", cap="1.2"), "1.2", "0")
    at.number_input(key=K("cispo_rho")).set_value(0.5).run()   # below 1 − ε_low = 0.8: the lower cap
    cispo("0.5", "0.2", en("explain.cap_lower", cap="0.8"), "0.8", "0.5")
    at.number_input(key=K("cispo_rho")).set_value(1.1).run()
    cispo("1.1", "0.2", en("explain.cap_none", a="0.8", b="1.2"), "1.1", "1.1")


@pytest.mark.parametrize("lang", languages(11))  # the quick suite: one, by page in turn; CI: both
def test_dragging_eps_high_shows_rlcore_s_weights_at_every_step_of_the_slider(lang):
    at = run_page(PAGE, query={"lang": lang})
    c = chart_by_title(at, i18n.text(lang, "p11.weights_title"))
    assert scrubbers(c) == [(pytest.approx(0.28), 0.05, 0.6, pytest.approx(0.01))]
    method, weight = i18n.text(lang, "p11.col.method"), i18n.text(lang, "p11.col.weight")
    rows = max((d for d in c["data"].values() if "eps_high" in d and weight in d), key=len)
    grid = np.unique(rows["eps_high"])
    np.testing.assert_allclose(grid, np.linspace(0.05, 0.6, 56), atol=1e-12)  # the slider's 56 steps
    for e in grid:  # each ε_high's rows: the weights rlcore's one-ε_high study gives
        own = clips.clip_study(rlcore.ARTICLE_SCENARIO, lr=0.2, eps_high=float(e)).batch
        here = rows[rows["eps_high"] == e]
        for i, m in enumerate(clips.CLIP_METHODS):
            np.testing.assert_allclose(here[here[method] == i18n.text(lang, f"p11.names.{m}")][weight],
                                       own.weights[i], rtol=0, atol=1e-12)
    higher = rows[rows[method] == i18n.text(lang, "p11.names.clip-higher")]
    assert (higher.groupby("eps_high")[weight].apply(lambda w: (w == 0).sum()).loc[[0.2, 0.3]] == [2, 0]).all()
    assert i18n.text(lang, "chart.scrub_shown", name="ε_high", value="0.4") in labels(c)


def test_a_committed_eps_high_between_the_steps_is_drawn_exactly_where_it_rests():
    at = run_page(PAGE, query={"high": "0.265"})
    rows = largest_frame(at, WEIGHTS)
    exact = rows[rows["exact"]]
    assert np.allclose(exact["eps_high"], 0.265) and len(exact) == 10 * 4
    own = clips.clip_study(rlcore.ARTICLE_SCENARIO, lr=0.2, eps_high=0.265).batch
    np.testing.assert_allclose(exact[exact[METHOD] == HIGHER][WEIGHT], own.weights[1], atol=1e-12)
    assert (exact[exact[METHOD] == HIGHER][WEIGHT] == 0).sum() == 2  # ρ = 1.27 is past 1.275? no: 1.27 < 1.275
