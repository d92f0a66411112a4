"""The running example as data: a prompt, an answer prefix, and the next-token choice.

Every page reads the scenario from here, so a learner who edits it (other tokens,
probabilities or judge scores) sees every page follow.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field

import numpy as np

from .checks import PROB_TOL

__all__ = [
    "ARTICLE_ANSWER", "ARTICLE_ANSWER_SCORE", "ARTICLE_ANSWER_TOKENS", "ARTICLE_ANSWER_VALUES", "ARTICLE_SCENARIO",
    "FLATTERY", "MAX_TOKENS", "PRESETS", "FlatteryBranch", "Scenario", "answer_tokens", "browser_length",
    "check_scenario", "normalize_probs", "split_tokens",
]

# Bounds of what the explorer is for. Within them every quantity a page computes from a scenario (Q, V,
# advantages, variances, which square scores) stays a finite float: 100 scores of 1e6 sum to 1e8, squares
# stay below 1e12, far from the float limit of 1.8e308.
MAX_TOKENS = 12         # candidate tokens of a Scenario
MAX_SAMPLES = 100        # judge scores per token: a GRPO group is 4 to 64 answers
MAX_SCORE = 1e6          # |judge score|: the article's judge gives 0 to 10
MAX_TOKEN_CHARS = 24     # a token's name
MAX_TEXT_CHARS = 200     # prompt and answer prefix
MAX_CONT_CHARS = 80      # how each answer goes on after its token
_WORD = re.compile(r"'\w+|\w+|[^\w\s]")


def split_tokens(text: str) -> tuple[str, ...]:
    """Split text into word-like tokens, the way the article counts them.

    >>> split_tokens("OpenAI is open. It's in the name.")
    ('OpenAI', 'is', 'open', '.', 'It', "'s", 'in', 'the', 'name', '.')
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {text!r}")
    return tuple(_WORD.findall(text))


