"""A whole Dix match played through the page in a real Chromium: created in the lobby with an
option against the server's heuristic bot, every card of seat 0 clicked (or played from the
keyboard) in the page, the replay opened, verified and stepped through at the end; the page's
traffic never holds a card seat 0 may not see. An exported file opened in the viewer is
verified, and the same file tampered with is not."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.replay import archive
from tests.web.conftest import Web
from tests.web.helpers import Traffic, browser, leaks, play_page_to_end, shots

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    yield from browser()


def test_a_whole_dix_match_through_the_page(web: Web, chromium: Any) -> None:
    # bypass_csp: playwright evaluates its waits as strings, which the page's policy forbids
    page = chromium.new_page(viewport={"width": 1100, "height": 900}, bypass_csp=True)
    page.set_default_timeout(60_000)  # a loaded machine; every wait is still bounded
    traffic = Traffic(page)
    page.goto(web.url + "/")
    form = page.locator("form[data-game=dix]")
    form.locator("summary").click()
    form.locator("[data-option=single_hand]").check()
    assert form.locator("[data-seat='1']").input_value() == "heuristic"  # a bot by default
    form.locator("button[type=submit]").click()
    page.wait_for_selector("section.board")
    match_id = page.url.rsplit("/", 1)[1]
    played = play_page_to_end(page, shot=shots() / "web-dix.png")
    stub = web.server.stub()
    assert played > 5
    view = stub.GetMatch(pb.GetMatchRequest(match_id=match_id)).view
    assert view.status == pb.MATCH_STATUS_FINISHED
    assert page.inner_text("[data-testid=status]").startswith("Finished")

    page.click("[data-testid=replay-link]")
    page.wait_for_selector("[data-testid=verdict]")
    assert page.inner_text("[data-testid=verdict]") == "VERIFIED"
    page.select_option("[data-testid=viewer]", "0")
    page.click("[aria-label='first step']")
    page.wait_for_function(
        "document.querySelector('[data-testid=step]').textContent.startsWith('step 1 ')"
    )
    for n in range(2, 6):
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "n => document.querySelector('[data-testid=step]').textContent"
            ".startsWith(`step ${n} `)",
            arg=n,
        )
    page.screenshot(path=str(shots() / "web-replay.png"), full_page=True)
    # An exported file, opened in the viewer: verified; the same file tampered with: not.
    log = stub.GetMatchLog(pb.GetMatchLogRequest(match_id=match_id)).entries
    text = archive.dumps(
        archive.build([archive.RawEntry(e.version, e.canonical_json, e.hash) for e in log])
    )
    for content, verdict in (
        (text, "VERIFIED"),
        (text.replace('"seat":1', '"seat":0', 1), "NOT_VERIFIED"),
    ):
        page.set_input_files(
            "input[type=file]",
            files=[{"name": "match.jsonl", "mimeType": "text/plain", "buffer": content.encode()}],
        )
        page.wait_for_function(
            "v => document.querySelector('[data-testid=verdict]')?.textContent === v", arg=verdict
        )
    leaked = leaks(stub, match_id, seat=0, bodies=traffic.collect())
    assert not leaked, leaked
