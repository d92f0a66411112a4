"""Page 3, "V, Q and advantage": AppTest checks of what the learner sees.

With the default example the page shows Q = 2, 5, 9, V = 4.3, A = −2.3, +0.7, +4.7, the sum
(3 + 1 + 2 + 1 + 3) / 5 = 2, V = 0.5 · 2 + 0.3 · 5 + 0.2 · 9 = 4.3 and the check Σ π·A = 0.
"""

from __future__ import annotations

import pytest

import rlcore
from tests.apphelp import (
    SHOW,
    charts,
    edit_scenario,
    just_shown,
    moves_charts,
    numbers,
    page_kit,
    preset_cases,
    run_page,
    shared_out,
    shows_numbers,
)
from ui.format import fmt

PAGE, K, en = page_kit("3_", "p3")
FOUR = rlcore.Scenario(tokens=("yes", "no", "maybe", "depends"), probs=(0.4, 0.3, 0.2, 0.1),
                       samples=((6, 7), (1, 2, 3), (5,), (9, 9, 8)))
TWO = rlcore.Scenario(tokens=("open", "closed"), probs=(0.7, 0.3), samples=((2, 2), (6,)))
SIX = rlcore.Scenario(tokens=tuple(f"t{i}" for i in range(6)), probs=(0.3, 0.2, 0.2, 0.1, 0.1, 0.1),
                      samples=tuple((float(i), float(i) + 1) for i in range(6)))
# 1 answer each, though π is 0.8 / 0.2: the plain mean (1 + 9) / 2 = 5 is not V = 0.8 + 1.8 = 2.6.
UNEVEN = rlcore.Scenario(tokens=("a", "b"), probs=(0.8, 0.2), samples=((1,), (9,)))
SHOWN = just_shown("predict_vqa")  # as after "Just show me": the advantages (arrows, deltas, sums) are drawn
V_METRIC = en("v_metric")


def metrics(at) -> dict[str, tuple[str, str]]:
    return {m.label: (m.value, m.proto.delta) for m in at.metric}


def picture(at) -> dict:
    """The first chart (dots, Q ticks, arrows, V line): its data frames by shape."""
    return charts(at)[0]


def test_defaults_show_the_articles_numbers():
    at = run_page(PAGE, state=SHOWN)
    m = metrics(at)
    assert m[V_METRIC][0] == "4.3"
    assert [m[f"Q({t})"] for t in ("open", "closed", "partly")] == [("2", "-2.3"), ("5", "+0.7"), ("9", "+4.7")]
    # each Q as the mean of its scores, V = Σ π·Q, each A = Q − V, and Σ π·A = 0, term by term
    for run in ([3, 1, 2, 1, 3, 5, 2], [5, 4, 6, 3, 5], [10, 8, 2, 9], [0.5, 2, 0.3, 5, 0.2, 9, 4.3], [2, 4.3, -2.3],
                [5, 4.3, 0.7], [9, 4.3, 4.7], [0.5, -2.3, 0.3, 0.7, 0.2, 4.7], [-1.15, 0.21, 0.94, 0]):
        assert shows_numbers(at, *run), run
    (note,) = [i.value for i in at.info if i.icon == "ℹ️"]  # the plain mean is V: 10 scores, mean 4.3, split 5/3/2
    assert sorted(numbers(note)) == sorted([10, 4.3, 5, 3, 2, 0.5, 0.3, 0.2])
    frames = list(picture(at)["data"].values())
    arrows = next(df for df in frames if "label" in df and "Q" in df)
    assert arrows["label"].tolist() == ["A = −2.3", "A = +0.7", "A = +4.7"]
    assert arrows["Q"].tolist() == [2.0, 5.0, 9.0]
    dots = next(df for df in frames if "score" in df)
    assert sorted(dots["score"]) == [1, 1, 2, 3, 3, 4, 5, 6, 8, 10]
    assert dots.groupby("token")["offset"].nunique().to_dict() == {"open": 5, "closed": 3, "partly": 2}


@pytest.mark.parametrize("name", preset_cases(3))  # CI: every preset
def test_every_preset_runs(name):
    scenario = rlcore.PRESETS[name]
    at = run_page(PAGE, scenario=scenario)
    assert len(charts(at)) == 2
    v = rlcore.expected_value(scenario.pi, scenario.q)
    assert metrics(at)[V_METRIC][0] == fmt(v)


