"""What a scenario may hold: the bounds of rlcore.Scenario and of the sidebar's readers (from_json, from_rows).

Each bound is probed on both sides: the last accepted value and the first refused one, whose ValueError names
the field and says the bound.
"""

from __future__ import annotations

import math

import pytest

import rlcore
from rlcore.formulas.example import MAX_CONT_CHARS, MAX_SAMPLES, MAX_SCORE, MAX_TEXT_CHARS, MAX_TOKEN_CHARS
from tests.apphelp import scenario_json
from tests.rejects import rejects
from ui import scenario as panel


def scenario(**kw):
    args = dict(tokens=("a", "b"), probs=(0.5, 0.5), samples=((1.0,), (2.0,)))
    args.update(kw)
    return rlcore.Scenario(**args)


# ---------------------------------------------------------------- rlcore.Scenario


def test_the_bounds_themselves_are_accepted():
    s = scenario(tokens=("x" * MAX_TOKEN_CHARS, "b"), samples=((MAX_SCORE,) * MAX_SAMPLES, (-MAX_SCORE,)),
                 prompt="p" * MAX_TEXT_CHARS, prefix="q" * MAX_TEXT_CHARS,
                 continuations=("c" * MAX_CONT_CHARS, ""))
    assert s.q.tolist() == [1e6, -1e6]  # the mean of a hundred scores of 1e6 is exact and finite


@pytest.mark.parametrize(("kw", "field", "bound"), [
    (dict(samples=((1.0,), (1e6 + 1,))), r"samples\[1\]\[0\]", "1,000,000"),
    (dict(samples=((-1e6 - 1,), (1.0,))), r"samples\[0\]\[0\]", "-1,000,000"),
    (dict(samples=((1e308, 1e308), (2.0,))), r"samples\[0\]\[0\]", "1,000,000"),
    (dict(samples=((1.0,) * (MAX_SAMPLES + 1), (2.0,))), r"samples\[0\]", "at most 100 scores"),
    (dict(samples=((10**400,), (2.0,))), r"samples\[0\]\[0\]", "a number with 401 digits"),
    (dict(probs=(10**400, 0.5)), r"probs\[0\]", "between 0 and 1"),
    (dict(probs=(math.nan, 0.5)), r"probs\[0\]", "between 0 and 1"),
    (dict(tokens=("x" * (MAX_TOKEN_CHARS + 1), "b")), r"tokens\[0\]", "at most 24 characters"),
    (dict(prompt="p" * (MAX_TEXT_CHARS + 1)), "prompt", "at most 200 characters"),
    (dict(prefix="p" * (MAX_TEXT_CHARS + 1)), "prefix", "at most 200 characters"),
    (dict(continuations=("", "c" * (MAX_CONT_CHARS + 1))), r"continuations\[1\]", "at most 80 characters"),
])
def test_beyond_a_bound_raises_naming_the_field_and_the_bound(kw, field, bound):
    with pytest.raises(ValueError, match=rf"^{field}") as info:
        scenario(**kw)
    assert bound in str(info.value)


@pytest.mark.parametrize(("text", "kind"), [
    ("\ud800", "a lone surrogate"),
    ("a\udfffb", "a lone surrogate"),
    ("a\x00", "a control character"),
    ("tab\there", "a control character"),
    ("\u202eevil", "an invisible formatting character"),  # right-to-left override
    ("zero\u200bwidth", "an invisible formatting character"),  # would collide with ui.format.axis_labels
    ("line\u2028break", "a line break"),
    ("\ufffe", "not a character in Unicode"),
])
def test_unprintable_characters_are_refused_in_every_text(text, kind):
    for kw, field in [(dict(tokens=(text, "b")), r"tokens\[0\]"), (dict(prompt=text), "prompt"),
                      (dict(prefix=text), "prefix"), (dict(continuations=(text, "")), r"continuations\[0\]")]:
        with pytest.raises(ValueError, match=rf"^{field}") as info:
            scenario(**kw)
        assert kind in str(info.value) and f"U+{ord(next(c for c in text if not c.isalnum())):04X}" in str(info.value)


@pytest.mark.parametrize("name", ["naïve", "☃", "日本", "toString", "__proto__", "a b", "x²", "👍"])
def test_printable_names_of_any_script_are_accepted(name):
    assert scenario(tokens=(name, "b")).tokens[0] == name


