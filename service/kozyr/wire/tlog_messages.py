"""The transparency log on the wire (docs/fairness.md §9): tree heads and proofs as protos."""

from __future__ import annotations

from collections.abc import Sequence

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.core.tree_heads import TreeHead


def tree_head(head: TreeHead) -> pb.TreeHead:
    """A signed tree head as its proto message (hex fields as raw bytes)."""
    return pb.TreeHead(
        size=head.size,
        root_hash=bytes.fromhex(head.root_hash),
        time_ms=head.time_ms,
        key_id=head.key_id,
        signature=bytes.fromhex(head.signature),
    )


def log_leaf(index: int, data: bytes, path: Sequence[bytes]) -> pb.LogLeaf:
    """One leaf with its audit path."""
    return pb.LogLeaf(index=index, data=data.decode("utf-8"), audit_path=list(path))
