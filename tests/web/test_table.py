"""The card table in a real Chromium, in English and in Russian (the browser's language picks
it): a whole match of each game by clicking (Dix against the server's bot, Six Dozens with three
seats, Durak with four browser contexts), a refused click explained by its rule ID (a card
out of turn, and a card Dix's follow-suit rule refuses), the end banner and a rematch (its
seat contributing after the commitment), axe-core on the lobby, the table, the spectator's
page and the replay viewer, and a spectator whose delay holds the table back; every page's
traffic is leak-checked.

Screenshots of each game mid-match and at the end, at 1280 x 800 (the English runs) and
390 x 844 (the Russian runs), go to docs/ with KOZYR_WEB_SHOTS=docs (`make screenshots`)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from tests.api.helpers import auth
from tests.conftest import ARBITER, repo_root
from tests.web.conftest import Web
from tests.web.helpers import STATUS, Traffic, browser, leaks, messages, shots

pytestmark = pytest.mark.slow
PLAYABLE = "button.card.legal, button.action"
REFUSED = "[data-testid=hand] button.card[aria-disabled=true]"
AXE = repo_root() / "web" / "node_modules" / "axe-core" / "axe.min.js"
SIZES = {"en": {"width": 1280, "height": 800}, "ru": {"width": 390, "height": 844}}
LOCALES = {"en": "en-GB", "ru": "ru-RU"}
SWITCH = {"en": "Русский", "ru": "English"}  # the header's button names the other language


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    yield from browser()


def _context(chromium: Any, lang: str) -> tuple[Any, Any, Traffic]:
    # bypass_csp: playwright evaluates its waits (and axe-core) as scripts the policy forbids
    context = chromium.new_context(
        bypass_csp=True, locale=LOCALES[lang], viewport=SIZES[lang], reduced_motion="reduce"
    )
    context.set_default_timeout(60_000)  # a loaded machine; every wait is still bounded
    page = context.new_page()
    return context, page, Traffic(page)


def _state(page: Any) -> str:
    return str(page.get_attribute(STATUS, "data-state") or "")


def _version(page: Any) -> int:
    return int(page.get_attribute(STATUS, "data-version") or 0)


def _token(page: Any, match_id: str) -> str:
    held = json.loads(page.evaluate("localStorage.getItem('kozyr.seats')"))
    return str(next(s["token"] for s in held if s["matchId"] == match_id))


def _in_language(page: Any, lang: str) -> None:
    """The page speaks the browser's language: its lang, the switch, the cards' names."""
    assert page.evaluate("document.documentElement.lang") == lang
    assert page.inner_text("[data-testid=lang]") == SWITCH[lang]
    labels = page.eval_on_selector_all(
        "[data-testid=hand] button.card", "els => els.map(e => e.getAttribute('aria-label'))"
    )
    cyrillic = [bool(re.search("[а-яё]", label)) for label in labels]
    assert labels and all(c == (lang == "ru") for c in cyrillic), labels


def _axe(page: Any, where: str) -> None:
    """No serious or critical axe-core violation on this page as it is now."""
    if not AXE.exists():
        pytest.fail("axe-core is missing: `make lint` installs web/'s toolchain")
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
        ".map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).slice(0, 3).join(', '))"
    )
    assert not found, f"{where}: {found}"


def _shot(page: Any, game: str, lang: str, when: str) -> None:
    width = SIZES[lang]["width"]
    page.screenshot(path=str(shots() / f"web-{game}-{width}-{when}.png"))


def _play_out(
    pages: list[Any], game: str, lang: str, refuse: bool = False, rule: str = "", mid: int = 8
) -> int:
    """Click a playable card (or take / pass) on whichever page offers one, every other move
    from the keyboard, until every page shows the match finished; a screenshot of the first
    page after `mid` moves; with `refuse`, one click first on a page whose turn it is not;
    with `rule`, one click on a card that rule refuses the seat to act (it must come)."""
    moves = 0
    for _ in range(600):
        if all(_state(p) == "finished" for p in pages):
            assert not rule, f"no card was ever refused by {rule}"
            return moves
        mover = next((p for p in pages if p.locator(PLAYABLE).count()), None)
        if mover is None:
            pages[0].wait_for_timeout(50)
            continue
        idle = [p for p in pages if not p.locator(PLAYABLE).count()]
        if refuse and idle:
            _refused_click(idle[0], lang)
            refuse = False
        if rule and mover.locator(REFUSED).count():
            _refused_click(mover, lang, rule)
            rule = ""
        if moves == mid:
            _shot(pages[0], game, lang, "mid")
        before = _version(mover)
        target = mover.locator(PLAYABLE).first
        if moves % 2:
            target.focus()
            mover.keyboard.press("Enter")
        else:
            target.click()
        mover.wait_for_function(
            "v => +document.querySelector('[data-testid=status]').dataset.version > v"
            " || document.querySelector('[data-testid=message]').textContent",
            arg=before,
        )
        moves += 1
    seen = [
        (_state(p), _version(p), p.locator(PLAYABLE).count(), p.inner_text("[data-testid=message]"))
        for p in pages
    ]
    raise AssertionError(f"the match did not finish after {moves} moves; pages: {seen}")


def _refused_click(page: Any, lang: str, expected: str = "") -> None:
    """A card the page dims (its seat may not play now, or may not play that card): a click
    on it says why, with the rule's ID and its name in the page's language (from the server's
    ErrorInfo); `expected`, the rule it must be."""
    card = page.locator(REFUSED).first
    card.click(force=True)  # playwright takes aria-disabled for disabled; a person can click it
    page.wait_for_function("document.querySelector('[data-testid=message]').dataset.rule")
    rule = page.get_attribute("[data-testid=message]", "data-rule")
    text = page.inner_text("[data-testid=message]")
    assert rule and re.fullmatch(r"(R|DIX|SIX|DUR)-\d+", rule), rule
    assert rule == (expected or rule), (rule, text)
    assert f"{rule} — " in text and re.search(r"\([A-Z_]+\)", text), text
    assert text.startswith("Нельзя" if lang == "ru" else "Not now"), text
    if lang == "ru":  # worded from the catalogue: no English sentence of the server's
        latin = re.sub(r"\([A-Z_]+\)|\b(R|DIX|SIX|DUR)-\d+", "", text)
        assert not re.search(r"[A-Za-z]{2,}", latin), text


def _banner(page: Any, seats: int) -> None:
    banner = page.locator("[data-testid=banner]")
    banner.wait_for()
    assert page.inner_text("[data-testid=how]").strip()
    assert banner.locator("table.scores tbody tr").count() == seats
    assert banner.locator("[data-testid=replay-link]").count() == 1
    assert banner.locator("[data-testid=lobby]").count() == 1


def _check_traffic(web: Web, match_id: str, seats: list[tuple[int | None, Traffic]]) -> None:
    stub = web.server.stub()
    for seat, traffic in seats:
        leaked = leaks(stub, match_id, seat=seat, bodies=traffic.collect())
        assert not leaked, leaked


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_dix_against_a_bot_then_a_rematch(web: Web, chromium: Any, lang: str) -> None:
    context, page, traffic = _context(chromium, lang)
    page.goto(web.url + "/")
    form = page.locator("form[data-game=dix]")
    form.wait_for()
    _axe(page, f"lobby ({lang})")
    form.locator("summary").click()
    form.locator("[data-option=single_hand]").check()
    form.locator("button[type=submit]").click()
    page.locator(PLAYABLE).first.wait_for()
    match_id = page.url.rsplit("/", 1)[1]
    _in_language(page, lang)
    _axe(page, f"table ({lang})")
    # Following a lead, a card of another suit is dimmed; clicked, it says DIX-5 (follow suit).
    assert _play_out([page], "dix", lang, rule="DIX-5") > 5
    _banner(page, seats=2)
    # The hand is played out: the empty stock is said in words beside the trump card, with no
    # count badge over it.
    stock = page.locator("[data-testid=stock]")
    assert stock.get_attribute("data-count") == "0"
    assert stock.inner_text() == ("Колода: 0" if lang == "ru" else "Stock: 0")
    _shot(page, "dix", lang, "end")
    _axe(page, f"table at the end ({lang})")
    _check_traffic(web, match_id, [(0, traffic)])
    # The spectator's page of the same match, then the replay viewer.
    watcher = context.new_page()
    watcher.goto(f"{web.url}/#/watch/{match_id}")
    watcher.wait_for_function("document.querySelector('[data-testid=status]')?.dataset.state")
    assert watcher.locator("[data-testid=hand] button").count() == 0
    _axe(watcher, f"spectator page ({lang})")
    watcher.close()
    page.click("[data-testid=replay-link]")
    page.wait_for_selector("[data-testid=verdict]")
    assert page.inner_text("[data-testid=verdict]") == "VERIFIED"
    _axe(page, f"replay viewer ({lang})")
    page.go_back()
    page.locator("[data-testid=rematch]").click()
    page.wait_for_function("id => !location.hash.endsWith(id)", arg=match_id)
    again = page.url.rsplit("/", 1)[1]
    page.locator(PLAYABLE).first.wait_for()
    stub = web.server.stub()
    view = stub.GetMatch(pb.GetMatchRequest(match_id=again)).view
    assert again != match_id and [p.bot for p in view.players] == ["", "heuristic"]
    assert view.options["single_hand"] == "true" and view.players[0].name == "me"
    # The rematch's seat gave its 32 random bytes after the commitment, as the lobby's do.
    log = stub.GetMatchLog(pb.GetMatchLogRequest(match_id=again), metadata=auth(ARBITER))
    given = [
        event
        for entry in log.entries
        for event in json.loads(entry.canonical_json)["events"]
        if event["type"] == "SeedContributed"
    ]
    assert [(e["seat"], len(bytes.fromhex(e["contribution"]))) for e in given] == [(0, 32)], [
        json.loads(e.canonical_json)["events"] for e in log.entries[:3]
    ]
    context.close()


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_six_dozens_with_three_seats(web: Web, chromium: Any, lang: str) -> None:
    context, page, traffic = _context(chromium, lang)
    page.goto(web.url + "/")
    form = page.locator("form[data-game=six-dozens]")
    form.locator("[name=players]").fill("3")
    form.locator("[data-seat='1']").select_option("random")
    form.locator("[data-seat='2']").select_option("random")
    form.locator("summary").click()
    form.locator("[data-option=deck]").select_option("28")
    form.locator("[data-option=max_hands]").fill("1")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("section.board")
    match_id = page.url.rsplit("/", 1)[1]
    assert page.locator(".seats li.seat").count() == 2  # the two others, around the table
    _axe(page, f"Six Dozens table ({lang})")
    _play_out([page], "six-dozens", lang, mid=2)
    _banner(page, seats=3)
    _shot(page, "six-dozens", lang, "end")
    _check_traffic(web, match_id, [(0, traffic)])
    context.close()


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_durak_with_four_browsers(web: Web, chromium: Any, lang: str) -> None:
    opened = [_context(chromium, lang) for _ in range(4)]
    pages = [page for _, page, _ in opened]
    first = pages[0]
    first.goto(web.url + "/")
    form = first.locator("form[data-game=durak-dice]")
    form.locator("[name=players]").fill("4")
    for seat in (1, 2, 3):
        form.locator(f"[data-seat='{seat}']").select_option("open")
    form.locator("button[type=submit]").click()
    link = first.locator("[data-testid=join-link]")
    link.wait_for()
    match_id = link.input_value().rsplit("/", 1)[1]
    for k, page in enumerate(pages[1:], start=1):
        page.goto(link.input_value())
        page.fill("form.join input[name=name]", f"p{k}")
        with page.expect_navigation():  # joining reloads the page (the watch restarts as the seat)
            page.click("form.join button[type=submit]")
    for page in pages:
        page.wait_for_function(
            "document.querySelector('[data-testid=status]')?.dataset.state === 'playing'"
        )
        assert page.locator(".seats li.seat").count() == 3
    _in_language(first, lang)
    _axe(first, f"Durak table ({lang})")
    # A spectator with no delay watches the match live, from another browser context: its
    # page holds no hand, and its traffic is leak-checked as a spectator's (seat None).
    watching, spectator, seen = _context(chromium, lang)
    spectator.goto(f"{web.url}/#/watch/{match_id}")
    spectator.wait_for_function(
        "document.querySelector('[data-testid=status]')?.dataset.state === 'playing'"
    )
    _axe(spectator, f"live spectator page ({lang})")
    _play_out(pages, "durak-dice", lang, refuse=True)
    for page in pages:
        _banner(page, seats=4)
    spectator.wait_for_function(
        "document.querySelector('[data-testid=status]')?.dataset.state === 'finished'"
    )
    assert spectator.locator("[data-testid=hand] button").count() == 0
    _shot(first, "durak-dice", lang, "end")
    seats = [int(_seat_of(page, match_id)) for page in pages]
    _check_traffic(
        web,
        match_id,
        [*((s, t) for s, (_, _, t) in zip(seats, opened, strict=True)), (None, seen)],
    )
    for context, _, _ in [*opened, (watching, spectator, seen)]:
        context.close()


def _seat_of(page: Any, match_id: str) -> int:
    held = json.loads(page.evaluate("localStorage.getItem('kozyr.seats')"))
    return int(next(s["seat"] for s in held if s["matchId"] == match_id))


def test_a_delayed_spectator_sees_no_move_younger_than_the_delay(web: Web, chromium: Any) -> None:
    stub = web.server.stub()
    delay_ms = 3_600_000
    made = [
        stub.CreateMatch(
            pb.CreateMatchRequest(
                game="durak-dice",
                seats=[pb.SeatRequest(bot="heuristic"), pb.SeatRequest(bot="heuristic")],
                spectator_delay_ms=delay,
            )
        ).match_id
        for delay in (delay_ms, 0)
    ]
    context, page, traffic = _context(chromium, "en")
    live = context.new_page()
    for p, match_id in ((page, made[0]), (live, made[1])):
        p.goto(f"{web.url}/#/watch/{match_id}")
    live.wait_for_function(
        "document.querySelector('[data-testid=status]')?.dataset.state === 'finished'"
    )
    log = _public_log(page, stub, made[0])  # the bots play it to the end at once
    times = [json.loads(e.canonical_json)["time_ms"] for e in log]
    page.wait_for_function("document.querySelector('[data-testid=status]')?.dataset.version")
    # Every entry after the first is younger than an hour: the spectator is shown entry 1 only,
    # by its page and in every byte it received.
    assert max(times) - times[0] < delay_ms and len(times) > 2
    assert _version(page) == 1 and _state(page) == "playing"
    received = [
        int(v)
        for _, body in traffic.collect()
        for message in messages(body)
        for v in re.findall(r'"version": "(\d+)"', json.dumps(message))
    ]
    assert received and max(received) == 1, received
    assert page.locator("[data-testid=hand] button").count() == 0
    # Entry 1 has nothing hidden from before it to fold (tests/web/helpers.leaks): check the
    # spectator's views themselves hold no hand.
    views = [
        m.get("view", {}) for _, body in traffic.collect() for m in messages(body) if "view" in m
    ]
    assert views and not [v for v in views if v.get("durakDice", {}).get("hand")], views
    # Without a delay the same kind of match is watched live to its end (the bots finished it
    # before the page opened: nothing of it is hidden any more).
    assert _version(live) == len(stub.GetMatchLog(pb.GetMatchLogRequest(match_id=made[1])).entries)
    context.close()


def _public_log(page: Any, stub: Any, match_id: str) -> Any:
    """The match's log once it is finished (GetMatchLog answers only then), polled 30 s."""
    for _ in range(300):
        try:
            return stub.GetMatchLog(pb.GetMatchLogRequest(match_id=match_id)).entries
        except grpc.RpcError:
            page.wait_for_timeout(100)
    raise AssertionError("the bots did not finish the match")


