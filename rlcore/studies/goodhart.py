"""Over-optimisation as Gao, Schulman & Hilton (2022) measured it: a proxy reward model fitted on finitely many
comparisons, a policy optimised against it, and a gold judge scoring that policy along the way.

The world, one per seed and the same for every number of comparisons and every bias: ``N_ANSWERS`` answers, each
with ``N_TRAITS`` traits (standard normal; the last one is flattery). The reference policy π_ref writes moderate
answers: its logits are −``REF_PULL``·|x|²/2 plus normal noise (spread ``REF_NOISE``), so an answer far out in
any trait is rare. The gold judge likes each trait up to a point and no further: gold(x) = a·x − ``GOLD_BEND``·|x|²/2,
with a a random direction of length ``GOLD_SLOPE`` that gives flattery nothing (its best amount is the reference's
usual one, 0). Comparisons are pairs of different answers drawn from π_ref, labelled as Bradley–Terry says on the
raters' score.

The proxy is linear in the traits, r̂(x) = w·x, fitted by Bradley–Terry on those pairs with a ridge (``RIDGE``).
Where the reference writes, a straight line fits the gold well; far out, where nobody compared anything, the line
keeps promising more while the gold bends down. Few comparisons also tilt the line off the gold's direction, so
optimisation spends its KL partly on traits the gold does not value. Optimising against it, the proxy keeps
rising; the gold rises, peaks and falls, and with more comparisons it peaks higher and later (the line points
closer to a). Its capacity is limited on purpose: no amount of data makes a line bend, so some fall remains
even at 10,000 comparisons, as in Gao et al., where every proxy over-optimises in the end.

Unbiased raters (``bias`` = 0) score the gold: their only error is noise. A ``bias`` is a planted rater bias:
raters add ``bias``·``GOLD_SLOPE`` points per unit of flattery (at 1 they like a unit of flattery as much as the gold
likes a unit step along its own direction), which the gold does not reward: past its best amount, flattery costs
like any trait pushed too far. The proxy learns that taste more precisely with more data; data does not
remove it: the gold's peak stays lower and the fall stays.

Three optimisers against r̂, each a path away from π_ref:

* ``"rl"``: RL as it is run: sampled, on-policy policy-gradient steps (REINFORCE with the batch mean as baseline)
  on the logits of a softmax policy over the answers, the KL penalty folded into the reward,
  r̂(a) − β·log(π(a)/π_ref(a)), and Adam on the logits, as page 9 trains; one point per checkpoint along training.
  No step is divided by π: that would be the natural gradient (Kakade 2001), which in expectation follows the
  tilt below. Plain gradient steps with Adam take another path towards the same optimum.
* ``"tilt"``: the closed-form optimum of the KL-regularised objective, π_ref·exp(r̂/β), swept over β: where RL
  converges for each β, not the path it takes.
* ``"best_of_n"``: n answers drawn from π_ref and the proxy's favourite kept, swept over n; its policy and KL
  exact for the finite answer set (``best_of_n_probs``).

``goodhart_fit`` fits a curve's gold to Gao et al.'s two forms, d(α − βd) (their best-of-n) and d(α − β·log d)
(their RL), d = √KL, by least squares through the origin, with R² for each.

How firm the shapes are (means of ten seeds, measured for seeds 0–199 in groups of ten along the tilt and best-of-n,
0–39 along RL): at 100 comparisons the gold peaks inside the path and ends well below the peak (along the tilt
and best-of-n at least 60 % of its rise, along RL at least 36 %); at 1,000 it peaks at least 1.35× higher and
(tilt, RL) at least 0.15 later in √KL; unbiased, some fall remains at 10,000 (at least 6 %); with a bias of 1 at
10,000 the peak is at least 0.15 lower than unbiased raters' (RL 0.14) and the fall at least half the rise (RL,
whose checkpoints stop sooner, a sixth). Tests check
seeds 0–39. One call takes 30–80 ms of one core; ``goodhart_mean`` runs RL's worlds side by side.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formulas.checks import choice, count, in_range
from ..formulas.kl import best_of_n_probs
from ..formulas.policy import softmax

__all__ = ["GOODHART_FORMS", "GOODHART_METHODS", "GoodhartCurve", "goodhart_fit", "goodhart_mean",
           "goodhart_study"]

GOODHART_METHODS = ("rl", "tilt", "best_of_n")
N_ANSWERS = 400
N_TRAITS = 6  # the last is flattery
REF_PULL = 0.5  # how strongly π_ref prefers moderate traits: its logits fall by REF_PULL·|x|²/2
REF_NOISE = 0.5  # the spread of the rest of π_ref's logits (what the traits do not explain)
GOLD_SLOPE = 0.4  # |a|: how much the gold likes a step along its direction, at the reference's usual answer
GOLD_BEND = 0.2  # how fast the gold's liking for a trait bends down: its best is at a / GOLD_BEND
RIDGE = 0.1  # l2 on the proxy's weights: a prior N(0, 1/(2·l2)) on each
MAX_PAIRS = 100_000
MAX_BIAS = 10.0
INVERSE_BETAS = np.concatenate([[0.0], np.geomspace(0.02, 100.0, 60)])  # the tilt's 1/β
BEST_OF = np.unique(np.round(np.geomspace(1, 100_000, 61)).astype(np.int64))  # best-of-n's n
RL_STEPS, RL_BATCH, RL_LR, RL_BETA = 300, 2048, 0.05, 0.01  # RL_LR: Adam's step on the logits; RL_BETA: β
ADAM_B1, ADAM_B2, ADAM_EPS = 0.9, 0.999, 1e-8
GOODHART_FORMS = ("bon", "rl")  # Gao et al.'s d(α − βd) and d(α − β·log d)
RL_CHECKPOINTS = np.unique(np.round(np.geomspace(1, RL_STEPS + 1, 60)).astype(np.int64) - 1)


@dataclass(frozen=True)
class GoodhartCurve:
    """A policy optimised against the proxy, scored by the proxy and by the gold judge along the way.

    One entry per point of the path, from π_ref (first) outwards. Both scores are gains over π_ref (its own
    score is 0 on each), in Bradley–Terry units: two answers one unit apart are told apart about three times
    in four (σ(1) = 0.73). The proxy's units are the raters' as it learnt them, so the proxy's and the gold's
    gains are comparable, not equal.
    """

    kl: np.ndarray  # KL(π‖π_ref) in nats, from 0: ascending along the tilt and best-of-n; along RL's checkpoints
    #                 it rises with training (a sampled step may set it back a little)
    proxy: np.ndarray  # E_π[r̂] − E_π_ref[r̂]: what the proxy says the policy gained
    gold: np.ndarray  # E_π[gold] − E_π_ref[gold]: what the gold judge says it gained

    @property
    def peak(self) -> int:
        """The point where the gold gain is highest (the first of equals)."""
        return int(np.argmax(self.gold))

    @property
    def root_kl(self) -> np.ndarray:
        """√KL(π‖π_ref): the axis of Gao et al.'s curves."""
        return np.sqrt(self.kl)

    @property
    def peak_gain(self) -> float:
        """The gold gain at its peak."""
        return float(self.gold[self.peak])

    @property
    def peak_root_kl(self) -> float:
        """√KL where the gold gain peaks."""
        return float(self.root_kl[self.peak])

    @property
    def turns(self) -> bool:
        """Whether the gold peaks inside the path and ends below its peak: over-optimised."""
        return bool(0 < self.peak < self.gold.size - 1 and self.gold[-1] < self.gold[self.peak])

    @property
    def fall(self) -> float:
        """How far the gold gain ends below its peak, as a share of its rise to the peak (0 when it never rises)."""
        rise = float(self.gold[self.peak] - self.gold[0])
        return float(self.gold[self.peak] - self.gold[-1]) / rise if rise > 0 else 0.0


