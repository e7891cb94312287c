"""`kozyr replay export | verify | show` (also runnable on its own as
`python -m kozyr.cli.replay_command …`, which loads neither gRPC nor Redis for verify and show).

Exit status: export 0 written, 1 refused or unreachable; verify 0 verified, 1 not verified,
2 unreadable; show 0 shown, 2 unreadable.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kozyr.replay import archive

if TYPE_CHECKING:
    from kozyr.replay.steps import Frame, Viewer

DEFAULT_SERVER = "127.0.0.1:50051"


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add `kozyr replay …` to the `kozyr` command."""
    parser = sub.add_parser(
        "replay",
        help="export, verify and show match replays",
        description="Replays: portable, verifiable match logs (docs/replay-format.md).",
    )
    add_commands(parser.add_subparsers(dest="replay_command", required=True))


def add_commands(sub: argparse._SubParsersAction[Any]) -> None:
    """Add export, verify and show to a subparsers object."""
    _add_export(sub)
    _add_verify(sub)
    _add_show(sub)


def _add_export(sub: argparse._SubParsersAction[Any]) -> None:
    export = sub.add_parser(
        "export",
        help="write a match's replay file (from a server)",
        description="Fetch a match's full log from a server and write it as a replay file. "
        "Needs the arbiter token, or any token (or none) once the match has ended.",
    )
    export.add_argument("match_id")
    export.add_argument("-o", "--output", required=True, help="file to write ('-' = stdout)")
    export.add_argument(
        "--server",
        default=os.environ.get("KOZYR_SERVER", DEFAULT_SERVER),
        help=f"host:port of the service (default: $KOZYR_SERVER or {DEFAULT_SERVER})",
    )
    export.add_argument(
        "--token",
        default=None,
        help="bearer token (default: $KOZYR_TOKEN, else $KOZYR_ARBITER_TOKEN, else none)",
    )
    export.add_argument("--tls", action="store_true", help="connect with TLS")
    export.set_defaults(func=_export)


def _add_verify(sub: argparse._SubParsersAction[Any]) -> None:
    verify = sub.add_parser(
        "verify",
        help="verify a replay file offline",
        description="Check a replay file with no server and no Redis: the hash chain, the seed "
        "commitment, every deal and die roll (docs/fairness.md), every move under "
        "the current rules, and the outcome. Exit 0 verified, 1 not verified, "
        "2 unreadable.",
    )
    verify.add_argument("file")
    verify.add_argument(
        "--commitment",
        default=None,
        help="the seed commitment you noted when the match was created",
    )
    verify.add_argument("--head", default=None, help="the final head hash you noted")
    verify.add_argument(
        "--key",
        action="append",
        default=[],
        metavar="PUBKEY",
        help="the operator's Ed25519 public key (64 hex digits: valid always), or "
        "a file of keys with their validity (`kozyr keys show` output, or the "
        "server's keys.txt); repeatable. Every entry must then carry the "
        "operator's signature, by the key valid at the entry's time",
    )
    verify.add_argument(
        "--receipts",
        action="append",
        default=[],
        metavar="FILE",
        help="a player's receipts file (saved by `kozyr play`, kozyr_client); "
        "each receipt is checked against the log (needs --key)",
    )
    verify.add_argument(
        "--tree-head",
        default=None,
        metavar="HEAD.json",
        help="a signed tree head of the operator's transparency log (`kozyr log head`): "
        "the file's commitment and final head must be included under it (needs --key "
        "and --inclusion-proof)",
    )
    verify.add_argument(
        "--inclusion-proof",
        default=None,
        metavar="FILE",
        help="the match's inclusion proof (`kozyr log prove MATCH --out FILE`)",
    )
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    verify.set_defaults(func=_verify)


def _add_show(sub: argparse._SubParsersAction[Any]) -> None:
    show = sub.add_parser(
        "show",
        help="print the table at a step of a replay",
        description="Print the table after entry N as a person would see it: from one seat, "
        "as a spectator, or the full table (every hand and the stock).",
    )
    show.add_argument("file")
    show.add_argument(
        "--step",
        default=None,
        help="N, A-B, A- (to the end), all, or a comma list; negative counts "
        "from the end (default: the last step; interactive from step 1 "
        "on a terminal)",
    )
    show.add_argument(
        "--as", dest="viewer", default="full", help="a seat number, 'spectator' or 'full' (default)"
    )
    show.add_argument(
        "-i",
        "--interactive",
        action="store_true",
        help="step through with commands read from stdin (the default on a "
        "terminal when --step is not given)",
    )
    show.add_argument(
        "--no-events",
        action="store_true",
        help="print only the table, not what happened in each entry",
    )
    show.set_defaults(func=_show)


# ---------------------------------------------------------------------------- export


def _export(args: argparse.Namespace) -> int:
    from kozyr.replay.export import ExportError, export, write_text

    token = (
        args.token or os.environ.get("KOZYR_TOKEN") or os.environ.get("KOZYR_ARBITER_TOKEN") or None
    )
    try:
        done = export(args.server, args.match_id, token, tls=args.tls)
        write_text(args.output, done.text)
    except ExportError as e:
        print(f"kozyr replay export: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(
            f"kozyr replay export: cannot write {args.output}: {e.strerror or e}", file=sys.stderr
        )
        return 1
    state = "finished" if done.finished else "not finished (the seed is not revealed yet)"
    print(
        f"kozyr replay export: {done.game} match {done.match_id}, {done.entries} entries, "
        f"{state} -> {args.output}",
        file=sys.stderr,
    )
    return 0


