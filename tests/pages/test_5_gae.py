"""Page 5, TD error and GAE: AppTest checks of the article's numbers, the widgets, bad input and the URL."""

from __future__ import annotations

import json

import numpy as np
import pytest

import rlcore
from tests.apphelp import (
    FOUR_ANSWERS,
    charts,
    choose_preset,
    just_shown,
    labels,
    languages,
    largest_frame,
    metrics,
    moves_charts,
    numbers,
    page_kit,
    page_text,
    preset_cases,
    question_key,
    run_page,
    scrubbers,
    shared_out,
)
from ui import i18n
from ui.format import fmt

PAGE, K, en = page_kit("5_", "p5")
TWO = rlcore.Scenario(tokens=("up", "down"), probs=(0.7, 0.3), samples=((1, 3), (6,)))
SIX = rlcore.Scenario(tokens=tuple("abcdef"), probs=(0.3, 0.2, 0.2, 0.1, 0.1, 0.1),
                      samples=((1,), (2,), (3,), (4,), (5,), (6,)), continuations=("..",) * 6)
FLAT = rlcore.Scenario(tokens=("a", "b"), probs=(0.5, 0.5), samples=((5,), (5,)))
SHOWN = just_shown("predict_gae")  # as after "Just show me"
GAE = en("gae_title")


def strip(at):
    """The answer's strip: the first chart with the values before each token (the V chart, or once revealed the
    TD error chart)."""
    return next(df for c in charts(at) for df in c["data"].values() if "V before" in df)


def gae_column(at):
    """The GAE chart's advantages at the committed λ and γ (the chart holds them for every step of the λ slider and
    every other step of the γ slider, and for the committed γ where it lies between those)."""
    df = largest_frame(at, GAE)
    lam, gamma = at.slider(key=K("lam")).value, at.slider(key=K("gamma")).value
    here = np.isclose(df["lam"], lam) & np.isclose(df["gamma"], gamma)
    return df[here]["GAE advantage"].round(10).tolist()


def group_chart(at, size: int):
    return largest_frame(at, en("group.title", size=size))


def critic_chart(at, token: str = "open"):
    return largest_frame(at, en("critic.title", token=token))


def test_defaults_show_the_article_numbers():
    at = run_page(PAGE, state=SHOWN)
    df = strip(at)
    assert df["token"].tolist() == list(rlcore.ARTICLE_ANSWER_TOKENS)
    # V before OpenAI/is/open is 4.3, from `.` on it is 2; δ is −2.3 at `open` and 0 elsewhere.
    assert df["V before"].round(10).tolist() == [4.3, 4.3, 4.3] + [2.0] * 7
    assert df["TD error"].round(10).tolist() == [0, 0, -2.3] + [0] * 7
    shown = metrics(at)
    assert shown[en("v_before", tok="open")] == "4.3" and shown[en("v_after", tok="open")] == "2"
    assert shown[en("td_at", tok="open")] == "−2.3"
    jump = en("jump_some", moved="**open**", delta="−2.3", tok="open")  # the one TD error, at open
    assert any(m.value.startswith(jump) for m in at.markdown)
    assert at.selectbox(key=K("tok")).value == "open"  # the most likely token
    assert at.slider(key=K("lam")).value == 0.95 and at.slider(key=K("gamma")).value == 1.0


def test_lambda_moves_the_blame():
    at = run_page(PAGE, state=SHOWN)
    moves_charts(at, lambda at: at.slider(key=K("lam")).set_value(0.0).run())
    assert gae_column(at) == [0, 0, -2.3] + [0] * 7          # λ = 0: only `open`
    at.slider(key=K("lam")).set_value(1.0).run()
    assert gae_column(at) == [-2.3, -2.3, -2.3] + [0] * 7    # λ = 1: OpenAI, is, open
    at.slider(key=K("lam")).set_value(0.5).run()
    assert gae_column(at)[:3] == [-0.575, -1.15, -2.3]       # −2.3 halved for each step back


@pytest.mark.parametrize("how", ["link", "preset"])
def test_a_link_or_a_preset_sets_lambda(how):
    at = run_page(PAGE, state=SHOWN, query={"lam": "0"} if how == "link" else None)
    if how == "preset":
        choose_preset(at, en("preset_lam0"))
    assert at.slider(key=K("lam")).value == 0.0 and gae_column(at) == [0, 0, -2.3] + [0] * 7


def test_gamma_discounts_the_values():
    at = run_page(PAGE, state=SHOWN)
    at.slider(key=K("gamma")).set_value(0.9).run()
    v = strip(at)["V before"].tolist()
    assert v[-1] == pytest.approx(2.0) and v[-2] == pytest.approx(1.8) and v[0] == pytest.approx(4.3 * 0.9**9)


