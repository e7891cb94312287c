"""Helpers of the browser tests: Debian's Chromium through playwright, a seat played from
Python while the page plays another, and the page's Connect traffic as text."""

from __future__ import annotations

import json
import os
import random
import re
import tempfile
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from tests.api.helpers import Stub, auth, forbidden_by_version
from tests.conftest import repo_root

CHROMIUM = Path("/usr/bin/chromium")
# The probe's flags: headless, as root, and no calls to the outside (this machine has none).
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SERVICE = "/kozyr.v1.KozyrService/"
# A finished match's log is public: its replay may show every card.
PUBLIC_AFTER_END = {"InspectReplay", "GetMatchLog", "ReplayMatch"}


def shots() -> Path:
    """Where screenshots go: docs/ with KOZYR_WEB_SHOTS=docs (`make screenshots`), else a
    scratch folder, so a test run leaves the working tree as it was."""
    if os.environ.get("KOZYR_WEB_SHOTS") == "docs":
        return repo_root() / "docs"
    folder = Path(tempfile.gettempdir()) / "kozyr-web-shots"
    folder.mkdir(exist_ok=True)
    return folder


def browser() -> Iterator[Any]:
    """One Chromium for a test module (it is slow to start on a busy machine)."""
    if not CHROMIUM.exists():
        pytest.fail(
            "Debian's chromium is missing: `make test` installs it (apt-get install -y chromium)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        # A first start on a busy machine (a cold disk cache, two loaded cores) can pass 30 s.
        chromium = p.chromium.launch(
            executable_path=str(CHROMIUM), args=ARGS, headless=True, timeout=120_000
        )
        try:
            yield chromium
        finally:
            chromium.close()


class Traffic:
    """Every Connect response a page received: (method, body bytes)."""

    def __init__(self, page: Any) -> None:
        self.bodies: list[tuple[str, bytes]] = []
        self.pending: list[Any] = []
        page.on("requestfinished", self._finished)

    def _finished(self, request: Any) -> None:
        if SERVICE in request.url:
            self.pending.append(request)

    def collect(self) -> list[tuple[str, bytes]]:
        """The bodies of the finished calls (a stream's once it ended)."""
        for request in self.pending:
            response = request.response()
            if response is None:
                continue
            try:
                self.bodies.append((request.url.rsplit("/", 1)[1], response.body()))
            except Exception:  # a stream cut by the test's end has no body to read
                continue
        self.pending.clear()
        return self.bodies


def card_pattern(code: str) -> re.Pattern[str]:
    """A card code as a whole token of JSON text (not inside an id, a word or another code)."""
    return re.compile(rf"(?<![A-Za-z0-9_\-]){re.escape(code)}(?![A-Za-z0-9_\-])")


class Seat(threading.Thread):
    """Plays one seat from Python (random legal moves) until the match ends or it is stopped."""

    def __init__(
        self, stub: Stub, match_id: str, token: str, seed: int = 1, limit: int = 2000
    ) -> None:
        super().__init__(daemon=True)
        self.stub, self.match_id, self.token = stub, match_id, token
        self.rng, self.limit = random.Random(seed), limit
        self.stopped = threading.Event()
        self.moves = 0
        self.error: Exception | None = None
        self.start()

    def run(self) -> None:
        try:
            stream = self.stub.WatchMatch(
                pb.WatchMatchRequest(match_id=self.match_id), metadata=auth(self.token)
            )
            for update in stream:
                view = update.view
                if self.stopped.is_set() or self.moves >= self.limit:
                    stream.cancel()
                    return
                if view.status == pb.MATCH_STATUS_PLAYING and view.to_act == view.seat:
                    self._move()
        except Exception as e:
            if not self.stopped.is_set():
                self.error = e

    def _move(self) -> None:
        legal = self.stub.ListLegalMoves(
            pb.ListLegalMovesRequest(match_id=self.match_id), metadata=auth(self.token)
        )
        if not legal.moves:
            return
        move = legal.moves[self.rng.randrange(len(legal.moves))]
        try:
            self.stub.SubmitMove(
                pb.SubmitMoveRequest(
                    match_id=self.match_id,
                    move=move,
                    command_id=uuid.uuid4().hex,
                    expected_version=legal.version,
                ),
                metadata=auth(self.token),
            )
        except grpc.RpcError as e:
            # An update this seat had already acted on, seen again from the stream's start.
            if e.code() not in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                raise
            return
        self.moves += 1


def messages(body: bytes) -> list[dict[str, Any]]:
    """The JSON messages of a Connect body: one for a unary call, each envelope of a stream."""
    if body[:1] == b"{":
        return [json.loads(body)]
    out = []
    while len(body) >= 5:
        size = int.from_bytes(body[1:5], "big")
        out.append(json.loads(body[5 : 5 + size]))
        body = body[5 + size :]
    return out


# The Connect JSON names of the API's bytes fields (Receipt.signature, the seed contributions,
# a public key): base64 of random bytes, which may hold "+7D/" by chance and never a card.
BYTES_FIELDS = frozenset(
    {"signature", "seedContribution", "seed_contribution", "publicKey", "public_key"}
)


def _without_bytes(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_bytes(v) for k, v in value.items() if k not in BYTES_FIELDS}
    if isinstance(value, list):
        return [_without_bytes(v) for v in value]
    return value


def leaks(
    stub: Stub, match_id: str, seat: int | None, bodies: list[tuple[str, bytes]]
) -> list[str]:
    """Cards (and seeds) the page got before it could know them, judged from the finished
    match's public log as tests/api/test_no_leak.py judges the API's bytes."""
    log = stub.GetMatchLog(pb.GetMatchLogRequest(match_id=match_id)).entries
    forbidden, secrets, final = forbidden_by_version(log, [seat])
    found, checked = [], 0
    for method, body in bodies:
        if method in PUBLIC_AFTER_END:
            continue
        for message in messages(body):
            text = json.dumps(_without_bytes(message))
            versions = [int(v) for v in re.findall(r'"version": "(\d+)"', text)]
            if not versions:
                continue
            version = max(versions)
            for code in forbidden.get((seat, version), ()):
                checked += 1
                if card_pattern(code).search(text):
                    found.append(f"{code} reached seat {seat} at version {version} ({method})")
            if version < final:
                found += [
                    f"a seed reached seat {seat} at version {version}"
                    for secret in secrets
                    if secret.decode("latin-1") in text
                ]
    assert checked > 20, f"the check must look at hidden cards (it looked at {checked})"
    return found


STATUS = "[data-testid=status]"


def _wait(page: Any, condition: str, arg: Any) -> None:
    """Wait for a condition of the page (30 s); on a timeout, fail with what the page shows."""
    from playwright.sync_api import TimeoutError as Timeout

    try:
        page.wait_for_function(condition, arg=arg, timeout=30_000)
    except Timeout:
        raise AssertionError(f"the page did not move on:\n{page.inner_text('main')}") from None


def play_page_to_end(
    page: Any, moves: int = 400, shot: Path | None = None, until_hand: int | None = None
) -> int:
    """Click a legal card whenever the page offers one, until it says the match is finished
    or, with `until_hand`, the board shows that hand (a screenshot to `shot` after the eighth
    move); the number of moves made."""
    for played in range(moves):
        hand = page.get_attribute("section.board", "data-hand") if until_hand else None
        if hand is not None and until_hand is not None and int(hand) >= until_hand:
            return played
        _wait(
            page,
            "h => document.querySelector('button.card.legal, button.action') || "
            "document.querySelector('[data-testid=status]').textContent.startsWith("
            "'Finished') || (h && +document.querySelector('section.board')?.dataset.hand >= h)",
            until_hand or 0,
        )
        if page.inner_text("[data-testid=status]").startswith("Finished"):
            return played
        if played == 8 and shot is not None:
            page.screenshot(path=str(shot))
        # Only the legal cards are offered: every other card of the hand is dimmed and marked
        # aria-disabled (a click on it asks the server, which refuses it by its rule).
        assert page.locator("button.card:not(.legal):not([aria-disabled=true])").count() == 0
        before = page.get_attribute(STATUS, "data-version")
        target = page.locator("button.card.legal, button.action").first
        if played % 2:
            target.focus()  # every other move from the keyboard
            page.keyboard.press("Enter")
        else:
            target.click()
        _wait(
            page,
            "v => document.querySelector('[data-testid=status]').dataset.version !== v"
            " || document.querySelector('[data-testid=message]').textContent",
            before,
        )
    raise AssertionError(f"the match did not finish in {moves} moves")
