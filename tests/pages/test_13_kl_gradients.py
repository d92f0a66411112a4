"""Page 13, KL gradients: the six placements' expected gradients against the true one, predict-first, inputs."""

from __future__ import annotations

import numpy as np
import pytest

import rlcore
from tests.apphelp import (
    FLAT,
    FOUR_SPREAD,
    chart_by_title,
    chart_frame,
    charts,
    choose_preset,
    labels,
    languages,
    opening,
    page_kit,
    run_page,
    scrubbers,
)
from ui import i18n

PAGE, K, en = page_kit("13_", "p13")
FORWARD, ZERO, VANISH = en("follow.forward"), en("follow.zero"), en("follow.vanish")
K1_LOSS, K2_LOSS, K3_LOSS, K1_REWARD = (en(f"placement.{p}") for p in ("k1_loss", "k2_loss", "k3_loss", "k1_reward"))
BARS = opening("p13.bars.title")  # the title, up to its step count


def bars(at):
    """The bars at the committed number of steps (the chart holds them for every step of the slider)."""
    df = chart_frame(at, BARS, "expected gradient")
    return df[df["steps"] == at.slider(key=K("steps")).value].drop(columns="steps")


def rows(df, placement):
    return df[df["placement"] == placement]


def check_identities(df, n_tokens):
    """What the maths says, whatever π is: k1 in the loss is 0; k2 in the loss and k1 in the reward equal the
    true gradient (the ticks); every placement's gradient sums to 0 over the logits (softmax shift)."""
    assert len(df) == 6 * n_tokens
    np.testing.assert_allclose(rows(df, K1_LOSS)["expected gradient"], 0, atol=1e-12)
    for name in (K2_LOSS, K1_REWARD):
        r = rows(df, name)
        np.testing.assert_allclose(r["expected gradient"], r["true gradient"], atol=1e-12)
    for name in df["placement"].unique():
        assert rows(df, name)["expected gradient"].sum() == pytest.approx(0, abs=1e-12)


def test_defaults_and_the_identities_then_the_answer_reveals_the_tables():
    at = run_page(PAGE)
    df = bars(at)
    check_identities(df, 3)
    k3 = rows(df, K3_LOSS)
    assert not np.allclose(k3["expected gradient"], k3["true gradient"], atol=1e-3)  # k3 misses the tick
    assert at.slider(key=K("steps")).value == 3
    assert not at.dataframe and len(charts(at)) == 1         # the bars; the tables and the cosines after
    assert not at.success and not at.warning
    at.radio(key="klg_predict").set_value(FORWARD).run()
    assert at.success and FORWARD in at.success[0].value
    assert len(at.dataframe) == 2  # the truth table and the estimator values
    table = at.dataframe[0].value.set_index(en("table.placement"))
    assert table.loc[K3_LOSS, en("table.follows")] == FORWARD
    assert table.loc[K1_LOSS, en("table.follows")] == ZERO
    assert table.loc[K1_LOSS, en("table.cosine")] == en("table.undefined")    # a gradient of 0 has no direction
    assert float(table.loc[K2_LOSS, en("table.cosine")]) == 1                  # it is the true gradient


def test_step_size_and_steps_move_the_bars_and_zero_steps_vanish():
    at = run_page(PAGE)
    before = bars(at).to_csv()
    at.slider(key=K("lr")).set_value(1.0).run()
    assert bars(at).to_csv() != before
    before = bars(at).to_csv()
    at.slider(key=K("steps")).set_value(10).run()
    assert bars(at).to_csv() != before  # the chart starts at the committed step: its scrubber's value is 10
    assert [s[0] for c in charts(at) for s in scrubbers(c)] == [10]
    at.slider(key=K("steps")).set_value(0).run()
    np.testing.assert_allclose(bars(at)["expected gradient"], 0, atol=1e-12)
    np.testing.assert_allclose(bars(at)["true gradient"], 0, atol=1e-12)


def test_presets_set_the_steps():
    at = run_page(PAGE)
    choose_preset(at, en("preset_far"))
    assert at.slider(key=K("steps")).value == 15
    choose_preset(at, en("preset_ref"))
    assert at.slider(key=K("steps")).value == 0


def test_url_sets_the_steps():
    at = run_page(PAGE, query={"steps": "0"})
    assert at.slider(key=K("steps")).value == 0
    at.radio(key="klg_predict").set_value(VANISH).run()
    assert at.success and at.info  # at π = π_ref every pull is 0, and the page says so


def test_edited_four_token_scenario():
    at = run_page(PAGE, scenario=FOUR_SPREAD, state={"klg_predict": FORWARD})
    check_identities(bars(at), 4)
    assert at.success, "k3 in the loss follows the forward KL on any scenario"


def test_equal_scores_never_move_pi():
    at = run_page(PAGE, scenario=FLAT, state={"klg_predict": FORWARD})
    assert VANISH in at.radio(key="klg_predict").options
    assert at.warning and f"**{VANISH}**" in at.warning[0].value and at.info
    np.testing.assert_allclose(bars(at)["expected gradient"], 0, atol=1e-12)   # one score: π stays at π_ref


def test_a_token_the_reference_never_writes_stays_at_zero():
    """A token at probability 0 (the sidebar's Add gives one) is never written, by π_ref or by π: training
    gives it no gradient (∂V/∂z = π·(Q − V) = 0), so it stays at 0 and every placement's bar for it is 0."""
    zero = rlcore.Scenario(tokens=("a", "b", "c"), probs=(0.5, 0.5, 0.0), samples=((1,), (2,), (9,)))
    at = run_page(PAGE, scenario=zero)
    assert not at.error, [e.value for e in at.error]
    df = bars(at)
    assert len(df) == 18 and (df["expected gradient"].to_numpy().reshape(6, 3)[:, 2] == 0).all()
    assert (df["expected gradient"].to_numpy().reshape(6, 3)[1:3, :2] != 0).any()  # a and b do move


@pytest.mark.parametrize("lang", languages(13))  # the quick suite: one, by page in turn; CI: both
def test_dragging_the_steps_shows_rlcore_s_gradients_at_every_step(lang):
    at = run_page(PAGE, query={"lang": lang})
    c = chart_by_title(at, i18n.text(lang, "p13.bars.title"))
    assert scrubbers(c) == [(3, 0, 30, 1)]
    df = next(d for d in c["data"].values() if "expected gradient" in d)
    assert sorted(df["steps"].unique()) == list(range(31))
    path = rlcore.kl_placement_path(rlcore.ARTICLE_SCENARIO.pi, rlcore.ARTICLE_SCENARIO.q, 0.3, 30)
    places = [i18n.text(lang, f"p13.placement.{p}") for p in
              ("k1_loss", "k2_loss", "k3_loss", "k1_reward", "k2_reward", "k3_reward")]
    for step in range(31):  # each step's bars: rlcore's kl_placements at the π of that step
        own = rlcore.kl_placements(path.probs[step], path.probs[0])
        at_step = df[df["steps"] == step]
        for j, place in enumerate(places):
            row = at_step[at_step["placement"] == place]
            np.testing.assert_allclose(row["expected gradient"], own.gradients[j], atol=1e-12)
            np.testing.assert_allclose(row["true gradient"], own.reverse, atol=1e-12)
    assert i18n.text(lang, "p13.bars.shown", steps=7) in labels(c)