# ---------------------------------------------------------------- normalize_probs(keep=...)


def test_rescale_keeps_the_typed_probability_and_shares_the_rest():
    # 0.3 and 0.2 share 1 - 0.6 = 0.4 in the ratio 3 : 2, so 0.24 and 0.16
    assert rlcore.normalize_probs([0.6, 0.3, 0.2], keep=[0]) == pytest.approx((0.6, 0.24, 0.16))
    # two typed values 0.5 + 0.3 leave 0.2 for the third, whatever it was
    assert rlcore.normalize_probs([0.5, 0.3, 0.7], keep=[0, 1]) == pytest.approx((0.5, 0.3, 0.2))


@pytest.mark.parametrize(("probs", "keep", "message"), [
    ([0.7, 0.6, 0.1], [0, 1], "more than 1"),
    ([0.6, 0.0, 0.0], [0], "all 0"),
    ([0.6, 0.4], [5], "keep"),
])
def test_rescale_that_cannot_work_says_why(probs, keep, message):
    rejects(lambda: rlcore.normalize_probs(probs, keep=keep), message)


# ---------------------------------------------------------------- from_json


@pytest.mark.parametrize(("data", "message"), [
    ("[" * 5000, "more than 3 deep"),
    ("[" * 99_999, "more than 3 deep"),
    ('{"tokens": ' + "{" * 4000, "more than 3 deep"),
    (scenario_json(samples=[[[[1]]], [2]]), "more than 3 deep"),
    (scenario_json(probs=[int("1" * 401), 0.5]), "a number with 401 digits"),
    (scenario_json(samples=[[int("1" * 401)], [2]]), r"samples\[0\]\[0\] is above 1,000,000"),
    (scenario_json(samples=[[1e308, 1e308], [2]]), r"samples\[0\]\[0\] is above 1,000,000"),
    ('{"tokens": ["a", "b"], "probs": [0.5, 0.5], "samples": [[%s], [2]]}' % ("9" * 5000), "above 1,000,000"),
    ('{"tokens": ["a", "b"], "probs": [0.5, 0.5], "samples": [[NaN], [2]]}', "NaN is not a number"),
    ('{"tokens": ["a", "b"], "probs": [0.5, 0.5], "samples": [[-Infinity], [2]]}', "Infinity is not a number"),
    (scenario_json(samples=[[1] * (MAX_SAMPLES + 1), [2]]), "at most 100 scores"),
    (scenario_json(tokens=["\ud800", "b"]), "lone surrogate"),
    (scenario_json(tokens=["a\u0007", "b"]), "control character"),
    (scenario_json(tokens=["x" * 25, "b"]), "at most 24 characters"),
    (scenario_json(samples=[[-1], [2]]), r"samples\[0\]\[0\] is negative"),
    (scenario_json(__proto__={"x": 1}), "does not use .'__proto__'"),
    (scenario_json(constructor=1, toString=2, valueOf=3, hasOwnProperty=4), "'constructor', 'toString', 'valueOf' ..."),
    ('"\ud800"'.encode("utf-8", "surrogatepass"), "not UTF-8"),  # a surrogate written raw: not UTF-8
    (b"\xef\xbb\xbf" + b"[", "not valid JSON"),
    (b"\xff\xfe", "not valid JSON"),
    (b"{", "not valid JSON"),
    (b"[1, 2]", "must be an object"),
    (b'{"tokens": ["a", "b"]}', "lacks probs, samples"),
    (b'{"tokens": ["a", "b"], "probs": [0.5, 0.5], "samples": [[1], ["x"]]}', "lists of numbers"),
    (b'{"tokens": ["a", "a"], "probs": [0.5, 0.5], "samples": [[1], [2]]}', "unique"),
    (b'{"tokens": ["a", "b"], "probs": [0.5, 0.4], "samples": [[1], [2]]}', "sum to 1"),
    (b'{"tokens": ["a", "b"], "probs": [0.5, 0.5], "samples": [[1], []]}', "at least one score"),
    (b" " * 100_001, "limit is 100,000"),
])
def test_hostile_json_is_refused_with_a_reason(data, message):
    rejects(lambda: panel.from_json(data), message)