def test_the_catalogue_is_complete_in_both_languages() -> None:
    """Every key of the English catalogue has its Russian string (web/src/i18n.ts)."""
    text = (repo_root() / "web" / "src" / "i18n.ts").read_text(encoding="utf-8")
    en = text[text.index("const EN = {") : text.index("type Key")]
    ru = text[text.index("const RU: Record<Key, string> = {") : text.index("// Number ranks")]
    keys = re.compile(r'"([a-z]+\.[A-Za-z0-9.-]+)":')
    assert set(keys.findall(en)) == set(keys.findall(ru)) and len(keys.findall(en)) > 150


def test_a_correspondence_clock_shows_the_time_left(web: Web, chromium: Any) -> None:
    """A day a decision: the running clock and the deadline line count what is left, never
    a time of day."""
    context, page, _ = _context(chromium, "en")
    page.goto(web.url + "/")
    form = page.locator("form[data-game=dix]")
    form.locator("[data-clock-preset]").select_option("correspondence-1")
    form.locator("button[type=submit]").click()
    page.locator(".clock.running").wait_for()
    running = page.inner_text(".clock.running")
    line = page.inner_text("[data-testid=deadline]")
    left = r"(1 d 0 h|23:59:\d\d)"  # rounded up to the second: a full day at first
    assert re.fullmatch(left, running), running
    assert "1 day a decision" in line and re.search(left + " left", line), line
    assert not re.search(r"[AP]M", line), line
    assert "low" not in (page.get_attribute(".clock.running", "class") or "")
    context.close()


