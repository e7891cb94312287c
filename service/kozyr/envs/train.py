"""A small end-to-end example: imitate the heuristic bot, then play the result as a bot.

``python -m kozyr.envs.train --game dix --matches 300 --epochs 30 --out dix.npz`` plays
`matches` in-process matches of ``heuristic`` against ``random`` (kozyr.envs.decisions), keeps
the heuristic seat's decisions, and fits a one-hidden-layer perceptron to them (masked softmax
cross-entropy over the legal actions, Adam, NumPy only, on the CPU). The file it writes is a
``policy:path=FILE`` bot (kozyr.bots.policy); docs/agents.md has the figures of a run and the
duplicate tournament against ``random``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kozyr.bots.policy import FORMAT
from kozyr.envs.decisions import tournament_rows
from kozyr.tournament.spec import Tournament

Array = np.ndarray[Any, Any]


@dataclass(frozen=True, slots=True)
class Samples:
    """Observations, legal masks and the teacher's actions."""

    obs: Array
    mask: Array
    action: Array


def teacher_samples(
    game: str, matches: int, options: Sequence[tuple[str, str]] = (), seed: int = 0
) -> Samples:
    """The heuristic seat's decisions in heuristic-vs-random matches."""
    t = Tournament(game, ("heuristic", "random"), tuple(options), matches=matches, seed=seed)
    obs: list[list[float]] = []
    mask: list[list[int]] = []
    action: list[int] = []
    for rows in tournament_rows(t):
        for r in rows:
            if r.player == "heuristic":
                obs.append(r.observation)
                mask.append(r.mask)
                action.append(r.action)
    return Samples(
        np.asarray(obs, np.float32), np.asarray(mask, np.float32), np.asarray(action, np.int64)
    )


def _init(sizes: Sequence[int], rng: np.random.Generator) -> list[Array]:
    params: list[Array] = []
    for n_in, n_out in itertools.pairwise(sizes):
        params.append((rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in)).astype(np.float32))
        params.append(np.zeros(n_out, np.float32))
    return params


def _grads(params: list[Array], s: Samples) -> tuple[float, list[Array]]:
    """Masked softmax cross-entropy of a one-hidden-layer MLP, and its gradients."""
    w0, b0, w1, b1 = params
    pre = s.obs @ w0 + b0
    hidden = np.maximum(pre, 0.0)
    z = hidden @ w1 + b1
    z = np.where(s.mask > 0, z, -1e9)
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    n = len(s.action)
    loss = float(-np.log(p[np.arange(n), s.action] + 1e-12).mean())
    dz = p
    dz[np.arange(n), s.action] -= 1.0
    dz /= n
    dw1 = hidden.T @ dz
    dh = (dz @ w1.T) * (pre > 0)
    return loss, [s.obs.T @ dh, dh.sum(0), dw1, dz.sum(0)]


def fit(
    s: Samples, hidden: int = 128, epochs: int = 30, batch: int = 256, seed: int = 0
) -> tuple[list[Array], float]:
    """Fit the policy with Adam; the layers and the teacher agreement on the samples."""
    rng = np.random.default_rng(seed)
    params = _init([s.obs.shape[1], hidden, s.mask.shape[1]], rng)
    m = [np.zeros_like(q) for q in params]
    v = [np.zeros_like(q) for q in params]
    step, lr = 0, 1e-3
    for _ in range(epochs):
        order = rng.permutation(len(s.action))
        for start in range(0, len(order), batch):
            pick = order[start : start + batch]
            _, grads = _grads(params, Samples(s.obs[pick], s.mask[pick], s.action[pick]))
            step += 1
            for i, g in enumerate(grads):
                m[i] = 0.9 * m[i] + 0.1 * g
                v[i] = 0.999 * v[i] + 0.001 * g * g
                mhat = m[i] / (1 - 0.9**step)
                vhat = v[i] / (1 - 0.999**step)
                params[i] -= lr * mhat / (np.sqrt(vhat) + 1e-8)
    return params, agreement(params, s)


def agreement(params: list[Array], s: Samples) -> float:
    """The share of samples where the policy's best legal action is the teacher's."""
    w0, b0, w1, b1 = params
    z = np.maximum(s.obs @ w0 + b0, 0.0) @ w1 + b1
    z = np.where(s.mask > 0, z, -np.inf)
    return float((z.argmax(axis=1) == s.action).mean()) if len(s.action) else 0.0


def save(path: Path, game: str, params: list[Array]) -> None:
    """Write the policy file (kozyr.bots.policy's format)."""
    arrays: dict[str, Any] = {f"{'wb'[i % 2]}{i // 2}": q for i, q in enumerate(params)}
    arrays.update(format=np.array(FORMAT), game=np.array(game))
    np.savez(path, **arrays)


def main(argv: Sequence[str] | None = None) -> int:
    """Train and save a policy (see the module docstring)."""
    p = argparse.ArgumentParser(prog="python -m kozyr.envs.train", description=__doc__)
    p.add_argument("--game", default="dix")
    p.add_argument("--matches", type=int, default=300)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    options = [(k, v) for k, _, v in (o.partition("=") for o in args.option)]
    began = time.monotonic()
    samples = teacher_samples(args.game, args.matches, options, args.seed)
    played = time.monotonic()
    params, agree = fit(samples, args.hidden, args.epochs, seed=args.seed)
    save(args.out, args.game, params)
    print(
        f"{len(samples.action)} decisions from {args.matches} matches in {played - began:.1f} s; "
        f"trained {args.epochs} epochs in {time.monotonic() - played:.1f} s; "
        f"agrees with the teacher on {agree:.1%}; wrote {args.out}",
        file=sys.stdout,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
