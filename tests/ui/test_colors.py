"""The colour language: token and method palettes apart, and every mark colour readable on both themes."""

import pytest

from ui import charts, charts_diagnostics, colors
from ui.colors import DARK_BACKGROUND, LIGHT_BACKGROUND, contrast

MARKS = sorted({*colors.PALETTE, *colors.FIXED.values(), colors.NEUTRAL, colors.ACCENT,
                *colors.METHOD_PALETTE, *colors.METHOD_FIXED.values(), charts.LABEL,
                charts.arrows.make.__kwdefaults__["color"], charts_diagnostics.REF_COLOR,
                *charts_diagnostics.CORRECTION_COLORS.values(), *charts_diagnostics.PASS_COLORS.values()})


def test_contrast_matches_wcag_reference_values():
    # WCAG's own end points, and #767676, the grey commonly quoted as 4.54:1 on white
    assert contrast("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert contrast("#FFFFFF", "#FFFFFF") == pytest.approx(1.0)
    assert contrast("#767676", "#FFFFFF") == pytest.approx(4.54, abs=0.01)
    assert contrast("#FFFFFF", "#767676") == contrast("#767676", "#FFFFFF")


@pytest.mark.parametrize("background", [LIGHT_BACKGROUND, DARK_BACKGROUND])
@pytest.mark.parametrize("color", MARKS)
def test_every_mark_colour_has_3_to_1_contrast(color, background):
    assert contrast(color, background) >= 3.0


def test_the_old_black_ppo_would_fail_on_the_dark_theme():
    assert contrast("#000000", DARK_BACKGROUND) < 3.0  # the test above can fail


def test_method_colours_are_never_token_colours():
    assert not set(colors.METHOD_PALETTE) & set(colors.PALETTE)
    assert not set(colors.METHOD_FIXED.values()) & set(colors.PALETTE)
    assert len(set(colors.METHOD_PALETTE)) == len(colors.METHOD_PALETTE)


def test_known_methods_keep_their_colour_whatever_else_is_drawn():
    alone = colors.method_colors(["PPO"])
    with_others = colors.method_colors(["GRPO", "RLOO", "PPO"])
    assert alone["PPO"] == with_others["PPO"] == colors.ALGORITHM_COLORS["ppo"]
    assert colors.method_colors(["greedy", "sampling at τ = 1"])["greedy"] == colors.METHOD_FIXED["greedy"]


def test_unknown_methods_take_distinct_free_colours_in_order():
    names = ["b = 0", "b = V = 6.5", "b* = 7", "yours = 8"]
    got = colors.method_colors(names)
    assert list(got) == names
    assert list(got.values()) == list(colors.METHOD_PALETTE[:4])
    # a fixed name among them does not make another name share its colour
    mixed = colors.method_colors(["k1", "new one"])
    assert mixed["new one"] != mixed["k1"]


def test_method_scale_lists_the_names_and_their_colours():
    scale = colors.method_scale(["greedy", "sampling"]).to_dict()
    assert scale["domain"] == ["greedy", "sampling"]
    assert scale["range"][0] == colors.METHOD_FIXED["greedy"]
    assert scale["range"][1] in colors.METHOD_PALETTE


def test_token_colours_still_fixed_for_the_article_tokens():
    got = colors.token_colors(["closed", "new", "open"])
    assert got["open"] == colors.FIXED["open"] and got["closed"] == colors.FIXED["closed"]
    assert got["new"] not in {got["open"], got["closed"]}
