"""`kozyr keys show | rotate`: the public keys the server signs receipts with.

`show` prints each key's validity as ``valid <from ms>..<until ms | ->`` (entries whose time
is in it may carry its signature), the format `kozyr replay verify --key FILE` reads.

The folder is the server's (``--signing-key-dir``, else $KOZYR_SIGNING_KEY_DIR, else
``<data-dir>/signing``); `show` makes no key, it only prints what is there, or with
``--server ADDR`` what a running server answers to GetSigningKeys.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any


def signing_dir(args: argparse.Namespace) -> Path:
    """The signing-key folder `kozyr serve` or `kozyr keys` was pointed at."""
    given = getattr(args, "signing_key_dir", None) or os.environ.get("KOZYR_SIGNING_KEY_DIR")
    return Path(given) if given else Path(args.data_dir) / "signing"


def _show(args: argparse.Namespace) -> int:
    from kozyr.core.receipts import short_fingerprint
    from kozyr.secrets.signing import PublicKey, read_listing

    if args.server:  # what a running server says it signs with
        from kozyr_client import KozyrClient, KozyrError

        try:
            with KozyrClient(args.server, timeout=10) as client:
                keys = tuple(
                    PublicKey(
                        k.key_id,
                        k.public_key,
                        k.current,
                        k.valid_from_ms,
                        k.valid_until_ms or None,
                    )
                    for k in client.signing_keys()
                )
        except KozyrError as e:
            print(f"kozyr keys: {e.reason}: {e.message}", file=sys.stderr)
            return 1
        where = f"the server at {args.server}"
    else:
        folder = signing_dir(args)
        keys = read_listing(folder)
        where = f"{folder} (`kozyr serve` makes one on first start)"
    if not keys:
        print(f"kozyr keys: no signing keys in {where}", file=sys.stderr)
        return 1
    for k in sorted(keys, key=lambda k: not k.current):
        state = "current" if k.current else "retired"
        until = "-" if k.valid_until is None else str(k.valid_until)
        print(
            f"{k.public_key.hex()}  key {k.key_id}  {state}  valid {k.valid_from}..{until}  "
            f"({_when(k.valid_from)} .. {'now' if k.valid_until is None else _when(k.valid_until)})"
        )
        print(f"    fingerprint SHA256:{k.fingerprint}  ({short_fingerprint(k.fingerprint)})")
    return 0


def _when(ms: int) -> str:
    """A time of the validity, for people (UTC); 0 is "always" (a key listed before validity)."""
    from datetime import UTC, datetime

    if ms == 0:
        return "always"
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _rotate(args: argparse.Namespace) -> int:
    from kozyr.secrets.signing import rotate

    folder = signing_dir(args)
    try:
        signer = rotate(folder)
    except (OSError, ValueError) as e:
        print(f"kozyr keys rotate: {e}", file=sys.stderr)
        return 1
    print(
        f"kozyr keys: new current key {signer.key_id}; "
        f"{len(signer.keys) - 1} older key(s) kept as retired in {folder}",
        file=sys.stderr,
    )
    print("restart the servers that share this folder to sign with it", file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add `kozyr keys …`."""
    parser = sub.add_parser(
        "keys",
        help="the server's receipt-signing keys",
        description="The Ed25519 public keys receipts and logs are signed "
        "with (docs/fairness.md §6).",
    )
    commands = parser.add_subparsers(dest="keys_command", required=True)
    for name, func, text in (
        ("show", _show, "print every public key (current first) with its fingerprint"),
        ("rotate", _rotate, "make a new current key; old public keys stay listed"),
    ):
        command = commands.add_parser(name, help=text, description=text)
        command.add_argument("--data-dir", default="data", help="the server's data folder")
        command.add_argument(
            "--signing-key-dir",
            default=None,
            help="the signing-key folder (default: $KOZYR_SIGNING_KEY_DIR, "
            "else <data-dir>/signing)",
        )
        if name == "show":
            command.add_argument(
                "--server",
                default=None,
                metavar="ADDR",
                help="ask a running server (GetSigningKeys) instead",
            )
        command.set_defaults(func=func)