@pytest.mark.parametrize("ending", ["normal", "resigned"])
def test_the_russian_page_words_the_ending_itself(web: Web, chromium: Any, ending: str) -> None:
    """The end banner and the status line of a Russian page are worded from the outcome's
    termination, winners and scores: no word of the server's English `outcome.reason`."""
    context, page, _ = _context(chromium, "ru")
    page.goto(web.url + "/")
    form = page.locator("form[data-game=dix]")
    form.locator("summary").click()
    form.locator("[data-option=single_hand]").check()
    form.locator("button[type=submit]").click()
    page.locator(PLAYABLE).first.wait_for()
    match_id = page.url.rsplit("/", 1)[1]
    if ending == "resigned":
        page.click("[data-testid=resign]")
        page.click("[data-testid=resign-confirm]")
    else:
        _play_out([page], "dix", "ru")
    page.locator("[data-testid=banner]").wait_for()
    view = web.server.stub().GetMatch(pb.GetMatchRequest(match_id=match_id)).view
    expected = pb.TERMINATION_RESIGNED if ending == "resigned" else pb.TERMINATION_NORMAL
    assert view.outcome.termination == expected and view.outcome.reason
    names = " ".join(p.name for p in view.players).lower()
    english = {w for w in re.findall(r"[a-z]{3,}", view.outcome.reason.lower()) if w not in names}
    assert english, view.outcome.reason
    for where in ("[data-testid=banner]", STATUS):
        text = page.inner_text(where).lower()
        assert not [w for w in english if re.search(rf"\b{w}\b", text)], (text, english)
    how = page.inner_text("[data-testid=how]")
    assert ("сдался" if ending == "resigned" else "сыграна до конца") in how, how
    assert "Очки: " in page.inner_text(STATUS)
    context.close()