@dataclass(frozen=True)
class Scenario:
    """The decision after the answer prefix: candidate tokens, their probabilities, sampled scores.

    Fields:
        tokens: the candidate next tokens, 1 to ``MAX_TOKENS`` unique non-empty names of at most
            ``MAX_TOKEN_CHARS`` characters.
        probs: the policy's probability for each token; in [0, 1], summing to 1 within 1e-9.
        samples: for each token, 1 to ``MAX_SAMPLES`` judge scores of the sampled answers that began
            with it, each in [-MAX_SCORE, MAX_SCORE].
        prompt: the question the model answers (at most ``MAX_TEXT_CHARS`` characters).
        prefix: the part of the answer already written (at most ``MAX_TEXT_CHARS`` characters).
        continuations: for each token, the text the answer goes on with after it (at most
            ``MAX_CONT_CHARS`` characters each).

    Every text holds only letters, marks, digits, punctuation, symbols and spaces: control and
    formatting characters, line breaks, lone surrogates, unassigned code points, and characters that
    show as nothing (``INVISIBLE``: fillers, joiners, variation selectors except an emoji's) raise
    ValueError. Lengths count as a browser's text field does (UTF-16 units: an emoji counts as two).
    Token names are put in Unicode's composed form (NFC) before they are compared, and hold no space
    but the plain one, so two names never look the same.

    >>> Scenario(tokens=("a", "b"), probs=(0.5, 0.5), samples=((1,), (2e6,)))
    Traceback (most recent call last):
    ...
    ValueError: samples[1][0] must be a number between -1,000,000 and 1,000,000, got 2000000.0
    """

    tokens: tuple[str, ...]
    probs: tuple[float, ...]
    samples: tuple[tuple[float, ...], ...]
    prompt: str = "Is OpenAI open?"
    prefix: str = "OpenAI is"
    continuations: tuple[str, ...] = field(default=())

    def __post_init__(self):
        tokens = _as_tuple("tokens", self.tokens)
        if not tokens:
            raise ValueError("tokens must not be empty")
        if len(tokens) > MAX_TOKENS:
            raise ValueError(f"tokens may hold at most {MAX_TOKENS} entries, got {len(tokens)}")
        names = []
        for i, tok in enumerate(tokens):
            if not isinstance(tok, str) or not tok.strip():
                raise ValueError(f"tokens[{i}] must be a non-empty string, got {_short(tok)}")
            names.append(_name(f"tokens[{i}]", tok))
        dupes = sorted({t for t in names if names.count(t) > 1})
        if dupes:
            raise ValueError(f"tokens must be unique, got duplicates {dupes}")
        n = len(names)

        probs = _as_tuple("probs", self.probs)
        if len(probs) != n:
            raise ValueError(f"probs must have one entry per token ({n}), got {len(probs)}")
        probs = tuple(_number(f"probs[{i}]", p, 0.0, 1.0) for i, p in enumerate(probs))
        if abs(math.fsum(probs) - 1.0) > PROB_TOL:
            raise ValueError(f"probs must sum to 1, got {list(probs)} (sum {math.fsum(probs):.12g})")

        samples = _as_tuple("samples", self.samples)
        if len(samples) != n:
            raise ValueError(f"samples must have one score list per token ({n}), got {len(samples)}")
        clean = []
        for i, group in enumerate(samples):
            group = _as_tuple(f"samples[{i}]", group)
            if not group:
                raise ValueError(f"samples[{i}] (token {names[i]!r}) needs at least one score")
            if len(group) > MAX_SAMPLES:
                raise ValueError(f"samples[{i}] (token {names[i]!r}) may hold at most {MAX_SAMPLES} scores, "
                                 f"got {len(group)}")
            clean.append(tuple(_number(f"samples[{i}][{j}]", s, -MAX_SCORE, MAX_SCORE)
                               for j, s in enumerate(group)))

        conts = _as_tuple("continuations", self.continuations) if self.continuations else ("",) * n
        if len(conts) != n:
            raise ValueError(f"continuations must have one entry per token ({n}), got {len(conts)}")
        _text("prompt", self.prompt, MAX_TEXT_CHARS)
        _text("prefix", self.prefix, MAX_TEXT_CHARS)
        for i, c in enumerate(conts):
            _text(f"continuations[{i}]", c, MAX_CONT_CHARS)

        object.__setattr__(self, "tokens", tuple(names))
        object.__setattr__(self, "probs", probs)
        object.__setattr__(self, "samples", tuple(clean))
        object.__setattr__(self, "continuations", tuple(conts))

    @property
    def n(self) -> int:
        """Number of candidate tokens."""
        return len(self.tokens)

    @property
    def pi(self) -> np.ndarray:
        """The probabilities as a float64 array."""
        return np.array(self.probs, dtype=np.float64)

    @property
    def q(self) -> np.ndarray:
        """Q per token: the mean judge score of the answers that began with it."""
        return np.array([math.fsum(s) / len(s) for s in self.samples], dtype=np.float64)

    def index(self, token: str) -> int:
        """Position of ``token`` in ``tokens``."""
        try:
            return self.tokens.index(token)
        except ValueError:
            raise ValueError(f"token must be one of {list(self.tokens)}, got {token!r}") from None


def check_scenario(scenario, name: str = "scenario") -> Scenario:
    """``scenario`` itself if it is a Scenario, else ValueError naming the argument."""
    if not isinstance(scenario, Scenario):
        raise ValueError(f"{name} must be an rlcore.Scenario, got {type(scenario).__name__}")
    return scenario


def _as_tuple(name: str, value) -> tuple:
    if isinstance(value, (str, bytes, dict, set, frozenset)) or not hasattr(value, "__iter__"):  # ordered items
        raise ValueError(f"{name} must be a list, got {_short(value)}")
    return tuple(value)


def _short(value) -> str:
    """``repr(value)`` cut to 60 characters (a 401-digit number or a long text stays readable)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**60:
        return f"a number with {len(str(abs(value)))} digits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _number(name: str, value, low: float, high: float) -> float:
    """A finite float in [low, high]; numbers too large for a float (10**400) are out of range, not a crash."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number, got {value!r}")
    try:
        x = float(value)
    except OverflowError:
        x = math.inf
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {_short(value)}") from None
    if not low <= x <= high:  # also false for nan
        raise ValueError(f"{name} must be a number between {_plain(low)} and {_plain(high)}, got {_short(value)}")
    return x


def _plain(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


_ALLOWED = ("L", "M", "N", "P", "S", "Zs")  # Unicode categories: letters, marks, numbers, punctuation, ...


# Characters a page would draw as nothing, though their category is allowed: Unicode's default-ignorable
# letters and marks (Hangul fillers, the grapheme joiner, variation selectors, Khmer inherent vowels,
# Mongolian variation selectors) and the blank Braille pattern. Cf and Cn, the rest of that property,
# are refused by category. An emoji's own selector (U+FE0E, U+FE0F after a symbol) stays allowed.
INVISIBLE = frozenset([0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x2800, 0x3164,
                       0xFFA0, *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)])
