"""The Chinese catalogue's words: one Chinese word per concept, an English gloss at most once per page and only for
RL terms, and the entries a reader once tripped on (issue 35) kept as they were fixed.

Reads ``locales/zh.toml`` (and the English beside it) only: no page is run, so the file takes a few seconds. Each
check is a function of a catalogue, so the last tests can feed it a broken copy and see it complain.
"""

from __future__ import annotations

import functools
import re
from collections import Counter

import pytest

from tests.words import punctuation_slips
from ui import i18n, nav

EN, ZH = i18n.catalogue("en"), i18n.catalogue("zh")
pytestmark = pytest.mark.every_page  # catalogue checks that a new page's tables meet too (``--page``)


def forms(entry) -> list[str]:
    """The text of an entry: one string, or a plural's forms."""
    return [entry] if isinstance(entry, str) else list(entry.values())


def glossary_word(anchor: str) -> str:
    """The Chinese word a Glossary heading gives its concept: "参考模型（reference policy）π_ref" → "参考模型",
    "前向 KL 与反向 KL（…）" → "前向 KL"."""
    name = ZH[f"glossary.terms.{anchor}.name"]
    return name.split("（")[0].split(" 与")[0].strip()


# ------------------------------------------------------------------------------------------- one word per concept
# concept → (its one Chinese word, the other words for it that the catalogue must not say, and the English that
# calls for the word: every entry whose English matches says it, where the Chinese can always follow the English).
# The word comes from the Glossary's heading where the Glossary has the concept; the sidebar names the example.
CONCEPTS = {
    "raters": ("标注者", [r"评分者"], r"\braters?\b"),
    "critic": (glossary_word("critic"), [r"价值模型"], r"\bcritic"),
    "forward KL": (glossary_word("forward-reverse-kl"), [r"正向 ?KL", r"\*正向\*"], r"\bforward KL"),
    "reference model": (glossary_word("reference-policy"), [r"参考策略"],
                        r"\b(?:the|a) reference\b|\breference (?:model|policy)\b|\breference's"),
    "prompt": ("提示词", [r"提示(?!词)"], r"\bprompts?\b"),
    "flattery": ("奉承", [r"谄媚"], r"\bflatter"),
    "collapse (of entropy)": ("坍缩", [r"塌缩"], None),
    "rare": ("少见", [r"稀有", r"罕见"], None),
    "the running example": ("例子", [r"(?<!表)示例", r"情景", r"场景"], r"\brunning example\b"),
    "Going further": ("更进一步：", [r"深入一步", r"(?<!更)进一步："], r"^Going further:"),
    "et al.": ("等人", [r"\bet al\b", r"[A-Za-z] 等[（，]"], r"\bet al\."),
    "DPO margin": ("间隔", [], r"\bmargins?\b"),
    "clip range": (glossary_word("clip"), [r"裁剪带", r"裁剪区间"], r"\bclip (?:band|range)\b"),
    "first token": ("第一个词元", [r"首词元", r"首个词元"], r"\bfirst tokens?\b"),
    "plain (unflattering) answer": ("朴实", [r"(?<!最)朴素的"], None),
    # issue 47: words agreed for the sections of pages 16-19 and their Glossary entries (a word may be a pattern)
    # preference pair: not <think>'s "pair" nor a pair (ε_low, ε_high)
    "preference pair": (glossary_word("preference-pair"), [r"比较对", r"回答对(?!不对|了)", r"成对回答", r"成对比较",
                        r"偏好（preference）对", r"偏好对数(?!量)"], r"(?<!` )\bpairs?\b(?! \()"),
    "gain (of score)": ("提升", [r"增益", r"收益"], r"(?<!a )\bgain(?:ed)?\b(?! probability)"),
    "KL relative to a model": (r"相对(?:参考|基座)模型的 KL", [r"[到离](?:参考|基座)(?:模型)?的 ?KL"],
                               r"\bKL (?:to|from) (?:the )?(?:base|reference)\b"),
    "held-out problems": (glossary_word("held-out"), [r"留出题(?!目)"], r"\bheld-out\b"),
    "comparison run (not the baseline b)": ("对照", [r"RFT ?（[^）]*基线", r"RFT 基线", r"比较的基线"],
                                            r"\bRFT baseline\b|\bthe baseline\b(?=[: ]+(?:RL|supervised))"),
    "explained variance": ("可解释方差", [r"(?<!可)解释方差"], r"\bexplained variance\b"),
}
# where a rival is itself right: the margin's word only matters where the English says margin
MARGIN_RIVAL = "差值"


