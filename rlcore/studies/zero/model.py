"""A tiny causal transformer in numpy: forward, backward, a KV-cached sampler and a value head.

Pre-norm blocks (RMSNorm), multi-head causal self-attention, a ReLU MLP, learned positions, untied output
layer, and a linear value head V(s_t) on the last hidden state (PPO's critic shares the trunk). Every array
is float64 so the gradients can be checked against finite differences.

    x₀ = E[tok] + P[pos]
    per block: x ← x + Attn(RMS(x)) W_o;  x ← x + ReLU(RMS(x) W₁ + b₁) W₂ + b₂
    h = RMS(x);  logits = h W_out + b_out;  V = h·w_v + b_v
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...formulas.checks import count, positive
from ...formulas.policy import (
    log_softmax,  # the one log softmax of rlcore: the policy and the reference both go through it
)

RMS_EPS = 1e-6


@dataclass(frozen=True)
class Model:
    """The weights (a dict of float64 arrays) and the number of attention heads."""

    params: dict[str, np.ndarray]
    heads: int

    @property
    def layers(self) -> int:
        return sum(1 for k in self.params if k.startswith("wqkv"))

    @property
    def width(self) -> int:
        return self.params["tok"].shape[1]

    @property
    def vocab(self) -> int:
        return self.params["tok"].shape[0]

    @property
    def positions(self) -> int:
        return self.params["pos"].shape[0]


def n_params(model: Model) -> int:
    """How many numbers the model holds."""
    return int(sum(p.size for p in model.params.values()))


def init_model(vocab: int, positions: int, width: int = 48, layers: int = 2, heads: int = 4,
               hidden: int | None = None, seed: int = 0) -> Model:
    """A freshly initialised model (normal weights scaled by 1/√fan-in, residual outputs by 1/√(2·layers)).

    >>> m = init_model(17, 20, width=16, layers=1, heads=2, seed=0)
    >>> m.params["wqkv0"].shape, m.layers, m.heads
    ((16, 48), 1, 2)
    """
    vocab = count("vocab", vocab, low=2)
    positions = count("positions", positions, low=1)
    width = count("width", width, low=1)
    layers = count("layers", layers, low=1)
    heads = count("heads", heads, low=1)
    if width % heads:
        raise ValueError(f"width must be a multiple of heads ({heads}), got {width}")
    hidden = 4 * width if hidden is None else count("hidden", hidden, low=1)
    rng = np.random.default_rng(seed)
    res = 1.0 / np.sqrt(2 * layers)

    def normal(*shape, scale):
        return rng.normal(0.0, scale, shape)

    p: dict[str, np.ndarray] = {"tok": normal(vocab, width, scale=0.5), "pos": normal(positions, width, scale=0.5)}
    for i in range(layers):
        p[f"g1{i}"] = np.ones(width)
        p[f"wqkv{i}"] = normal(width, 3 * width, scale=width**-0.5)
        p[f"wo{i}"] = normal(width, width, scale=res * width**-0.5)
        p[f"g2{i}"] = np.ones(width)
        p[f"w1{i}"] = normal(width, hidden, scale=width**-0.5)
        p[f"b1{i}"] = np.zeros(hidden)
        p[f"w2{i}"] = normal(hidden, width, scale=res * hidden**-0.5)
        p[f"b2{i}"] = np.zeros(width)
    p["gf"] = np.ones(width)
    p["wout"] = normal(width, vocab, scale=width**-0.5)
    p["bout"] = np.zeros(vocab)
    p["wv"] = np.zeros(width)
    p["bv"] = np.zeros(1)
    return Model(p, heads)


# ---------------------------------------------------------------- pieces with their backward


def _rms(x: np.ndarray, g: np.ndarray):
    r = 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + RMS_EPS)
    xn = x * r
    return xn * g, (xn, r)


def _rms_back(dy: np.ndarray, g: np.ndarray, saved):
    xn, r = saved
    dg = np.sum(dy * xn, axis=tuple(range(dy.ndim - 1)))
    dxn = dy * g
    return r * (dxn - xn * np.mean(dxn * xn, axis=-1, keepdims=True)), dg


def _split(x: np.ndarray, heads: int) -> np.ndarray:
    b, t, d = x.shape
    return x.reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3)   # [B, H, T, dh]


def _merge(x: np.ndarray) -> np.ndarray:
    b, h, t, dh = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, t, h * dh)


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@dataclass(frozen=True)
class Forward:
    logits: np.ndarray   # [B, T, V]
    values: np.ndarray   # [B, T]
    saved: tuple         # what backward needs


def forward(model: Model, tokens: np.ndarray) -> Forward:
    """Logits and values at every position of a batch of token rows [B, T] (T ≤ the model's positions)."""
    p, heads = model.params, model.heads
    tokens = np.asarray(tokens)
    t = tokens.shape[1]
    if t > model.positions:
        raise ValueError(f"tokens must have at most {model.positions} positions, got {t}")
    x = p["tok"][tokens] + p["pos"][:t]
    causal = np.triu(np.full((t, t), -np.inf), 1)
    blocks = []
    for i in range(model.layers):
        h, s1 = _rms(x, p[f"g1{i}"])
        q, k, v = np.split(h @ p[f"wqkv{i}"], 3, axis=-1)
        q, k, v = _split(q, heads), _split(k, heads), _split(v, heads)
        scale = q.shape[-1] ** -0.5
        att = _softmax(q @ k.transpose(0, 1, 3, 2) * scale + causal)
        o = _merge(att @ v)
        x = x + o @ p[f"wo{i}"]
        h2, s2 = _rms(x, p[f"g2{i}"])
        u = h2 @ p[f"w1{i}"] + p[f"b1{i}"]
        a = np.maximum(u, 0.0)
        x = x + a @ p[f"w2{i}"] + p[f"b2{i}"]
        blocks.append((h, s1, q, k, v, att, o, h2, s2, u, a))
    hf, sf = _rms(x, p["gf"])
    logits = hf @ p["wout"] + p["bout"]
    values = hf @ p["wv"] + p["bv"][0]
    return Forward(logits, values, (tokens, blocks, hf, sf))


def backward(model: Model, fwd: Forward, dlogits: np.ndarray, dvalues: np.ndarray | None = None) -> dict:
    """Gradients of a loss with respect to every weight, given ∂loss/∂logits [B, T, V] and ∂loss/∂values [B, T]."""
    p, heads = model.params, model.heads
    tokens, blocks, hf, sf = fwd.saved
    g = {k: np.zeros_like(v) for k, v in p.items()}
    flat_h = hf.reshape(-1, hf.shape[-1])
    g["wout"] = flat_h.T @ dlogits.reshape(-1, dlogits.shape[-1])
    g["bout"] = dlogits.sum(axis=(0, 1))
    dh = dlogits @ p["wout"].T
    if dvalues is not None:
        g["wv"] = flat_h.T @ dvalues.reshape(-1)
        g["bv"] = np.array([dvalues.sum()])
        dh = dh + dvalues[..., None] * p["wv"]
    dx, g["gf"] = _rms_back(dh, p["gf"], sf)
    for i in reversed(range(model.layers)):
        h, s1, q, k, v, att, o, h2, s2, u, a = blocks[i]
        # MLP
        g[f"b2{i}"] = dx.sum(axis=(0, 1))
        g[f"w2{i}"] = a.reshape(-1, a.shape[-1]).T @ dx.reshape(-1, dx.shape[-1])
        du = (dx @ p[f"w2{i}"].T) * (u > 0)
        g[f"b1{i}"] = du.sum(axis=(0, 1))
        g[f"w1{i}"] = h2.reshape(-1, h2.shape[-1]).T @ du.reshape(-1, du.shape[-1])
        dh2 = du @ p[f"w1{i}"].T
        dxa, g[f"g2{i}"] = _rms_back(dh2, p[f"g2{i}"], s2)
        dx = dx + dxa
        # attention
        g[f"wo{i}"] = o.reshape(-1, o.shape[-1]).T @ dx.reshape(-1, dx.shape[-1])
        do = _split(dx @ p[f"wo{i}"].T, heads)
        scale = q.shape[-1] ** -0.5
        dv = att.transpose(0, 1, 3, 2) @ do
        datt = do @ v.transpose(0, 1, 3, 2)
        ds = att * (datt - np.sum(datt * att, axis=-1, keepdims=True)) * scale
        dq = ds @ k
        dk = ds.transpose(0, 1, 3, 2) @ q
        dqkv = np.concatenate([_merge(dq), _merge(dk), _merge(dv)], axis=-1)
        g[f"wqkv{i}"] = h.reshape(-1, h.shape[-1]).T @ dqkv.reshape(-1, dqkv.shape[-1])
        dhh = dqkv @ p[f"wqkv{i}"].T
        dxh, g[f"g1{i}"] = _rms_back(dhh, p[f"g1{i}"], s1)
        dx = dx + dxh
    np.add.at(g["tok"], tokens, dx)
    g["pos"][: tokens.shape[1]] = dx.sum(axis=0)
    return g


def token_log_probs(logits: np.ndarray, tokens: np.ndarray) -> np.ndarray:
    """log π(tokens[:, t+1] | tokens[:, :t+1]) for t = 0…T−2: shape [B, T−1]."""
    lp = log_softmax(logits[:, :-1])
    return np.take_along_axis(lp, np.asarray(tokens)[:, 1:, None], axis=-1)[..., 0]


def log_prob_grad(lp_all: np.ndarray, tokens: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """∂(Σ weight·log π(token))/∂logits = −weight·(π − e_token), from the log-softmax [..., V], tokens, weights."""
    d = np.exp(lp_all)
    idx = np.asarray(tokens)[..., None]
    np.put_along_axis(d, idx, np.take_along_axis(d, idx, axis=-1) - 1.0, axis=-1)
    return -(d * weight[..., None])


# ---------------------------------------------------------------- KV-cached decoding


@dataclass(frozen=True)
class Cache:
    keys: list      # per layer [B, H, t, dh]
    vals: list


def prefill(model: Model, tokens: np.ndarray) -> tuple[np.ndarray, Cache]:
    """Run a batch of prompts [B, t]; the logits at every position [B, t, V] and the cache of keys and values."""
    fwd = forward(model, tokens)
    blocks = fwd.saved[1]
    return fwd.logits, Cache([blk[3] for blk in blocks], [blk[4] for blk in blocks])


def extend(model: Model, tokens: np.ndarray, pos: int, cache: Cache) -> tuple[np.ndarray, np.ndarray, Cache]:
    """Run T more tokens per row [B, T] from position ``pos``, attending to the cache and causally to each other:
    (logits [B, T, V], values [B, T], the cache with them). One token at a time is decoding; a whole answer at once
    scores it after a prompt run only once."""
    p, heads = model.params, model.heads
    t = tokens.shape[1]
    x = p["tok"][tokens] + p["pos"][pos:pos + t]
    causal = np.triu(np.full((t, pos + t), -np.inf), pos + 1)
    keys, vals = [], []
    for i in range(model.layers):
        h, _ = _rms(x, p[f"g1{i}"])
        q, k, v = np.split(h @ p[f"wqkv{i}"], 3, axis=-1)
        q, k, v = _split(q, heads), _split(k, heads), _split(v, heads)
        k = np.concatenate([cache.keys[i], k], axis=2)
        v = np.concatenate([cache.vals[i], v], axis=2)
        keys.append(k)
        vals.append(v)
        att = _softmax(q @ k.transpose(0, 1, 3, 2) * q.shape[-1] ** -0.5 + causal)
        x = x + _merge(att @ v) @ p[f"wo{i}"]
        h2, _ = _rms(x, p[f"g2{i}"])
        x = x + np.maximum(h2 @ p[f"w1{i}"] + p[f"b1{i}"], 0.0) @ p[f"w2{i}"] + p[f"b2{i}"]
    hf, _ = _rms(x, p["gf"])
    return hf @ p["wout"] + p["bout"], hf @ p["wv"] + p["bv"][0], Cache(keys, vals)


def decode_step(model: Model, token: np.ndarray, pos: int, cache: Cache) -> tuple[np.ndarray, np.ndarray, Cache]:
    """One new token per row [B] at position ``pos``, attending to the cache: (logits [B, V], values [B], cache)."""
    logits, values, cache = extend(model, np.asarray(token)[:, None], pos, cache)
    return logits[:, 0], values[:, 0], cache


def repeat_cache(cache: Cache, repeat: int) -> Cache:
    """Each row's keys and values ``repeat`` times in a row (one prompt, many answers)."""
    return Cache([np.repeat(k, repeat, axis=0) for k in cache.keys], [np.repeat(v, repeat, axis=0) for v in cache.vals])


def sample_tokens(probs: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-CDF draws: row b gets the first index whose cumulative probability exceeds u[b] ∈ [0, 1)."""
    cdf = np.cumsum(probs, axis=-1)
    return np.minimum((cdf <= u[:, None] * cdf[:, -1:]).sum(axis=-1), probs.shape[-1] - 1)


def generate(model: Model, prompts: np.ndarray, max_new: int, rng: np.random.Generator, *, end: int, pad: int,
             temperature: float = 1.0, return_logits: bool = False, repeat: int = 1):
    """Sample up to ``max_new`` tokens after each prompt [B, P] with the KV cache, at a temperature.

    A row that writes ``end`` is finished: every later slot holds ``pad``. Returns the rows [B, P + max_new],
    and with ``return_logits`` also the logits each new token was drawn from, [B, max_new, V] (at temperature 1;
    after a row has ended, the logits of its padding). ``repeat``: each prompt is answered that many times in a row
    (B · repeat rows), its prompt run once.
    """
    temperature = positive("temperature", temperature)
    max_new = count("max_new", max_new, low=1)
    repeat = count("repeat", repeat, low=1)
    prompts = np.asarray(prompts)
    t0 = prompts.shape[1]
    if t0 + max_new - 1 > model.positions:
        raise ValueError(f"max_new must leave the answer inside {model.positions} positions, got {max_new}")
    logits, cache = prefill(model, prompts)
    last = logits[:, -1]
    if repeat > 1:
        prompts, last, cache = np.repeat(prompts, repeat, axis=0), np.repeat(last, repeat, axis=0), repeat_cache(
            cache, repeat)
    b = len(prompts)
    out = np.full((b, t0 + max_new), pad, dtype=prompts.dtype)
    out[:, :t0] = prompts
    done = np.zeros(b, dtype=bool)
    seen = np.zeros((b, max_new, last.shape[-1]) if return_logits else (0, max_new, 0))
    for j in range(max_new):
        if return_logits:
            seen[:, j] = last
        tok = sample_tokens(_softmax(last / temperature), rng.random(b))
        tok = np.where(done, pad, tok)
        out[:, t0 + j] = tok
        done |= tok == end
        if done.all() or j == max_new - 1:
            break
        last, _, cache = decode_step(model, tok, t0 + j, cache)
    return (out, seen) if return_logits else out


# ---------------------------------------------------------------- the optimiser


@dataclass(frozen=True)
class Adam:
    """Adam's running moments (Kingma & Ba 2015) and its step count."""

    m: dict
    v: dict
    t: int


def adam_init(model: Model) -> Adam:
    return Adam({k: np.zeros_like(x) for k, x in model.params.items()},
                {k: np.zeros_like(x) for k, x in model.params.items()}, 0)


def adam_step(model: Model, grads: dict, state: Adam, lr: float, b1: float = 0.9, b2: float = 0.999,
              eps: float = 1e-8, max_norm: float | None = 1.0) -> tuple[Model, Adam, float]:
    """One Adam step on every weight (the gradient first clipped to ``max_norm``): (model, state, grad norm)."""
    norm = float(np.sqrt(sum(float(np.sum(g * g)) for g in grads.values())))
    scale = min(1.0, max_norm / norm) if max_norm is not None and norm > 0 else 1.0
    t = state.t + 1
    params, m, v = {}, {}, {}
    for k, x in model.params.items():
        g = grads[k] * scale
        m[k] = b1 * state.m[k] + (1 - b1) * g
        v[k] = b2 * state.v[k] + (1 - b2) * g * g
        mhat = m[k] / (1 - b1**t)
        vhat = v[k] / (1 - b2**t)
        params[k] = x - lr * mhat / (np.sqrt(vhat) + eps)
    return Model(params, model.heads), Adam(m, v, t), norm
