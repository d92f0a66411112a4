"""The colour language: one palette module, token and method colours apart, every colour readable on both themes,
and every token and method in the same colour in every chart of every page."""

import re

import pytest

from tests.apphelp import ALL_PAGES, ROOT, charts, revealed
from tests.ui.chartref import colours
from ui import colors
from ui.colors import DARK_BACKGROUND, LIGHT_BACKGROUND, contrast

HEX = re.compile(r"#[0-9A-Fa-f]{6}\b")
# Fills of the token grid's cells and the text drawn on them: read against each other, not against the page
CELL_FILLS = ("DIVERGING", "CELL_TEXT")


def defined_colours() -> set[str]:
    """Every #RRGGBB colour ui.colors defines, in a name, a tuple or a dict (the backgrounds aside)."""
    found = set()
    for name, value in vars(colors).items():
        if name.isupper() and not name.endswith("BACKGROUND") and name not in CELL_FILLS:
            values = value.values() if isinstance(value, dict) else value if isinstance(value, tuple) else [value]
            found |= {v for v in values if isinstance(v, str) and HEX.fullmatch(v)}
    return found


MARKS = sorted(defined_colours())


@pytest.mark.parametrize("fill", colors.DIVERGING)
def test_text_on_the_token_grid_reads_on_every_fill(fill):
    assert contrast(colors.CELL_TEXT, fill) >= 4.5  # WCAG AA for text


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
    assert len(MARKS) > 20  # and it reads the palettes: tokens, methods, neutral, accent, label


@pytest.mark.parametrize("path", sorted([*(ROOT / "ui").glob("*.py"), *(ROOT / "pages").rglob("*.py")]),
                         ids=lambda p: p.name)
def test_no_colour_is_written_outside_the_palette_module(path):
    if path.name == "colors.py":
        return
    assert not HEX.findall(path.read_text()), f"{path.name}: take colours from ui.colors"


def test_method_colours_are_never_token_colours():
    tokens = set(colors.PALETTE) - {colors.NEUTRAL}  # grey: reference lines, "no correction", the sixth token
    assert not set(colors.METHOD_PALETTE) & tokens
    assert not set(colors.METHODS.values()) & tokens
    assert len(set(colors.METHOD_PALETTE)) == len(colors.METHOD_PALETTE)


def test_every_algorithm_name_has_its_algorithms_colour():
    import rlcore

    assert set(colors.ALGORITHM_LABELS.values()) == set(rlcore.ALGORITHMS)
    assert {label: colors.ALGORITHM_LABELS[label] for label in rlcore.ALGORITHM_NAMES.values()} == {
        name: algo for algo, name in rlcore.ALGORITHM_NAMES.items()}
    # the nine algorithms are told apart by colour
    assert len({colors.METHODS[a] for a in rlcore.ALGORITHMS}) == len(rlcore.ALGORITHMS)


def test_known_methods_keep_their_colour_whatever_else_is_drawn():
    alone = colors.method_colors(["PPO"])
    with_others = colors.method_colors(["GRPO", "RLOO", "PPO"])
    assert alone["PPO"] == with_others["PPO"] == colors.METHODS["ppo"]
    assert colors.method_colors(["greedy", "sampling at τ = 1"])["greedy"] == colors.METHODS["greedy"]


def test_a_label_given_a_method_takes_that_methods_colour():
    got = colors.method_colors({"token-mean · DAPO": "dapo", "seq-mean-token-sum": None, "mine · GRPO": "grpo"})
    assert list(got) == ["token-mean · DAPO", "seq-mean-token-sum", "mine · GRPO"]
    assert got["token-mean · DAPO"] == colors.METHODS["dapo"] and got["mine · GRPO"] == colors.METHODS["grpo"]
    assert got["seq-mean-token-sum"] not in {colors.METHODS["dapo"], colors.METHODS["grpo"]}
    with pytest.raises(KeyError):
        colors.method_colors({"typo": "grpoo"})


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
    assert scale["range"] == [colors.METHODS["greedy"], colors.METHODS["sampling"]]