# ---------------------------------------------------------------------------- verify


def _verify(args: argparse.Namespace) -> int:
    from kozyr.core.receipts import KeyRing, parse_keys, read_receipts
    from kozyr.replay.verify import unreadable, verify

    try:
        keys = KeyRing(key for given in args.key for key in parse_keys(given))
        if args.receipts and not keys:
            raise ValueError(
                "--receipts needs the operator's key (--key): a receipt is only "
                "evidence once its signature is checked"
            )
        held = [r for path in args.receipts for r in read_receipts(path)] if args.receipts else None
        logged = _log_proof(args, keys)
    except (OSError, ValueError) as e:
        print(f"kozyr replay verify: {e}", file=sys.stderr)
        return 2
    try:
        replay = archive.read(args.file)
    except archive.Unreadable as e:
        report = unreadable(str(e))
    else:
        report = verify(
            replay,
            expect_commitment=args.commitment,
            expect_head=args.head,
            keys=keys,
            receipts=held,
        )
        if logged is not None:
            from kozyr.replay.verify_tlog import with_log_check

            head, proof_head, proofs = logged
            report = with_log_check(report, replay, head, proof_head, proofs, keys)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        print(report.text())
    return report.exit_code


def _log_proof(args: argparse.Namespace, keys: Any) -> Any:
    """The tree head and the proof file of --tree-head and --inclusion-proof (None without)."""
    if args.tree_head is None and args.inclusion_proof is None:
        return None
    if not (args.tree_head and args.inclusion_proof and keys):
        raise ValueError(
            "--tree-head needs --inclusion-proof (kozyr log prove) and the operator's key "
            "(--key): a tree head is only evidence once its signature is checked"
        )
    from kozyr.core.tree_heads import TreeHead, read_proof_file

    head = TreeHead.from_json(_json_file(args.tree_head))
    proof_head, proofs = read_proof_file(_json_file(args.inclusion_proof))
    return head, proof_head, proofs


def _json_file(path: str) -> Any:
    """A JSON file's content (ValueError naming the file if it is not JSON)."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path} is not JSON: {e}") from None


# ---------------------------------------------------------------------------- show


def _show(args: argparse.Namespace) -> int:
    from kozyr.replay import steps

    try:
        replay = archive.read(args.file)
        frames = steps.frames(replay)
    except (archive.Unreadable, ValueError) as e:
        print(f"kozyr replay show: {e}", file=sys.stderr)
        return 2
    if not frames:
        print("kozyr replay show: the replay holds no entries", file=sys.stderr)
        return 2
    total = len(frames)
    try:
        viewer = _viewer(args.viewer, frames[-1].record.players)
        chosen = steps.parse_steps(args.step, total) if args.step is not None else [total]
    except ValueError as e:
        print(f"kozyr replay show: {e}", file=sys.stderr)
        return 2
    interactive = args.interactive or (
        args.step is None and sys.stdin.isatty() and sys.stdout.isatty()
    )
    if interactive:  # stepping through starts at the beginning unless --step says where
        return _interactive(
            frames, viewer, chosen[0] if args.step is not None else 1, not args.no_events
        )
    for n, step in enumerate(chosen):
        if n:
            print()
        print(steps.frame_text(frames[step - 1], total, viewer, events=not args.no_events))
    return 0


def _viewer(text: str, players: int) -> Viewer:
    from kozyr.replay import steps

    viewer = steps.parse_viewer(text)
    if isinstance(viewer, int) and not 0 <= viewer < players:
        raise ValueError(f"there is no seat {viewer} (seats 0..{players - 1})")
    return viewer


HELP = (
    "Enter or n: next · p: previous · N: go to step N · a SEAT|spectator|full: change the "
    "view · q: quit"
)


def _interactive(frames: list[Frame], viewer: Viewer, step: int, events: bool) -> int:
    """Step through the match with one-line commands from stdin (a terminal or a pipe)."""
    from kozyr.replay import steps

    total = len(frames)
    print(HELP)
    while True:
        print(steps.frame_text(frames[step - 1], total, viewer, events=events))
        print(f"[step {step}/{total}] > ", end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            print()
            return 0
        if not sys.stdin.isatty():  # a terminal echoes the command; a pipe does not
            print(line.rstrip("\n"))
        command = line.strip().lower()
        if command in ("q", "quit", "exit"):
            return 0
        if command in ("", "n", "next"):
            step = min(step + 1, total)
        elif command in ("p", "prev", "previous"):
            step = max(step - 1, 1)
        elif command.lstrip("-").isdigit():
            try:
                step = steps.parse_steps(command, total)[0]
            except ValueError as e:
                print(e)
        elif command.startswith(("a ", "as ")):
            try:
                viewer = _viewer(command.split(None, 1)[1], frames[-1].record.players)
            except ValueError as e:
                print(e)
        else:
            print(HELP)


def main(argv: list[str] | None = None) -> int:
    """`python -m kozyr.cli.replay_command`: the replay tools without the rest of `kozyr`."""
    parser = argparse.ArgumentParser(
        prog="python -m kozyr.cli.replay_command",
        description="Kozyr replays (docs/replay-format.md)",
    )
    add_commands(parser.add_subparsers(dest="replay_command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
