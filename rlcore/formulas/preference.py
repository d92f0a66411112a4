"""Where the judge comes from: Bradley–Terry reward models from comparisons, and DPO, which skips them.

Formulas only, one pure function per quantity; the bundles of numbers the pages show are in
``rlcore.judge_studies``. The KL-regularised optimum π* ∝ π_ref·exp(r/β) that links the two is
``rlcore.kl.kl_optimal_policy``.
"""

from __future__ import annotations

import numpy as np

from .checks import as_array, count, finite, non_negative, positive, show

__all__ = [
    "bt_prob", "dpo_loss", "dpo_margins", "dpo_weights", "fit_reward_model", "fit_win_tables", "implicit_reward",
    "ipo_loss", "never_loses", "win_counts",
]

MAX_ITEMS = 1000  # items a reward model is fitted over: the Newton step solves an n × n system


def _log_sigmoid(x: np.ndarray) -> np.ndarray:
    """log σ(x) = −log(1 + e^(−x)), finite for every finite x (no exp overflows)."""
    return -np.logaddexp(0.0, -x)


def _finite(name: str, value) -> np.ndarray:
    arr = as_array(name, value)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers, got {show(arr)}")
    return arr


def _same_shape(names: tuple[str, ...], arrays: tuple[np.ndarray, ...]) -> None:
    shapes = {a.shape for a in arrays}
    if len(shapes) > 1:
        raise ValueError(f"{', '.join(names)} must have the same shape, got "
                         f"{', '.join(str(a.shape) for a in arrays)}")


def bt_prob(r_a, r_b):
    """Bradley–Terry: the chance that a rater prefers answer a to answer b.

    P(a ≻ b) = σ(r_a − r_b) = 1 / (1 + e^(−(r_a − r_b))), elementwise.

    Source: Bradley & Terry (1952); the reward-model loss of InstructGPT (Ouyang et al. 2022, eq. 1).

    Args:
        r_a, r_b: rewards of the two answers, finite numbers or arrays of one shape.

    Returns:
        an array of that shape (a float for two numbers), each entry in [0, 1]; exactly 0 or 1 only when
        the difference is beyond about ±745, where the float runs out of digits.

    >>> float(bt_prob(2.0, 2.0)), round(float(bt_prob(1.0, 0.0)), 4)
    (0.5, 0.7311)
    """
    a = _finite("r_a", r_a)
    b = _finite("r_b", r_b)
    _same_shape(("r_a", "r_b"), (a, b))
    with np.errstate(over="ignore"):  # a difference of two huge finite rewards is ±inf: σ is then 0 or 1
        d = a - b
    p = np.exp(_log_sigmoid(d))
    return float(p) if p.ndim == 0 else p


def _comparisons(winners, losers, n_items) -> tuple[np.ndarray, np.ndarray, int]:
    n = count("n_items", n_items, low=1, high=MAX_ITEMS)
    out = []
    for name, value in (("winners", winners), ("losers", losers)):
        arr = as_array(name, value)
        if arr.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)) or np.any(arr < 0) or np.any(arr >= n):
            raise ValueError(f"{name} must hold item indices 0 to {n - 1}, got {show(arr)}")
        out.append(arr.astype(np.int64))
    w, lo = out
    if w.size != lo.size:
        raise ValueError(f"winners and losers must have the same length, got {w.size} and {lo.size}")
    same = np.flatnonzero(w == lo)
    if same.size:
        raise ValueError(f"winners and losers must differ at each position, got item {w[same[0]]} against "
                         f"itself at position {same[0]}")
    return w, lo, n