_EMOJI_SELECTORS = (0xFE0E, 0xFE0F)


def browser_length(text: str) -> int:
    """Length as a browser's text field counts it (UTF-16 units): a character beyond U+FFFF counts as two.

    >>> browser_length("open"), browser_length("😀😀"), len("😀😀")
    (4, 4, 2)
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {_short(text)}")
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text)


def _name(name: str, token: str) -> str:
    """A token's name: stripped, in composed form (NFC), a printable text with no space but U+0020."""
    text = _text(name, unicodedata.normalize("NFC", token.strip()), MAX_TOKEN_CHARS)
    odd = next((ch for ch in text if unicodedata.category(ch) == "Zs" and ch != " "), None)
    if odd is not None:
        raise ValueError(f"{name} may use only the plain space between words; character U+{ord(odd):04X} "
                         f"({unicodedata.name(odd, 'a space')}) looks the same and is not allowed")
    return text


def _text(name: str, text, limit: int) -> str:
    """``text`` itself if it is a string of at most ``limit`` printable, visible characters, else ValueError."""
    if not isinstance(text, str):
        raise ValueError(f"{name} must be a string, got {_short(text)}")
    n = browser_length(text)
    if n > limit:
        counted = "" if n == len(text) else " as a browser counts them (an emoji counts as two)"
        raise ValueError(f"{name} may hold at most {limit} characters, got {n}{counted}")
    for i, ch in enumerate(text):
        if not unicodedata.category(ch).startswith(_ALLOWED):
            raise ValueError(f"{name} must hold only letters, digits, punctuation, symbols and spaces; "
                             f"character U+{ord(ch):04X} ({_kind(ch)}) is not allowed")
        emoji_selector = ord(ch) in _EMOJI_SELECTORS and i > 0 and unicodedata.category(text[i - 1]) == "So"
        if ord(ch) in INVISIBLE and not emoji_selector:
            raise ValueError(f"{name} must hold only characters a page can show; character U+{ord(ch):04X} "
                             f"({unicodedata.name(ch, 'unnamed')}) shows as nothing and is not allowed")
    return text


def _kind(ch: str) -> str:
    cat = unicodedata.category(ch)
    return {"Cc": "a control character", "Cf": "an invisible formatting character", "Cs": "a lone surrogate",
            "Co": "a private-use character", "Cn": "not a character in Unicode",
            "Zl": "a line break", "Zp": "a paragraph break"}.get(cat, cat)


def normalize_probs(probs, keep=()) -> tuple[float, ...]:
    """Rescale non-negative weights so they sum to 1 (what the sidebar's "Rescale" does).

    The entries at the positions in ``keep`` stay as they are; the others are scaled together so that
    they fill what is left, 1 − (sum of the kept ones). With ``keep`` empty every entry is scaled.

    >>> normalize_probs([5, 3, 2])
    (0.5, 0.3, 0.2)
    >>> normalize_probs([0.6, 0.3, 0.2], keep=[0])  # 0.3 and 0.2 share the remaining 0.4 as 3 : 2
    (0.6, 0.24, 0.16)
    """
    try:
        arr = np.asarray(probs, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"probs must be a non-empty list of finite numbers, got {_short(probs)}") from None
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"probs must be a non-empty list of finite numbers, got {_short(probs)}")
    if np.any(arr < 0):
        raise ValueError(f"probs must be >= 0, got {arr.tolist()}")
    kept = np.zeros(arr.size, dtype=bool)
    try:
        positions = list(keep)
    except TypeError:
        raise ValueError(f"keep must hold positions 0 to {arr.size - 1}, got {keep!r}") from None
    for i in positions:
        if not (isinstance(i, (int, np.integer)) and 0 <= i < arr.size):
            raise ValueError(f"keep must hold positions 0 to {arr.size - 1}, got {keep!r}")
        kept[i] = True
    room = 1.0 - math.fsum(arr[kept])
    if room < 0 or np.any(arr[kept] > 1):
        raise ValueError(f"probs kept as they are add up to {1 - room:.4g}, more than 1")
    free = arr[~kept]
    total = free.sum()
    if total <= 0:
        if abs(room) <= PROB_TOL:  # nothing left to fill
            return tuple(float(round(p, 15)) for p in arr)
        raise ValueError(f"probs must not all be 0, got {arr.tolist()}" if not kept.any() else
                         f"probs left to rescale are all 0, so they cannot fill {room:.4g}")
    out = arr.copy()
    out[~kept] = free / total * room
    last = np.flatnonzero(~kept)[-1]
    out[last] = 0.0
    out[last] = max(0.0, 1.0 - math.fsum(out))  # keep the sum within rounding of 1
    return tuple(float(round(p, 15)) for p in out)


