"""A Merkle tree of RFC 9162 (Certificate Transparency v2), §2.1: hashes, inclusion proofs and
consistency proofs, and their verification. Pure: the transparency log's file is the shell's
(`kozyr.secrets.tlog`), its leaf and tree-head formats `kozyr.core.tree_heads`.

- a leaf's hash is ``SHA-256(0x00 || data)``, an inner node's ``SHA-256(0x01 || left || right)``;
- the tree of n leaves splits at k, the largest power of two below n: ``MTH(D[0:k])`` on the
  left, ``MTH(D[k:n])`` on the right (the empty tree's hash is ``SHA-256("")``);
- an inclusion proof (an audit path) and a consistency proof are lists of 32-byte hashes,
  exactly RFC 9162's ``PATH`` and ``PROOF``, verified by its §2.1.3.2 and §2.1.4.2.

Written here rather than taken from pymerkle (7.0.0 on PyPI): its proofs are its own objects, not
RFC 9162's lists of hashes, and its persistent tree is SQLite without a lock for several server
processes; the whole algorithm is the hundred lines below.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence


def leaf_hash(data: bytes) -> bytes:
    """The hash of a leaf: SHA-256(0x00 || data)."""
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """The hash of an inner node: SHA-256(0x01 || left || right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


EMPTY_ROOT = hashlib.sha256(b"").digest()


def _split(n: int) -> int:
    """The largest power of two smaller than n (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


class MerkleTree:
    """An append-only list of leaf hashes with RFC 9162's tree over any prefix of it. The hash
    of every complete subtree (a power-of-two range starting at a multiple of its size) is kept
    once computed - it never changes - so roots and proofs cost O(log² n) hashes."""

    def __init__(self, leaves: Sequence[bytes] = ()) -> None:
        self.leaves: list[bytes] = []
        self._complete: dict[tuple[int, int], bytes] = {}
        for leaf in leaves:
            self.append(leaf)

    @property
    def size(self) -> int:
        """The number of leaves."""
        return len(self.leaves)

    def append(self, leaf: bytes) -> int:
        """Add a leaf hash (32 bytes); its index."""
        if len(leaf) != 32:
            raise ValueError("a leaf hash is 32 bytes")
        self.leaves.append(leaf)
        return len(self.leaves) - 1

    def root(self, size: int | None = None) -> bytes:
        """The tree hash of the first `size` leaves (default: all)."""
        size = self.size if size is None else size
        self._check_size(size)
        return EMPTY_ROOT if size == 0 else self._hash(0, size)

    def inclusion_proof(self, index: int, size: int) -> list[bytes]:
        """The audit path of leaf `index` in the tree of the first `size` leaves."""
        self._check_size(size)
        if not 0 <= index < size:
            raise ValueError(f"leaf {index} is not in a tree of {size} leaves")
        return self._path(index, 0, size)

    def consistency_proof(self, first: int, second: int) -> list[bytes]:
        """The proof that the tree of `first` leaves is a prefix of the tree of `second`."""
        self._check_size(second)
        if not 0 <= first <= second:
            raise ValueError(f"no consistency proof from size {first} to size {second}")
        if first in (0, second):
            return []
        return self._subproof(first, 0, second, True)

    def _check_size(self, size: int) -> None:
        if not 0 <= size <= self.size:
            raise ValueError(f"the log has {self.size} leaves, not {size}")

    def _hash(self, start: int, n: int) -> bytes:
        if n == 1:
            return self.leaves[start]
        complete = n & (n - 1) == 0 and start % n == 0
        if complete and (known := self._complete.get((start, n))) is not None:
            return known
        k = _split(n)
        digest = node_hash(self._hash(start, k), self._hash(start + k, n - k))
        if complete:
            self._complete[(start, n)] = digest
        return digest

    def _path(self, m: int, start: int, n: int) -> list[bytes]:
        if n == 1:
            return []
        k = _split(n)
        if m < k:
            return [*self._path(m, start, k), self._hash(start + k, n - k)]
        return [*self._path(m - k, start + k, n - k), self._hash(start, k)]

    def _subproof(self, m: int, start: int, n: int, whole: bool) -> list[bytes]:
        if m == n:
            return [] if whole else [self._hash(start, n)]
        k = _split(n)
        if m <= k:
            return [*self._subproof(m, start, k, whole), self._hash(start + k, n - k)]
        return [*self._subproof(m - k, start + k, n - k, False), self._hash(start, k)]


def verify_inclusion(
    leaf: bytes, index: int, size: int, proof: Sequence[bytes], root: bytes
) -> bool:
    """Whether `proof` shows the leaf hash `leaf` at `index` in the tree of `size` leaves whose
    hash is `root` (RFC 9162 §2.1.3.2)."""
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root


def verify_consistency(
    first: int, second: int, first_root: bytes, second_root: bytes, proof: Sequence[bytes]
) -> bool:
    """Whether `proof` shows the tree of `first` leaves (hash `first_root`) to be a prefix of
    the tree of `second` leaves (hash `second_root`) (RFC 9162 §2.1.4.2; a tree of 0 leaves is
    a prefix of all, and equal sizes need equal roots and an empty proof)."""
    if not 0 <= first <= second:
        return False
    if first == second:
        return not proof and first_root == second_root
    if first == 0:
        return not proof
    path = list(proof)
    if not path:
        return False
    if first & (first - 1) == 0:
        path.insert(0, first_root)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return fr == first_root and sr == second_root and sn == 0