def rivals(cat: dict) -> list[tuple[str, str, str]]:
    """(concept, entry, word) for every other word for a concept that an entry of ``cat`` says."""
    out = []
    for concept, (_, others, _) in CONCEPTS.items():
        for pattern in others:
            out += [(concept, msgid, m.group()) for msgid, entry in cat.items()
                    for text in forms(entry) for m in re.finditer(pattern, text)]
    return out


def unfollowed(cat: dict) -> list[tuple[str, str]]:
    """(concept, entry) for every entry whose English names a concept and whose Chinese lacks its word (or, for
    the DPO margin, still says 差值)."""
    out = []
    for concept, (word, _, english) in CONCEPTS.items():
        if english is None:
            continue
        for msgid, entry in EN.items():
            if msgid in cat and any(re.search(english, text) for text in forms(entry)):
                texts = forms(cat[msgid])
                if not all(re.search(word, text) for text in texts) or (concept == "DPO margin" and
                                                               any(MARGIN_RIVAL in text for text in texts)):
                    out.append((concept, msgid))
    return out


def test_the_words_read_from_the_glossary_are_the_ones_the_pages_use():
    assert [CONCEPTS[c][0] for c in ("critic", "forward KL", "reference model", "clip range")] == [
        "评论家", "前向 KL", "参考模型", "裁剪范围"]
    assert [CONCEPTS[c][0] for c in ("preference pair", "held-out problems")] == ["偏好对", "留出题目"]
    assert "例子" in ZH["scenario.heading"], "the sidebar names the running example"


def test_no_concept_has_a_second_chinese_word():
    assert rivals(ZH) == []


def test_every_entry_whose_english_names_a_concept_uses_its_chinese_word():
    assert unfollowed(ZH) == []


# ------------------------------------------------------------------------------------------------- English glosses
# A gloss: English in full-width brackets right after the Chinese term, 优势（advantage）, or leading a longer
# bracket, 偏差（bias，…）. Only bracketed English with a lower-case word counts: names of methods (DAPO, GRPO) and
# of authors (Tang & Munos) are no glosses.
GLOSS = re.compile(r"（([A-Za-z][A-Za-z .&\-]*[A-Za-z])[），]")
# words that are no RL terms: Chinese writes them without the English
PLAIN = {"token", "tokens", "gradient", "variance", "bias", "seed", "nats", "estimator", "probability", "loss",
         "mean", "step", "logit"}


def glosses(text: str) -> list[str]:
    return [m.group(1).lower() for m in GLOSS.finditer(text) if re.search(r"(?:^|[ \-])[a-z]{2,}", m.group(1))]


PAGE_TABLES = {p.table for p in nav.PAGES} - {"glossary"}  # read from the map: a new page's table, whatever its name


def page_tables(cat: dict) -> dict[str, list[str]]:
    """The entries of each page's table (its sub-tables included: [p5.critic] is page 5's), the home page's too;
    the Glossary, whose headings each carry their English by design, is left out."""
    tables: dict[str, list[str]] = {}
    for msgid in cat:
        top = msgid.split(".")[0]
        if top in PAGE_TABLES:
            tables.setdefault(top, []).append(msgid)
    return tables


