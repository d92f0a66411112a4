"""Issue #31, slice 1's feasibility check: plain GRPO (one epoch, ratio 1, no KL) from the graded base model.

A scratch loop, not the page's training (slice 2 moves ``rlcore.zero.train`` onto the graded task): every step
samples ``--prompts`` training problems × ``--group`` answers, judges them, and takes one Adam step on
−Σ w·Â·log π with GRPO's group advantages and seq-mean-token-mean weights (rlcore's formulas). Every
``--every`` steps it samples the held-out problems 8 times each and prints pass@1 and the mean length, overall
and per size.

    python bench/zero_graded_feasibility.py --steps 100 --lr 3e-4
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rlcore.formulas.aggregation import token_weights
from rlcore.formulas.credit import group_advantages
from rlcore.formulas.policy import log_softmax
from rlcore.studies.zero import graded as g
from rlcore.studies.zero import graded_warmup as gw
from rlcore.studies.zero.model import adam_init, adam_step, backward, forward, generate, log_prob_grad
from rlcore.studies.zero.task import END, PAD
from rlcore.studies.zero.training import answer_mask


def grpo_step(model, opt, rng, held, args):
    problems = g.sample_problems(rng, args.prompts, exclude=held)
    rows = np.repeat(problems, args.group, axis=0)
    seq = generate(model, g.prompts(rows), g.MAX_ANSWER, rng, end=END, pad=PAD)
    ans = seq[:, g.PROMPT_LEN:]
    score = g.judge_batch(ans, rows)[2]
    mask = answer_mask(ans)
    adv = np.concatenate([group_advantages(s, args.algorithm) for s in score.reshape(-1, args.group)])
    agg = "seq-mean-token-mean" if args.algorithm == "grpo" else "seq-mean-token-sum-norm"
    w = token_weights(mask, agg, g.MAX_ANSWER)
    fwd = forward(model, seq[:, :-1])
    start = g.PROMPT_LEN - 1
    lp_all = log_softmax(fwd.logits[:, start:])
    dlogits = np.zeros_like(fwd.logits)
    dlogits[:, start:] = log_prob_grad(lp_all, ans, -w * adv[:, None] * mask)
    model, opt, _ = adam_step(model, backward(model, fwd, dlogits), opt, args.lr)
    return model, opt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--prompts", type=int, default=16)
    ap.add_argument("--group", type=int, default=8)
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--algorithm", default="grpo", choices=["grpo", "dr_grpo"])
    ap.add_argument("--base", default=str(gw.BASE_PATH))
    args = ap.parse_args()
    model = gw.load_model(args.base)
    opt, rng, held = adam_init(model), np.random.default_rng(args.seed), g.held_out_problems()
    train_time = 0.0
    for step in range(args.steps + 1):
        if step % args.every == 0 or step == args.steps:
            s = gw.sample(model, held, 8, seed=1)
            p1, ln = s.by_size(s.right), s.by_size(s.length.astype(float))
            print(f"step {step:4d}  pass@1 {s.right.mean():.3f}  length {s.length.mean():.2f}  "
                  f"{len(np.unique(s.length))} lengths  per size: "
                  + " ".join(f"{m}:{p1[m]:.2f}/{ln[m]:.1f}" for m in p1), flush=True)
        if step < args.steps:
            t0 = time.perf_counter()
            model, opt = grpo_step(model, opt, rng, held, args)
            train_time += time.perf_counter() - t0
    print(f"{train_time / args.steps:.3f} s per training step (sampling, judging, one update; no evaluation)")


if __name__ == "__main__":
    main()
