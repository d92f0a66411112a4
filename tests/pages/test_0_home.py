"""The home page: the example, the loop diagram and a quick reference whose values follow the scenario."""

from __future__ import annotations

import pytest
from apphelp import MOVED, chart_fingerprint, charts, no_exception, page_file, page_text, run_page

import rlcore

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


def test_quick_reference_links_every_concept_page():
    at = run_page(HOME)
    links = {p.proto.page for p in at.get("page_link")}
    assert {p.stem.split("_", 1)[1] for p in page_file("1_").parent.glob("[1-8]_*.py")
            if p not in MOVED} <= links


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