def repeated_glosses(cat: dict) -> dict[str, dict[str, list[str]]]:
    """Per page table, each English term glossed in more than one entry, with those entries."""
    out = {}
    for table, ids in page_tables(cat).items():
        where: dict[str, list[str]] = {}
        for msgid in ids:
            counts = [Counter(glosses(text)) for text in forms(cat[msgid])]  # a plural shows one of its forms
            for term in set().union(*counts):
                where.setdefault(term, []).extend([msgid] * max(c[term] for c in counts))
        twice = {term: ids for term, ids in where.items() if len(ids) > 1}
        if twice:
            out[table] = twice
    return out


def shared_glosses(cat: dict) -> list[tuple[str, str]]:
    """Glosses in tables more than one page shows ([scenario], [judge], [columns] …): a gloss there would come
    again on every page that also glosses the term."""
    pages = set(page_tables(cat))
    return [(msgid, g) for msgid, entry in cat.items()
            if msgid.split(".")[0] not in pages | {"glossary"} for text in forms(entry) for g in glosses(text)]


def plain_glosses(cat: dict) -> list[tuple[str, str]]:
    """Glosses of plain words (梯度（gradient）) anywhere but the Glossary."""
    return [(msgid, g) for msgid, entry in cat.items() if not msgid.startswith("glossary.")
            for text in forms(entry) for g in glosses(text) if g in PLAIN]


def test_a_page_glosses_each_english_term_at_most_once():
    assert repeated_glosses(ZH) == {}


def test_tables_shared_by_pages_gloss_nothing():
    assert shared_glosses(ZH) == []


def test_only_rl_terms_get_an_english_gloss():
    assert plain_glosses(ZH) == []


def test_the_gloss_finder_sees_the_glosses_there_are():
    """It could pass by finding nothing: it finds a gloss on most pages, and the Glossary's headings."""
    found = {table for table, ids in page_tables(ZH).items() if any(glosses(t) for i in ids for t in forms(ZH[i]))}
    assert len(found) >= 15, found
    assert glosses(ZH["glossary.terms.advantage.name"]) == ["advantage"]
    assert glosses("**截断**重要性采样（truncated importance sampling，TIS）与 DAPO（DAPO、CISPO）") == [
        "truncated importance sampling"]


# ----------------------------------------------------------------------------------- the entries issue 35 named
P18_RATERS = ["p18.intro", "p18.pairs_help", "p18.col_rater_optimum", "p18.recovers", "p18.ipo_title",
              "p18.ipo_text", "p18.beta_help", "p18.no_better_side", "p18.rl_heading"]
# phrases once written and wrong, and the entries they were in ("" = anywhere in the catalogue)
WRONG = {
    "每隔一步": ["p2.intro"],  # "every other step": the return takes one more γ per step further on
    r"有 \{\w+\} 的时间": [""],  # "X of the time" is a share of answers, not a length of time
    r"对.{0,40}作图": [""],  # "plotted against"
    "之物": [""],  # 你所期望之物, "what you hoped for"
    "叶子": [""],  # an answer is no leaf to a reader
    "噪声评审": ["p9.dead_groups"],  # the judge's setting is “均值加噪声” with σ = 0
    r"走了 \{n\} 步之后的状态": ["p1.state_heading"],  # reads "state after walking 0 steps"
    "奈特（nats）远": ["p8_kl.moves"],
    r"\b(?:generalised|optimisation|over-optimisation)\b": [""],  # the papers spell generalized, (over)optimization
}


def wrong_phrases(cat: dict) -> list[tuple[str, str]]:
    out = []
    for pattern, where in WRONG.items():
        for msgid, entry in cat.items():
            if any(msgid == w or w == "" for w in where) and any(re.search(pattern, t) for t in forms(entry)):
                out.append((pattern, msgid))
    return out


def test_page_18_calls_the_raters_as_pages_16_and_17_do_not_as_the_judge():
    for msgid in P18_RATERS:
        text = ZH[msgid]
        assert "标注者" in text and "评审" not in text and "评分者" not in text, (msgid, text)
    assert "标注者" in ZH["p16.raters"]


def test_the_return_takes_one_more_gamma_per_step():
    assert "每隔一步" not in ZH["p2.intro"] and "每往后一步就多乘一次 γ" in ZH["p2.intro"]


