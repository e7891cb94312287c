"""`kozyr replay verify --tree-head HEAD --inclusion-proof PROOF`: is this file's match in the
operator's transparency log (docs/fairness.md §9)? Pure: the file, the signed tree head, the
proof file (`kozyr log prove`) and the keys are data.

The leaves are rebuilt from the file itself - entry 1's hash and commitment, and, for a
finished match, its last entry's version and hash - and each must verify by its audit path
under the head's root; the head must be signed by the key of the ring valid at its time. A
file the log does not hold (another history of the match, or a match never logged) fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from kozyr.core.receipts import KeyRing
from kozyr.core.tree_heads import CREATED, ENDED, Leaf, TreeHead, head_problem, included
from kozyr.replay.archive import ReplayFile
from kozyr.replay.report import NOT_VERIFIED, Problem, Report

Proofs = Sequence[tuple[Leaf, int, Sequence[bytes]]]


def expected_leaves(replay: ReplayFile, finished: bool) -> list[Leaf]:
    """The leaves the log must hold for this file: its creation, and its end once finished."""
    if not replay.entries:
        return []
    first, last = replay.entries[0], replay.entries[-1]
    created: dict[str, Any] = next(iter(first.get("events") or [{}]), {})
    match_id = str(replay.header.get("match_id", ""))
    commitment = str(created.get("commitment", ""))
    leaves = [
        Leaf(CREATED, match_id, int(first.get("version", 1)), str(first.get("hash")), commitment)
    ]
    if finished:
        leaves.append(
            Leaf(ENDED, match_id, int(last.get("version", 0)), str(last.get("hash")), commitment)
        )
    return leaves


def problems_in_log(
    replay: ReplayFile,
    finished: bool,
    head: TreeHead,
    proof_head: TreeHead,
    proofs: Proofs,
    keys: KeyRing,
) -> list[Problem]:
    """Why the file's match is not shown in the log under `head` (none: it is)."""
    out = []
    if (why := head_problem(head, keys)) is not None:
        out.append(Problem("tree head", why))
    if (proof_head.size, proof_head.root_hash) != (head.size, head.root_hash):
        out.append(
            Problem(
                "inclusion proof",
                "the proof file is for another tree than the head given",
                expected=f"size {head.size}, root {head.root_hash}",
                found=f"size {proof_head.size}, root {proof_head.root_hash}",
            )
        )
        return out
    by_kind = {leaf.kind: (index, path) for leaf, index, path in proofs}
    for leaf in expected_leaves(replay, finished):
        what = "commitment (entry 1)" if leaf.kind == CREATED else "final head"
        found = by_kind.get(leaf.kind)
        if found is None:
            out.append(
                Problem(
                    "transparency log",
                    f"the proof file shows no {leaf.kind} leaf: the file's {what} is not "
                    f"shown in the log of size {head.size}",
                    expected=leaf.data().decode(),
                    found="no leaf",
                )
            )
        elif not included(leaf, found[0], head, found[1]):
            out.append(
                Problem(
                    "transparency log",
                    f"the file's {what} is not the leaf the log holds at index {found[0]} "
                    f"under the tree head of size {head.size}: the log holds another history "
                    "of this match, or none",
                    expected=leaf.data().decode(),
                    found=f"leaf {found[0]} (audit path does not verify)",
                )
            )
    return out


def with_log_check(
    report: Report,
    replay: ReplayFile,
    head: TreeHead,
    proof_head: TreeHead,
    proofs: Proofs,
    keys: KeyRing,
) -> Report:
    """The report with the transparency log's check added."""
    problems = problems_in_log(replay, report.finished, head, proof_head, proofs, keys)
    if problems:
        return replace(report, status=NOT_VERIFIED, problems=(*report.problems, *problems))
    kinds = "commitment and final head" if report.finished else "commitment (not ended yet)"
    line = (
        f"transparency log: the {kinds} included under the tree head of size {head.size} "
        f"(root {head.root_hash}), signed by key {head.key_id} at {head.time_ms}"
    )
    return replace(report, logged=line)