def test_choosing_another_first_token():
    at = run_page(PAGE, state=SHOWN, query={"tok": "partly"})
    assert at.selectbox(key=K("tok")).value == "partly"
    df = strip(at)
    assert "partly" in df["token"].tolist()
    assert df["TD error"].round(10).tolist()[2] == 4.7     # 9 − 4.3: credit, not blame


@pytest.mark.parametrize("name", preset_cases(5))  # CI: every preset
def test_every_preset_sets_the_strip(name):
    """γ = 1: V before the first three tokens is V = Σ π·Q, the TD error at the (most likely) token is
    Q(token) − V and 0 everywhere else. (Best token is rare: V = 0.6·2 + 0.38·5 + 0.02·9 = 3.28, δ = −1.28.)"""
    scenario = rlcore.PRESETS[name]
    at = run_page(PAGE, scenario=scenario, state=SHOWN)
    pi, q = np.array(scenario.probs), np.array([np.mean(s) for s in scenario.samples])
    likely, v = int(np.argmax(pi)), pi @ q
    assert at.selectbox(key=K("tok")).value == scenario.tokens[likely]
    df = strip(at)
    assert df["token"].tolist() == list(rlcore.answer_tokens(scenario, scenario.tokens[likely]))
    assert df["V before"].tolist()[:3] == pytest.approx([v] * 3)
    td = df["TD error"].tolist()
    assert td[2] == pytest.approx(q[likely] - v)
    assert td[:2] + td[3:] == pytest.approx([0.0] * (len(td) - 1), abs=1e-12)


@pytest.mark.parametrize("scenario", shared_out([FOUR_ANSWERS, TWO, SIX], every=3, offset=2,
                                                 ids=lambda s: f"{s.n}-tokens"))
def test_other_scenarios_run(scenario):
    at = run_page(PAGE, state=SHOWN, scenario=scenario, query={"lam": "0"})
    likely = scenario.tokens[int(np.argmax(scenario.pi))]
    assert at.selectbox(key=K("tok")).value == likely
    df = strip(at)
    assert df["token"].tolist() == list(rlcore.answer_tokens(scenario, likely))
    assert len(set(df["label"])) == len(df)  # repeated tokens (two ".") stay apart on the axis


def test_group_widgets_change_the_group():
    at = run_page(PAGE, state=SHOWN)
    before = group_chart(at, 8).to_csv()
    at.slider(key=K("G")).set_value(16).run()
    group = group_chart(at, 16)
    assert len(group) == 16 and group.to_csv() != before
    at.selectbox(key=K("method")).set_value("Dr. GRPO").run()
    group = group_chart(at, 16)
    # Dr. GRPO: score − group mean, so the advantages sum to 0 and keep the scores' spacing.
    assert group["advantage"].sum() == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(group["advantage"], group["score"] - group["score"].mean())


def test_a_dead_group_is_explained():
    at = run_page(PAGE, state=SHOWN, scenario=FLAT)
    assert en("group.dead", size=8, score="5") in [w.value for w in at.warning]
    assert (group_chart(at, 8)["advantage"] == 0).all()
    at = run_page(PAGE, state=SHOWN, query={"G": "1"})  # one answer: whatever its score, nothing to compare
    scores = {fmt(x) for s in rlcore.ARTICLE_SCENARIO.samples for x in s}
    assert {w.value for w in at.warning} & {en("group.dead", size=1, score=x) for x in scores}


def test_critic_error_panel_shows_the_trade_off_and_follows_its_sliders():
    at = run_page(PAGE, state=SHOWN)
    parts = {p: g.set_index("λ")["value"] for p, g in critic_chart(at).groupby("part")}
    assert parts["bias²"][0.0] > parts["bias²"][1.0]            # small λ inherits the critic's bias
    assert parts["variance"][1.0] > parts["variance"][0.5]      # λ near 1 carries the score's noise
    before = critic_chart(at).to_csv()
    at.slider(key=K("bias")).set_value(0.0).run()
    at.slider(key=K("noise")).set_value(0.0).run()
    df = critic_chart(at)
    assert df.to_csv() != before
    mse = df[df["part"] == "mean squared error"].set_index("λ")["value"]
    assert mse[0.0] == pytest.approx(0.0, abs=1e-12)       # an exact critic: λ = 0 has no error at all
    assert mse[1.0] == pytest.approx(0.8, rel=0.1)          # λ = 1 carries the spread of 3, 1, 2, 1, 3
    assert numbers(metrics(at)[en("critic.best")]) == [0]


