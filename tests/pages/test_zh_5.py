"""Page 5, TD error and GAE, in Chinese (``?lang=zh``): it runs, its own text is Chinese, and its live numbers
are the ones the English page shows."""

from __future__ import annotations

from apphelp import charts, metrics, page_file
from zhhelp import assert_chinese, views_of

from ui import i18n

PAGE = page_file("5_")
# genuine names the Chinese text keeps: GRPO's method identifiers, and the statistics terms in brackets
TERMS = {"grpo", "dr", "rloo", "critic", "bias", "variance",
         "generalised", "advantage", "estimation"}  # the glossary's λ tooltip: 广义优势估计 with its English name
views = views_of(PAGE, TERMS)


def test_both_views_are_chinese(views):
    default, at = views
    assert_chinese(default, at, TERMS)
    assert not any("Predict first" in m.value or "TD error at" in m.value for m in at.markdown)


def test_the_live_numbers_are_the_english_pages(views):
    """The article's answer: V is 4.3 before `open` and 2 after it (the mean of its one score, 2), so
    δ = 2 − 4.3 = −2.3 at `open`, as the English page says."""
    _, at = views
    m = metrics(at)
    assert m["“open”之前的 V"] == "4.3" and m["“open”之后的 V"] == "2" and m["“open”处的 TD 误差"] == "−2.3"
    text = "\n".join(x.value for x in at.markdown)
    assert "**open** 处为 −2.3" in text


def test_the_critic_chart_names_its_parts_in_chinese(views):
    _, at = views
    (critic,) = [c for c in charts(at) if "随 λ 的变化" in c["spec"]["title"]["text"]]
    parts = set(max(critic["data"].values(), key=len)["part"])
    assert parts == {i18n.text("zh", f"p5.critic.part_{p}") for p in ("bias", "variance", "mse")}