def never_loses(winners, losers, n_items: int) -> np.ndarray:
    """The smallest group of items that never loses to the rest; empty when there is none.

    Empty exactly when every item loses to some chain of the others (the "loses to" graph is strongly
    connected): then, and only then, the Bradley–Terry maximum without a ridge is finite and unique.

    Args:
        winners, losers, n_items: as for ``fit_reward_model``.

    Returns:
        the group's item indices, ascending (shape [G], G < n_items), or an empty array.

    >>> never_loses([1, 2, 2], [0, 0, 1], 3).tolist(), never_loses([1, 2, 0], [0, 1, 2], 3).tolist()
    ([2], [])
    """
    w, lo, n = _comparisons(winners, losers, n_items)
    reach = np.eye(n, dtype=bool)
    reach[lo, w] = True  # reach[i, j]: i lost to j
    while True:  # transitive closure by repeated squaring: at most log2(n) rounds
        nxt = (reach.astype(np.int64) @ reach.astype(np.int64)) > 0
        if np.array_equal(nxt, reach):
            break
        reach = nxt
    sizes = reach.sum(axis=1)
    i = int(np.argmin(sizes))
    return np.zeros(0, dtype=np.int64) if sizes[i] == n else np.flatnonzero(reach[i])


def fit_reward_model(winners, losers, n_items: int, l2: float = 0.0) -> np.ndarray:
    """The maximum-likelihood Bradley–Terry rewards from pairwise comparisons, shifted to mean 0.

    r̂ = argmin_r  −Σₙ log σ(r_{wₙ} − r_{lₙ}) + l2·Σᵢ rᵢ²,  then r̂ − mean(r̂).

    Only differences are identified (r + c explains the comparisons as well as r), hence mean 0. Without
    the ridge the maximum exists and is unique exactly when every item loses to some chain of the others
    (Zermelo 1929; Ford 1957); when some group of items never loses to the rest, the likelihood keeps
    rising as their rewards grow. Solved by Newton's method with a backtracking line search (the
    objective is convex).

    Args:
        winners: shape [N], the index of the preferred item in each comparison.
        losers: shape [N], the index of the other item; differs from the winner at each position.
        n_items: the number of items, 1 to ``MAX_ITEMS``; indices run 0 … n_items − 1.
        l2: ridge strength ≥ 0.

    Returns:
        shape [n_items], the fitted rewards, mean 0.

    >>> fit_reward_model([1, 1, 1, 0], [0, 0, 0, 1], 2).round(4).tolist()  # 3 : 1, so r₁ − r₀ = log 3
    [-0.5493, 0.5493]
    """
    w, lo, n = _comparisons(winners, losers, n_items)
    lam = non_negative("l2", l2)
    if lam == 0:
        group = never_loses(w, lo, n)
        if group.size:
            raise ValueError(f"the comparisons leave the maximum unbounded: items {group.tolist()} never lose "
                             "to the rest, so their rewards could grow without end; add comparisons they "
                             "lose, or set l2 > 0")
    return _newton(win_counts(w, lo, n)[None], lam)[0]


def win_counts(winners: np.ndarray, losers: np.ndarray, n: int) -> np.ndarray:
    """wins[i, j] = how many times item i was preferred to item j (indices already checked)."""
    return np.bincount(winners * n + losers, minlength=n * n).reshape(n, n).astype(np.float64)


def fit_win_tables(wins, l2: float = 0.0) -> np.ndarray:
    """``fit_reward_model`` for comparisons already counted: one win table, or many fitted at once.

    Args:
        wins: shape [n, n] or [B, n, n]; wins[i, j] ≥ 0 is how often item i was preferred to item j.
        l2: ridge strength ≥ 0; with 0, every table must leave the maximum bounded (no group of items that
            never loses to the rest).

    Returns:
        shape [n] or [B, n], each table's rewards, mean 0.

    >>> fit_win_tables([[0, 1], [3, 0]]).round(4).tolist()  # 3 : 1, so r₁ − r₀ = log 3
    [-0.5493, 0.5493]
    """
    w = finite("wins", wins, min_ndim=2)
    if w.ndim > 3 or w.shape[-1] != w.shape[-2] or w.shape[-1] > MAX_ITEMS or w.min() < 0:
        raise ValueError(f"wins must be a square table (or a batch of them) of counts >= 0 with at most "
                         f"{MAX_ITEMS} items, got {show(w)}")
    lam = non_negative("l2", l2)
    tables = w.reshape(-1, *w.shape[-2:])
    if lam == 0:
        for table in tables:
            winners, losers = np.nonzero(table)
            group = never_loses(winners, losers, table.shape[0])
            if group.size:
                raise ValueError(f"wins leave the maximum unbounded: items {group.tolist()} never lose to the "
                                 "rest; set l2 > 0")
    return _newton(tables, lam).reshape(w.shape[:-1])


