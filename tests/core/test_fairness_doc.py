"""docs/fairness.md §7, read from the document itself: every vector is checked against the
reference code and against a re-implementation written from the page's text alone (hashlib,
hmac, json and an Ed25519 verifier; no kozyr import in the re-implementation)."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import replace

from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from kozyr.core.cards import deck, format_cards
from kozyr.core.fairness import RandomStream, commitment, match_seed
from kozyr.core.receipts import KeyRing, fingerprint, key_id, signed_bytes
from kozyr.secrets.signing import Signer
from tests.conftest import repo_root


def vectors() -> dict[str, str]:
    text = (repo_root() / "docs" / "fairness.md").read_text(encoding="utf-8")
    block = re.search(r"```vectors\n(.*?)```", text, re.S)
    assert block, "docs/fairness.md has no vectors block"
    out = {}
    for line in block.group(1).splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition(" = ")
            out[name.strip()] = value.strip()
    return out


V = vectors()


# ---------------------------------------------------------------------------- from the text


def draws(seed: bytes, label: str) -> Iterator[int]:
    """§2–3: randbelow on the stream (seed, label); send n, receive a value."""
    buffer, counter = b"", 0
    n = yield 0
    while True:
        while len(buffer) < 8:
            msg = label.encode("ascii") + b"\x00" + counter.to_bytes(8, "big")
            buffer += hmac.new(seed, msg, hashlib.sha256).digest()
            counter += 1
        x, buffer = int.from_bytes(buffer[:8], "big"), buffer[8:]
        if x < 2**64 - 2**64 % n:
            n = yield x % n


def canonical(size: int) -> list[str]:
    """§4: the canonical order."""
    low = {52: "2", 53: "2", 36: "6", 32: "7", 28: "8"}[size]
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    ranks = ranks[ranks.index(low) :]
    return [r + s for s in "SHDC" for r in ranks] + (["JK"] if size == 53 else [])


def shuffle(seed: bytes, label: str, size: int) -> str:
    cards, stream = canonical(size), draws(seed, label)
    next(stream)
    for i in range(len(cards) - 1, 0, -1):
        j = stream.send(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return " ".join(cards)


def rolls(seed: bytes, label: str, count: int, given: Sequence[int] = ()) -> list[int]:
    stream = draws(seed, label)
    next(stream)
    return [*given, *(1 + stream.send(6) for _ in range(count - len(given)))][:count]


def seed_of(server_seed: bytes, contributions: list[bytes]) -> bytes:
    """§1.3."""
    data = b"kozyr/match-seed/v1" + b"\x00" + server_seed
    for c in contributions:
        data += len(c).to_bytes(4, "big") + c
    return hashlib.sha256(data).digest()


def hexlist(text: str) -> list[bytes]:
    return [b"" if w == "-" else bytes.fromhex(w) for w in text.split()]


# ---------------------------------------------------------------------------- the vectors


def test_stream_vectors_from_the_document() -> None:
    seed = bytes.fromhex(V["stream.seed"])
    assert RandomStream(seed, "deal/1").read(16).hex() == V["stream.deal/1.first16"]
    for label, size in (("deal/1", 36), ("deal/1", 53), ("deal/12", 36)):
        expected = V[f"stream.{label}.shuffle{size}"]
        assert shuffle(seed, label, size) == expected
        assert format_cards(RandomStream(seed, label).shuffle(deck(size))) == expected
    assert rolls(seed, "dice/1", 10) == [int(v) for v in V["stream.dice/1.rolls10"].split()]
    kozyr = bytes.fromhex(V["kozyr.seed"])
    assert shuffle(kozyr, "deal/1", 36) == V["kozyr.deal/1.shuffle36"]
    assert " ".join(canonical(52)) == V["deck52"] == format_cards(deck(52))


def test_prearranged_dice_continue_from_the_first_draw_of_their_stream() -> None:
    """§4: the given rolls first, then dice/K from its first draw — the reference rules agree."""
    from kozyr.games import get_game
    from kozyr.games.contract import Dealt, Setup

    seed = bytes.fromhex(V["stream.seed"])
    given = [int(v) for v in V["stream.dice/1.given"].split()]
    expected = [int(v) for v in V["stream.dice/1.continued8"].split()]
    assert rolls(seed, "dice/1", 8, given) == expected
    game = get_game("durak-dice")
    opening = game.start(game.make_config({}, 2), ["a", "b"], seed, Setup(dice=(tuple(given),)))
    dealt = next(e for e in opening if isinstance(e, Dealt))
    assert [r for _, r in dealt.rolls][:8] == expected


def test_commitment_and_match_seed_vectors_from_the_document() -> None:
    server = bytes.fromhex(V["server_seed"])
    assert hashlib.sha256(server).hexdigest() == V["commitment"] == commitment(server)
    contributions = hexlist(V["contributions"])
    assert seed_of(server, contributions).hex() == V["match_seed"]
    assert match_seed(server, contributions).hex() == V["match_seed"]
    assert seed_of(server, [b"", b""]).hex() == V["match_seed.no_contributions_2_seats"]
    seed = bytes.fromhex(V["match_seed"])
    lot = draws(seed, "first-dealer")
    next(lot)
    assert lot.send(3) == int(V["match_seed.lot3"])
    assert shuffle(seed, "deal/1", 36) == V["match_seed.deal/1.shuffle36"]


def test_the_rejection_branch_from_a_fixed_stream() -> None:
    fixed = bytes.fromhex(V["rejection.stream"])
    n = int(V["rejection.n"])
    first = int.from_bytes(fixed[:8], "big")
    assert first >= 2**64 - 2**64 % n  # the first draw is rejected: the vector tests the branch

    class Fixed(RandomStream):
        def __init__(self) -> None:
            super().__init__(b"", "fixed")
            self.rest = fixed

        def read(self, k: int) -> bytes:
            out, self.rest = self.rest[:k], self.rest[k:]
            assert len(out) == k, "the fixed stream ran out"
            return out

    assert Fixed().randbelow(n) == int(V["rejection.result"])


def test_the_receipt_recipe_re_implemented_checks_the_documented_receipt() -> None:
    private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(V["receipt.private"]))
    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    assert public.hex() == V["receipt.public"]
    assert hashlib.sha256(public).hexdigest() == V["receipt.fingerprint"] == fingerprint(public)
    assert V["receipt.fingerprint"][:16] == V["receipt.key_id"] == key_id(public)
    assert hashlib.sha256(b"kozyr").hexdigest() == V["receipt.entry_hash"]
    fields: dict[str, object] = {
        "commitment": V["receipt.commitment"],
        "entry_hash": V["receipt.entry_hash"],
        "key_id": V["receipt.key_id"],
        "match_id": V["receipt.match_id"],
        "time_ms": int(V["receipt.time_ms"]),
        "type": "kozyr-receipt/v2",
        "version": int(V["receipt.version"]),
    }
    message = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
    assert message.decode() == V["receipt.signed"]
    # The recipe, independently: verify the documented signature with the raw public key.
    Ed25519PublicKey.from_public_bytes(bytes.fromhex(V["receipt.public"])).verify(
        bytes.fromhex(V["receipt.signature"]), message
    )
    # And the reference code makes exactly these bytes and this (deterministic) signature.
    assert (
        signed_bytes(
            V["receipt.match_id"],
            int(V["receipt.version"]),
            V["receipt.entry_hash"],
            V["receipt.commitment"],
            V["receipt.key_id"],
            int(V["receipt.time_ms"]),
        )
        == message
    )
    made = Signer(bytes.fromhex(V["receipt.private"])).receipt(
        V["receipt.match_id"],
        int(V["receipt.version"]),
        V["receipt.entry_hash"],
        V["receipt.commitment"],
        int(V["receipt.time_ms"]),
    )
    assert made.signature == V["receipt.signature"]
    assert KeyRing([public]).problem(made) is None
    assert KeyRing([public]).problem(replace(made, version=made.version + 1)) is not None
    assert KeyRing([public]).problem(replace(made, time_ms=made.time_ms + 1)) is not None
    # A v1 receipt (no time) of the same entry still verifies.
    del fields["time_ms"]
    fields["type"] = "kozyr-receipt/v1"
    old = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
    assert old.decode() == V["receipt.v1.signed"]
    v1 = replace(made, signature=V["receipt.v1.signature"], time_ms=None)
    assert KeyRing([public]).problem(v1) is None
    Ed25519PublicKey.from_public_bytes(public).verify(bytes.fromhex(v1.signature), old)
