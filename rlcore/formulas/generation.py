"""The loop inside one answer: state, action, trajectory, and a rule-based judge.

Generation model of the running example (deliberately simple): after the answer prefix the
policy chooses among the scenario's candidate tokens, sampled at a temperature τ; the answer then
goes on with the chosen token's continuation, one token at a time, each with probability 1; when
the answer is finished the judge's score is one of that token's sampled scores, drawn uniformly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .checks import as_probs, count, positive
from .example import Scenario, check_scenario, split_tokens
from .policy import temperature_probs

__all__ = [
    "GenerationStep", "JudgeChecks", "answer_matches", "answer_text", "join_tokens", "next_step", "rarest_token_shift",
    "rollout", "rule_based_judge", "step_rng",
]

THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
_NO_SPACE_BEFORE = re.compile(r"^(?:'\w*|[^\w\s(\[{\"“‘])")
_NO_SPACE_AFTER = {"(", "[", "{", "-", "/", "“", "‘"}


def rarest_token_shift(probs, temperature: float = 2.0) -> tuple[int, float, float]:
    """What a temperature does to the least likely token.

    Returns (a, π(a), π_τ(a)) for a = argmin π (the first one on a tie).

    Args:
        probs: shape [K], π at temperature 1.
        temperature: τ > 0.

    >>> a, before, after = rarest_token_shift([0.8, 0.2], 2.0)
    >>> a, before, round(after, 4)
    (1, 0.2, 0.3333)
    """
    p = as_probs("probs", probs)
    a = int(np.argmin(p))
    return a, float(p[a]), float(temperature_probs(p, positive("temperature", temperature))[a])


def join_tokens(tokens) -> str:
    """Tokens back into readable text: no space before punctuation or a clitic like 's.

    >>> join_tokens(["OpenAI", "is", "open", ".", "It", "'s", "in", "the", "name", "."])
    "OpenAI is open. It's in the name."
    >>> join_tokens(split_tokens("open-weight models, (some) of them"))
    'open-weight models, (some) of them'
    """
    if isinstance(tokens, str) or not hasattr(tokens, "__iter__"):
        raise ValueError(f"tokens must be a list of strings, got {tokens!r}")
    out = ""
    prev = None
    for i, tok in enumerate(tokens):
        if not isinstance(tok, str):
            raise ValueError(f"tokens[{i}] must be a string, got {tok!r}")
        if prev is not None and prev not in _NO_SPACE_AFTER and not _NO_SPACE_BEFORE.match(tok):
            out += " "
        out += tok
        prev = tok
    return out


def answer_text(scenario: Scenario, token: str, reasoning_of: str | None = None) -> str:
    """The answer that starts with ``token`` as text: prefix, token, a continuation.

    The continuation is ``token``'s own, or that of ``reasoning_of`` (another candidate), which
    makes an answer with the same conclusion but someone else's reasoning.

    >>> from .example import ARTICLE_SCENARIO as S
    >>> answer_text(S, "open")
    "OpenAI is open. It's in the name."
    >>> answer_text(S, "partly", reasoning_of="open")
    "OpenAI is partly. It's in the name."
    """
    i = check_scenario(scenario).index(token)
    if reasoning_of is not None and reasoning_of not in scenario.tokens:
        raise ValueError(f"reasoning_of must be one of {list(scenario.tokens)}, got {reasoning_of!r}")
    j = i if reasoning_of is None else scenario.index(reasoning_of)
    return join_tokens((*split_tokens(scenario.prefix), scenario.tokens[i],
                        *split_tokens(scenario.continuations[j])))


@dataclass(frozen=True)
class GenerationStep:
    """One round of the loop: the state, the policy over the next token, the token written.

    Fields:
        k: the step number, 0 for the decision right after the prefix.
        state: the answer tokens before this step (the prompt is part of the state too).
        candidates: the tokens the policy can write here.
        probs: π_τ over ``candidates`` (what was sampled from).
        base_probs: π over ``candidates`` at temperature 1.
        action: the token written (the action).
        action_index: its position in ``candidates``.
        done: whether this token finished the answer.
        score: the judge's score when ``done`` (its reward), else None.
        temperature: τ of this step.
    """

    k: int
    state: tuple[str, ...]
    candidates: tuple[str, ...]
    probs: tuple[float, ...]
    base_probs: tuple[float, ...]
    action: str
    action_index: int
    done: bool
    score: float | None
    temperature: float

    @property
    def action_prob(self) -> float:
        """π_τ of the token written."""
        return self.probs[self.action_index]

    @property
    def reward(self) -> float:
        """The reward of this step: 0 until the last token, which gets the judge's score."""
        return 0.0 if self.score is None else self.score


