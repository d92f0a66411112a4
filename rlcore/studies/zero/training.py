"""RL on the tiny model, R1-Zero style: sample a group of answers per problem, judge them, push.

Every step: draw ``prompts`` training problems (never a held-out one), sample ``group_size`` answers to each at
temperature 1, score them with the rule-based judge, turn the scores into advantages, and take ``epochs``
Adam steps on the clipped objective (minus β·k3 when ``beta`` > 0). The formulas are the ones every page
uses, not copies:

- advantages: ``rlcore.credit.group_advantages`` (GRPO, Dr. GRPO: one value per answer), or for PPO
  ``rlcore.credit.gae`` on the critic's V(s_t) (one value per token, γ = 1; the critic: ``critic``); RFT
  (rejection-sampling fine-tuning, as in STaR and RFT) is the baseline on the same samples: advantage 1 on the answers
  the judge gives full marks, 0 on the rest, so its loss is supervised learning on the model's own right answers;
- the weight of each token's ∇log π: ``rlcore.aggregation.gradient_weights`` (PPO's clip) and
  ``rlcore.aggregation.token_weights`` (GRPO: seq-mean-token-mean; Dr. GRPO: seq-mean-token-sum-norm;
  PPO: token-mean);
- the KL to the base model: ``rlcore.kl.kl_estimators`` (k3 in the loss; its ∂k3/∂log π = 1 − π_ref/π).

After every step (and once before the first) the policy answers the fixed held-out problems ``k`` times each
at temperature 1 and the run records pass@1, pass@k, mean answer length, entropy, KL to the base and reward, each
also per problem size or per answer position where the page shows it there, and the first answer to one problem of
each size (the same problems, from the same seeded draws, at every step).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields

import numpy as np

from ...formulas.aggregation import answer_weights, gradient_weights, token_weights
from ...formulas.checks import count, in_range, non_negative, positive
from ...formulas.credit import gae, group_advantages
from ...formulas.diagnostics import entropy, pass_at_k_estimate
from ...formulas.kl import kl_estimators
from ...formulas.policy import log_softmax
from . import critic, task, warmup
from .model import (
    Model,
    adam_init,
    adam_step,
    backward,
    extend,
    forward,
    generate,
    log_prob_grad,
    prefill,
    repeat_cache,
)

ALGORITHMS = ("grpo", "dr_grpo", "ppo", "rft", "rft_offline", "star")
AGGREGATION = {"grpo": "seq-mean-token-mean", "dr_grpo": "seq-mean-token-sum-norm", "ppo": "token-mean",
               "rft": "token-mean", "rft_offline": "token-mean", "star": "token-mean"}
FILTERED = ("rft", "rft_offline", "star")   # supervised learning on the sampled answers with full marks
KL_PLACES = ("loss", "reward")
EVAL_STREAM = 1           # the held-out answers draw from their own seeded stream, the same draws every step
CRITIC_STREAM = 2         # the base's answers the critic is warmed up on draw from theirs
CRITIC_ANSWERS = 1024     # answers of the base model PPO's critic is fitted on before the first update
CRITIC_RIDGE = 1e-3       # the ridge of that least-squares fit
LENGTH_BETA = 0.05        # the KL penalty a length cost comes with when β is not given: the cost alone does not keep
                          # small answers short (their working drifts up with the large ones' through shared weights)
LENGTH_ON = {"length_cost": 0.1, "beta": LENGTH_BETA}  # page 19's "length cost on": the per-token cost on right
                          # answers with its KL penalty to the base
ROWS_AT_ONCE = 128        # answers a backward pass holds at once (the default batch, 16 × 8; G = 16 is two parts)
PASSK_STREAM = 3          # the pass@k curves' answers draw from their own seeded stream
PASSK_CHUNK = 2048        # held-out answers generated at once (pass@k, best-of-n): 8192 peaked 377 MB, 2048 131 MB


@dataclass(frozen=True)
class ZeroConfig:
    """The settings of one run; the defaults are the default run.

    >>> ZeroConfig(steps=2, group_size=2, prompts=2).k
    8
    """

    algorithm: str = "grpo"       # "grpo", "dr_grpo", "ppo" (value head and GAE), or a filtered baseline: "rft"
                                  # (online: REINFORCE with a 0/1 reward), "rft_offline" (only the base's samples),
                                  # "star" (expert iteration: the sampler refreshed every steps / rounds steps)
    rounds: int = 4               # "star": rounds of sample → filter → SFT
    length_cost: float = 0.0      # a per-token length penalty in score units on right answers: the reward is the
                                  # judge's score minus length_cost × the visible tokens of a right answer (0 = none)
    steps: int = 100              # updates
    group_size: int = 8           # G answers per problem
    prompts: int = 16             # problems per step
    lr: float = 3e-4              # Adam's step size
    beta: float | None = None     # KL-to-base coefficient; 0 = no KL term; None: LENGTH_BETA with a length cost, else 0
    kl_in: str = "loss"           # "loss": β·k3 in the loss; "reward": −β·log(π/π_ref) in each token's reward
    clip_eps: float = 0.2         # PPO's ε (the ratio's clip)
    epochs: int = 1               # Adam steps on each batch (the ratio leaves 1 from the second on)
    gae_lambda: float = 0.95      # PPO's λ
    value_coef: float = 0.5       # PPO: weight of the value loss ½(V − return)²
    critic_refit: bool = True     # PPO: the critic is linear on what the state holds (``critic``: the hidden state,
                                  # the size and position, the policy's confidence) and refit by least squares after
                                  # each update (False: the value head on the hidden state, by Adam on the value loss)
    k: int = 8                    # answers per held-out problem; the k of pass@k
    passk_max: int = 1024         # the largest k of the run's pass@k curves, from that many answers per problem

    def __post_init__(self):
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {list(ALGORITHMS)}, got {self.algorithm!r}")
        if self.kl_in not in KL_PLACES:
            raise ValueError(f"kl_in must be one of {list(KL_PLACES)}, got {self.kl_in!r}")
        if self.beta is None:   # not given: a length cost comes with its KL penalty (LENGTH_BETA), else none
            cost = in_range("length_cost", self.length_cost, 0.0, 1.0)
            object.__setattr__(self, "beta", LENGTH_BETA if cost > 0 else 0.0)
        checked = {
            "steps": count("steps", self.steps, low=1, high=2000),
            "group_size": count("group_size", self.group_size, low=2, high=64),
            "prompts": count("prompts", self.prompts, low=1, high=256),
            "epochs": count("epochs", self.epochs, low=1, high=8),
            "rounds": count("rounds", self.rounds, low=1, high=100),
            "k": count("k", self.k, low=8, high=64),
            "passk_max": count("passk_max", self.passk_max, low=1, high=4096),
            "lr": positive("lr", self.lr),
            "beta": in_range("beta", self.beta, 0.0, 10.0),
            "clip_eps": in_range("clip_eps", self.clip_eps, 1e-3, 1.0),
            "gae_lambda": in_range("gae_lambda", self.gae_lambda, 0.0, 1.0),
            "value_coef": non_negative("value_coef", self.value_coef),
            "length_cost": in_range("length_cost", self.length_cost, 0.0, 1.0),
        }
        if not isinstance(self.critic_refit, bool | np.bool_):
            raise ValueError(f"critic_refit must be True or False, got {self.critic_refit!r}")
        object.__setattr__(self, "critic_refit", bool(self.critic_refit))
        if checked["lr"] > 0.1:
            raise ValueError(f"lr must be <= 0.1, got {self.lr!r}")
        for name, value in checked.items():   # whole numbers as int, the rest as float (so 8.0 is stored as 8)
            object.__setattr__(self, name, value)


@dataclass(frozen=True)
class Measure:
    """The held-out figures of one model."""

    pass1: float
    passk: float
    length: float          # mean visible tokens per answer (<end> not counted)
    entropy: float         # mean entropy of π per written token (<end> counted), nats
    kl: float              # mean k3 estimate of KL(π‖π_base) per written token, nats
    reward: float          # mean judge score (0, 1 or 2)
    worked_share: float    # share of answers that show their working
    worked_pass: float     # pass rate of worked answers (nan when there are none)
    immediate_pass: float  # pass rate of answers given at once (nan when there are none)
    length_by_size: np.ndarray       # [S] mean length on the problems of each size (task.SIZES)
    pass1_by_size: np.ndarray        # [S] pass@1 on the problems of each size
    length_share: np.ndarray         # [MAX_ANSWER + 1] the share of answers of each length in tokens (sums to 1)
    kl_by_position: np.ndarray       # [MAX_ANSWER] mean k3 at each answer position (nan where no answer reaches)
    entropy_by_position: np.ndarray  # [MAX_ANSWER] mean entropy of π at each answer position (nan likewise)
    samples: tuple[str, ...]         # the first answer's text to each problem of SHOWN (one per size)
    wrong_length: float = float("nan")  # mean length of the wrong answers (nan when none is wrong)


@dataclass(frozen=True)
class Update:
    """One training step's batch, for looking inside it (rows: prompts × group_size answers)."""

    problems: np.ndarray     # [prompts, 2·MAX_SIZE − 1]
    answers: np.ndarray      # [n, MAX_ANSWER] tokens (<pad> after <end>)
    mask: np.ndarray         # [n, MAX_ANSWER] the tokens the loss sees (up to and including <end>)
    prob: np.ndarray         # [n, MAX_ANSWER] π_old of each token
    advantage: np.ndarray    # [n, MAX_ANSWER] Â of each token (0 off the mask)
    ratio: np.ndarray        # [n, MAX_ANSWER] π/π_old at the last epoch
    clipped: np.ndarray      # [n, MAX_ANSWER] whether PPO's clip zeroed the token's gradient at the last epoch
    right: np.ndarray        # [n]
    well_formed: np.ndarray  # [n]
    score: np.ndarray        # [n]
    push: np.ndarray         # [MAX_ANSWER] each answer position's share of Σ|∂loss/∂log π| (the update's push)
    explained: float = float("nan")  # PPO: the share of the returns' variance V explained before the update


