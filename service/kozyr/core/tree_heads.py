"""The transparency log's formats (docs/fairness.md §9): its leaves, its signed tree heads and
the proof files `kozyr log prove` writes, with their checks. Pure: the tree is
`kozyr.core.merkle`, the log's file and the signing the shell's (`kozyr.secrets.tlog`).

A **leaf** is the canonical JSON (sorted keys, no spaces, UTF-8) of
``{"commitment", "entry_hash", "kind": "created"|"ended", "match_id",
"type": "kozyr-tlog-leaf/v1", "version"}``: a match's entry 1 (its commitment) when it is
created, its last entry (the final head) when it ends.

A **tree head** is signed over the canonical JSON of
``{"key_id", "root_hash", "size", "time_ms", "type": "kozyr-tree-head/v1"}`` with an Ed25519
key of the server's ring (the one valid at `time_ms`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from kozyr.core.merkle import leaf_hash, verify_consistency, verify_inclusion
from kozyr.core.receipts import KeyRing, signature_holds

LEAF_TYPE: Final = "kozyr-tlog-leaf/v1"
HEAD_TYPE: Final = "kozyr-tree-head/v1"
PROOF_TYPE: Final = "kozyr-tlog-proof/v1"
CREATED: Final = "created"
ENDED: Final = "ended"


def canonical(value: Mapping[str, Any]) -> bytes:
    """Canonical JSON: sorted keys, no spaces, UTF-8."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


@dataclass(frozen=True, slots=True)
class Leaf:
    """One leaf of the log: a match's entry 1 (`created`) or its last entry (`ended`)."""

    kind: str
    match_id: str
    version: int
    entry_hash: str
    commitment: str

    def data(self) -> bytes:
        """The leaf's bytes (what its hash covers)."""
        return canonical(
            {
                "commitment": self.commitment,
                "entry_hash": self.entry_hash,
                "kind": self.kind,
                "match_id": self.match_id,
                "type": LEAF_TYPE,
                "version": self.version,
            }
        )

    def hash(self) -> bytes:
        """The leaf's hash in the tree: SHA-256(0x00 || data)."""
        return leaf_hash(self.data())

    @classmethod
    def parse(cls, data: bytes | str) -> Leaf:
        """A leaf from its bytes; ValueError if they are not one."""
        try:
            value = json.loads(data)
            leaf = cls(
                value["kind"],
                value["match_id"],
                value["version"],
                value["entry_hash"],
                value["commitment"],
            )
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"not a {LEAF_TYPE} leaf: {e}") from None
        if value.get("type") != LEAF_TYPE or leaf.kind not in (CREATED, ENDED):
            raise ValueError(f"not a {LEAF_TYPE} leaf")
        return leaf


@dataclass(frozen=True, slots=True)
class TreeHead:
    """A signed tree head: the log's size and root hash at `time_ms`, signed by `key_id`."""

    size: int
    root_hash: str  # hex
    time_ms: int
    key_id: str
    signature: str  # hex, 64 bytes

    def signed_bytes(self) -> bytes:
        """The exact bytes the signature covers."""
        return head_bytes(self.size, self.root_hash, self.time_ms, self.key_id)

    def to_json(self) -> dict[str, Any]:
        """The head as a JSON object (what `kozyr log head` prints)."""
        return {
            "type": HEAD_TYPE,
            "size": self.size,
            "root_hash": self.root_hash,
            "time_ms": self.time_ms,
            "key_id": self.key_id,
            "signature": self.signature,
        }

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> TreeHead:
        """A head from its JSON object; ValueError if a field is missing or mistyped."""
        try:
            head = cls(
                value["size"],
                str(value["root_hash"]),
                value["time_ms"],
                str(value["key_id"]),
                str(value["signature"]),
            )
        except KeyError as e:
            raise ValueError(f"a tree head needs the field {e.args[0]!r}") from None
        if value.get("type", HEAD_TYPE) != HEAD_TYPE:
            raise ValueError(f"not a {HEAD_TYPE}")
        if type(head.size) is not int or type(head.time_ms) is not int or head.size < 0:
            raise ValueError("a tree head's size and time_ms are numbers")
        return head


def head_bytes(size: int, root_hash: str, time_ms: int, key_id: str) -> bytes:
    """The bytes a tree head's signature covers (docs/fairness.md §9)."""
    return canonical(
        {
            "key_id": key_id,
            "root_hash": root_hash,
            "size": size,
            "time_ms": time_ms,
            "type": HEAD_TYPE,
        }
    )


def head_problem(head: TreeHead, ring: KeyRing) -> str | None:
    """Why the head's signature does not verify with the key of `ring` valid at its time
    (None: it does)."""
    key = ring.given.get(head.key_id)
    if key is None:
        given = ", ".join(sorted(ring.keys)) or "none"
        return (
            f"the tree head is signed with key {head.key_id}, not one of the keys given ({given})"
        )
    if not signature_holds(key.public_key, head.signature, head.signed_bytes()):
        return f"the tree head's signature is not key {head.key_id}'s on its fields"
    if not key.covers(head.time_ms):
        return (
            f"key {head.key_id} is valid {key.interval()} (ms) and the tree head's time is "
            f"{head.time_ms}: the key was used outside its validity"
        )
    return None


def consistent(old: TreeHead, new: TreeHead, proof: Sequence[bytes]) -> bool:
    """Whether `proof` shows the older head's tree to be a prefix of the newer's (either order
    of sizes: the smaller is the prefix)."""
    first, second = (old, new) if old.size <= new.size else (new, old)
    return verify_consistency(
        first.size,
        second.size,
        bytes.fromhex(first.root_hash),
        bytes.fromhex(second.root_hash),
        proof,
    )


def included(leaf: Leaf, index: int, head: TreeHead, path: Sequence[bytes]) -> bool:
    """Whether `path` shows `leaf` at `index` under the head's root."""
    root = bytes.fromhex(head.root_hash)
    return verify_inclusion(leaf.hash(), index, head.size, path, root)


def proof_file(
    match_id: str, head: TreeHead, proofs: Sequence[tuple[Leaf, int, Sequence[bytes]]]
) -> dict[str, Any]:
    """The JSON of a proof file (`kozyr log prove`): the head and each leaf of the match with
    its index and audit path (hex)."""
    return {
        "type": PROOF_TYPE,
        "match_id": match_id,
        "tree_head": head.to_json(),
        "leaves": [
            {
                "index": index,
                "leaf": json.loads(leaf.data()),
                "path": [p.hex() for p in path],
            }
            for leaf, index, path in proofs
        ],
    }


def read_proof_file(
    value: Mapping[str, Any],
) -> tuple[TreeHead, list[tuple[Leaf, int, list[bytes]]]]:
    """The head and the leaves' proofs of a proof file; ValueError if it is not one."""
    if value.get("type") != PROOF_TYPE:
        raise ValueError(f"not a {PROOF_TYPE} file")
    try:
        head = TreeHead.from_json(value["tree_head"])
        proofs = [
            (
                Leaf.parse(json.dumps(item["leaf"])),
                int(item["index"]),
                [bytes.fromhex(p) for p in item["path"]],
            )
            for item in value["leaves"]
        ]
    except (KeyError, TypeError) as e:
        raise ValueError(f"a malformed proof file: {e}") from None
    return head, proofs
