"""The home page: the example, the loop diagram and a quick reference whose values follow the scenario."""

from __future__ import annotations

import pytest

import rlcore
from tests.apphelp import (
    catalogue,
    chart_fingerprint,
    charts,
    largest_frame,
    page_file,
    run_page,
    shared_out,
    shows_numbers,
)

HOME = page_file("dashboard")
en5 = catalogue("p5")


def test_defaults_show_the_article_numbers():
    at = run_page(HOME)
    # V, Q(open), δ, the three advantages, π after one step, V after it, the clip range, the flattery KL, e^−β·KL
    for figure in ([4.3], [2], [-2.3], [-2.3, 0.7, 4.7], [0.15, 0.36, 0.49], [6.51], [0.16, 0.24], [2.38], [0.179]):
        assert shows_numbers(at, *figure), figure
    bars = charts(at)[0]
    data = next(iter(bars["data"].values()))
    assert list(data["token"]) == ["open", "closed", "partly"]
    assert list(data["probability"]) == [0.5, 0.3, 0.2]
    assert bars["alt"]
    assert len(at.get("graphviz_chart")) == 1


def test_home_quotes_the_grpo_group_the_gae_page_shows_at_its_defaults():
    home = run_page(HOME)
    gae = run_page(page_file("5_"))
    group = largest_frame(gae, en5("group.title", size=rlcore.GROUP_SIZE), "advantage")
    listed = group[group["first token"] == "open"]["advantage"].round(2).tolist()
    assert len(listed) == 3 and shows_numbers(gae, *listed)  # the 3 open answers of the group of 8, as page 5 says
    assert shows_numbers(home, *listed, 3, rlcore.GROUP_SIZE)
    assert not shows_numbers(home, -0.77)  # the old figure: the whole sample set scored as one group


@pytest.mark.parametrize("name", shared_out(list(rlcore.PRESETS), every=2))  # CI: every preset
def test_every_preset_runs_and_changes_what_is_shown(name):
    at = run_page(HOME, scenario=rlcore.PRESETS[name])
    s = rlcore.summarize(rlcore.PRESETS[name])
    assert shows_numbers(at, round(s.v, 2))


def test_four_token_scenario_changes_the_chart():
    four = rlcore.Scenario(tokens=("yes", "no", "partly", "unclear"), probs=(0.4, 0.3, 0.2, 0.1),
                           samples=((1, 2), (3,), (9, 8), (4, 5, 6)))
    base = chart_fingerprint(run_page(HOME))
    at = run_page(HOME, scenario=four)
    assert chart_fingerprint(at) != base
    data = next(iter(charts(at)[0]["data"].values()))
    assert list(data["token"]) == ["yes", "no", "partly", "unclear"]