def test_the_blame_stays_hidden_until_the_learner_commits_and_the_answer_follows_the_scenario():
    at = run_page(PAGE)
    assert question_key(at) == "predict_gae" and "−2.3" not in page_text(at)
    shown = strip(at)
    assert "TD error" not in shown and shown["V before"].round(10).tolist() == [4.3, 4.3, 4.3] + [2.0] * 7
    assert not any(GAE in str(c["spec"]) for c in charts(at))
    at.radio(key="predict_gae").set_value(en("every")).run()
    assert at.warning and f"**{en('only', tok='open')}**" in at.warning[0].value  # the answer it names
    assert numbers(metrics(at)[en("td_at", tok="open")]) == [-2.3]       # r + V(next) − V = 0 + 2 − 4.3
    assert gae_column(at)[2] == -2.3
    at.radio(key="predict_gae").set_value(en("only", tok="open")).run()
    assert at.success and not at.warning
    # Every answer scores 5, so V never moves: no token is blamed at λ = 0.
    at = run_page(PAGE, scenario=FLAT)
    assert en("none") in at.radio(key="predict_gae").options
    at.radio(key="predict_gae").set_value(en("none")).run()
    assert at.success


def test_group_size_accepts_a_float_from_session_state():
    at = run_page(PAGE, state=SHOWN, inputs={"G": 5.0})
    assert len(group_chart(at, 5)) == 5


@pytest.mark.parametrize("lang", languages(5))  # the quick suite: one, by page in turn; CI: both
def test_dragging_lambda_and_gamma_shows_rlcore_s_advantages_at_every_point_of_the_grid(lang):
    at = run_page(PAGE, state=SHOWN, query={"lang": lang})
    c = next(c for c in charts(at) if scrubbers(c))
    assert scrubbers(c) == [(pytest.approx(0.95), 0.0, 1.0, pytest.approx(0.05)),  # λ, then γ
                            (pytest.approx(1.0), 0.5, 1.0, pytest.approx(0.02))]
    gamma = [p for p in c["spec"]["params"] if p.get("bind")][-1]
    assert i18n.text(lang, "chart.scrub_input", name="γ") in gamma["bind"]["name"]
    rows = next(d for d in c["data"].values() if "GAE advantage" in d)
    np.testing.assert_allclose(np.unique(rows["lam"]), np.linspace(0.0, 1.0, 21), atol=1e-12)  # the slider's steps
    np.testing.assert_allclose(np.unique(rows["gamma"]), np.linspace(0.5, 1.0, 26), atol=1e-12)  # every other step
    own_95 = rlcore.answer_credit(rlcore.ARTICLE_SCENARIO, "open", 1.0, 0.95).advantages
    for (g, lm), here in rows.groupby(["gamma", "lam"]):  # each pair's bars: rlcore's for that (γ, λ) alone
        own = rlcore.answer_credit(rlcore.ARTICLE_SCENARIO, "open", float(g), float(lm)).advantages
        np.testing.assert_allclose(here.sort_values("position")["GAE advantage"], own, atol=1e-12)
        np.testing.assert_allclose(here.sort_values("position")["committed advantage"], own_95, atol=1e-12)
    assert rows.groupby(["gamma", "lam"]).ngroups == 26 * 21
    assert {i18n.text(lang, "chart.scrub_shown", name="λ", value="0.5"),
            i18n.text(lang, "chart.scrub_shown", name="γ", value="0.8")} <= labels(c)
    assert i18n.text(lang, "chart.scrub_yours", name="λ", value="0.95") in json.dumps(c["spec"], ensure_ascii=False)


def test_a_committed_gamma_between_the_grid_points_is_drawn_exactly_where_it_rests():
    at = run_page(PAGE, state=SHOWN, query={"gamma": "0.99"})
    rows = largest_frame(at, GAE)
    exact = rows[rows["exact2"]]
    assert np.allclose(exact["gamma"], 0.99) and np.unique(exact["lam"]).size == 21  # at every λ of its grid
    for lm, here in exact.groupby("lam"):
        own = rlcore.answer_credit(rlcore.ARTICLE_SCENARIO, "open", 0.99, float(lm)).advantages
        np.testing.assert_allclose(here.sort_values("position")["GAE advantage"], own, atol=1e-12)
    assert gae_column(at) == pytest.approx(rlcore.answer_credit(rlcore.ARTICLE_SCENARIO, "open", 0.99, 0.95)
                                           .advantages.round(10).tolist())
