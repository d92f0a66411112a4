"""Page 8, Clipping and KL: PPO's clipped objective on one batch, and the KL penalty on the flattery branch.

Article figures checked with defaults: π_old(partly) 0.2 with ε 0.2 can be pushed to at most 0.24 (and down
to 0.16); flattery 5% → 90% with β = 1 gives mean judge score 9.03 → 9.54, KL 0 → 2.38, objective
9.03 → 7.16. Also π* ∝ π_ref·exp(r/β) flatters 8.8% of the time at β = 1.
"""

from __future__ import annotations

import numpy as np
import pytest
from apphelp import chart_by_title, chart_fingerprint, keys, no_exception, page_file, page_text, run_page

import rlcore

PAGE = page_file("8_")
K = keys(PAGE)
FOUR = rlcore.Scenario(tokens=("yes", "no", "maybe", "unclear"), probs=(0.4, 0.3, 0.2, 0.1),
                       samples=((1, 2), (3,), (9, 8), (4, 5, 6)))




def data_with(chart: dict, column: str):
    return next(df for df in chart["data"].values() if column in df.columns)


@pytest.fixture(scope="module")
def default():
    at = run_page(PAGE)
    no_exception(at)
    return at


def test_defaults_show_the_articles_clip_limit(default):
    text = page_text(default)
    assert "π_old(partly) 0.2" in text
    assert "Highest it can be pushed (A > 0) 0.24" in text
    assert "Lowest it can be pushed (A < 0) 0.16" in text
    assert "until π(partly) reaches **0.24**" in text
    assert "Advantage A(partly) +4.7" in text


def test_clipped_objective_is_flat_past_the_bounds(default):
    c = chart_by_title(default, "PPO's clipped objective for partly")
    curve = data_with(c, "objective")
    pos = curve[curve["advantage"] == "A = +4.7"].set_index("probability")["objective"]
    neg = curve[curve["advantage"] == "A = −4.7"].set_index("probability")["objective"]
    # A = +4.7: ρA rises to 1.2 · 4.7 = 5.64 at π = 0.24, then stays there
    assert pos.loc[0.24] == pytest.approx(5.64)
    assert pos.loc[1.0] == pytest.approx(5.64)
    assert pos.loc[0.1] == pytest.approx(0.5 * 4.7)
    # A = −4.7: flat at 0.8 · (−4.7) = −3.76 below π = 0.16, then ρA down to 5 · (−4.7) at π = 1
    assert neg.loc[0.0] == pytest.approx(-3.76)
    assert neg.loc[0.16] == pytest.approx(-3.76)
    assert neg.loc[1.0] == pytest.approx(-23.5)
    spans = data_with(c, "region")
    assert sorted(zip(spans["from"], spans["to"], strict=True)) == [(0.0, pytest.approx(0.16)),
                                                                    (pytest.approx(0.24), 1.0)]


def test_ppo_epochs_first_step_and_clipping(default):
    df = data_with(chart_by_title(default, "Each token's probability over the epochs"), "clip band low")
    first = df[df["epoch"] == 1].set_index("token")["probability"]
    # epoch 1, no ratio clipped yet: Δz = 0.1 · Σ Aₙ(e_aₙ − π)/10 = 0.01 · (−11.5, 2.1, 9.4)
    z = np.log([0.5, 0.3, 0.2]) + 0.01 * np.array([-11.5, 2.1, 9.4])
    expected = np.exp(z) / np.exp(z).sum()
    np.testing.assert_allclose(first.loc[["open", "closed", "partly"]], expected, atol=1e-12)
    band = df[df["token"] == "partly"].iloc[0]
    assert (band["clip band low"], band["clip band high"]) == (pytest.approx(0.16), pytest.approx(0.24))
    clipped = data_with(chart_by_title(default, "Share of the batch"), "share clipped")["share clipped"]
    assert clipped.iloc[0] == 0.0 and clipped.iloc[-1] > 0.5
    assert "The batch is the example's 10 sampled answers" in page_text(default)
    assert "(V = 4.3)" in page_text(default)


def test_defaults_show_the_articles_kl_numbers(default):
    text = page_text(default)
    assert "Mean judge score 9.03 → 9.54" in text
    assert "KL(π‖π_ref), nats 0 → 2.38" in text
    assert "Objective R − β·KL (β = 1) 9.03 → 7.16" in text
    # π*(flattery) = 0.05 e^9.6 / (0.95 e^9 + 0.05 e^9.6) = 0.0875
    assert "Best share of flattery for this β 8.8%" in text
    assert "that **lowers** the objective" in text


def test_kl_curve_data(default):
    c = chart_by_title(default, "Judge score, KL and the regularised objective")
    df = data_with(c, "quantity")
    kl = df[df["quantity"] == "KL(π‖π_ref)"].set_index("share")["value"]
    assert kl.loc[0.05] == pytest.approx(0.0, abs=1e-12)
    assert kl.loc[1.0] == pytest.approx(np.log(1 / 0.05))  # all flattery: KL = log(1/0.05)
    marks = data_with(c, "label")
    assert sorted(marks["share"]) == [pytest.approx(0.05), pytest.approx(0.9)]
    rule = next(d for d in c["data"].values() if "at" in d.columns)
    assert rule["at"].iloc[0] == pytest.approx(0.05 * np.exp(0.6) / (0.95 + 0.05 * np.exp(0.6)))


