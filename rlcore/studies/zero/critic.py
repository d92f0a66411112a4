"""PPO's critic in the miniature: a linear V(s_t) = φ(s_t)·w, refit by ridge least squares after every update.

What the critic sees, φ(s_t) at the state before answer token t (every part a function of the prompt and the answer
written so far, through the policy itself or by counting; never of the right answer):

- the model's own last hidden state h_t (PPO's value head on the shared trunk);
- the problem's size and the answer position, together, one-hot (6 sizes × MAX_ANSWER positions);
- how sure the policy is: the largest probability, the entropy and Σπ² of π(·|s_t), π of the token just written and
  the log-probability of the numbers written so far, each in its phase of the answer (nothing written yet; in the
  working; after ``=``; after the answer), with a constant per phase.

The targets are each token's return (γ = 1: its answer's score, less any KL in the reward after it). The fit keeps
decayed sums Σφφᵀ and Σφ·G over every batch so far, each batch's weight multiplied by CRITIC_DECAY at every update,
started from the base model's own answers before RL: a size's pass rate needs more answers than one batch holds,
and the oldest weigh least as the policy moves. A batch's V comes from the fit before it, so the explained variance
a run records is measured on answers the critic has not seen.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import task

CRITIC_DECAY = 0.9        # each batch's weight in the critic's fit is multiplied by this at every later update
CRITIC_RIDGE = 1e-2       # the ridge of the fit (on the decayed sums)
PHASES = 4                # nothing written; in the working (after ":"); after "="; after the answer
CONFIDENCE = 6            # per phase: max π, entropy, Σπ², π(token just written), log π of the numbers so far, 1


@dataclass(frozen=True)
class Critic:
    """The fit's decayed sums and the weights they give: V = φ·coef."""

    gram: np.ndarray      # [F, F] Σ decay^age φφᵀ
    moment: np.ndarray    # [F] Σ decay^age φ·G
    coef: np.ndarray      # [F] the ridge solution of the two


def features(hidden: np.ndarray, lp_all: np.ndarray, problems: np.ndarray, answers: np.ndarray) -> np.ndarray:
    """φ(s_t) [n, L, F] of every answer state: ``hidden`` [n, L, d] the model's last hidden state before each answer
    token, ``lp_all`` [n, L, V] the policy's log-probabilities there, ``problems`` [n, …] and ``answers`` [n, L]."""
    n, length = answers.shape
    size = task.sizes_of(problems) - task.MIN_SIZE
    where = (size[:, None] * length + np.arange(length)[None, :])                       # (size, position)
    at = np.zeros((n, length, len(task.SIZES) * length))
    np.put_along_axis(at, where[..., None], 1.0, axis=-1)
    pi = np.exp(lp_all)
    lp = np.take_along_axis(lp_all, answers[..., None], axis=-1)[..., 0]
    before = np.zeros((n, 1))

    def shifted(x):                               # the value over the tokens before position t
        return np.concatenate([before, x[:, :-1]], axis=1)

    number = answers < task.MODULUS
    said = shifted(np.cumsum(answers == task.EQUALS, axis=1)) > 0
    phase = np.where(said, np.where(shifted(number.astype(float)) > 0, 3, 2),
                     np.where(np.arange(length)[None, :] == 0, 0, 1))
    sure = np.stack([pi.max(axis=-1), -(pi * lp_all).sum(axis=-1), (pi * pi).sum(axis=-1), shifted(np.exp(lp)),
                     shifted(np.cumsum(np.where(number, lp, 0.0), axis=1)), np.ones((n, length))], axis=-1)
    by_phase = (np.eye(PHASES)[phase][..., :, None] * sure[..., None, :]).reshape(n, length, PHASES * CONFIDENCE)
    return np.concatenate([hidden, at, by_phase], axis=-1)


def returns_to_go(rewards: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Each token's return with γ = 1 [n, L]: the sum of its rewards and the later ones' (0 off the mask)."""
    r = np.where(mask, rewards, 0.0)
    return np.where(mask, np.cumsum(r[:, ::-1], axis=1)[:, ::-1], 0.0)


def fit(critic: Critic | None, phi: np.ndarray, mask: np.ndarray, targets: np.ndarray) -> Critic:
    """The critic refit with one more batch: the sums so far × CRITIC_DECAY (none: the first batch) plus this batch's
    φ [n, L, F] and targets [n, L] at the answers' tokens (``mask``), and the ridge solution of the new sums."""
    x, y = phi[mask], targets[mask]
    gram, moment = x.T @ x, x.T @ y
    if critic is not None:
        gram, moment = CRITIC_DECAY * critic.gram + gram, CRITIC_DECAY * critic.moment + moment
    coef = np.linalg.solve(gram + CRITIC_RIDGE * np.eye(len(gram)), moment)
    return Critic(gram, moment, coef)


def values(critic: Critic, phi: np.ndarray) -> np.ndarray:
    """V(s_t) = φ(s_t)·coef [n, L]."""
    return phi @ critic.coef