def test_brackets_inside_strings_do_not_count_as_nesting():
    prompt = ']]]] "[[[[" \\ \\"'
    s = panel.from_json(scenario_json(tokens=["[[[[", "{{{{"], prompt=prompt))
    assert s.tokens == ("[[[[", "{{{{") and s.prompt == prompt


def test_a_100_kB_bracket_bomb_is_refused_before_it_is_parsed(monkeypatch):
    """The depth check refuses it in one pass over the text: Python's JSON reader (which recurses) never sees it."""
    def parse(*args, **kwargs):
        raise AssertionError("json.loads was called on a bracket bomb")
    monkeypatch.setattr(panel.json, "loads", parse)
    rejects(lambda: panel.from_json("[" * panel.MAX_JSON_BYTES), "deep")


def test_a_file_with_a_byte_order_mark_loads():
    assert panel.from_json(b"\xef\xbb\xbf" + scenario_json().encode()) == scenario()


def test_json_round_trip_is_exact_for_awkward_numbers():
    s = scenario(probs=(1 / 3, 2 / 3), samples=((0.1 + 0.2, 5e-324, 1e6), (2.2250738585072014e-308,)))
    assert panel.from_json(panel.to_json(s)) == s
    assert panel.from_json(panel.to_json(s, indent=None)) == s


# ---------------------------------------------------------------- the editor's rows


def test_rows_round_trip_exactly_and_fit_the_editor():
    longest = 2.2250738585072014e-308  # repr is 23 characters, the longest a non-negative float has
    assert len(repr(longest)) == 23
    s = scenario(samples=((longest,) * MAX_SAMPLES, (0.1 + 0.2, 1 / 3, 1e6)))
    rows = panel.to_rows(s)
    assert max(len(r["scores"]) for r in rows) <= panel.SCORES_MAX_CHARS
    assert panel.from_rows(rows, s) == s


@pytest.mark.parametrize(("scores", "message"), [
    ("1e308, 1e308", "too large; scores go up to 1,000,000"),
    ("1" * 401, "too large"),
    ("1000000.5", "too large"),
    ("inf", "too large"),
    ("nan", "not a number"),
    ("[[[[[", "not a number"),
    (", ".join(["1"] * (MAX_SAMPLES + 1)), "101 judge scores; keep at most 100"),
])
def test_typed_scores_beyond_the_bounds_say_so(scores, message):
    rows = panel.to_rows(rlcore.ARTICLE_SCENARIO)
    rows[1]["scores"] = scores
    with pytest.raises(ValueError, match=message) as info:
        panel.from_rows(rows, rlcore.ARTICLE_SCENARIO)
    assert "'closed'" in str(info.value) and len(str(info.value)) < 200


def test_typed_scores_at_the_bounds_are_accepted():
    rows = panel.to_rows(rlcore.ARTICLE_SCENARIO)
    rows[1]["scores"] = ", ".join(["1000000"] * MAX_SAMPLES)
    assert panel.from_rows(rows, rlcore.ARTICLE_SCENARIO).samples[1] == (1e6,) * MAX_SAMPLES


def test_a_typed_name_too_long_or_unprintable_is_refused():
    rows = panel.to_rows(rlcore.ARTICLE_SCENARIO)
    rows[0]["token"] = "x" * 25
    rejects(lambda: panel.from_rows(rows, rlcore.ARTICLE_SCENARIO), "25 characters; keep it to 24")
    rows[0]["token"] = "a\x1bb"
    rejects(lambda: panel.from_rows(rows, rlcore.ARTICLE_SCENARIO), r"tokens\[0\].*control character")


def test_rescaling_rows_keeps_the_rows_named():
    rows = panel.to_rows(rlcore.ARTICLE_SCENARIO)
    rows[0]["prob"] = 0.6
    s = panel.from_rows(rows, rlcore.ARTICLE_SCENARIO, normalise=True, keep=(0,))
    assert s.probs == pytest.approx((0.6, 0.24, 0.16))
    s = panel.from_rows(rows, rlcore.ARTICLE_SCENARIO, normalise=True)
    assert s.probs == pytest.approx((0.6 / 1.1, 0.3 / 1.1, 0.2 / 1.1))
