"""The transparency log's Merkle tree (kozyr.core.merkle) against an independent RFC 9162
implementation written here from the RFC's text alone (§2.1): MTH, PATH and PROOF computed the
slow recursive way, and the verifiers of §2.1.3.2 and §2.1.4.2 rewritten without the module's."""

from __future__ import annotations

import hashlib

import pytest

from kozyr.core.merkle import (
    EMPTY_ROOT,
    MerkleTree,
    leaf_hash,
    verify_consistency,
    verify_inclusion,
)


# ------------------------------------------------------------ the independent implementation
def h(b: bytes) -> bytes:
    return hashlib.sha256(b).digest()


def k_of(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(d: list[bytes]) -> bytes:
    if not d:
        return h(b"")
    if len(d) == 1:
        return h(b"\x00" + d[0])
    k = k_of(len(d))
    return h(b"\x01" + mth(d[:k]) + mth(d[k:]))


def path(m: int, d: list[bytes]) -> list[bytes]:
    if len(d) == 1:
        return []
    k = k_of(len(d))
    return [*path(m, d[:k]), mth(d[k:])] if m < k else [*path(m - k, d[k:]), mth(d[:k])]


def subproof(m: int, d: list[bytes], b: bool) -> list[bytes]:
    if m == len(d):
        return [] if b else [mth(d)]
    k = k_of(len(d))
    if m <= k:
        return [*subproof(m, d[:k], b), mth(d[k:])]
    return [*subproof(m - k, d[k:], False), mth(d[:k])]


def root_from_path(index: int, size: int, leaf: bytes, proof: list[bytes]) -> bytes:
    # Recompute the root by walking the tree's shape from the top (not the RFC's bit loop).
    if size == 1:
        assert not proof
        return leaf
    k = k_of(size)
    *rest, sibling = proof
    if index < k:
        return h(b"\x01" + root_from_path(index, k, leaf, rest) + sibling)
    return h(b"\x01" + sibling + root_from_path(index - k, size - k, leaf, rest))


def data(n: int) -> list[bytes]:
    return [f"leaf {i}".encode() for i in range(n)]


SIZES = [*list(range(1, 34)), 63, 64, 65, 100, 127, 128, 129]


# ------------------------------------------------------------ the checks
def test_hashes_are_rfc_9162s() -> None:
    assert EMPTY_ROOT == mth([]) == MerkleTree().root()
    assert leaf_hash(b"x") == h(b"\x00x")
    for n in SIZES:
        tree = MerkleTree([leaf_hash(x) for x in data(n)])
        assert tree.root() == mth(data(n)), n
        assert tree.root(n // 2 or 1) == mth(data(n)[: n // 2 or 1])


@pytest.mark.parametrize("n", SIZES)
def test_inclusion_proofs_match_the_rfc_and_verify_both_ways(n: int) -> None:
    d = data(n)
    tree = MerkleTree([leaf_hash(x) for x in d])
    root = mth(d)
    for m in range(n):
        proof = tree.inclusion_proof(m, n)
        assert proof == path(m, d)
        assert root_from_path(m, n, h(b"\x00" + d[m]), proof) == root
        assert verify_inclusion(leaf_hash(d[m]), m, n, proof, root)
        # A wrong index, leaf or root fails; so does a shortened proof.
        assert not verify_inclusion(leaf_hash(d[m]), (m + 1) % n, n, proof, root) or n == 1
        assert not verify_inclusion(leaf_hash(b"other"), m, n, proof, root)
        assert not verify_inclusion(leaf_hash(d[m]), m, n, proof, h(b"not the root"))
        if proof:
            assert not verify_inclusion(leaf_hash(d[m]), m, n, proof[:-1], root)


@pytest.mark.parametrize("n", SIZES)
def test_consistency_proofs_match_the_rfc_and_verify(n: int) -> None:
    d = data(n)
    tree = MerkleTree([leaf_hash(x) for x in d])
    for m in range(1, n + 1):
        proof = tree.consistency_proof(m, n)
        assert proof == (subproof(m, d, True) if m < n else [])
        assert verify_consistency(m, n, mth(d[:m]), mth(d), proof)
        if m < n:
            # Another history of the first m leaves (one leaf changed) is not consistent.
            forged = [*d[: m - 1], b"forged"]
            assert not verify_consistency(m, n, mth(forged), mth(d), proof)
            assert not verify_consistency(m, n, mth(d[:m]), mth([*d[:-1], b"x"]), proof)


def test_an_rfc_verifier_written_here_accepts_the_modules_consistency_proofs() -> None:
    # RFC 9162 §2.1.4.2, transcribed step by step (independent of the module's verifier).
    def verify(first: int, second: int, fh: bytes, sh: bytes, proof: list[bytes]) -> bool:
        if not proof:
            return False
        p = list(proof)
        if first & (first - 1) == 0:
            p = [fh, *p]
        fn, sn = first - 1, second - 1
        while fn % 2 == 1:
            fn //= 2
            sn //= 2
        fr = sr = p[0]
        for c in p[1:]:
            if sn == 0:
                return False
            if fn % 2 == 1 or fn == sn:
                fr = h(b"\x01" + c + fr)
                sr = h(b"\x01" + c + sr)
                while not (fn % 2 == 1 or fn == 0):
                    fn //= 2
                    sn //= 2
            else:
                sr = h(b"\x01" + sr + c)
            fn //= 2
            sn //= 2
        return fr == fh and sr == sh and sn == 0

    for n in SIZES:
        d = data(n)
        tree = MerkleTree([leaf_hash(x) for x in d])
        for m in range(1, n):
            assert verify(m, n, mth(d[:m]), mth(d), tree.consistency_proof(m, n)), (m, n)


def test_sizes_outside_the_tree_are_refused() -> None:
    tree = MerkleTree([leaf_hash(x) for x in data(5)])
    with pytest.raises(ValueError):
        tree.inclusion_proof(5, 5)
    with pytest.raises(ValueError):
        tree.root(6)
    with pytest.raises(ValueError):
        tree.consistency_proof(4, 3)
    assert not verify_consistency(3, 2, b"", b"", [])
    assert verify_consistency(3, 3, b"r", b"r", [])
    assert not verify_consistency(3, 3, b"r", b"s", [])