def test_estimator_table(default):
    table = next(d.value for d in default.dataframe if "estimator" in d.value.columns)
    assert list(table["estimator"]) == ["k1", "k2", "k3"]
    kl = 0.1 * np.log(0.1 / 0.95) + 0.9 * np.log(0.9 / 0.05)
    np.testing.assert_allclose(table["exact mean"].iloc[[0, 2]], [kl, kl])
    k2 = 0.5 * (0.1 * np.log(0.1 / 0.95) ** 2 + 0.9 * np.log(0.9 / 0.05) ** 2)
    assert table["exact mean"].iloc[1] == pytest.approx(k2)
    assert list(table["bias (mean − KL)"].iloc[[0, 2]]) == [0.0, 0.0]
    assert table["share below 0"].iloc[2] == 0.0  # k3 is never negative
    assert table["share below 0"].iloc[0] > 0     # k1 is, for the plain answers
    hist = data_with(chart_by_title(default, "Per-token values"), "estimator")
    assert len(hist) == 90 and hist.groupby("estimator")["share"].sum().tolist() == pytest.approx([1, 1, 1])


def test_predict_answers_worse_then_better_without_kl():
    at = run_page(PAGE)
    at.radio(key="predict_kl").set_value("Worse").run()
    assert at.success and not at.warning
    at.slider(key=K("beta")).set_value(0.0).run()
    no_exception(at)
    assert "With β = 0, is 90% flattery" in page_text(at)
    at.radio(key="predict_kl").set_value("Worse").run()
    assert at.warning and "**Better**" in at.warning[0].value


def test_eps_slider_changes_the_charts():
    at = run_page(PAGE)
    before = chart_fingerprint(at)
    at.slider(key=K("eps")).set_value(0.3).run()
    no_exception(at)
    assert chart_fingerprint(at) != before
    assert "Highest it can be pushed (A > 0) 0.26" in page_text(at)


def test_share_slider_changes_the_kl_numbers():
    at = run_page(PAGE)
    before = chart_fingerprint(at)
    at.slider(key=K("share")).set_value(0.05).run()
    no_exception(at)
    assert chart_fingerprint(at) != before
    assert "KL(π‖π_ref), nats 0 → 0" in page_text(at)


def test_beta_preset_button():
    at = run_page(PAGE)
    next(b for b in at.button if b.label.startswith("β = 0")).click().run()
    no_exception(at)
    assert at.slider(key=K("beta")).value == 0.0
    assert "Best share of flattery for this β 100%" in page_text(at)


@pytest.mark.parametrize("name", list(rlcore.PRESETS))
def test_every_preset_runs(name):
    scenario = rlcore.PRESETS[name]
    at = run_page(PAGE, scenario=scenario)
    no_exception(at)
    best = scenario.tokens[int(np.argmax(scenario.q))]
    assert at.selectbox(key=K("token")).value == best


def test_four_token_scenario_and_token_choice():
    base = chart_fingerprint(run_page(PAGE))
    at = run_page(PAGE, scenario=FOUR)
    no_exception(at)
    assert chart_fingerprint(at) != base
    assert at.selectbox(key=K("token")).value == "maybe"
    df = data_with(chart_by_title(at, "Each token's probability over the epochs"), "clip band low")
    assert list(df["token"].unique()) == ["yes", "no", "maybe", "unclear"]
    at.selectbox(key=K("token")).set_value("yes").run()
    no_exception(at)
    assert "π_old(yes) 0.4" in page_text(at)


def test_a_token_with_probability_zero_gets_a_notice():
    zero = rlcore.Scenario(tokens=("open", "closed", "partly"), probs=(0.7, 0.3, 0.0),
                           samples=((2,), (5,), (9,)))
    at = run_page(PAGE, scenario=zero)
    no_exception(at)
    warnings = " ".join(w.value for w in at.warning)
    assert "π(partly) is 0" in warnings and "probability 0" in warnings
    assert "Mean judge score 9.03 → 9.54" in page_text(at)  # the KL section still runs


def test_query_parameters_set_the_widgets():
    at = run_page(PAGE, query={"eps": "0.1", "token": "open", "share": "0.5", "beta": "2", "epochs": "5",
                               "ppo_lr": "0.5", "n": "500"})
    no_exception(at)
    assert at.slider(key=K("eps")).value == pytest.approx(0.1)
    assert at.selectbox(key=K("token")).value == "open"
    assert at.slider(key=K("share")).value == pytest.approx(0.5)
    assert at.slider(key=K("beta")).value == pytest.approx(2.0)
    assert "π_old(open) 0.5" in page_text(at)
    assert "Highest it can be pushed (A > 0) 0.55" in page_text(at)
