"""The server's signing key: made owner-only on first use, rotated with old keys kept listed,
printed by `kozyr keys show`; receipts on the engine's answers verify with it."""

from __future__ import annotations

import asyncio
import contextlib
import io
import stat
from pathlib import Path

from kozyr import cli
from kozyr.core.receipts import KeyRing, key_id
from kozyr.engine import Engine
from kozyr.secrets.signing import Signer, load_file, load_or_create, read_listing, rotate
from kozyr.store.memory import MemoryStore


def test_the_key_is_made_owner_only_once_and_listed(tmp_path: Path) -> None:
    folder = tmp_path / "signing"
    first = load_or_create(folder)
    assert stat.S_IMODE((folder / "current.key").stat().st_mode) == 0o600
    again = load_or_create(folder)
    assert again.public_key == first.public_key and again.key_id == key_id(first.public_key)
    (listed,) = read_listing(folder)
    assert (listed.key_id, listed.public_key, listed.current) == (
        first.key_id,
        first.public_key,
        True,
    )


def test_rotation_keeps_old_public_keys_so_old_receipts_still_verify(tmp_path: Path) -> None:
    folder = tmp_path / "signing"
    old = load_or_create(folder)
    receipt = old.receipt("m1", 1, "00" * 32, "11" * 32, 1)
    new = rotate(folder)
    assert new.key_id != old.key_id and load_or_create(folder).key_id == new.key_id
    listing = {k.key_id: k for k in read_listing(folder)}
    assert listing[new.key_id].current and not listing[old.key_id].current
    ring = KeyRing(k.public_key for k in listing.values())
    assert ring.problem(receipt) is None
    assert ring.problem(new.receipt("m1", 2, "00" * 32, "11" * 32, 2)) is None


def test_kozyr_keys_show_prints_every_key_with_its_fingerprint(tmp_path: Path) -> None:
    old = load_or_create(tmp_path / "signing")
    new = rotate(tmp_path / "signing")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["keys", "show", "--data-dir", str(tmp_path)]) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith(new.public_key.hex()) and "current" in lines[0]
    assert any(line.startswith(old.public_key.hex()) and "retired" in line for line in lines)
    assert f"fingerprint SHA256:{new.keys[0].fingerprint}" in out.getvalue()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert cli.main(["keys", "show", "--data-dir", str(tmp_path / "none")]) == 1
    assert "no signing keys" in err.getvalue()


def test_every_appending_answer_of_the_engine_carries_a_receipt_that_verifies() -> None:
    signer = Signer.generate()
    ring = KeyRing([signer.public_key])

    async def body() -> None:
        engine = Engine(MemoryStore(), signer=signer)
        created = await engine.create("dix", {}, [("ann", b""), ("", b"")])
        joined = await engine.join(created.match_id, "bob")
        record = await engine.record(created.match_id)
        seat = record.game.to_act(record.state)
        assert seat is not None
        step = await engine.submit(
            created.match_id, seat, record.game.legal_commands(record.state, seat)[0], "c1"
        )
        again = await engine.submit(
            created.match_id, seat, record.game.legal_commands(record.state, seat)[0], "c1"
        )
        receipts = [created.receipt, joined.receipt, engine.receipt(step), engine.receipt(again)]
        log = await engine.log(created.match_id)
        for receipt, version in zip(receipts, (1, 2, 3, 3), strict=True):
            assert receipt is not None and ring.problem(receipt) is None
            assert (receipt.version, receipt.entry_hash) == (version, log[version - 1].hash)
            assert receipt.commitment == created.commitment == joined.commitment
        assert engine.receipt(step) == engine.receipt(again)  # a repeat: the same receipt

    asyncio.run(body())


def test_a_given_key_file_in_a_read_only_folder_signs_and_lists_its_retired_keys(
    tmp_path: Path,
) -> None:
    old = load_or_create(tmp_path / "secret")
    rotate(tmp_path / "secret")
    given = tmp_path / "secret" / "current.key"
    (tmp_path / "secret").chmod(0o500)  # a mounted secret: nothing may be written there
    try:
        signer = load_file(given)
    finally:
        (tmp_path / "secret").chmod(0o700)
    assert old.key_id in {k.key_id for k in signer.keys if not k.current}
    assert KeyRing([signer.public_key]).problem(signer.receipt("m", 1, "00" * 32, "", 1)) is None
