"""`policy:path=FILE`: a trained policy plays (docs/agents.md "Policy format").

The file is a NumPy ``.npz`` archive holding a small multi-layer perceptron over the seat's
view encoding (kozyr.bots.encodings):

- ``game``: the game's name (a 0-d string array), ``format``: ``kozyr-policy/1``;
- ``w0, b0, w1, b1, …``: the layers, ``w{i}`` of shape (inputs, outputs), ``b{i}`` (outputs,);
  the first takes the encoding's size, the last gives one logit per action index; ReLU
  between layers, none after the last.

The bot scores its legal actions only (the others are masked out) and plays the best
(``sample=true``: draws one from the softmax of the legal logits, with the bot's seed). NumPy
is imported when a policy is first loaded, so the server and the other bots never need it.
"""

from __future__ import annotations

import os
import random
from functools import lru_cache
from typing import Any

from kozyr.bots.encodings import Encoding, encoding
from kozyr.bots.protocol import BadBotSpec, Command, Seat
from kozyr.games.contract import AnyGame

FORMAT = "kozyr-policy/1"


@lru_cache(maxsize=16)
def _load(path: str, mtime: float) -> tuple[str, tuple[tuple[Any, Any], ...]]:
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["format"]) != FORMAT:
                raise BadBotSpec(f"{path} is not a {FORMAT} file")
            game = str(data["game"])
            layers = []
            i = 0
            while f"w{i}" in data:
                layers.append((data[f"w{i}"].astype(np.float32), data[f"b{i}"].astype(np.float32)))
                i += 1
    except (OSError, KeyError, ValueError) as e:
        raise BadBotSpec(f"cannot load the policy {path}: {e}") from None
    if not layers:
        raise BadBotSpec(f"the policy {path} has no layers")
    return game, tuple(layers)


def load_policy(path: str) -> tuple[str, tuple[tuple[Any, Any], ...]]:
    """The game and layers of a policy file (cached while the file is unchanged)."""
    try:
        mtime = os.stat(path).st_mtime
    except OSError as e:
        raise BadBotSpec(f"cannot read the policy {path}: {e.strerror}") from None
    return _load(path, mtime)


def logits(layers: tuple[tuple[Any, Any], ...], observation: Any) -> Any:
    """The MLP's logits for one observation (or a batch)."""
    import numpy as np

    x = observation
    for i, (w, b) in enumerate(layers):
        x = x @ w + b
        if i < len(layers) - 1:
            x = np.maximum(x, 0.0)
    return x


class PolicyBot:
    """Plays the legal action its policy scores highest (or samples, see module docstring)."""

    def __init__(self, game: AnyGame, path: str, rng: random.Random, sample: bool) -> None:
        name, self.layers = load_policy(path)
        if name != game.NAME:
            raise BadBotSpec(f"the policy {path} plays {name}, not {game.NAME}")
        self.code: Encoding = encoding(game.NAME)
        size = self.layers[0][0].shape[0]
        if size != self.code.size or self.layers[-1][0].shape[1] != self.code.actions:
            raise BadBotSpec(f"the policy {path} does not fit the {game.NAME} encoding")
        self.rng = rng
        self.sample = sample

    def choose(self, seat: Seat) -> Command:
        """The policy's choice among the legal commands."""
        import numpy as np

        legal = seat.legal
        if len(legal) == 1:
            return legal[0]
        obs = np.asarray(self.code.observe(seat.view), dtype=np.float32)
        scores = logits(self.layers, obs)
        indices = [self.code.action_of(c) for c in legal]
        chosen = scores[indices]
        if not self.sample:
            return legal[int(np.argmax(chosen))]
        weights = np.exp(chosen - chosen.max())
        return self.rng.choices(legal, weights=list(weights))[0]
