"""What `kozyr play` keeps of a match: its replay file and the player's receipts, side by side.

Without --server the embedded server (and its Redis) is gone when `kozyr play` ends, so the
match is exported at the end or it is lost; with --server the log stays there, and the
receipts are what lets the player prove later what it held (docs/fairness.md §6). The files go
to ``--save-dir`` (default ``$XDG_DATA_HOME/kozyr/matches``, else
``~/.local/share/kozyr/matches``):

- ``<match id>.jsonl`` — the replay file (`kozyr replay verify`, `kozyr replay show`);
- ``<match id>.receipts.jsonl`` — every receipt the player's seat was handed;
- ``<match id>.key`` — the public key the receipts are signed with (as the server said);
- ``<match id>.tree-head.json`` and ``<match id>.proof.json`` — when the server keeps a
  transparency log (docs/fairness.md §9): its signed tree head once the match is over, and the
  match's inclusion proof under it (`kozyr replay verify --tree-head --inclusion-proof`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kozyr_client import KozyrClient, SeatClient


def default_folder() -> Path:
    """Where matches are kept unless --save-dir says otherwise."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "kozyr" / "matches"


def parse_contribution(text: str) -> bytes:
    """--contribution: ``0x…`` is hex, anything else its UTF-8 bytes (at most 64, as the
    server allows; docs/fairness.md §1)."""
    if text.startswith(("0x", "0X")):
        try:
            raw = bytes.fromhex(text[2:])
        except ValueError:
            raise ValueError(f"--contribution {text!r} is not hex after 0x") from None
    else:
        raw = text.encode("utf-8")
    if len(raw) > 64:
        raise ValueError(f"--contribution is {len(raw)} bytes; the server takes at most 64")
    return raw


@dataclass
class Keeper:
    """Collects what to keep while the match is played, and writes it at the end."""

    folder: Path | None
    address: str = ""
    token: str | None = None  # the embedded server's arbiter token: export even unfinished
    match_id: str = ""
    seat: SeatClient | None = None
    key: str = ""
    key_id: str = ""
    lines: list[str] = field(default_factory=list)

    def started(self, client: KozyrClient, match_id: str, seat: SeatClient) -> str:
        """Note the match; the line telling the player its signed commitment and the key (the
        key id is the start of the key's fingerprint, docs/fairness.md §6)."""
        self.match_id, self.seat = match_id, seat
        keys = client.signing_keys()
        if keys:
            self.key, self.key_id = keys[0].public_key.hex(), keys[0].key_id
        commitment = seat.receipts.fingerprint()
        if not commitment:
            return "the server sent no signed receipt: nothing to prove a dispute with"
        return f"seed commitment {commitment} · signed by key {self.key_id or '?'}"

    def save(self) -> list[str]:
        """Write the files; the lines to print, each under 80 columns (what was kept, and how
        to verify it)."""
        if self.folder is None or self.seat is None:
            return []
        from kozyr.replay.export import ExportError, export, write_text

        self.folder.mkdir(parents=True, exist_ok=True)
        name = self.match_id
        self.seat.receipts.save(self.folder / f"{name}.receipts.jsonl")
        if self.key:
            (self.folder / f"{name}.key").write_text(self.key + "\n", encoding="utf-8")
        # Short lines: they are printed under the 80-column table.
        out = [f"{len(self.seat.receipts)} receipts kept in", f"  {self.folder}"]
        head = "kozyr play: "
        try:
            done = export(self.address, self.match_id, self.token)
        except ExportError as e:
            return [
                head + out[0],
                out[1],
                f"{head}the log was not exported ({e.reason}): once the match is over,",
                f"  kozyr replay export {name} --server {self.address}",
            ]
        write_text(str(self.folder / f"{name}.jsonl"), done.text)
        out[0] = f"{head}the match log ({done.entries} entries) and {out[0]}"
        logged = self._keep_tree_head()
        if self.key:
            out += [
                f"{head}check them there with",
                f"  kozyr replay verify {name}.jsonl --key {name}.key",
                f"      --receipts {name}.receipts.jsonl",
            ]
            if logged:
                out.append(f"      --tree-head {name}.tree-head.json")
                out.append(f"      --inclusion-proof {name}.proof.json")
        return out

    def _keep_tree_head(self) -> bool:
        """Save the server's signed tree head and the match's inclusion proof under it (False
        when the server keeps no transparency log, or the match is not in it)."""
        import json

        from kozyr.core.tree_heads import Leaf, TreeHead, proof_file
        from kozyr_client import KozyrClient, KozyrError

        assert self.folder is not None
        try:
            with KozyrClient(self.address, timeout=10) as client:
                shown = client.tree_head()
                answer = client.inclusion_proof(self.match_id, shown.size)
        except KozyrError:
            return False
        head = TreeHead(
            shown.size, shown.root_hash.hex(), shown.time_ms, shown.key_id, shown.signature.hex()
        )
        proofs = [(Leaf.parse(x.data), x.index, list(x.audit_path)) for x in answer.leaves]
        name = self.match_id
        (self.folder / f"{name}.tree-head.json").write_text(
            json.dumps(head.to_json(), indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        (self.folder / f"{name}.proof.json").write_text(
            json.dumps(proof_file(name, head, proofs), indent=2, sort_keys=True) + "\n",
            encoding="utf-8",
        )
        return True