def test_the_language_switch_redraws_the_page_and_is_kept_across_a_reload(
    web: Web, chromium: Any
) -> None:
    """An English browser: the header's button switches the table to Russian and back, and the
    choice outlives a reload (localStorage), over the browser's own language."""
    context, page, _ = _context(chromium, "en")
    page.goto(web.url + "/")
    form = page.locator("form[data-game=dix]")
    form.locator("button[type=submit]").click()
    page.locator(PLAYABLE).first.wait_for()
    _in_language(page, "en")
    assert page.inner_text("nav").startswith("Lobby")
    for lang, lobby in (("ru", "Лобби"), ("en", "Lobby")):
        page.click("[data-testid=lang]")  # the header and the table are drawn afresh
        page.locator(PLAYABLE).first.wait_for()
        _in_language(page, lang)
        assert page.inner_text("nav").startswith(lobby)
        page.reload()
        page.locator(PLAYABLE).first.wait_for()
        _in_language(page, lang)
        assert page.inner_text("nav").startswith(lobby)
        assert page.evaluate("localStorage.getItem('kozyr.lang')") == lang
    context.close()


def test_the_low_time_cue_marks_the_seat_whose_time_runs_low(web: Web, chromium: Any) -> None:
    """A decision clock of 5 s (low under 1 s): the running clock of the seat to act turns
    `low`, and only that seat's; the bot's seat, answering at once, never shows it."""
    made = web.server.stub().CreateMatch(
        pb.CreateMatchRequest(
            game="dix",
            seats=[pb.SeatRequest(name="slow"), pb.SeatRequest(bot="heuristic")],
            time_control=pb.TimeControl(kind=pb.TIME_CONTROL_KIND_DECISION, limit_ms=5_000),
            timeout_policy=pb.TIMEOUT_POLICY_AUTO_MOVE,
        )
    )
    context, page, _ = _context(chromium, "en")
    page.goto(f"{web.url}/#/watch/{made.match_id}")
    # One snapshot of every seat's clock, taken as soon as one is low (bounded: the 5 s run
    # out within it; the table moves on by itself after the timeout).
    clocks = page.wait_for_function(
        "() => document.querySelector('.clock.running.low') && [...document"
        ".querySelectorAll('[data-clock]')].map(e => [e.dataset.clock, e.className, e.role])",
        timeout=30_000,
    ).json_value()
    low = [seat for seat, cls, _ in clocks if "low" in cls.split()]
    assert low == ["0"] and {role for _, _, role in clocks} == {"timer"}, clocks
    assert len(clocks) == 2, clocks
    context.close()


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_card_moves_onto_the_table_unless_the_browser_asks_for_less_motion(
    web: Web, chromium: Any, motion: str
) -> None:
    """A card arriving in the centre slides in (the page marks it `arrive`, and its style
    animates it); under the browser's prefers-reduced-motion it simply appears. The style is
    read from the page's own stylesheet, on a card marked as the page marks one (the page's own
    mark lasts only until the next update)."""
    context = chromium.new_context(
        bypass_csp=True, locale="en-GB", viewport=SIZES["en"], reduced_motion=motion
    )
    context.set_default_timeout(60_000)
    page = context.new_page()
    page.goto(web.url + "/")
    page.locator("form[data-game=dix]").wait_for()
    animation = page.evaluate(
        """() => {
            const card = document.createElement("button");
            card.className = "card arrive";
            document.body.append(card);
            return getComputedStyle(card).animationName;
        }"""
    )
    assert animation == ("none" if motion == "reduce" else "arrive"), animation
    context.close()