def _world(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """π_ref, the answers' traits [N_ANSWERS, N_TRAITS] (flattery last) and their gold scores."""
    g = np.random.default_rng([seed, 0])
    traits = g.normal(size=(N_ANSWERS, N_TRAITS))
    size = (traits * traits).sum(axis=1)
    ref = softmax(-REF_PULL / 2 * size + REF_NOISE * g.normal(size=N_ANSWERS))
    slope = g.normal(size=N_TRAITS)
    slope[-1] = 0.0  # the gold gives flattery nothing
    slope *= GOLD_SLOPE / np.linalg.norm(slope)
    return ref, traits, traits @ slope - GOLD_BEND / 2 * size


def _draw(cum: np.ndarray, u: np.ndarray) -> np.ndarray:
    return np.minimum(np.searchsorted(cum, u * cum[-1], side="right"), cum.size - 1)


def _pairs(ref: np.ndarray, raters: np.ndarray, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(winners, losers): n pairs of different answers from π_ref, the winner as raters with these scores pick it."""
    g = np.random.default_rng([seed, 1])
    cum = np.cumsum(ref)
    a, b = _draw(cum, g.random(n)), _draw(cum, g.random(n))
    while np.any(same := a == b):  # the second answer again until it differs
        b[same] = _draw(cum, g.random(int(same.sum())))
    a_wins = g.random(n) < np.exp(-np.logaddexp(0.0, raters[b] - raters[a]))  # σ(s_a − s_b)
    return np.where(a_wins, a, b), np.where(a_wins, b, a)


def _fit(traits: np.ndarray, winners: np.ndarray, losers: np.ndarray) -> np.ndarray:
    """The proxy's weights w: the Bradley–Terry fit of r̂(x) = w·x with a ridge, argmin Σ log(1 + e^(−w·(x_win −
    x_lose))) + l2·|w|², by Newton's method with a backtracking line search (the objective is convex); each
    distinct (winner, loser) pair once, weighted by how often it occurs."""
    keys, counts = np.unique(winners * traits.shape[0] + losers, return_counts=True)
    times = counts.astype(np.float64)
    d = traits[keys // traits.shape[0]] - traits[keys % traits.shape[0]]
    w = np.zeros(traits.shape[1])

    def loss(v: np.ndarray) -> float:
        m = d @ v  # log(1 + e^(−m)), written so that no exp overflows (np.logaddexp is slower)
        return float((times * (np.maximum(-m, 0.0) + np.log1p(np.exp(-np.abs(m))))).sum() + RIDGE * (v * v).sum())

    for _ in range(50):
        lose = 0.5 - 0.5 * np.tanh(0.5 * (d @ w))  # σ(−w·d): the chance the winner would have lost
        grad = -d.T @ (times * lose) + 2.0 * RIDGE * w
        hess = (d * (times * lose * (1.0 - lose))[:, None]).T @ d + 2.0 * RIDGE * np.eye(w.size)
        step = np.linalg.solve(hess, grad)
        decrement = float(grad @ step)  # twice the fall a full step promises: 0 at the minimum
        if decrement < 1e-20:
            break
        t, now = 1.0, loss(w)
        while t > 1e-9 and loss(w - t * step) > now - 0.25 * t * decrement + 1e-13 * abs(now):
            t /= 2
        w = w - t * step
    return w


def _kl(probs: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """KL(π‖π_ref) of each row of probs (0·log 0 = 0)."""
    with np.errstate(divide="ignore"):
        logs = np.where(probs > 0, np.log(np.where(probs > 0, probs, 1.0)) - np.log(ref), 0.0)
    return np.maximum((probs * logs).sum(axis=1), 0.0)


def _rl(refs: np.ndarray, proxies: np.ndarray, seeds: list[int]) -> np.ndarray:
    """The policies [worlds, checkpoints, answers] along sampled REINFORCE with a KL penalty and Adam, one world per
    row, side by side: each world draws from its own generator, so a row is the same run alone or beside others."""
    gens = [np.random.default_rng([s, 2]) for s in seeds]
    log_ref = np.log(refs)
    z, m, v = log_ref.copy(), np.zeros_like(refs), np.zeros_like(refs)
    out = np.empty((refs.shape[0], RL_CHECKPOINTS.size, refs.shape[1]))
    for t in range(RL_STEPS + 1):
        top = z.max(axis=1, keepdims=True)
        log_pi = z - top - np.log(np.exp(z - top).sum(axis=1, keepdims=True))
        pi = np.exp(log_pi)
        out[:, t == RL_CHECKPOINTS] = pi[:, None, :]
        if t == RL_STEPS:
            break
        # the batch as counts: RL_BATCH answers drawn from π (the reward depends on the answer alone)
        k = np.stack([g.multinomial(RL_BATCH, p) for p, g in zip(pi, gens, strict=True)])
        reward = proxies - RL_BETA * (log_pi - log_ref)  # the KL penalty folded in, per answer
        adv = reward - (k * reward).sum(axis=1, keepdims=True) / RL_BATCH  # the batch mean as baseline
        # the batch's estimate of ∇_z E_π[reward]: the mean of adv·(e_a − π); the π term is 0 with a mean baseline
        grad = k * adv / RL_BATCH
        m = ADAM_B1 * m + (1 - ADAM_B1) * grad
        v = ADAM_B2 * v + (1 - ADAM_B2) * grad * grad
        z = z + RL_LR * (m / (1 - ADAM_B1 ** (t + 1))) / (np.sqrt(v / (1 - ADAM_B2 ** (t + 1))) + ADAM_EPS)
    return out


def _checked(n_pairs, seed, bias, method) -> tuple[int, int, float, str]:
    n = count("n_pairs", n_pairs, low=1, high=MAX_PAIRS)
    s = count("seed", seed, low=0, high=2**32 - 1)
    if isinstance(bias, str):  # a number, not text that reads as one
        raise ValueError(f"bias must be a number, got {bias!r}")
    return n, s, in_range("bias", bias, 0.0, MAX_BIAS), choice("method", method, GOODHART_METHODS)


def _proxy(n: int, s: int, b: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """World s's π_ref, gold scores and the proxy's scores from n comparisons by raters with bias b."""
    ref, traits, gold = _world(s)
    return ref, gold, traits @ _fit(traits, *_pairs(ref, gold + b * GOLD_SLOPE * traits[:, -1], n, s))


def _curve(probs: np.ndarray, ref: np.ndarray, proxy: np.ndarray, gold: np.ndarray, how: str) -> GoodhartCurve:
    probs[0] = ref  # each path starts at π_ref itself (β⁻¹ = 0, n = 1, step 0), to the last bit
    kl = _kl(probs, ref)
    if how != "rl":
        kl = np.maximum.accumulate(kl)  # ascending in β⁻¹ and in n: this only undoes rounding
    gain = probs - ref  # E_π[x] − E_π_ref[x] = (π − π_ref)·x: exactly 0 at π_ref
    return GoodhartCurve(kl, gain @ proxy, gain @ gold)


def goodhart_study(n_pairs: int, seed: int = 0, bias: float = 0.0, method: str = "rl") -> GoodhartCurve:
    """Optimise a policy against a proxy fitted on ``n_pairs`` comparisons; score it by the proxy and the gold.

    Args:
        n_pairs: comparisons the proxy is fitted on, 1 to ``MAX_PAIRS``.
        seed: the world (π_ref, the traits, the gold) and every draw, a whole number ≥ 0.
        bias: how much raters like flattery (the last trait), which the gold does not reward: they add
            bias·``GOLD_SLOPE`` points per unit of it; 0 to ``MAX_BIAS``; 0: the raters' only error is noise.
        method: ``"rl"``, ``"tilt"`` or ``"best_of_n"`` (the module's docstring).

    Returns:
        GoodhartCurve.

    >>> curve = goodhart_study(100, seed=0, method="tilt")
    >>> float(curve.kl[0]), float(curve.gold[0]), bool(curve.proxy[-1] > 0)
    (0.0, 0.0, True)
    """
    n, s, b, how = _checked(n_pairs, seed, bias, method)
    ref, gold, proxy = _proxy(n, s, b)
    if how == "rl":
        probs = _rl(ref[None], proxy[None], [s])[0]
    elif how == "tilt":
        probs = softmax(np.log(ref)[None, :] + INVERSE_BETAS[:, None] * proxy[None, :])
    else:
        probs = np.stack([best_of_n_probs(ref, proxy, int(k)) for k in BEST_OF])
    return _curve(probs, ref, proxy, gold, how)


def goodhart_mean(n_pairs: int, seeds: int = 10, bias: float = 0.0, method: str = "tilt") -> GoodhartCurve:
    """``goodhart_study`` averaged point by point over seeds 0 … seeds − 1 (each a world and its raters).

    One run's gold curve turns on a few lucky answers; the mean is what the tests and the page read. Along the
    tilt and best-of-n every seed's points share a β or an n, along RL a checkpoint.

    Args:
        n_pairs, bias, method: as for ``goodhart_study``.
        seeds: 1 to 40.

    Returns:
        GoodhartCurve of the means.

    >>> goodhart_mean(100, seeds=2).kl[0]
    np.float64(0.0)
    """
    k = count("seeds", seeds, low=1, high=40)
    if method != "rl":
        runs = [goodhart_study(n_pairs, s, bias, method) for s in range(k)]
    else:  # the worlds' RL runs side by side: one loop of steps for all
        n, _, b, how = _checked(n_pairs, 0, bias, method)
        refs, golds, proxies = (np.stack(x) for x in zip(*(_proxy(n, s, b) for s in range(k)), strict=True))
        runs = [_curve(p, r, x, g, how) for p, r, x, g in zip(_rl(refs, proxies, list(range(k))), refs, proxies,
                                                               golds, strict=True)]
    return GoodhartCurve(*(np.mean([getattr(r, f) for r in runs], axis=0) for f in ("kl", "proxy", "gold")))


def goodhart_fit(curve: GoodhartCurve) -> dict[str, tuple[float, float, float]]:
    """The curve's gold gain fitted to Gao et al.'s two forms, with d = √KL: ``"bon"`` d(α − β·d), their best-of-n
    form, and ``"rl"`` d(α − β·log d), their RL form (0·log 0 = 0), each by least squares through the origin.

    Args:
        curve: a GoodhartCurve (from ``goodhart_study`` or ``goodhart_mean``).

    Returns:
        {form: (α, β, R²)}, R² = 1 − Σ residual² / Σ (gold − its mean)² (nan for a flat gold).

    >>> fit = goodhart_fit(goodhart_study(100, seed=0, method="tilt"))
    >>> sorted(fit), all(r2 <= 1 for _, _, r2 in fit.values())
    (['bon', 'rl'], True)
    """
    if not isinstance(curve, GoodhartCurve):
        raise ValueError(f"curve must be a GoodhartCurve, got {type(curve).__name__}")
    d, y = np.sqrt(np.asarray(curve.kl, dtype=np.float64)), np.asarray(curve.gold, dtype=np.float64)
    spread = float(((y - y.mean()) ** 2).sum())
    out = {}
    for form, bend in zip(GOODHART_FORMS, (d * d, d * np.log(np.where(d > 0, d, 1.0))), strict=True):
        x = np.stack([d, -bend], axis=1)
        coef = np.linalg.lstsq(x, y, rcond=None)[0]
        r2 = 1.0 - float(((y - x @ coef) ** 2).sum()) / spread if spread > 0 else float("nan")
        out[form] = (float(coef[0]), float(coef[1]), r2)
    return out
