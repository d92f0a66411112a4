"""Page 10, length and loss aggregation: hand-worked weights, the predicted answer, inputs, edited scenarios, errors."""

from __future__ import annotations

import numpy as np
import pytest

import rlcore
from tests.apphelp import (
    FOUR_ANSWERS,
    chart_by_title,
    charts,
    choose_preset,
    labels,
    languages,
    largest_frame,
    moves_charts,
    numbers,
    page_kit,
    run_page,
    scrubbers,
    titles,
)
from ui import i18n

PAGE, K, en = page_kit("10_", "p10")
WEIGHTS, SHARE, DIFFICULTY = en("weights_title"), en("share_title"), en("diff_title")
TOKEN_MEAN, GRPO, TOKEN_SUM = "token-mean · DAPO", "seq-mean-token-mean · GRPO", "seq-mean-token-sum"  # data values
DAPO_HARDER, GRPO_HARDER, SAME = en("harder_token_mean"), en("harder_seq_mean"), en("same")
MODES = [TOKEN_MEAN, GRPO, TOKEN_SUM, "token-sum-norm · Dr. GRPO"]  # rlcore.AGGREGATION_MODES' order


def weights(at, mode, length=40):
    """The weights chart's weights of ``mode`` at the committed ``length`` (the chart holds every length's)."""
    df = largest_frame(at, WEIGHTS)
    return df[(df["mode"] == mode) & (df["padded length"] == length)]["token weight"].to_numpy()


def test_defaults_by_hand():
    at = run_page(PAGE)
    # open padded to 40 tokens; closed 14, partly 8 (their answers' tokens): Σ = 62, G = 3
    np.testing.assert_allclose(weights(at, TOKEN_MEAN), [1 / 62] * 3)
    np.testing.assert_allclose(weights(at, GRPO), [1 / 120, 1 / 42, 1 / 24])
    np.testing.assert_allclose(weights(at, TOKEN_SUM), [1 / 62] * 3)     # matched: 1/3 · 3/62
    before = [md.value for md in at.markdown]
    at.radio(key="predict_agg").set_value(DAPO_HARDER).run()             # 1/62 > 1/120
    (revealed,) = [md.value for md in at.markdown if md.value not in before]   # the explanation, hidden before
    assert at.success
    # advantage A; per token A/62 (token-mean) and A/120 (seq-mean-token-mean); summed over 40 tokens
    a, tok_mean, seq_mean, n, sum_tok, sum_seq = numbers(revealed)[:6]
    assert n == 40 and a < 0                                              # open scores below the group's mean
    assert tok_mean == pytest.approx(a / 62, abs=1e-4) and seq_mean == pytest.approx(a / 120, abs=1e-4)
    assert sum_tok == pytest.approx(40 * a / 62, abs=1e-3) and sum_seq == pytest.approx(40 * a / 120, abs=1e-3)


@pytest.mark.parametrize(("n", "answer"), [(2, GRPO_HARDER), (11, SAME), (70, DAPO_HARDER)])
def test_prediction_follows_the_length(n, answer):
    # 1/(3n) against 1/(n + 22): equal at n = 11, where n is the group's mean length (11 + 14 + 8 = 33)
    at = run_page(PAGE, inputs={"len": n})
    at.radio(key="predict_agg").set_value(answer).run()
    assert at.success, (n, answer)


@pytest.mark.parametrize("lang", languages(10))  # the quick suite: one, by page in turn; CI: both
def test_dragging_the_length_shows_rlcore_s_weights_at_every_step_of_the_slider(lang):
    # raw weights and L_max 30: the -norm mode's weight 1/(G·L_max) changes where the padded answer passes 30 tokens
    at = run_page(PAGE, query={"lang": lang}, inputs={"budget": 30, "matched": False})
    c = chart_by_title(at, i18n.text(lang, "p10.weights_title"))
    assert scrubbers(c) == [(40, 1, 80, 1)]  # the slider's steps
    rows = max((d for d in c["data"].values() if "token weight" in d), key=len)
    grid = np.unique(rows["padded length"])
    np.testing.assert_array_equal(grid, np.arange(1, 81))
    tokens = rlcore.ARTICLE_SCENARIO.tokens
    for n in grid:  # each length's rows: what rlcore computes for that length alone
        own = rlcore.padded_group(rlcore.ARTICLE_SCENARIO, "open", int(n), "grpo", 30, False)
        here = rows[rows["padded length"] == n]
        assert list(here["answer"][:3]) == [f"{tok} ({k})" for tok, k in zip(tokens, own.lengths, strict=True)]
        for m, mode in enumerate(MODES):
            mine = here[here["mode"] == mode]
            np.testing.assert_allclose(mine["token weight"], own.push.weights[m], rtol=1e-12)
            np.testing.assert_allclose(mine["push per token"], own.push.per_token[m], rtol=1e-12)
            np.testing.assert_allclose(mine["advantage"], own.advantages, rtol=1e-12)
    assert i18n.text(lang, "chart.scrub_shown", name=i18n.text(lang, "p10.len_name"), value=11) in labels(c)