ARTICLE_SCENARIO = Scenario(
    tokens=("open", "closed", "partly"),
    probs=(0.5, 0.3, 0.2),
    samples=((3, 1, 2, 1, 3), (5, 4, 6), (10, 8)),
    prompt="Is OpenAI open?",
    prefix="OpenAI is",
    continuations=(". It's in the name.", ", though it leaves out the open-weight models.",
                   ": some open weights."),
)
"""The article's example: open 0.5 → mean score 2, closed 0.3 → 5, partly 0.2 → 9."""

ARTICLE_ANSWER = "OpenAI is open. It's in the name."
"""The sampled answer the article follows for credit assignment (judge score 2)."""

ARTICLE_ANSWER_TOKENS = split_tokens(ARTICLE_ANSWER)
"""Its ten tokens: OpenAI, is, open, ., It, 's, in, the, name, ."""

ARTICLE_ANSWER_VALUES = (4.3, 4.3, 4.3, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 0.0)
"""V before each of the ten tokens, then after the last one (γ = 1)."""

ARTICLE_ANSWER_SCORE = 2.0
"""The judge's score of that answer."""


@dataclass(frozen=True)
class FlatteryBranch:
    """Inside the best branch, the plain continuation against a flattering one."""

    continuations: tuple[str, str]
    scores: tuple[float, float]
    ref_probs: tuple[float, float]

    @property
    def rewards(self) -> np.ndarray:
        return np.array(self.scores, dtype=np.float64)

    @property
    def p_ref(self) -> np.ndarray:
        return np.array(self.ref_probs, dtype=np.float64)


FLATTERY = FlatteryBranch(
    continuations=("some open weights.", "What a brilliant question!"),
    scores=(9.0, 9.6),
    ref_probs=(0.95, 0.05),
)
"""The article's reward-hacking example: the judge gives 9 to the plain answer, 9.6 to flattery,
and the reference model writes the flattering one 5% of the time."""

PRESETS: dict[str, Scenario] = {
    "The article's example": ARTICLE_SCENARIO,
    "Most likely is already best": Scenario(
        tokens=("partly", "closed", "open"),
        probs=(0.6, 0.25, 0.15),
        samples=((9, 10, 8), (5, 4, 6), (3, 1, 2)),
        continuations=ARTICLE_SCENARIO.continuations[::-1],
    ),
    "Best token is rare (2%)": Scenario(
        tokens=("open", "closed", "partly"),
        probs=(0.6, 0.38, 0.02),
        samples=((3, 1, 2, 1, 3), (5, 4, 6), (10, 8)),
        continuations=ARTICLE_SCENARIO.continuations,
    ),
    "Rare branch, sometimes right": Scenario(
        tokens=("simplify", "guess", "backtrack"),
        probs=(0.6, 0.35, 0.05),
        samples=((9, 9, 9, 2), (3, 4, 2), (10, 0)),
        prompt="Solve the puzzle.",
        prefix="First,",
        continuations=(" both sides, then solve.", " a value and check it.", " from the goal."),
    ),
}
"""Named scenarios a learner can pick from. In "Rare branch, sometimes right", training favours "simplify"
(mean score 7.25) over "backtrack" (mean 5), yet with a threshold of 8 "backtrack" is right on half its answers:
the case where RL raises pass@1 and lowers pass@k at large k."""


def answer_tokens(scenario: Scenario, token: str) -> tuple[str, ...]:
    """The whole answer that starts with ``token``: prefix, the token, its continuation.

    >>> answer_tokens(ARTICLE_SCENARIO, "open")
    ('OpenAI', 'is', 'open', '.', 'It', "'s", 'in', 'the', 'name', '.')
    """
    i = check_scenario(scenario).index(token)
    return (*split_tokens(scenario.prefix), scenario.tokens[i], *split_tokens(scenario.continuations[i]))