@pytest.mark.parametrize("scenario", shared_out([FOUR, TWO, SIX], every=3, offset=0, ids=lambda s: f"{s.n}-tokens"))
def test_other_token_counts(scenario):
    at = run_page(PAGE, scenario=scenario, state=SHOWN)
    frames = list(picture(at)["data"].values())
    arrows = next(df for df in frames if "label" in df and "Q" in df)
    assert arrows["token"].tolist() == list(scenario.tokens)
    conv = next(iter(charts(at)[1]["data"].values()))
    assert set(conv["series"]) <= {*scenario.tokens, en("v_series")}
    assert len(at.metric) == scenario.n + 1


def test_moving_the_sample_count_changes_the_estimates():
    at = run_page(PAGE)
    moves_charts(at, lambda at: at.select_slider(key=K("n")).set_value(5000).run())
    conv = next(df for df in charts(at)[1]["data"].values() if "answers" in df)
    assert conv["answers"].max() == 5000
    assert conv["answers"].nunique() <= 20  # aggregated to checkpoints
    est = next(d.value for d in at.dataframe if en("col_used") in d.value)
    assert est[en("col_used")].iloc[-1] == 5000
    # with 5000 answers every estimate is within 0.2 of the value from the example
    assert (est[en("col_estimate")] - est[en("from_example")]).abs().max() < 0.2


def test_seed_changes_the_draw_and_another_seed_moves_on_from_the_one_shown():
    at = run_page(PAGE)
    moves_charts(at, lambda at: at.number_input(key=K("seed")).set_value(11).run())
    next(b for b in at.button if b.label == en("another_seed")).click().run()
    assert at.number_input(key=K("seed")).value == 12


def test_a_valid_sidebar_edit_changes_the_picture():
    at = run_page(PAGE)
    moves_charts(at, lambda at: edit_scenario(at, "scores", 0, "4, 4"))  # Q(open) 2 → 4, V = 2 + 1.5 + 1.8 = 5.3
    assert metrics(at)[V_METRIC][0] == "5.3"


def test_plain_mean_note_when_counts_do_not_follow_pi():
    at = run_page(PAGE, scenario=UNEVEN, state=SHOWN)
    # one answer each: the plain mean (1 + 9) / 2 = 5 against V = 0.8 · 1 + 0.2 · 9 = 2.6
    (note,) = at.warning
    assert numbers(note.value)[:3] == [2, 5, 2.6]           # the 2 scores, their plain mean, V


def right(at, token: str, answer: str) -> None:
    """The question asks about the runner-up ``token``, and ``answer`` is marked right."""
    assert f"**{token}**" in at.radio(key="predict_vqa").label
    at.radio(key="predict_vqa").set_value(en(answer)).run()
    assert at.success and f"**{en(answer)}**" in at.success[0].value
    assert all(w.icon == "⚖️" for w in at.warning)           # at most the plain-mean note, never "Not this time"


def test_predict_answer_follows_the_scenario():
    # 5 − (5.4 + 1.25 + 0.3) = −1.95 (the article's +0.7: test_the_advantage_stays_hidden_until_the_learner_commits)
    right(run_page(PAGE, scenario=rlcore.PRESETS["Most likely is already best"]), "closed", "negative")


def test_the_advantage_stays_hidden_until_the_learner_commits():
    """Predict, then observe: A(closed) = 5 − 4.3 = +0.7 is nowhere on the page before an answer."""
    at = run_page(PAGE)
    assert at.radio(key="predict_vqa").value is None  # asked, not answered
    assert not shows_numbers(at, 0.7) and not shows_numbers(at, 5, 4.3)
    assert not any(m.proto.delta for m in at.metric)
    frames = list(picture(at)["data"].values())
    assert not any("label" in df and "Q" in df for df in frames), "no arrows V → Q yet"
    # choosing a (wrong) answer reveals it, with the explanation; the right one, 5 − 4.3 = +0.7, is marked so
    at.radio(key="predict_vqa").set_value(en("negative")).run()
    assert shows_numbers(at, 5, 4.3, 0.7) and metrics(at)["Q(closed)"][1] == "+0.7"
    right(at, "closed", "positive")


def test_just_show_me_reveals_without_an_answer():
    at = run_page(PAGE)
    next(b for b in at.button if b.label == SHOW).click().run()
    assert at.radio(key="predict_vqa").value is None
    assert at.info and f"**{en('positive')}**" in at.info[0].value  # the answer it names
    assert shows_numbers(at, 5, 4.3, 0.7)
    frames = list(picture(at)["data"].values())
    assert any("label" in df and "Q" in df for df in frames)
    at.run()  # stays revealed as the page reruns
    assert shows_numbers(at, 5, 4.3, 0.7)