@dataclass(frozen=True)
class ZeroStep:
    step: int                 # 0 is the base model, before any update
    measure: Measure
    update: Update | None     # None at step 0
    model: Model


@dataclass(frozen=True)
class ZeroRun:
    """A whole run: each curve has steps + 1 entries, index 0 the base model."""

    config: ZeroConfig
    seed: int
    k: int
    pass1: np.ndarray
    passk: np.ndarray
    length: np.ndarray
    entropy: np.ndarray
    kl: np.ndarray
    reward: np.ndarray
    worked_share: np.ndarray
    worked_pass: np.ndarray
    immediate_pass: np.ndarray
    updates: tuple[Update, ...]
    model: Model              # the trained policy
    sizes: np.ndarray                # [S] the held-out problems' sizes, ascending (task.SIZES)
    length_by_size: np.ndarray       # [steps + 1, S]
    pass1_by_size: np.ndarray        # [steps + 1, S]
    length_share: np.ndarray         # [steps + 1, MAX_ANSWER + 1] (rows sum to 1)
    kl_by_position: np.ndarray       # [steps + 1, MAX_ANSWER]
    entropy_by_position: np.ndarray  # [steps + 1, MAX_ANSWER]
    samples: tuple[tuple[str, ...], ...]  # [steps + 1][S] the answers to the SHOWN problems at each step
    wrong_length: np.ndarray = field(default_factory=lambda: np.zeros(0))  # [steps + 1] mean length of wrong answers
    # the pass@k curves on the held-out problems, measured at the end of a whole run (empty for a stopped one):
    passk_ks: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # the ks, 1 … passk_max
    passk_base: np.ndarray = field(default_factory=lambda: np.zeros(0))     # [ks] the base model's pass@k
    passk_trained: np.ndarray = field(default_factory=lambda: np.zeros(0))  # [ks] the trained model's, as many answers
    passk_guess: np.ndarray = field(default_factory=lambda: np.zeros(0))    # [ks] a uniform guesser's (task.guess_rate)

    @property
    def value_of_working(self) -> np.ndarray:
        """[len(sizes), R + 1] the base's pass@1 by problem size and results written, 0 … R = MAX_SIZE − 2 (nan where
        a size does not allow that many): ``warmup.value_of_working``, the same for every run."""
        return warmup.value_of_working()

    def wrong_length_gap(self, other: ZeroRun) -> float:
        """How many tokens longer this run's wrong held-out answers are than ``other``'s at the end (GRPO against Dr.
        GRPO: Liu et al. 2025 found GRPO's per-answer mean lets wrong answers grow long); nan where either has none."""
        if not isinstance(other, ZeroRun):
            raise ValueError(f"other must be a ZeroRun, got {type(other).__name__}")
        return float(self.wrong_length[-1] - other.wrong_length[-1])

    @property
    def explained_end(self) -> float:
        """PPO's explained variance at the end: the mean over the last 10 updates (nan for the other algorithms)."""
        tail = self.explained[-10:]
        return float(tail.mean()) if tail.size and np.isfinite(tail).all() else float("nan")

    @property
    def adaptive_length(self) -> bool:
        """Whether the answers' length followed the problem: the smallest size's final mean length within half a token
        of its step-0 length while the largest size's grew 1.5-fold or more."""
        small, large = self.length_by_size[:, 0], self.length_by_size[:, -1]
        return bool(small[-1] <= small[0] + 0.5 and large[-1] >= 1.5 * large[0])

    @property
    def catches_up(self) -> int | None:
        """The smallest k at which the base's pass@k comes within half a point of the trained model's (None: it
        never does up to passk_max, or there are no curves)."""
        near = np.flatnonzero(self.passk_base >= self.passk_trained - 0.005)
        return int(self.passk_ks[near[0]]) if near.size else None

    @property
    def explained(self) -> np.ndarray:
        """[updates] PPO's explained variance before each update (nan for the other algorithms)."""
        return np.array([u.explained for u in self.updates], dtype=np.float64)

    @property
    def push(self) -> np.ndarray:
        """[updates, MAX_ANSWER] each update's push per answer position (rows sum to 1; empty before any)."""
        return np.array([u.push for u in self.updates]).reshape(len(self.updates), task.MAX_ANSWER)