def test_a_link_cannot_put_the_length_between_the_grids_steps():
    """The length is a whole number: a link's 40.5 is refused (the slider keeps 40), so every committed length is a
    grid point and the chart needs no exact rows (ui.scrub.at would add them for any other grid)."""
    at = run_page(PAGE, query={"len": "40.5"})
    assert at.slider(key=K("len")).value == 40
    assert "exact" not in largest_frame(at, WEIGHTS) or not largest_frame(at, WEIGHTS)["exact"].any()


def test_raw_weights_when_steps_are_not_matched():
    at = run_page(PAGE, inputs={"matched": False, "budget": 100})
    np.testing.assert_allclose(weights(at, TOKEN_SUM), [1 / 3] * 3)
    np.testing.assert_allclose(weights(at, "token-sum-norm · Dr. GRPO"), [1 / 300] * 3)   # 1/(G·L_max)


def test_padded_wrong_answer_wins_under_grpo_and_the_difficulty_numbers():
    at = run_page(PAGE)
    df = largest_frame(at, SHARE)
    last = df[df["step"] == df["step"].max()].set_index("mode")["padded share"]
    assert df[df["step"] == 0]["padded share"].eq(0.5).all()
    assert last[GRPO] > 0.6 and abs(last[TOKEN_SUM] - 0.5) < 0.1
    df = largest_frame(at, DIFFICULTY)
    grpo = df[df["method"] == en("adv_grpo")].set_index("answers right")
    dr = df[df["method"] == en("adv_dr_grpo")].set_index("answers right")
    assert dr.loc[1, "advantage of a right answer"] == pytest.approx(7 / 8)   # 1 − 1/8
    # G = 8, one right: var = (7/8)²/7 + 7·(1/8)²/7 = 1/8, std = 0.3536; 0.875/0.3536 = 2.475
    assert grpo.loc[1, "advantage of a right answer"] == pytest.approx(0.875 / np.sqrt(1 / 8), rel=1e-5)


@pytest.mark.parametrize(("key", "value"), [
    ("tok", "partly"), ("len", 5), ("adv", "Dr. GRPO"), ("matched", False), ("steps", 30),
    ("lr", 1.0), ("group", 4), ("seed", 3), ("diff_g", 4)])
def test_each_input_moves_the_charts(key, value):
    kind = {"tok": "selectbox", "adv": "selectbox", "matched": "toggle", "seed": "number_input"}.get(key, "slider")
    moves_charts(run_page(PAGE), lambda at: getattr(at, kind)(key=K(key)).set_value(value).run())


def unscrubbed(at) -> list[str]:
    """Every chart's data as text but the weights chart's (which holds every length of the slider)."""
    return [df.to_csv(index=False) for c in charts(at) if not any(x.startswith(WEIGHTS) for x in titles(c["spec"]))
            for df in c["data"].values()]


def test_budget_below_the_longest_answer_is_raised_to_it():
    """The long answer has 40 tokens by default: L_max = 10 cannot be, so 40 is used and the page says so."""
    shown = [c.value for c in run_page(PAGE, inputs={"budget": 40}).caption]
    at = run_page(PAGE, inputs={"budget": 10})
    assert not at.error
    (note,) = [c.value for c in at.caption if c.value not in shown]        # a note that L_max = 40 can show none
    assert numbers(note)[:2] == [10, 40]                                   # the budget asked for, the one used
    asked_40 = run_page(PAGE, inputs={"budget": 40})
    for mode in MODES:  # at the committed 40 tokens (dragged to 20, L_max is 20 for one and 40 for the other)
        np.testing.assert_allclose(weights(at, mode), weights(asked_40, mode), rtol=1e-15)
    assert unscrubbed(asked_40) == unscrubbed(at)


def test_presets():
    at = run_page(PAGE)
    choose_preset(at, en("preset_best"))
    assert at.selectbox(key=K("tok")).value == "partly" and at.slider(key=K("len")).value == 40
    choose_preset(at, en("preset_short"))
    assert at.slider(key=K("len")).value == 2


def test_an_edited_scenario():
    at = run_page(PAGE, scenario=FOUR_ANSWERS)
    assert at.selectbox(key=K("tok")).value == "no"          # the worst answer is padded by default
    lengths = [len(rlcore.answer_tokens(FOUR_ANSWERS, t)) for t in FOUR_ANSWERS.tokens]
    lengths[1] = 40
    np.testing.assert_allclose(weights(at, GRPO), [1 / (4 * n) for n in lengths])
    answer = DAPO_HARDER if 1 / sum(lengths) > 1 / 160 else GRPO_HARDER
    at.radio(key="predict_agg").set_value(answer).run()
    assert at.success