def step_rng(seed: int, k: int) -> np.random.Generator:
    """The generator of the k-th draw: the same (seed, k) always draws the same token and score."""
    return np.random.default_rng([count("seed", seed, low=0), count("k", k, low=0)])


def next_step(scenario: Scenario, written, seed: int, temperature: float = 1.0) -> GenerationStep:
    """Sample the next token of the answer, given the tokens written after the prefix so far.

    Step 0: a ~ π_τ over scenario.tokens. Steps 1…m: the chosen token's continuation, token by
    token, each with probability 1. The step that writes the last token also draws the judge's
    score uniformly from the chosen token's sampled scores. Randomness: ``step_rng(seed, k)``.

    Args:
        scenario: the running example.
        written: the k tokens written after the prefix so far (empty at the start).
        seed: an integer ≥ 0.
        temperature: τ > 0, used at the decision (later steps have a single candidate).

    Returns:
        GenerationStep for step k.

    >>> from .example import ARTICLE_SCENARIO as S
    >>> first = next_step(S, (), seed=0)
    >>> first.candidates, [round(p, 10) for p in first.probs]
    (('open', 'closed', 'partly'), [0.5, 0.3, 0.2])
    >>> next_step(S, ["open", "."], seed=0).candidates
    ('It',)
    """
    check_scenario(scenario)
    tau = positive("temperature", temperature)
    written = _written(scenario, written)
    k = len(written)
    rng = step_rng(seed, k)
    prefix = split_tokens(scenario.prefix)
    if k == 0:
        candidates = scenario.tokens
        base = scenario.pi
        probs = temperature_probs(base, tau)
        a = int(rng.choice(len(candidates), p=probs))
        chosen, rest = a, split_tokens(scenario.continuations[a])
        done = not rest
    else:
        chosen = scenario.index(written[0])
        rest = split_tokens(scenario.continuations[chosen])
        candidates = (rest[k - 1],)
        base = probs = np.ones(1)
        a = 0
        done = k == len(rest)
    score = None
    if done:
        scores = scenario.samples[chosen]
        score = float(scores[int(rng.integers(len(scores)))])
    return GenerationStep(k=k, state=(*prefix, *written), candidates=tuple(candidates),
                          probs=tuple(float(x) for x in probs), base_probs=tuple(float(x) for x in base),
                          action=candidates[a], action_index=a, done=done, score=score, temperature=tau)


def rollout(scenario: Scenario, seed: int, temperature: float = 1.0) -> tuple[GenerationStep, ...]:
    """The whole trajectory: ``next_step`` repeated until the answer is finished.

    >>> from .example import ARTICLE_SCENARIO as S
    >>> steps = rollout(S, seed=0)
    >>> len(steps) == len(split_tokens(S.continuations[S.index(steps[0].action)])) + 1
    True
    """
    check_scenario(scenario)
    steps: list[GenerationStep] = []
    while not steps or not steps[-1].done:
        steps.append(next_step(scenario, [s.action for s in steps], seed, temperature))
    return tuple(steps)


