"""Two browsers at one Durak match (the second joins from the lobby's open matches), and a
Six Dozens hand on a phone-sized screen, in one real Chromium: each page sees the other's move
as it happens (WatchMatch, no polling), a move from a view that fell behind is refused with the
rule it breaks, the page resumes after a dropped connection, and neither page's traffic holds a
card its seat may not see."""

from __future__ import annotations

import json
import re
import statistics
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.core.receipts import KeyRing, Receipt, short_fingerprint
from kozyr.core.tree_heads import TreeHead, head_problem
from tests.api.helpers import auth
from tests.conftest import ARBITER, ServerThread
from tests.web.conftest import Web
from tests.web.helpers import STATUS, Seat, Traffic, browser, leaks, play_page_to_end, shots

pytestmark = pytest.mark.slow
PLAYABLE = "button.card.legal, button.action"


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    yield from browser()


def _version(page: Any) -> int:
    return int(page.get_attribute(STATUS, "data-version") or 0)


def _token(page: Any, match_id: str) -> str:
    held = json.loads(page.evaluate("localStorage.getItem('kozyr.seats')"))
    return str(next(s["token"] for s in held if s["matchId"] == match_id))


def _open_table(chromium: Any, **options: Any) -> tuple[Any, Any, Traffic]:
    # bypass_csp: playwright evaluates its waits as strings, which the page's policy forbids
    context = chromium.new_context(bypass_csp=True, **options)
    context.set_default_timeout(60_000)  # a loaded machine; every wait is still bounded
    page = context.new_page()
    return context, page, Traffic(page)


def _refused_after_a_drop(web: Web, page: Any, match_id: str) -> None:
    """Reload the page with its watch cut off, play its seat's move behind its back, click
    the card its stale view still offers, then let the watch through again."""
    page.route("**/WatchMatch", lambda route: route.abort())
    page.reload()
    page.locator(PLAYABLE).first.wait_for()  # a reload resumes: the seat, its view and moves
    token = _token(page, match_id)
    stub = web.server.stub()
    legal = stub.ListLegalMoves(pb.ListLegalMovesRequest(match_id=match_id), metadata=auth(token))
    stub.SubmitMove(
        pb.SubmitMoveRequest(match_id=match_id, move=legal.moves[0], command_id="behind-its-back"),
        metadata=auth(token),
    )
    page.locator(PLAYABLE).first.click()
    page.wait_for_function("document.querySelector('[data-testid=message]').textContent")
    text = page.inner_text("[data-testid=message]")
    assert "(" in text and ")" in text, text  # the reason and the rule: "NOT_YOUR_TURN (DUR-…)"
    assert "reconnecting" in page.inner_text("main")
    page.unroute("**/WatchMatch")
    # ... and the page resumes from where it was, with no reload.
    page.wait_for_function(
        "v => +document.querySelector('[data-testid=status]').dataset.version >= v",
        arg=legal.version + 1,
        timeout=30_000,
    )
    print("refused:", text)


def _create_with_an_open_seat(web: Web, page: Any, game: str) -> str:
    """Create a match of `game` from the lobby with seat 1 open; its id (from the join link)."""
    page.goto(web.url + "/")
    page.locator(f"form[data-game={game}] [data-seat='1']").select_option("open")
    page.locator(f"form[data-game={game}] button[type=submit]").click()
    link = page.locator("[data-testid=join-link]")
    link.wait_for()
    return str(link.input_value().rsplit("/", 1)[1])