def test_token_colours_still_fixed_for_the_article_tokens():
    got = colors.token_colors(["closed", "new", "open"])
    assert got["open"] == colors.FIXED["open"] and got["closed"] == colors.FIXED["closed"]
    assert got["new"] not in {got["open"], got["closed"]}


# ------------------------------------------------------------------------------------------ every chart of every page

# the names a label can give a method by: each training algorithm's name (the longest first: "Dr. GRPO" before
# "GRPO"), matched as a whole word inside a label ("seq-mean-token-mean · GRPO")
ALGORITHMS = sorted(colors.ALGORITHM_LABELS, key=len, reverse=True)


def method_named(label: str) -> str | None:
    """The method a label names: itself if it is a method's id ("k3", "greedy"), else the one training algorithm
    whose name it holds as a word (None when it holds none)."""
    if label in colors.METHODS:
        return label
    rest, found = label, []
    for name in ALGORITHMS:
        pattern = rf"(?<![\w.]){re.escape(name)}(?!\w)"
        if re.search(pattern, rest):
            found.append(colors.ALGORITHM_LABELS[name])
            rest = re.sub(pattern, " ", rest)  # "Dr. GRPO" also holds "GRPO": count it once
    return found[0] if len(found) == 1 else None


def test_method_named_reads_labels_as_a_reader_would():
    assert method_named("token-sum-norm · Dr. GRPO") == "dr_grpo"
    assert method_named("GRPO, (R − mean)/std") == "grpo"
    assert method_named("REINFORCE + running mean") == "reinforce_mean"
    assert method_named("clip-higher (DAPO)") == "dapo"
    assert method_named("k2") == "k2"
    assert method_named("this recipe") is None and method_named("GRPO against PPO") is None


@pytest.fixture(scope="module")
def every_scale():
    """(page, kind, {label: colour}) for every colour scale of every chart of every page, questions revealed."""
    return [(path.stem, kind, mapping) for path in ALL_PAGES for c in charts(revealed(path))
            for kind, mapping in colours(c["spec"])]


def test_no_chart_colours_a_series_by_the_order_of_its_data(every_scale):
    implicit = sorted({page for page, kind, _ in every_scale if kind == "implicit"})
    assert not implicit, f"a colour scale without a domain on {implicit}: pass tokens= or colors="
    assert {kind for _, kind, _ in every_scale} >= {"token", "method"}


def test_every_token_has_one_colour_in_every_chart_of_every_page(every_scale):
    seen: dict[str, set] = {}
    for page, kind, mapping in every_scale:
        if kind == "token":
            for name, colour in mapping.items():
                seen.setdefault(name, set()).add((colour, page))
    expected = colors.token_colors(["open", "closed", "partly"])  # the default scenario's tokens
    for name in expected:
        assert {c for c, _ in seen[name]} == {expected[name]}, (name, sorted(seen[name]))


def test_every_method_has_one_colour_in_every_chart_of_every_page(every_scale):
    by_label: dict[str, set] = {}
    by_method: dict[str, set] = {}
    for page, kind, mapping in every_scale:
        if kind != "method":
            continue
        for label, colour in mapping.items():
            by_label.setdefault(label, set()).add(colour)
            if (method := method_named(label)) is not None:
                by_method.setdefault(method, set()).add((colour, page, label))
    assert {label: cs for label, cs in by_label.items() if len(cs) > 1} == {}
    wrong = {m: sorted(x for x in found if x[0] != colors.METHODS[m]) for m, found in by_method.items()}
    assert {m: w for m, w in wrong.items() if w} == {}
    # the pages name algorithms in several words (page 10's modes, page 11's clips, the lab): all were checked
    assert {"grpo", "dr_grpo", "dapo", "ppo", "gspo", "cispo"} <= set(by_method)


def test_method_colours_on_the_pages_are_never_token_colours(every_scale):
    tokens = set(colors.PALETTE) - {colors.NEUTRAL}
    clash = {(page, label, c) for page, kind, m in every_scale if kind == "method" for label, c in m.items()
             if c in tokens}
    assert not clash
