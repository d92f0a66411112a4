"""The home page: the example, the loop diagram and a quick reference whose values follow the scenario."""

from __future__ import annotations

import pathlib
import re

import pytest

import rlcore
from tests.apphelp import chart_fingerprint, charts, no_exception, page_file, page_text, run_page
from ui import nav

HOME = page_file("dashboard")


def test_defaults_show_the_article_numbers():
    at = run_page(HOME)
    no_exception(at)
    text = page_text(at)
    for figure in ("V = 4.3", "Q = 2", "δ = −2.3", "open −2.3, closed +0.7, partly +4.7",
                   "0.15 / 0.36 / 0.49", "V rises to 6.51", "0.16–0.24", "KL = 2.38", "× 0.179"):
        assert figure in text, figure
    bars = charts(at)[0]
    data = next(iter(bars["data"].values()))
    assert list(data["token"]) == ["open", "closed", "partly"]
    assert list(data["probability"]) == [0.5, 0.3, 0.2]
    assert bars["alt"]
    assert len(at.get("graphviz_chart")) == 1


def test_home_links_every_page_of_the_map():
    at = run_page(HOME)
    links = {p.proto.page for p in at.get("page_link")}
    assert {pathlib.Path(p.path).stem.split("_", 1)[1] for p in nav.PAGES if p is not nav.HOME} <= links


def grpo_text(text: str) -> str:
    """The GRPO advantages the TD error and GAE page lists: "their advantages are −0.86, −0.86, −0.86."."""
    return re.search(r"their advantages are ([^.]*\.\d+(?:, [^,.]*\.\d+)*)", text).group(1)


def test_home_quotes_the_grpo_group_the_gae_page_shows_at_its_defaults():
    home = page_text(run_page(HOME))
    listed = grpo_text(page_text(run_page(page_file("5_"))))
    assert f"{listed} for the 3 open answers in a group of 8" in home
    assert "−0.77" not in home  # the old figure: the whole sample set scored as one group
    assert "against the other answers" not in home  # that is RLOO, not GRPO


@pytest.mark.parametrize("name", list(rlcore.PRESETS))
def test_every_preset_runs_and_changes_what_is_shown(name):
    at = run_page(HOME, scenario=rlcore.PRESETS[name])
    no_exception(at)
    s = rlcore.summarize(rlcore.PRESETS[name])
    assert f"V = {s.v:.2f}".rstrip("0").rstrip(".") in page_text(at)


def test_four_token_scenario_changes_the_chart():
    four = rlcore.Scenario(tokens=("yes", "no", "partly", "unclear"), probs=(0.4, 0.3, 0.2, 0.1),
                           samples=((1, 2), (3,), (9, 8), (4, 5, 6)))
    base = chart_fingerprint(run_page(HOME))
    at = run_page(HOME, scenario=four)
    no_exception(at)
    assert chart_fingerprint(at) != base
    data = next(iter(charts(at)[0]["data"].values()))
    assert list(data["token"]) == ["yes", "no", "partly", "unclear"]