def test_no_phrase_once_written_wrong_is_back():
    assert wrong_phrases(ZH) == []


def test_chinese_lists_join_with_the_enumeration_comma_and_no_bracket_is_followed_by_a_space():
    """In the catalogue, and where the code fills it: a list, a full-width bracket before a placeholder's text."""
    assert [(k, s) for k, e in ZH.items() for s in punctuation_slips(forms(e))] == []
    ppo = ZH["p19.algorithms.ppo"]
    assert "（" in ppo and "） " not in i18n.text("zh", "p19.after", algo=ppo, steps=3)
    assert i18n.text("en", "page.list_sep") == ", " and i18n.text("zh", "page.list_sep") == "、"
    slips = ["优势（open +0.30, closed −0.20）", "PPO（带价值头） 训练", "答案：7, 4, 1", "（ 见下）"]
    assert [len(punctuation_slips([text])) for text in slips] == [1, 1, 1, 1]
    assert punctuation_slips(["(ε_low, ε_high) 必须是一对数", "KL(π, π_ref) 与 `a, b`", "open, closed"]) == []


# --------------------------------------------------------------------------------------------- the checks can fail
BREAKS = [
    ("p7.why", "每个提示的回答数", rivals),
    ("p13.why", "沿着*正向* KL(π_ref‖π) 的梯度拉", rivals),
    ("p15.why", "Yue et al.（2025）发现", rivals),
    ("p12.recipes.RLOO.source", "Ahmadian 等（2024）", rivals),
    ("p12.map_caption", "在这个示例上与 GRPO 比较", rivals),
    ("p18.ipo_title", "π({token})：评分者最不喜欢的回答", rivals),
    ("p18.tau_help", "IPO 让每个差值瞄准 1/(2τ)：τ 越小，间隔越大。", unfollowed),
    ("p18.pairs_help", "评审做的比较次数", unfollowed),
    ("p6.why", "单个状态（state）上的策略（policy）更新，概率（probability）上升", plain_glosses),
    ("p4.why", "优势（advantage）A 与优势（advantage）", repeated_glosses),
    ("p4.why", "基线（baseline）", repeated_glosses),  # page 4 glosses the baseline in its intro already
    ("judge.seed", "随机种子（seed，固定）", shared_glosses),
    ("p2.intro", "每隔一步就乘一次 γ", wrong_phrases),
    ("p8_kl.why", "有 {ref_share} 的时间写奉承的那个", wrong_phrases),
    ("glossary.terms.ppo.text", "近端策略优化（proximal policy optimisation）", wrong_phrases),
    ("p18.pairs", "偏好比较对数", rivals),
    ("p17.n_help", "标注者看过的回答对数", rivals),
    ("p17.gao_y", "相对参考模型的增益（对数几率）", rivals),
    ("p19.kl_panel", "到基座模型的 KL（每个词元的奈特数）", rivals),
    ("p19.passk_title", "留出题上的 pass@k", rivals),
    ("p19.algorithms.rft", "RFT（基线）", rivals),
    ("p19.explained", "解释方差", rivals),
    ("p18.push_heading", "哪些比较还在用力推", unfollowed),
    ("p17.true_gain", "真实分数（评审分）", unfollowed),
    ("p17.title", "相对起点的分数提升与离参考模型的距离", unfollowed),
    ("p19.train_rft", "用这组设置训练 RFT", unfollowed),
]


@functools.cache
def passes_the_catalogue(check) -> bool:
    """The check finds nothing in the real catalogue (once per check, not once per broken text)."""
    return check(ZH) in ([], {})


@pytest.mark.parametrize(("msgid", "text", "check"), BREAKS, ids=[f"{m}:{c.__name__}" for m, _, c in BREAKS])
def test_each_check_reports_a_catalogue_that_breaks_it(msgid, text, check):
    broken = dict(ZH, **{msgid: text})
    assert passes_the_catalogue(check) and check(broken) not in ([], {}), (msgid, check.__name__)
