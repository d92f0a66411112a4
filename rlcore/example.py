"""The running example as data: a prompt, an answer prefix, and the next-token choice.

Every page reads the scenario from here, so a learner who edits it (other tokens,
probabilities or judge scores) sees every page follow.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from ._checks import PROB_TOL, as_real

MAX_TOKENS = 12
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
        tokens: the candidate next tokens, unique non-empty names.
        probs: the policy's probability for each token; in [0, 1], summing to 1 within 1e-9.
        samples: for each token, the judge scores of the sampled answers that began with it.
        prompt: the question the model answers.
        prefix: the part of the answer already written.
        continuations: for each token, the text the answer goes on with after it.
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
                raise ValueError(f"tokens[{i}] must be a non-empty string, got {tok!r}")
            names.append(tok.strip())
        dupes = sorted({t for t in names if names.count(t) > 1})
        if dupes:
            raise ValueError(f"tokens must be unique, got duplicates {dupes}")
        n = len(names)

        probs = _as_tuple("probs", self.probs)
        if len(probs) != n:
            raise ValueError(f"probs must have one entry per token ({n}), got {len(probs)}")
        probs = tuple(as_real(f"probs[{i}]", p) for i, p in enumerate(probs))
        for i, p in enumerate(probs):
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"probs[{i}] must lie in [0, 1], got {p!r}")
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
            clean.append(tuple(as_real(f"samples[{i}][{j}]", s) for j, s in enumerate(group)))

        conts = _as_tuple("continuations", self.continuations) if self.continuations else ("",) * n
        if len(conts) != n:
            raise ValueError(f"continuations must have one entry per token ({n}), got {len(conts)}")
        for name, text in (("prompt", self.prompt), ("prefix", self.prefix), *(
                (f"continuations[{i}]", c) for i, c in enumerate(conts))):
            if not isinstance(text, str):
                raise ValueError(f"{name} must be a string, got {text!r}")

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
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise ValueError(f"{name} must be a list, got {value!r}")
    return tuple(value)


def normalize_probs(probs) -> tuple[float, ...]:
    """Rescale non-negative weights so they sum to 1 (what the sidebar's "normalise" does).

    >>> normalize_probs([5, 3, 2])
    (0.5, 0.3, 0.2)
    """
    try:
        arr = np.asarray(probs, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"probs must be a non-empty list of finite numbers, got {probs!r}") from None
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"probs must be a non-empty list of finite numbers, got {probs!r}")
    if np.any(arr < 0):
        raise ValueError(f"probs must be >= 0, got {arr.tolist()}")
    total = arr.sum()
    if total <= 0:
        raise ValueError(f"probs must not all be 0, got {arr.tolist()}")
    out = arr / total
    out[-1] = 1.0 - out[:-1].sum()  # keep the sum within rounding of 1
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