# ---------------------------------------------------------------- pieces


def answer_mask(answers: np.ndarray) -> np.ndarray:
    """True on each answer's tokens up to and including its first <end> (every written token if none)."""
    ended = np.cumsum(answers == task.END, axis=1)
    return (ended == 0) | ((ended == 1) & (answers == task.END))


def _answer_logits(model: Model, seq: np.ndarray):
    """Forward on prompt + answer (the last token is never an input): the forward pass, the log-softmax at
    the answer's slots [n, L, V], the log-probability of each answer token [n, L] and V before it [n, L]."""
    fwd = forward(model, seq[:, :-1])
    start = task.PROMPT_LEN - 1
    lp_all = log_softmax(fwd.logits[:, start:])
    lp = np.take_along_axis(lp_all, seq[:, task.PROMPT_LEN:, None], axis=-1)[..., 0]
    return fwd, lp_all, lp, fwd.values[:, start:]


def answer_log_probs(model: Model, prompts: np.ndarray, answers: np.ndarray, repeat: int = 1) -> np.ndarray:
    """log π(each answer token) [n, L] under ``model``, for ``repeat`` answers in a row to each prompt: the prompts run
    once, the answers after them in one pass (no gradient: for the base model, the reference)."""
    logits, cache = prefill(model, prompts)
    cache, first = repeat_cache(cache, repeat), np.repeat(logits[:, -1:], repeat, axis=0)
    rest = extend(model, answers[:, :-1], task.PROMPT_LEN, cache)[0]
    lp_all = log_softmax(np.concatenate([first, rest], axis=1))
    return np.take_along_axis(lp_all, answers[..., None], axis=-1)[..., 0]


def shown_problems() -> np.ndarray:
    """The held-out problems whose answers a run keeps as text at every step: the first of each size, smallest first
    (indices into ``task.held_out_problems()``).

    >>> task.sizes_of(task.held_out_problems()[shown_problems()]).tolist()
    [2, 3, 4, 5, 6, 7]
    """
    sizes = task.sizes_of(task.held_out_problems())
    return np.array([int(np.flatnonzero(sizes == m)[0]) for m in task.SIZES])


