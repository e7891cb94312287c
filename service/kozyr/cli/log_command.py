"""`kozyr log head | prove | monitor`: the server's transparency log (docs/fairness.md §9).

- `head` prints the signed tree head (JSON, the file `replay verify --tree-head` reads);
- `prove MATCH --out FILE` writes the match's inclusion proof under a head (the one given with
  `--tree-head`, else the current one): what `replay verify --inclusion-proof` reads offline;
- `monitor --state FILE` fetches the head, checks it against every head it kept (same size:
  same root; a larger or smaller one: a consistency proof from the server), keeps it, and
  reports a fork - two signed heads that cannot both be true - as a proof: both heads
  printed, exit 1.

Exit status: 0 done (monitor: consistent), 1 a fork (monitor) or a refusal, 2 unusable input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

DEFAULT_SERVER = "127.0.0.1:50051"


def _head_of(message: Any) -> Any:
    from kozyr.core.tree_heads import TreeHead

    return TreeHead(
        message.size,
        message.root_hash.hex(),
        message.time_ms,
        message.key_id,
        message.signature.hex(),
    )


def _print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, sort_keys=True))


def _head(args: argparse.Namespace) -> int:
    from kozyr_client import KozyrClient

    with KozyrClient(args.server, timeout=30) as client:
        _print_json(_head_of(client.tree_head()).to_json())
    return 0


def _prove(args: argparse.Namespace) -> int:
    from kozyr.core.tree_heads import Leaf, TreeHead, proof_file
    from kozyr_client import KozyrClient

    with KozyrClient(args.server, timeout=30) as client:
        if args.tree_head:
            head = TreeHead.from_json(json.loads(Path(args.tree_head).read_text("utf-8")))
        else:
            head = _head_of(client.tree_head())
        answer = client.inclusion_proof(args.match_id, head.size)
    proofs = [(Leaf.parse(leaf.data), leaf.index, list(leaf.audit_path)) for leaf in answer.leaves]
    text = json.dumps(proof_file(args.match_id, head, proofs), indent=2, sort_keys=True) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text, encoding="utf-8")
        print(
            f"kozyr log: {len(proofs)} leaf proof(s) of {args.match_id} under size {head.size} "
            f"written to {args.out}",
            file=sys.stderr,
        )
    return 0


def _monitor(args: argparse.Namespace) -> int:
    from kozyr.core.receipts import KeyRing, parse_keys
    from kozyr.core.tree_heads import TreeHead, head_problem
    from kozyr_client import KozyrClient

    state = Path(args.state)
    seen = [TreeHead.from_json(h) for h in _read_state(state)]
    keys = KeyRing(key for given in args.key for key in parse_keys(given))
    with KozyrClient(args.server, timeout=30) as client:
        head = _head_of(client.tree_head())
        if keys and (why := head_problem(head, keys)) is not None:
            print(f"kozyr log monitor: the server's head does not verify: {why}", file=sys.stderr)
            return 2
        # Same size first (two roots of one size need no proof), then the largest down.
        for old in sorted(seen, key=lambda h: (h.size != head.size, -h.size)):
            fork = _fork(client, old, head)
            if fork is not None:
                print(f"FORK: {fork}")
                print("PROOF: two signed tree heads of one log that cannot both be true")
                _print_json({"kept": old.to_json(), "served": head.to_json()})
                return 1
    kept = {(h.size, h.root_hash): h for h in [*seen, head]}
    _write_state(state, sorted(kept.values(), key=lambda h: (h.size, h.time_ms)))
    last = max(seen, key=lambda h: h.size) if seen else None
    since = (
        f"consistent with the {len(seen)} head(s) kept (largest: size {last.size})"
        if last
        else "first head kept"
    )
    print(f"kozyr log: tree head of size {head.size}, root {head.root_hash}: {since}")
    return 0


def _fork(client: Any, old: Any, new: Any) -> str | None:
    """Why the two heads cannot both be heads of one append-only log (None: consistent)."""
    from kozyr.core.tree_heads import consistent
    from kozyr_client import KozyrError

    if old.size == new.size:
        if old.root_hash != new.root_hash:
            return f"two heads of size {old.size} with different roots"
        return None
    small, large = (old, new) if old.size < new.size else (new, old)
    if small.size == 0:
        return None
    try:
        proof = client.consistency_proof(small.size, large.size)
    except KozyrError as e:
        if e.reason == "BAD_TREE_SIZE":  # the server no longer has a size it signed
            return f"the log has shrunk below size {large.size}, which it signed: {e.message}"
        raise
    if not consistent(small, large, list(proof.proof)):
        return (
            f"the head of size {small.size} is not a prefix of the head of size {large.size} "
            "(the server's consistency proof does not verify)"
        )
    return None


def _read_state(path: Path) -> list[Any]:
    if not path.exists():
        return []
    data = json.loads(path.read_text("utf-8"))
    return list(data.get("heads", []))


def _write_state(path: Path, heads: list[Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(
        json.dumps({"heads": [h.to_json() for h in heads]}, indent=2, sort_keys=True) + "\n",
        encoding="utf-8",
    )
    os.replace(tmp, path)


def _guarded(func: Any) -> Any:
    def run(args: argparse.Namespace) -> int:
        from kozyr_client import KozyrError

        try:
            return int(func(args))
        except KozyrError as e:
            print(f"kozyr log: {e.reason}: {e.message}", file=sys.stderr)
            return 1
        except (OSError, ValueError) as e:
            print(f"kozyr log: {e}", file=sys.stderr)
            return 2

    return run


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add `kozyr log …`."""
    parser = sub.add_parser(
        "log",
        help="the server's transparency log of match heads",
        description="The append-only Merkle log of every match's commitment and final head "
        "(docs/fairness.md §9).",
    )
    commands = parser.add_subparsers(dest="log_command", required=True)
    head = commands.add_parser("head", help="print the signed tree head (JSON)")
    prove = commands.add_parser("prove", help="write a match's inclusion proof")
    prove.add_argument("match_id")
    prove.add_argument("--out", required=True, help="the proof file ('-' = stdout)")
    prove.add_argument("--tree-head", default=None, help="prove under this head (JSON file)")
    monitor = commands.add_parser(
        "monitor", help="check the head against the heads kept; report a fork as a proof"
    )
    monitor.add_argument("--state", required=True, help="the file of heads kept")
    monitor.add_argument(
        "--key",
        action="append",
        default=[],
        metavar="PUBKEY",
        help="the operator's public key(s) as `replay verify --key` reads them: the head "
        "must verify with the key valid at its time",
    )
    for command, func in ((head, _head), (prove, _prove), (monitor, _monitor)):
        command.add_argument(
            "--server", default=DEFAULT_SERVER, metavar="ADDR", help="the server's address"
        )
        command.set_defaults(func=_guarded(func))