def _written(scenario: Scenario, written) -> tuple[str, ...]:
    if isinstance(written, str) or not hasattr(written, "__iter__"):
        raise ValueError(f"written must be a list of tokens, got {written!r}")
    written = tuple(written)
    if not written:
        return written
    if written[0] not in scenario.tokens:
        raise ValueError(f"written[0] must be one of {list(scenario.tokens)}, got {written[0]!r}")
    rest = split_tokens(scenario.continuations[scenario.index(written[0])])
    if len(written) > len(rest):
        raise ValueError(f"written already holds the whole answer ({1 + len(rest)} tokens): it is finished")
    if written[1:] != rest[:len(written) - 1]:
        raise ValueError(f"written must follow the continuation of {written[0]!r}, got {list(written)}")
    return written


@dataclass(frozen=True)
class JudgeChecks:
    """What the rule-based judge looked at."""

    format_ok: bool      # one <think>…</think> block, at the start, with some reasoning in it
    answer_ok: bool      # the final answer ends with the expected answer
    reasoning: str       # the text between the tags ("" when there is none)
    final_answer: str    # the text after </think> (the whole text when there is no </think>)


def rule_based_judge(text: str, expected: str) -> tuple[float, JudgeChecks]:
    """A rule-based judge in the style of DeepSeek-R1-Zero: one point for format, one for the answer.

    score = 1[format] + 1[answer], so 0, 1 or 2.

    Format: the text (after leading spaces) starts with <think>, holds exactly one <think> and one
    </think> in that order, and the reasoning between them is not empty.
    Answer: the final answer is the text after </think> (the whole text if there is no </think>);
    it is right when, ignoring case, punctuation and spacing, its last words are the expected
    answer (so "OpenAI is partly." matches "partly"). Neither rule reads the reasoning itself.

    Source: DeepSeek-AI (2025), "DeepSeek-R1", §2.2.2 (accuracy and format rewards).

    Args:
        text: the answer to judge.
        expected: the correct final answer, not empty.

    Returns:
        (score, JudgeChecks).

    >>> rule_based_judge("<think>Some weights are open.</think> partly", "partly")[0]
    2.0
    >>> rule_based_judge("OpenAI is partly.", "partly")[0]
    1.0
    >>> rule_based_judge("<think>It's in the name.</think> open", "partly")[0]
    1.0
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {text!r}")
    if not isinstance(expected, str) or not expected.strip():
        raise ValueError(f"expected must not be empty, got {expected!r}")
    n_open, n_close = text.count(THINK_OPEN), text.count(THINK_CLOSE)
    start, end = text.find(THINK_OPEN), text.find(THINK_CLOSE)
    reasoning = text[start + len(THINK_OPEN):end].strip() if 0 <= start < end else ""
    format_ok = (n_open == 1 and n_close == 1 and text.lstrip().startswith(THINK_OPEN)
                 and start < end and bool(reasoning))
    final = text[text.rfind(THINK_CLOSE) + len(THINK_CLOSE):] if n_close else text
    answer_ok = answer_matches(final, expected)
    return float(format_ok) + float(answer_ok), JudgeChecks(format_ok, answer_ok, reasoning, final.strip())


def answer_matches(final: str, expected: str) -> bool:
    """Whether ``final`` ends with the words of ``expected`` (ignoring case and punctuation).

    An ``expected`` with no letters or digits at all (say ``"?!"``) must end the stripped text as it is.

    >>> answer_matches("OpenAI is partly.", "Partly"), answer_matches("partly open", "partly")
    (True, False)
    """
    for name, text in (("final", final), ("expected", expected)):
        if not isinstance(text, str):
            raise ValueError(f"{name} must be a string, got {type(text).__name__}")
    want, got = _words(expected), _words(final)
    if not want:  # an expected answer made only of symbols: compare the text as it is
        return bool(expected.strip()) and final.strip().endswith(expected.strip())
    if len(got) < len(want):
        return False
    return got[len(got) - len(want):] == want


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", str(text).lower())