def _newton(wins: np.ndarray, lam: float) -> np.ndarray:
    """The fit of a batch of valid win tables [B, n, n] (each with a finite maximum): Newton's method with a
    backtracking line search, every table stepping together."""
    b, n, _ = wins.shape
    games = wins + wins.transpose(0, 2, 1)
    lost = wins.sum(axis=2)
    eye = np.eye(n)

    def loss(x: np.ndarray, k: np.ndarray) -> np.ndarray:
        d = x[:, :, None] - x[:, None, :]
        return -(wins[k] * _log_sigmoid(d)).sum(axis=(1, 2)) + lam * (x * x).sum(axis=1)

    r = np.zeros((b, n))
    live = np.arange(b)  # the tables still moving
    current = loss(r, live)
    for _ in range(100):
        x = r[live]
        p = np.exp(_log_sigmoid(x[:, :, None] - x[:, None, :]))  # p[k, i, j] = P(i ≻ j)
        grad = (games[live] * p).sum(axis=2) - lost[live] + 2 * lam * x
        h = games[live] * p * p.transpose(0, 2, 1)
        # the loss is flat along r + c when l2 = 0: the 1/n block solves on the mean-0 subspace
        hess = h.sum(axis=2)[:, :, None] * eye - h + 2 * lam * eye + 1.0 / n
        try:
            step = np.linalg.solve(hess, grad[..., None])[..., 0]
        except np.linalg.LinAlgError:  # curvature lost to rounding: least squares, one table at a time
            step = np.stack([np.linalg.lstsq(hk, gk, rcond=None)[0] for hk, gk in zip(hess, grad, strict=True)])
        t = np.ones(live.size)
        trial = loss(x - step, live)
        for _ in range(40):  # halve the step of every table that did not go downhill
            worse = trial > current
            if not worse.any():
                break
            t = np.where(worse, t / 2, t)
            trial[worse] = loss(x[worse] - t[worse, None] * step[worse], live[worse])
        moved = trial <= current
        delta = np.where(moved[:, None], t[:, None] * step, 0.0)
        r[live] = x - delta
        current = np.where(moved, trial, current)
        going = moved & (np.abs(delta).max(axis=1) >= 1e-12 * np.maximum(1.0, np.abs(r[live]).max(axis=1)))
        live, current = live[going], current[going]
        if live.size == 0:
            break
    return r - r.mean(axis=1, keepdims=True)


def implicit_reward(logp, ref_logp, beta: float):
    """DPO's implicit reward: what the policy says the judge's score is, relative to the reference.

    r̂(a) = β · (log π(a) − log π_ref(a)).

    At the KL-regularised optimum π* ∝ π_ref·exp(r/β) it equals r − β·log Z, the reward up to a constant.
    Source: Rafailov et al., "Direct Preference Optimization" (2023), eq. 5 and §5.

    Args:
        logp: log π of each answer, finite; any shape.
        ref_logp: log π_ref of the same answers, same shape.
        beta: β > 0.

    Returns:
        same shape (a float for numbers).

    >>> implicit_reward(-1.0, -3.0, 0.5)
    1.0
    """
    lp = _finite("logp", logp)
    lr = _finite("ref_logp", ref_logp)
    _same_shape(("logp", "ref_logp"), (lp, lr))
    out = positive("beta", beta) * (lp - lr)
    return float(out) if out.ndim == 0 else out