def _join_from_the_lobby(web: Web, page: Any, match_id: str) -> None:
    """The second browser finds the match among the lobby's open matches (ListMatches) and
    takes its open seat from there: on the second page, as ten newer open matches fill the
    first."""
    stub = web.server.stub()
    for n in range(10):
        stub.CreateMatch(
            pb.CreateMatchRequest(
                game="dix",
                request_id=f"newer-{n}",
                seats=[pb.SeatRequest(name=f"newer{n}"), pb.SeatRequest(name="")],
            )
        )
    page.goto(web.url + "/")
    page.locator("[data-open-match]").first.wait_for()
    assert page.locator("[data-open-match]").count() == 10
    row = page.locator(f"[data-open-match='{match_id}']")
    assert not row.count()
    page.click("section.open-matches button:has-text('Older')")
    row.wait_for()
    assert "1 open seat" in row.inner_text()
    page.fill("input[name=join-name]", "bea")
    row.locator("button", has_text="Join").click()
    page.wait_for_url(f"**/#/m/{match_id}")


def _whose_turn(a: Any, b: Any) -> tuple[Any, Any]:
    """(the page that offers a move, the other), polling both for up to 30 s."""
    for _ in range(300):
        for mover, other in ((a, b), (b, a)):
            if mover.locator(PLAYABLE).count():
                return mover, other
        a.wait_for_timeout(100)
    raise AssertionError("neither page offers a move")


def test_two_browsers_play_durak_and_see_each_other(web: Web, chromium: Any) -> None:
    ctx_a, a, traffic_a = _open_table(chromium, viewport={"width": 1000, "height": 800})
    ctx_b, b, traffic_b = _open_table(chromium, viewport={"width": 1000, "height": 800})
    match_id = _create_with_an_open_seat(web, a, "durak-dice")
    _join_from_the_lobby(web, b, match_id)
    b.wait_for_function("document.querySelector('[data-testid=status]')?.dataset.version >= 2")
    a.wait_for_function("document.querySelector('[data-testid=status]')?.dataset.version >= 2")
    seen: list[float] = []
    for n in range(400):
        if a.inner_text(STATUS).startswith("Finished"):
            break
        mover, other = _whose_turn(a, b)
        if n == 6:
            _refused_after_a_drop(web, mover, match_id)
            continue
        if n == 10:
            a.screenshot(path=str(shots() / "web-durak.png"))
        before = _version(other)
        started = time.monotonic()
        mover.locator(PLAYABLE).first.click()
        other.wait_for_function(
            "v => +document.querySelector('[data-testid=status]').dataset.version > v",
            arg=before,
            timeout=10_000,
        )
        seen.append(time.monotonic() - started)
    assert a.inner_text(STATUS).startswith("Finished") and b.inner_text(STATUS).startswith(
        "Finished"
    )
    assert len(seen) > 10
    # Informative only (no timing assertions in tests): click to the other page's redraw.
    print(
        f"durak: {len(seen)} moves seen by the other page, median "
        f"{statistics.median(seen) * 1e3:.0f} ms, max {max(seen) * 1e3:.0f} ms"
    )
    stub = web.server.stub()
    for seat, traffic in ((0, traffic_a), (1, traffic_b)):
        leaked = leaks(stub, match_id, seat=seat, bodies=traffic.collect())
        assert not leaked, leaked
    ctx_a.close()
    ctx_b.close()