def _per_position(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The mean of ``values`` [n, L] over the answers that reach each position [L] (nan where none does)."""
    n = mask.sum(axis=0)
    total = np.where(mask, values, 0.0).sum(axis=0)
    return np.where(n > 0, total / np.maximum(n, 1), np.nan)


def measure(model: Model, base: Model, seed: int, k: int) -> Measure:
    """Answer each held-out problem k times at temperature 1 and judge them (the draws depend only on seed)."""
    held = task.held_out_problems()
    problems = np.repeat(held, k, axis=0)
    rng = np.random.default_rng([seed, EVAL_STREAM])
    seq, logits = generate(model, task.prompts(held), task.MAX_ANSWER, rng, end=task.END, pad=task.PAD,
                           return_logits=True, repeat=k)
    ans = seq[:, task.PROMPT_LEN:]
    right, _, score = task.judge_batch(ans, problems)
    mask = answer_mask(ans)
    lp_all = log_softmax(logits)
    lp = np.take_along_axis(lp_all, ans[..., None], axis=-1)[..., 0]
    lp_base = lp if model is base else answer_log_probs(base, task.prompts(held), ans, k)  # itself: KL exactly 0
    h = np.zeros(mask.shape)
    h[mask] = entropy(np.exp(lp_all[mask]))
    kl = np.zeros(mask.shape)
    kl[mask] = kl_estimators(lp[mask], lp_base[mask]).k3
    c = right.reshape(len(held), k).sum(axis=1)
    worked = ans[:, 0] == task.WORK
    lengths = mask.sum(axis=1) - (ans == task.END).any(axis=1)       # visible tokens: <end> not counted
    sizes = task.sizes_of(problems)

    def rate(rows):
        return float(right[rows].mean()) if rows.any() else float("nan")

    def by_size(values):
        return np.array([values[sizes == m].mean() for m in task.SIZES], dtype=np.float64)

    return Measure(float(right.mean()), float(np.mean([pass_at_k_estimate(k, int(ci), k) for ci in c])),
                   float(lengths.mean()), float(h[mask].mean()), float(kl[mask].mean()), float(score.mean()),
                   float(worked.mean()), rate(worked), rate(~worked), by_size(lengths), by_size(right),
                   np.bincount(lengths, minlength=task.MAX_ANSWER + 1) / len(lengths), _per_position(kl, mask),
                   _per_position(h, mask), tuple(task.answer_text(ans[i * k]) for i in shown_problems()),
                   float(lengths[~right].mean()) if (~right).any() else float("nan"))


@dataclass(frozen=True)
class PassCurve:
    """pass@k for k = 1 … n on the held-out problems, for the shipped base model and a trained one, from the same
    n answers per problem each (Yue et al. 2025 compare RL's gain at k = 1 with its gain at large k)."""

    k: np.ndarray       # 1, 2, …, n
    base: np.ndarray    # [n] the base model's pass@k
    model: np.ndarray   # [n] the trained model's pass@k

    @property
    def change(self) -> str:
        """What RL changed, read from the curves' ends: "none" (pass@1 did not rise by half a point), "lost" (pass@n
        fell), "full" (pass@n is 1 before and after), "narrow" (pass@1 gained more than pass@n), else "wide".

        >>> PassCurve(np.arange(1, 3), np.array([0.3, 1.0]), np.array([0.6, 1.0])).change
        'full'
        """
        low, high = self.model[0] - self.base[0], self.model[-1] - self.base[-1]  # the gains at k = 1 and k = n
        if low < 0.005:
            return "none"
        if high < -0.005:
            return "lost"
        if min(self.base[-1], self.model[-1]) > 0.995:
            return "full"
        return "narrow" if low > high + 0.01 else "wide"


def pass_curve(model: Model, seed: int = 0, n: int = 64) -> PassCurve:
    """Each model answers every held-out problem ``n`` times at temperature 1 (the draws depend only on ``seed``);
    pass@k is Chen et al.'s unbiased estimate from those n, averaged over the problems.

    Args:
        model: the trained model (a ``ZeroRun``'s ``model``); the base model is the shipped one.
        seed: the draws (≥ 0).
        n: answers per problem, 1 to 256: the largest k.

    >>> c = pass_curve(warmup.base_model(), 0, 4)
    >>> c.k.tolist(), bool(np.allclose(c.base, c.model))  # the base against itself, on the same draws
    ([1, 2, 3, 4], True)
    """
    if not isinstance(model, Model):
        raise ValueError(f"model must be a Model, got {type(model).__name__}")
    count("seed", seed, low=0)
    size = count("n", n, low=1, high=256)
    held = task.held_out_problems()
    ks = np.arange(1, size + 1)

    def curve(m: Model) -> np.ndarray:
        problems = np.repeat(held, size, axis=0)
        seq = _held_answers(m, held, size, np.random.default_rng([seed, EVAL_STREAM]))
        right = task.judge_batch(seq[:, task.PROMPT_LEN:], problems)[0].reshape(len(held), size).sum(axis=1)
        return np.array([np.mean([pass_at_k_estimate(size, int(c), int(k)) for c in right]) for k in ks])

    base = warmup.base_model()
    at_base = curve(base)
    return PassCurve(ks, at_base, at_base if model is base else curve(model))


@dataclass(frozen=True)
class PassK:
    """pass@k at ``ks`` on the held-out problems for the base, the trained model and a uniform guesser."""

    ks: np.ndarray
    base: np.ndarray
    trained: np.ndarray
    guess: np.ndarray


def passk_grid(n: int) -> np.ndarray:
    """The ks of a pass@k curve up to n: 1, 2, 3, 4, 6, 8, 12, … (two per doubling), and n itself.

    >>> passk_grid(64).tolist()
    [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]
    """
    n = count("n", n, low=1, high=4096)
    grid = {1, n} | {int(b * 2 ** e) for e in range(13) for b in (2, 3) if b * 2 ** e <= n}
    return np.array(sorted(grid), dtype=np.int64)


def _held_answers(model: Model, problems: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` answers (temperature 1) to each of ``problems``, each problem's in a row, drawn from ``rng``
    PASSK_CHUNK answers at a time at most (the KV cache of 84 × 64 answers at once took about 200 MB)."""
    per = max(1, PASSK_CHUNK // n)
    return np.concatenate([generate(model, task.prompts(problems[i:i + per]), task.MAX_ANSWER, rng, end=task.END,
                                    pad=task.PAD, repeat=n) for i in range(0, len(problems), per)])


def _right_counts(model: Model, seed: int, n: int) -> Iterator[np.ndarray | None]:
    """How many of ``n`` answers (temperature 1, their own seeded stream) to each held-out problem the judge finds
    right, a few problems at a time: None after each part, then the counts [problems]."""
    held = task.held_out_problems()
    rng = np.random.default_rng([seed, PASSK_STREAM])
    per, counts = max(1, PASSK_CHUNK // n), []
    for start in range(0, len(held), per):
        part = held[start:start + per]
        seq = generate(model, task.prompts(part), task.MAX_ANSWER, rng, end=task.END, pad=task.PAD, repeat=n)
        right = task.judge_batch(seq[:, task.PROMPT_LEN:], np.repeat(part, n, axis=0))[0]
        counts.append(right.reshape(len(part), n).sum(axis=1))
        yield None
    yield np.concatenate(counts)


def _pass_at_ks(counts: np.ndarray, n: int, ks: np.ndarray) -> np.ndarray:
    """Chen et al.'s unbiased pass@k (``rlcore.pass_at_k_estimate``) at each k of ``ks`` from ``counts`` right of n
    answers per problem, averaged over the problems."""
    values, times = np.unique(np.asarray(counts), return_counts=True)
    table = np.array([[pass_at_k_estimate(n, int(c), int(k)) for k in ks] for c in values])
    return times @ table / times.sum()


def guess_curve(ks) -> np.ndarray:
    """A uniform guesser's pass@k on the held-out problems: 1 − (1 − guess_rate(m))^k, averaged over them.

    >>> guess_curve([1, 64]).round(3).tolist()
    [0.01, 0.474]
    """
    if not isinstance(ks, list | tuple | np.ndarray) or len(ks) == 0:
        raise ValueError(f"ks must be a sequence of numbers, got {ks!r}")
    ks = np.array([count("ks", k, low=1) for k in ks])
    rate = np.array([task.guess_rate(int(m)) for m in task.sizes_of(task.held_out_problems())])
    return np.mean(1.0 - (1.0 - rate[None, :]) ** np.asarray(ks, dtype=np.float64)[:, None], axis=1)


_BASE_COUNTS: dict = {}   # (seed, n) → the base model's right counts: the same base in every run


def passk_steps(model: Model, seed: int, n: int) -> Iterator[PassK | None]:
    """The pass@k curves of a run's trained ``model`` from n answers per held-out problem each (the base's counted
    once per seed and n): None after each part of the sampling, then the ``PassK``.

    >>> curves = list(passk_steps(warmup.base_model(), 0, 2))[-1]
    >>> curves.ks.tolist(), bool(np.array_equal(curves.base, curves.trained))   # the base against itself
    ([1, 2], True)
    """
    if not isinstance(model, Model):
        raise ValueError(f"model must be a Model, got {type(model).__name__}")
    return _passk_parts(model, count("seed", seed, low=0), count("n", n, low=1, high=4096))


def _passk_parts(model: Model, seed: int, n: int) -> Iterator[PassK | None]:
    ks, base = passk_grid(n), warmup.base_model()
    if (seed, n) not in _BASE_COUNTS:
        for counts in _right_counts(base, seed, n):
            if counts is None:
                yield None
        _BASE_COUNTS[(seed, n)] = counts
    at_base = _pass_at_ks(_BASE_COUNTS[(seed, n)], n, ks)
    trained = at_base
    if model is not base:
        for counts in _right_counts(model, seed, n):
            if counts is None:
                yield None
        trained = _pass_at_ks(counts, n, ks)
    yield PassK(ks, at_base, trained, guess_curve(ks))


def best_of_n(n: int, seed: int = 0, draws: int = 64) -> float:
    """Best-of-n on the base model, the baseline that spends RL's samples at answer time instead: n answers to each
    held-out problem, the one the judge scores highest kept (the first drawn among equals); the share of kept
    answers that are right. Estimated from ``draws`` answers per problem (the same seeded draws as ``pass_curve``)
    split into draws // n sets of n.

    Args:
        n: answers per problem, 1 to ``draws`` (page 19 uses the group size G: RL's samples per problem and step).
        seed: the draws (≥ 0).
        draws: answers per problem, 1 to 256.

    >>> best_of_n(1, 0, 8) == base_measure(0, 8).pass1  # one answer: its pass@1, on the same draws
    True
    """
    draws = count("draws", draws, low=1, high=256)
    n = count("n", n, low=1, high=draws)
    count("seed", seed, low=0)
    held, base = task.held_out_problems(), warmup.base_model()
    seq = _held_answers(base, held, draws, np.random.default_rng([seed, EVAL_STREAM]))
    right, _, score = task.judge_batch(seq[:, task.PROMPT_LEN:], np.repeat(held, draws, axis=0))
    sets = draws // n
    right = right.reshape(len(held), draws)[:, :sets * n].reshape(len(held), sets, n)
    kept = score.reshape(len(held), draws)[:, :sets * n].reshape(len(held), sets, n).argmax(axis=-1)
    return float(np.take_along_axis(right, kept[..., None], axis=-1).mean())


def base_measure(seed: int, k: int) -> Measure:
    """The shipped base model on the held-out problems, as a run measures its step 0 (before any training).

    Args:
        seed: the evaluation's draws (≥ 0), as a run's.
        k: answers per problem (8 to 64), the k of pass@k.

    >>> m = base_measure(0, 8)
    >>> m.kl  # the base against itself
    0.0
    """
    count("seed", seed, low=0)
    count("k", k, low=8, high=64)
    base = warmup.base_model()
    return measure(base, base, seed, k)


def token_advantages(c: ZeroConfig, score: np.ndarray, values: np.ndarray, mask: np.ndarray,
                     kl: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """(Â per token [n, L], PPO's value targets or None): the group's advantage of each answer on all its tokens,
    RFT's 1 on the answers with full marks (right and well formed) and 0 on the rest, or PPO's GAE on the value
    head's V (γ = 1), whitened over the batch's tokens as PPO implementations do. ``kl`` [n, L]: log π/π_ref of each
    token when the KL penalty is in the reward (``kl_in="reward"``): −β·kl on each token (PPO), or −β·Σ kl off the
    answer's score (the group methods, whose credit is per answer)."""
    if c.algorithm in FILTERED:
        return np.where(mask, (score == 2.0)[:, None], 0.0), None
    penalty = np.zeros(mask.shape) if kl is None else -c.beta * np.where(mask, kl, 0.0)
    if c.algorithm == "ppo":
        rewards = _token_rewards(c, score, mask, kl)
        v = np.concatenate([np.where(mask, values, 0.0), np.zeros((len(mask), 1))], axis=1)
        adv = gae(rewards, v, 1.0, c.gae_lambda, mask)
        returns = adv + np.where(mask, values, 0.0)
        spread = adv[mask].std()
        white = (adv - adv[mask].mean()) / spread if spread > 0 else adv - adv[mask].mean()
        return np.where(mask, white, 0.0), returns
    groups = (score + penalty.sum(axis=1)).reshape(-1, c.group_size)
    adv = np.concatenate([group_advantages(g, c.algorithm) for g in groups])
    return np.where(mask, adv[:, None], 0.0), None


def _token_rewards(c: ZeroConfig, score: np.ndarray, mask: np.ndarray, kl: np.ndarray | None = None) -> np.ndarray:
    """PPO's reward of each token [n, L]: the answer's score on its last token, and −β·log(π/π_ref) on every token
    when the KL is in the reward (``kl``)."""
    last = mask & ~np.roll(mask, -1, axis=1)
    last[:, -1] = mask[:, -1]
    penalty = np.zeros(mask.shape) if kl is None else -c.beta * np.where(mask, kl, 0.0)
    return np.where(last, score[:, None], 0.0) + penalty


def explained_variance(values: np.ndarray, returns: np.ndarray, mask: np.ndarray) -> float:
    """1 − Var(return − V)/Var(return) over the answers' tokens: 1 for a perfect critic, 0 for one no better than
    the returns' mean, below 0 for a worse one (nan when the returns do not vary).

    >>> explained_variance(np.array([[1.0, 2.0]]), np.array([[1.0, 3.0]]), np.array([[True, True]]))  # 1 − 0.25/1
    0.75
    """
    r, v = returns[mask], values[mask]
    spread = r.var()
    return float(1 - (r - v).var() / spread) if spread > 0 else float("nan")


def _base_answers(model: Model, seed: int, prompts: int = 32):
    """``CRITIC_ANSWERS`` answers of ``model`` to training problems (their own seeded stream) for the critic's warm-up:
    (each answer's problem, prompt + answer, the answers' mask, each answer's score)."""
    rng = np.random.default_rng([seed, CRITIC_STREAM])
    group = CRITIC_ANSWERS // prompts
    problems = task.sample_problems(rng, prompts, exclude=task.held_out_problems())
    seq = generate(model, task.prompts(problems), task.MAX_ANSWER, rng, end=task.END, pad=task.PAD, repeat=group)
    ans, rows = seq[:, task.PROMPT_LEN:], np.repeat(problems, group, axis=0)
    return rows, seq, answer_mask(ans), task.judge_batch(ans, rows)[2]


def warm_critic(model: Model, seed: int, prompts: int = 32) -> Model:
    """``model`` with its value head fitted to the base's own answers before RL: ``CRITIC_ANSWERS`` answers to
    training problems (their own seeded stream), and V(s_t) = h_t·w + b fitted by ridge least squares to the return
    at every token (γ = 1: the answer's score). Only the value head changes, so the policy is the same model's."""
    _, seq, mask, score = _base_answers(model, seed, prompts)
    return _fit_value_head(model, seq, mask, np.broadcast_to(score[:, None], mask.shape))


def _warm_critic_fit(model: Model, seed: int) -> critic.Critic:
    """PPO's least-squares critic (``critic``) fitted to the base's own answers before RL (the same answers as
    ``warm_critic``'s): its first batch's V."""
    rows, seq, mask, score = _base_answers(model, seed)
    phi = _critic_features(_answer_logits(model, seq), rows, seq[:, task.PROMPT_LEN:])
    return critic.fit(None, phi, mask, np.broadcast_to(score[:, None], mask.shape))


def _critic_features(pre, rows: np.ndarray, ans: np.ndarray) -> np.ndarray:
    """φ of every answer state (``critic.features``) from ``_answer_logits``' forward pass and log-softmax."""
    return critic.features(pre[0].saved[2][:, task.PROMPT_LEN - 1:], pre[1], rows, ans)


def _fit_value_head(model: Model, seq: np.ndarray, mask: np.ndarray, targets: np.ndarray) -> Model:
    """``model`` with V(s_t) = h_t·w + b fitted by ridge least squares to ``targets`` [n, L] at the answers' tokens
    (``mask``) of ``seq`` (prompt + answer), on the model's own features h_t: only the value head changes."""
    hf = forward(model, seq[:, :-1]).saved[2][:, task.PROMPT_LEN - 1:]
    x = np.concatenate([hf[mask], np.ones((int(mask.sum()), 1))], axis=1)
    coef = np.linalg.solve(x.T @ x + CRITIC_RIDGE * np.eye(x.shape[1]), x.T @ np.asarray(targets)[mask])
    return Model({**model.params, "wv": coef[:-1].copy(), "bv": coef[-1:].copy()}, model.heads)


@dataclass(frozen=True)
class Grads:
    """One epoch's gradient and what the page shows of it."""

    grads: dict            # ∂loss/∂weights
    ratio: np.ndarray      # [n, L] π/π_old
    clipped: np.ndarray    # [n, L] where PPO's clip zeroed the token's gradient
    loss: float
    dlp: np.ndarray        # [n, L] ∂loss/∂log π of each token (0 off the mask)


def policy_grads(model: Model, c: ZeroConfig, seq: np.ndarray, mask: np.ndarray, adv: np.ndarray,
                 lp_old: np.ndarray, lp_ref: np.ndarray | None, returns: np.ndarray | None, pre=None) -> Grads:
    """The loss's gradient for one epoch: −Σ w·(clipped ρÂ − β·k3) (k3 when ``kl_in`` is "loss"), and for PPO
    the value loss ½·c·(V − return)², whose gradient reaches the value head only.

    ``pre``: this model's ``_answer_logits`` on ``seq`` when already computed. A batch of more than ROWS_AT_ONCE
    answers is taken that many rows at a time (the weights w are the whole batch's), its gradients summed, so the
    backward pass holds the activations of ROWS_AT_ONCE rows at most.
    """
    w = token_weights(mask, AGGREGATION[c.algorithm], task.MAX_ANSWER)
    wv = token_weights(mask, "token-mean") if returns is not None else None
    if len(seq) <= ROWS_AT_ONCE:
        return _rows_grads(model, c, seq, mask, adv, lp_old, lp_ref, returns, w, wv, pre)

    def rows(a, r):
        return None if a is None else a[r]
    parts = [_rows_grads(model, c, seq[r], mask[r], adv[r], lp_old[r], rows(lp_ref, r), rows(returns, r), w[r],
                         rows(wv, r), None)
             for r in (slice(i, i + ROWS_AT_ONCE) for i in range(0, len(seq), ROWS_AT_ONCE))]
    return Grads({k: sum(part.grads[k] for part in parts) for k in parts[0].grads},
                 *(np.concatenate([getattr(part, f) for part in parts]) for f in ("ratio", "clipped")),
                 float(sum(part.loss for part in parts)), np.concatenate([part.dlp for part in parts]))


def _rows_grads(model: Model, c: ZeroConfig, seq, mask, adv, lp_old, lp_ref, returns, w, wv, pre) -> Grads:
    """``policy_grads`` on some rows of the batch, with their token weights ``w`` (and ``wv``, the value loss's)."""
    fwd, lp_all, lp, values = _answer_logits(model, seq) if pre is None else pre
    ans = seq[:, task.PROMPT_LEN:]
    ratio = np.where(mask, np.exp(np.where(mask, lp - lp_old, 0.0)), 1.0)
    coeff = gradient_weights(ratio, adv, "ppo", c.clip_eps)              # ∂(clipped ρÂ)/∂log π
    clipped = mask & (coeff == 0) & (adv != 0)
    objective = np.minimum(ratio * adv, np.clip(ratio, 1 - c.clip_eps, 1 + c.clip_eps) * adv)
    if c.beta > 0 and c.kl_in == "loss":
        est = kl_estimators(lp[mask], lp_ref[mask])
        k3 = np.zeros_like(lp)
        k3[mask] = est.k3
        dk3 = np.zeros_like(lp)
        dk3[mask] = -np.expm1(-est.k1)                                  # ∂k3/∂log π = 1 − π_ref/π
        coeff = coeff - c.beta * dk3
        objective = objective - c.beta * k3
    loss = -float(np.sum(w * objective))
    dlp = -w * coeff                                                    # ∂loss/∂log π(token)
    start = task.PROMPT_LEN - 1
    dlogits = np.zeros_like(fwd.logits)
    dlogits[:, start:] = log_prob_grad(lp_all, ans, dlp)
    grads = backward(model, fwd, dlogits)
    if returns is not None:  # the value loss trains the value head alone: the critic reads the policy's features
        dv = c.value_coef * wv * (values - returns)
        hf = fwd.saved[2][:, start:]
        grads["wv"], grads["bv"] = np.einsum("ntd,nt->d", hf, dv), np.array([dv.sum()])
        loss += float(c.value_coef * 0.5 * np.sum(wv * (values - returns) ** 2))
    return Grads(grads, ratio, clipped, loss, dlp)


@dataclass(frozen=True)
class Answer:
    """One sampled answer to a typed problem, token by token."""

    tokens: tuple[str, ...]   # the written tokens, <end> included when it was written
    probs: np.ndarray         # π of each written token at temperature 1
    text: str                 # what the judge reads
    verdict: task.Verdict
    answer: int               # the right answer (0 … 99)


def answer(model: Model, problem: str, seed: int = 0) -> Answer:
    """The model answers a problem typed as text (``"3 + 4 * 2 + 7"``), sampled at temperature 1.

    >>> from rlcore.studies.zero.warmup import base_model
    >>> answer(base_model(), "3 + 4 * 2 + 7", seed=0).answer
    21
    """
    if not isinstance(model, Model):
        raise ValueError(f"model must be a Model, got {type(model).__name__}")
    p = task.parse_problem(problem, "problem")[None]
    seed = count("seed", seed, low=0)
    right, size = int(task.final_answers(p)[0]), int(task.sizes_of(p)[0])
    seq, logits = generate(model, task.prompts(p), task.MAX_ANSWER, np.random.default_rng(seed), end=task.END,
                           pad=task.PAD, return_logits=True)
    ans = seq[0, task.PROMPT_LEN:]
    keep = answer_mask(ans[None])[0]
    probs = np.exp(np.take_along_axis(log_softmax(logits[0]), ans[:, None], axis=-1)[:, 0])
    text = task.answer_text(ans)
    return Answer(tuple(task.VOCAB[int(t)] for t in ans[keep]), probs[keep], text, task.judge(text, right, size),
                  right)


@dataclass(frozen=True)
class GroupView:
    """One problem's group of answers in one update, token by token (for looking inside the step)."""

    problem: str                       # "3 + 4 * 2 + 7"
    answer: int                        # the right answer (0 … 99)
    tokens: tuple[tuple[str, ...], ...]  # per answer, the tokens the loss saw (<end> included when written)
    prob: tuple[np.ndarray, ...]       # per answer, π_old of each token
    advantage: tuple[np.ndarray, ...]  # per answer, Â of each token
    ratio: tuple[np.ndarray, ...]      # per answer, π/π_old of each token at the last epoch
    clipped: tuple[np.ndarray, ...]    # per answer, whether the clip zeroed the token's gradient
    right: np.ndarray                  # [G]
    well_formed: np.ndarray            # [G]
    score: np.ndarray                  # [G]

    def token_weight(self, mode: str) -> np.ndarray:
        """[G] the weight each token of each answer gets in this group's loss under an aggregation ``mode``
        (``rlcore.answer_weights`` with L_max = MAX_ANSWER, times G): 1/|o_i| under GRPO's seq-mean-token-mean,
        1/MAX_ANSWER under Dr. GRPO's seq-mean-token-sum-norm, whatever the answer's length.

        >>> v = GroupView("3 + 4", 7, (("=", "7", "<end>"), (":", "7", "=", "7", "<end>")), *[()] * 4, *[None] * 3)
        >>> v.token_weight("seq-mean-token-mean").round(3).tolist(), v.token_weight("seq-mean-token-sum-norm").tolist()
        ([0.333, 0.2], [0.1111111111111111, 0.1111111111111111])
        """
        lengths = np.array([len(toks) for toks in self.tokens])
        return answer_weights(lengths, mode, task.MAX_ANSWER) * len(lengths)

    def cells(self) -> dict[str, np.ndarray]:
        """The group token by token, one entry per written token: its answer (0 … G − 1), position (from 1), token,
        advantage, π_old (``probability``), ratio and whether it was clipped (the long table of a grid chart)."""
        lengths = [len(toks) for toks in self.tokens]
        return {"answer": np.repeat(np.arange(len(lengths)), lengths),
                "position": np.concatenate([np.arange(1, n + 1) for n in lengths]),
                "token": np.array([tok for toks in self.tokens for tok in toks], dtype=object),
                "advantage": np.concatenate(self.advantage), "probability": np.concatenate(self.prob),
                "ratio": np.concatenate(self.ratio), "clipped": np.concatenate(self.clipped)}


def group_view(update: Update, problem: int) -> GroupView:
    """The group of answers to problem number ``problem`` (0 … prompts − 1) of one update.

    >>> run = train(ZeroConfig(steps=1, group_size=2, prompts=2, passk_max=2), 0)
    >>> group_view(run.updates[0], 1).score.shape
    (2,)
    """
    if not isinstance(update, Update):
        raise ValueError(f"update must be an Update, got {type(update).__name__}")
    n_problems = len(update.problems)
    i = count("problem", problem, low=0, high=n_problems - 1)
    g = len(update.answers) // n_problems
    rows = range(i * g, (i + 1) * g)

    def per_answer(a):
        return tuple(a[r][update.mask[r]] for r in rows)

    tokens = tuple(tuple(task.VOCAB[int(t)] for t in update.answers[r][update.mask[r]]) for r in rows)
    sl = slice(i * g, (i + 1) * g)
    return GroupView(task.problem_text(update.problems[i]), int(task.final_answers(update.problems[i:i + 1])[0]),
                     tokens, per_answer(update.prob), per_answer(update.advantage), per_answer(update.ratio),
                     per_answer(update.clipped), update.right[sl], update.well_formed[sl], update.score[sl])


# ---------------------------------------------------------------- the loop


def train_steps(config: ZeroConfig = ZeroConfig(), seed: int = 0, base: Model | None = None) -> Iterator[ZeroStep]:
    """The run one step at a time: step 0 (the base, measured), then one ``ZeroStep`` per update."""
    if not isinstance(config, ZeroConfig):
        raise ValueError(f"config must be a ZeroConfig, got {type(config).__name__}")
    seed = count("seed", seed, low=0)
    if base is None:
        from .warmup import base_model  # here: `python -m rlcore.studies.zero.warmup` runs a module not yet loaded

        base = base_model()
    c = config
    model, opt = base, adam_init(base)
    rng = np.random.default_rng(seed)
    held = task.held_out_problems()
    yield ZeroStep(0, measure(model, base, seed, c.k), None, model)
    value_fit = None                  # PPO's least-squares critic (critic_refit), else its value head on Adam
    if c.algorithm == "ppo" and c.critic_refit:
        value_fit = _warm_critic_fit(base, seed)
    elif c.algorithm == "ppo":
        model = warm_critic(base, seed)   # the same policy: step 0's measure holds
    sampler, per_round = base, -(-c.steps // c.rounds)
    for step in range(1, c.steps + 1):
        problems = task.sample_problems(rng, c.prompts, exclude=held)
        rows = np.repeat(problems, c.group_size, axis=0)
        if c.algorithm == "star" and (step - 1) % per_round == 0:
            sampler = model               # a new round: sample from the model the last rounds trained
        seq = generate(_sampler(c, model, sampler), task.prompts(problems), task.MAX_ANSWER, rng, end=task.END,
                       pad=task.PAD, repeat=c.group_size)
        ans = seq[:, task.PROMPT_LEN:]
        right, well, score = task.judge_batch(ans, rows)
        mask = answer_mask(ans)
        # the length cost falls on right answers only (as Kimi k1.5 spares wrong ones): a cost on every answer would
        # break the tie in each group whose answers are all wrong, and push every size to "= a" before working pays
        cost = c.length_cost * task.answer_lengths(ans) * right if c.algorithm not in FILTERED else 0.0
        reward = score - cost
        pre = _answer_logits(model, seq)
        lp_old, values = pre[2], pre[3]
        if value_fit is not None:
            phi = _critic_features(pre, rows, ans)
            values = critic.values(value_fit, phi)
        lp_ref = answer_log_probs(base, task.prompts(problems), ans, c.group_size) if c.beta > 0 else None
        kl = lp_old - lp_ref if c.kl_in == "reward" and c.beta > 0 else None
        adv, returns = token_advantages(c, reward, values, mask, kl)
        if len(seq) > ROWS_AT_ONCE:
            pre = None                        # a batch taken in parts recomputes its forward part by part
        for epoch in range(c.epochs):
            g = policy_grads(model, c, seq, mask, adv, lp_old, lp_ref, returns if value_fit is None else None,
                             pre if epoch == 0 else None)
            if epoch == 0:
                push = np.abs(g.dlp).sum(axis=0)
                push = push / push.sum() if push.sum() > 0 else push       # a batch of equal scores pushes nothing
            model, opt, _ = adam_step(model, g.grads, opt, c.lr)
            pre = None                        # the first epoch's activations: freed before the next epoch's forward
        explained = explained_variance(values, returns, mask) if returns is not None else float("nan")
        if value_fit is not None:                      # the next batch's V, fitted on this one and the decayed rest
            to_go = critic.returns_to_go(_token_rewards(c, reward, mask, kl), mask)
            value_fit = critic.fit(value_fit, phi, mask, to_go)
        update = Update(problems, ans, mask, np.exp(lp_old) * mask, adv, g.ratio, g.clipped, right, well, score, push,
                        explained)
        yield ZeroStep(step, measure(model, base, seed, c.k), update, model)


def _sampler(c: ZeroConfig, model: Model, sampler: Model) -> Model:
    """The model a step samples from: the policy (on-policy methods and online RFT), the base alone
    (``rft_offline``: its samples are drawn once from the base, each used once), or the round's (``star``)."""
    return model if c.algorithm not in ("rft_offline", "star") else sampler


def collect(config: ZeroConfig, seed: int, measures, updates, model: Model, passk: PassK | None = None) -> ZeroRun:
    """A ``ZeroRun`` from the steps seen so far (``measures`` from step 0 on, ``updates`` from step 1 on): the
    whole run once every step is in, or the part of it a learner stopped; ``passk``: its curves (None: none yet)."""
    if len(measures) != len(updates) + 1:
        raise ValueError(f"measures must hold one more entry than updates, got {len(measures)} and {len(updates)}")
    curves = {f.name: np.array([getattr(m, f.name) for m in measures], dtype=np.float64) for f in fields(Measure)
              if f.name != "samples"}
    return ZeroRun(config, seed, config.k, **{f: curves[f] for f in (
        "pass1", "passk", "length", "entropy", "kl", "reward", "worked_share", "worked_pass", "immediate_pass")},
        wrong_length=curves["wrong_length"],
        updates=tuple(updates), model=model, sizes=task.SIZES.copy(),
        **{f: curves[f] for f in ("length_by_size", "pass1_by_size", "length_share", "kl_by_position",
                                  "entropy_by_position")},
        samples=tuple(m.samples for m in measures),
        **({} if passk is None else dict(passk_ks=passk.ks, passk_base=passk.base, passk_trained=passk.trained,
                                         passk_guess=passk.guess)))


def train(config: ZeroConfig = ZeroConfig(), seed: int = 0,
          progress: Callable[[ZeroStep], None] | None = None) -> ZeroRun:
    """Run ``config`` from the shipped base model; deterministic for a seed. ``progress`` sees every step.

    >>> train(ZeroConfig(steps=1, group_size=2, prompts=2, passk_max=2), 0).pass1.shape
    (2,)
    """
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a function or None, got {type(progress).__name__}")
    measures, updates, model = [], [], None
    for s in train_steps(config, seed):
        measures.append(s.measure)
        if s.update is not None:
            updates.append(s.update)
        model = s.model
        if progress is not None:
            progress(s)
    passk = next(p for p in passk_steps(model, seed, config.passk_max) if p is not None)
    return collect(config, seed, measures, updates, model, passk)


__all__ = [
    "ALGORITHMS",
    "Answer",
    "Grads",
    "GroupView",
    "Measure",
    "PassCurve",
    "PassK",
    "Update",
    "ZeroConfig",
    "ZeroRun",
    "ZeroStep",
    "answer",
    "answer_log_probs",
    "answer_mask",
    "base_measure",
    "collect",
    "explained_variance",
    "group_view",
    "guess_curve",
    "measure",
    "pass_curve",
    "passk_grid",
    "passk_steps",
    "policy_grads",
    "shown_problems",
    "token_advantages",
    "train",
    "train_steps",
    "warm_critic",
]