def dpo_margins(logp_chosen, logp_rejected, ref_chosen, ref_rejected) -> np.ndarray:
    """Per pair, how much more the policy has moved toward the chosen answer than the rejected one.

    mₙ = (log π(y_w) − log π_ref(y_w)) − (log π(y_l) − log π_ref(y_l)); β·mₙ is the difference of the
    implicit rewards, the quantity DPO puts into Bradley–Terry.

    Args:
        logp_chosen, logp_rejected: shape [N], log π of each pair's chosen and rejected answer.
        ref_chosen, ref_rejected: shape [N], log π_ref of the same answers.

    Returns:
        shape [N].

    >>> dpo_margins([-1.0], [-2.0], [-1.5], [-1.5]).tolist()  # (−1 + 1.5) − (−2 + 1.5)
    [1.0]
    """
    names = ("logp_chosen", "logp_rejected", "ref_chosen", "ref_rejected")
    arrs = tuple(_finite(n, v) for n, v in zip(names, (logp_chosen, logp_rejected, ref_chosen, ref_rejected),
                                              strict=True))
    _same_shape(names, arrs)
    if arrs[0].ndim != 1 or arrs[0].size == 0:
        raise ValueError(f"logp_chosen must be a non-empty list of pairs' log-probabilities, got shape "
                         f"{arrs[0].shape}")
    lc, lr_, rc, rr = arrs
    with np.errstate(over="ignore", invalid="ignore"):
        m = (lc - rc) - (lr_ - rr)
    if not np.all(np.isfinite(m)):
        raise ValueError("logp_chosen, logp_rejected, ref_chosen, ref_rejected give a margin too large for a float")
    return m


def dpo_loss(logp_chosen, logp_rejected, ref_chosen, ref_rejected, beta: float) -> float:
    """The DPO loss: Bradley–Terry's negative log-likelihood with the implicit reward in place of a model.

    L = −(1/N) Σₙ log σ(β · mₙ),  mₙ = (log π(y_w) − log π_ref(y_w)) − (log π(y_l) − log π_ref(y_l)).

    Its gradient is −(β/N) Σₙ σ(−β·mₙ)·(∇log π(y_w) − ∇log π(y_l)): each pair weighs σ(−β·mₙ)
    (``dpo_weights``). Source: Rafailov et al. (2023), eq. 7 and §4.

    Args:
        logp_chosen, logp_rejected: shape [N], log π of each pair's chosen and rejected answer.
        ref_chosen, ref_rejected: shape [N], log π_ref of the same answers.
        beta: β > 0.

    Returns:
        the mean loss, a float ≥ 0; finite for any margin (log σ is taken without exp overflowing).

    >>> round(dpo_loss([-1.0], [-1.0], [-1.0], [-1.0], 0.1), 4)  # no move yet: log 2
    0.6931
    """
    m = dpo_margins(logp_chosen, logp_rejected, ref_chosen, ref_rejected)
    b = positive("beta", beta)
    return float(np.logaddexp(0.0, -b * m).mean())


def dpo_weights(margins, beta: float) -> np.ndarray:
    """How hard the DPO gradient pushes on each pair: σ(−β·m), near 1 for a pair the policy still ranks
    the wrong way, near 0 for one it already ranks right by a wide margin.

    Args:
        margins: shape [N], the pairs' ``dpo_margins``.
        beta: β > 0.

    Returns:
        shape [N], in [0, 1].

    >>> dpo_weights([0.0], 1.0).tolist()
    [0.5]
    """
    m = _finite("margins", margins)
    b = positive("beta", beta)
    return np.exp(_log_sigmoid(-b * m))


def ipo_loss(logp_chosen, logp_rejected, ref_chosen, ref_rejected, tau: float) -> float:
    """The IPO loss: a squared distance of the margin to a fixed target, so it stops at a finite margin.

    L = (1/N) Σₙ (mₙ − 1/(2τ))²; the same margins mₙ as ``dpo_loss``. DPO's −log σ(β·m) keeps falling as m
    grows, so on a pair that always goes the same way it pushes π(y_l) toward 0 whatever β; IPO's target
    1/(2τ) keeps it finite. Source: Azar et al., "A General Theoretical Paradigm to Understand Learning from
    Human Preferences" (2023), eq. 17.

    Args:
        logp_chosen, logp_rejected, ref_chosen, ref_rejected: shape [N], as for ``dpo_loss``.
        tau: τ > 0, the regularisation (larger τ, smaller target margin).

    Returns:
        the mean loss, a float ≥ 0.

    >>> ipo_loss([-1.0], [-2.0], [-1.0], [-1.0], 0.5)  # margin 1 = the target 1/(2·0.5)
    0.0
    """
    m = dpo_margins(logp_chosen, logp_rejected, ref_chosen, ref_rejected)
    t = positive("tau", tau)
    return float(np.mean((m - 1.0 / (2.0 * t)) ** 2))