def test_a_six_dozens_hand_on_a_phone(web: Web, chromium: Any) -> None:
    context, page, traffic = _open_table(
        chromium,
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    page.goto(web.url + "/")
    form = page.locator("form[data-game=six-dozens]")
    form.locator("summary").tap()
    form.locator("[data-option=deck]").select_option("28")
    form.locator("[data-seat='1']").select_option("random")  # the server's bot
    form.locator("button[type=submit]").tap()
    page.wait_for_selector("section.board")
    match_id = page.url.rsplit("/", 1)[1]
    stub = web.server.stub()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the table is wider than the phone ({width} px)"
    first_hand = page.inner_text("section.board").split("\n")
    played = play_page_to_end(page, moves=200, until_hand=2)
    page.screenshot(path=str(shots() / "web-six.png"))
    # The rest of the match from Python, so its log is public and the page's watch ends.
    mine = Seat(stub, match_id, _token(page, match_id), seed=6)
    mine.join(120)
    mine.stopped.set()
    assert not mine.is_alive() and mine.error is None, mine.error
    assert played >= 1, first_hand
    page.wait_for_function(
        "document.querySelector('[data-testid=status]').textContent.startsWith('Finished')"
    )
    leaked = leaks(stub, match_id, seat=0, bodies=traffic.collect())
    assert not leaked, leaked
    context.close()


def test_a_page_resigns_and_the_other_sees_the_end(web: Web, chromium: Any) -> None:
    """Clocks, abort and resign on the page (R-7, R-8): both pages count the seats' time, the
    seat to act's down to the deadline; abort is offered until every seat has decided; one
    page resigns and the other sees the match end with its termination."""
    ctx_a, a, _ = _open_table(chromium, viewport={"width": 1000, "height": 800})
    ctx_b, b, _ = _open_table(chromium, viewport={"width": 1000, "height": 800})
    a.goto(web.url + "/")
    form = a.locator("form[data-game=durak-dice]")
    form.locator("[data-seat='1']").select_option("open")
    form.locator("[data-clock-preset]").select_option("fischer-5-3")
    form.locator("button[type=submit]").click()
    link = a.locator("[data-testid=join-link]")
    link.wait_for()
    b.goto(link.input_value())
    b.fill("form.join input[name=name]", "bea")
    with b.expect_navigation():  # joining reloads the page (the watch restarts as the seat)
        b.click("form.join button[type=submit]")
    for page in (a, b):
        page.wait_for_function(
            "document.querySelector('[data-testid=status]')?.dataset.version >= 2"
        )
        page.locator("[data-clock='0']").wait_for()
        line = page.inner_text("[data-testid=deadline]")
        assert "5:00 + 3 s a decision" in line and " left" in line, line
        assert not re.search(r"\d:\d\d:\d\d [AP]M", line), line  # a time left, not a time of day
        # Nobody has decided yet: abort is offered (a joining page draws its seat's controls
        # once it knows its seat, a moment after the table itself).
        page.locator("[data-testid=abort]").wait_for()
        assert page.locator("[data-testid=abort]").count() == 1
    mover, other = _whose_turn(a, b)
    running = mover.locator(".clock.running")
    first = running.inner_text()
    mover.wait_for_function(
        "t => document.querySelector('.clock.running').textContent !== t", arg=first, timeout=30_000
    )  # it counts down
    mover.locator(PLAYABLE).first.click()
    other.locator(".clock.running").wait_for()
    other.screenshot(path=str(shots() / "web-clocks.png"))
    # The other seat resigns (its time runs now).
    other.locator("[data-testid=resign]").click()
    other.locator("[data-testid=resign-confirm]").click()
    for page in (a, b):
        page.wait_for_function(
            "document.querySelector('[data-testid=status]').textContent.startsWith('Finished')"
        )
        assert "resigned" in page.inner_text(STATUS), page.inner_text(STATUS)
        assert not page.locator("[data-testid=resign], [data-testid=abort]").count()
    ctx_a.close()
    ctx_b.close()


def test_a_page_aborts_before_anyone_decided(web: Web, chromium: Any) -> None:
    """Abort (R-7) from the page before any seat has decided: no result, both pages see it."""
    ctx_a, a, _ = _open_table(chromium, viewport={"width": 1000, "height": 800})
    ctx_b, b, _ = _open_table(chromium, viewport={"width": 1000, "height": 800})
    a.goto(web.url + "/")
    form = a.locator("form[data-game=dix]")
    form.locator("[data-seat='1']").select_option("open")
    form.locator("button[type=submit]").click()
    link = a.locator("[data-testid=join-link]")
    link.wait_for()
    b.goto(link.input_value())
    b.fill("form.join input[name=name]", "bea")
    with b.expect_navigation():  # joining reloads the page (the watch restarts as the seat)
        b.click("form.join button[type=submit]")
    b.locator("[data-testid=abort]").wait_for()
    b.click("[data-testid=abort]")
    for page in (a, b):
        page.wait_for_function(
            "document.querySelector('[data-testid=status]').textContent.startsWith('Finished')"
        )
        assert "aborted (no result): bea" in page.inner_text(STATUS), page.inner_text(STATUS)
    ctx_a.close()
    ctx_b.close()


def test_a_joining_page_contributes_and_keeps_the_last_receipt_and_tree_head(
    redis_url: str, tmp_path: Path, chromium: Any
) -> None:
    """docs/fairness.md §1, §6 and §9 on the page: a seat joined from the page gives 32 random
    bytes after the commitment; each page keeps its seat's newest receipt (one that verifies
    with the server's key and names the log's entry), showing the signed commitment's
    fingerprint, and once the match ended the transparency log's signed tree head."""
    server = ServerThread(redis_url, web_port=0, tlog_dir=tmp_path / "tlog")
    web = Web(server, server.running.web)
    try:
        _contribute_keep_and_resign(web, chromium)
    finally:
        server.stop()


def _contribute_keep_and_resign(web: Web, chromium: Any) -> None:
    ctx_a, a, _ = _open_table(chromium, viewport={"width": 1000, "height": 800})
    ctx_b, b, _ = _open_table(chromium, viewport={"width": 1000, "height": 800})
    match_id = _create_with_an_open_seat(web, a, "dix")
    b.goto(f"{web.url}/#/m/{match_id}")
    b.fill("form.join input[name=name]", "bea")
    with b.expect_navigation():
        b.click("form.join button[type=submit]")
    mover, _ = _whose_turn(a, b)
    mover.locator(PLAYABLE).first.click()
    mover.locator("[data-testid=resign]").click()
    mover.locator("[data-testid=resign-confirm]").click()
    # The page shows the log's head only once it saw the match end: the log read next holds
    # the resignation (read before it, the log could end one entry short of the kept receipt).
    mover.locator("[data-testid=tree-head]").wait_for()
    stub = web.server.stub()
    entries = stub.GetMatchLog(pb.GetMatchLogRequest(match_id=match_id), metadata=auth(ARBITER))
    log = [json.loads(e.canonical_json) for e in entries.entries]
    joined = [ev for e in log for ev in e["events"] if ev["type"] == "SeatJoined"]
    assert len(joined) == 1 and len(bytes.fromhex(joined[0]["contribution"])) == 32, joined
    keys = KeyRing(k.public_key for k in stub.GetSigningKeys(pb.GetSigningKeysRequest()).keys)
    for page in (a, b):
        page.wait_for_function(
            "v => +document.querySelector('[data-testid=kept]')?.dataset.version >= v",
            arg=len(log),
        )
        kept = json.loads(page.evaluate("localStorage.getItem('kozyr.receipts')"))[match_id]
        receipt = Receipt.from_json(kept)
        assert keys.problem(receipt) is None and receipt.time_ms == log[-1]["time_ms"]
        assert receipt.entry_hash == entries.entries[receipt.version - 1].hash
        assert receipt.commitment == log[0]["events"][0]["commitment"]
        shown = page.inner_text("[data-testid=kept]")
        assert short_fingerprint(receipt.commitment) in shown and receipt.key_id in shown, shown
        href = page.get_attribute("[data-testid=receipt-file]", "href") or ""
        assert json.loads(urllib.parse.unquote(href.split(",", 1)[1])) == kept
        # The log's head, asked for once the match ended: it holds the creation and the end.
        page.locator("[data-testid=tree-head]").wait_for()
        head = TreeHead.from_json(
            json.loads(page.evaluate("localStorage.getItem('kozyr.treeHead')"))
        )
        assert head.size >= 2 and head_problem(head, keys) is None
        assert short_fingerprint(head.root_hash) in page.inner_text("[data-testid=tree-head]")
    ctx_a.close()
    ctx_b.close()
