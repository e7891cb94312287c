"""A key ring with validity (issue 30, part d; docs/fairness.md §6).

`kozyr keys show` prints every key with the interval it is valid in, in the format
`kozyr replay verify --key FILE` reads; an entry verifies with the key valid at its time. After
a rotation an honest log signed before it verifies with that file, and the retired key's
signature on an entry after its retirement fails, saying so.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import random
from pathlib import Path

from kozyr import cli
from kozyr.core.receipts import GivenKey, KeyRing, Receipt, parse_keys
from kozyr.engine import Engine
from kozyr.replay import archive
from kozyr.secrets.signing import Signer, load_or_create, read_listing, rotate
from kozyr.store.memory import MemoryStore

T0 = 1_780_000_000_000  # ms: the key is made
T1 = T0 + 3_600_000  # the rotation, an hour later


def played(signer: Signer, start_ms: int) -> str:
    """The replay file of a whole match whose entries the engine signed from `start_ms` on."""

    async def body() -> str:
        now = [start_ms / 1000]
        engine = Engine(MemoryStore(), signer=signer, clock=lambda: now[0])
        options = {"target": "10000", "max_hands": "1"}
        created = await engine.create("dix", options, [("ann", b""), ("bob", b"")])
        match_id, rng = created.match_id, random.Random(1)
        for n in range(200):
            record = await engine.record(match_id)
            seat = record.game.to_act(record.state)
            if seat is None or record.finished:
                break
            legal = record.game.legal_commands(record.state, seat)
            now[0] += 1
            await engine.submit(match_id, seat, legal[rng.randrange(len(legal))], f"c{n}")
        raw = [
            archive.RawEntry(
                e.version,
                e.text,
                e.hash,
                Receipt.from_seal(match_id, e.version, e.hash, created.commitment, e.seal),
            )
            for e in await engine.log(match_id)
        ]
        return archive.dumps(archive.build(raw))

    return asyncio.run(body())


def verify(tmp: Path, text: str, *keys: str) -> tuple[int, str]:
    path = tmp / "match.jsonl"
    path.write_text(text)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(["replay", "verify", str(path), *(a for k in keys for a in ("--key", k))])
    return code, out.getvalue()


def keys_file(tmp: Path) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["keys", "show", "--data-dir", str(tmp)]) == 0
    path = tmp / "operator-keys.txt"
    path.write_text(out.getvalue())
    return str(path)


def test_kozyr_keys_show_prints_each_keys_validity_as_verify_reads_it(tmp_path: Path) -> None:
    old = load_or_create(tmp_path / "signing", T0)
    new = rotate(tmp_path / "signing", T1)
    text = Path(keys_file(tmp_path)).read_text()
    assert f"key {new.key_id}  current  valid {T1}..-" in text
    assert f"key {old.key_id}  retired  valid {T0}..{T1}" in text
    given = {k.public_key: k for k in parse_keys(keys_file(tmp_path))}
    assert given == {
        old.public_key: GivenKey(old.public_key, T0, T1),
        new.public_key: GivenKey(new.public_key, T1, None),
    }
    listed = {k.key_id: (k.valid_from, k.valid_until) for k in read_listing(tmp_path / "signing")}
    assert listed == {old.key_id: (T0, T1), new.key_id: (T1, None)}
    # the server's own listing reads the same
    again = parse_keys(str(tmp_path / "signing" / "keys.txt"))
    assert {(k.valid_from, k.valid_until) for k in again} == {(T0, T1), (T1, None)}


def test_after_a_rotation_an_honest_log_signed_before_it_verifies_with_the_keys_file(
    tmp_path: Path,
) -> None:
    old = load_or_create(tmp_path / "signing", T0)
    before = played(old, T0 + 1_000)
    new = rotate(tmp_path / "signing", T1)
    after = played(new, T1 + 1_000)
    keys = keys_file(tmp_path)
    for log in (before, after):
        code, text = verify(tmp_path, log, keys)
        assert code == 0 and "VERIFIED" in text, text
    # the current key alone (what the issue found) does not vouch for the older log
    code, text = verify(tmp_path, before, new.public_key.hex())
    assert code == 1 and "not among the keys given" in text


def test_a_retired_keys_signature_after_its_retirement_fails_saying_so(tmp_path: Path) -> None:
    old = load_or_create(tmp_path / "signing", T0)
    rotate(tmp_path / "signing", T1)
    late = played(old, T1 + 1_000)  # the old key, still signing after it was retired
    code, text = verify(tmp_path, late, keys_file(tmp_path))
    assert code == 1, text
    assert "entry 1:" in text and "outside its validity" in text and str(T1) in text
    # given as bare hex the key has no interval: the same log verifies
    assert verify(tmp_path, late, old.public_key.hex())[0] == 0


def test_a_key_is_valid_from_its_start_until_its_end_exclusive() -> None:
    signer = Signer.generate()
    ring = KeyRing([GivenKey(signer.public_key, 100, 200)])
    receipt = signer.receipt("m", 1, "00" * 32, "11" * 32, 150)
    assert ring.problem(receipt) is None  # checked at the time the receipt signs
    assert [ring.problem(receipt, at) is None for at in (99, 100, 199, 200)] == [
        False,
        True,
        True,
        False,
    ]
    # A receipt alone says when it was made: a signature dated after the key's end fails.
    late = ring.problem(signer.receipt("m", 1, "00" * 32, "11" * 32, 200))
    assert late is not None and "outside its validity" in late


def test_get_signing_keys_serves_each_keys_validity(tmp_path: Path) -> None:
    from kozyr.secrets.signing import load_file
    from kozyr.wire.receipt_messages import signing_keys

    old = load_or_create(tmp_path / "signing", T0)
    new = rotate(tmp_path / "signing", T1)
    served = signing_keys(load_file(tmp_path / "signing" / "current.key")).keys
    assert [(k.key_id, k.current, k.valid_from_ms, k.valid_until_ms) for k in served] == [
        (new.key_id, True, T1, 0),
        (old.key_id, False, T0, T1),
    ]
