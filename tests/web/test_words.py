"""A Russian page says what the server tells it in Russian, from the catalogue (web/src/i18n.ts),
in a real Chromium whose locale is ru: Six Dozens' last play and trump mode, a bot's seat name
("эвристика (бот)"), every event of the move list and of the replay viewer, the viewer's verdict
and labels, every refusal reason the games' rules raise, and every option of every game (its
name, help and choices, for the lobby). The server's own English sentences (the verifier's
report, the table as text) stay, labelled as the server's text."""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from tests.conftest import repo_root
from tests.web.conftest import Web
from tests.web.helpers import STATUS, browser

pytestmark = pytest.mark.slow
PLAYABLE = "button.card.legal, button.action"
I18N = repo_root() / "web" / "src" / "i18n.ts"
ESBUILD = repo_root() / "web" / "node_modules" / ".bin" / "esbuild"
GAMES = repo_root() / "service" / "kozyr" / "games"
LATIN = re.compile(r"[A-Za-z]{2,}")  # a word of English (a card face is one letter: 10♥, В♠)
RULE_OR_SUITS = r"\b(R|DIX|SIX|DUR)-\d+(\(\w\))?|\b[SHDC]{1,2}\b"  # "SIX-6(d)", "SD"


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    yield from browser()


def _context(chromium: Any, locale: str = "ru-RU") -> tuple[Any, Any]:
    # bypass_csp: playwright evaluates its waits as scripts the page's policy forbids
    context = chromium.new_context(
        bypass_csp=True,
        locale=locale,
        viewport={"width": 1280, "height": 900},
        reduced_motion="reduce",
    )
    context.set_default_timeout(60_000)
    return context, context.new_page()


def _latin(page: Any, selector: str) -> list[str]:
    """The English words in what `selector` shows, leaving out the server's text (pre), ids and
    status codes (code), which a Russian page may show as they are."""
    text = page.eval_on_selector(
        selector,
        "el => { const c = el.cloneNode(true);"
        " c.querySelectorAll('pre, code').forEach(x => x.remove()); return c.textContent; }",
    )
    return LATIN.findall(str(text))


def _ru_catalogue() -> str:
    text = I18N.read_text(encoding="utf-8")
    return text[text.index("const RU: Record<Key, string> = {") : text.index("// Number ranks")]


def _ru(key: str) -> str:
    found = re.search(rf'"{re.escape(key)}": "([^"]*)"', _ru_catalogue())
    assert found, f"no Russian {key} in the catalogue"
    return found.group(1)


def _refusal_reasons() -> set[str]:
    """Every reason code the three games' rules refuse a move or an option with (IllegalMove,
    InvalidOptions), read from their source: a literal or a module constant."""
    sources = [
        GAMES / "contract.py",
        *sorted(GAMES.glob("*/model.py")),
        *sorted(GAMES.glob("*/rules.py")),
    ]
    text = "\n".join(p.read_text(encoding="utf-8") for p in sources)
    constants = dict(re.findall(r'^([A-Z_]+)(?:: Final)? = "([A-Z_]+)"$', text, re.M))
    raised = re.findall(r"(?:IllegalMove|InvalidOptions)\(\s*(\"[A-Z_]+\"|[A-Z_]+)\s*,", text)
    return {r.strip('"') if r.startswith('"') else constants[r] for r in raised}


def test_the_games_refusal_reasons_are_found() -> None:
    """The scan above finds the reasons the audit named (it would pass vacuously otherwise)."""
    named = {
        "CARD_NOT_PLAYABLE",
        "CANNOT_BEAT",
        "CANNOT_THROW_IN",
        "MUST_ATTACK",
        "NOTHING_TO_BEAT",
        "NOTHING_TO_TAKE",
        "MUST_FOLLOW_SUIT",
        "NOT_YOUR_TURN",
        "BAD_OPTION_VALUE",
    }
    assert named <= _refusal_reasons(), named - _refusal_reasons()


def _bundle_i18n(page: Any) -> None:
    """web/src/i18n.ts alone, bundled by web/'s pinned esbuild as a global `I18n`, in `page`."""
    if not ESBUILD.exists():
        pytest.fail("esbuild is missing: `make web` installs web/'s toolchain")
    built = subprocess.run(
        [
            str(ESBUILD),
            str(I18N),
            "--bundle",
            "--format=iife",
            "--global-name=I18n",
            "--target=es2022",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    page.set_content("<!doctype html><title>i18n</title>")
    page.add_script_tag(content=built.stdout)


@pytest.mark.parametrize("locale", ["ru-RU", "en-GB"])
def test_the_catalogue_words_every_option_and_refusal_reason(
    web: Web, chromium: Any, locale: str
) -> None:
    """For the lobby: every option of every game ListGames offers, its help and each of its
    choices in the browser's language from the catalogue (optionLabel, optionHelp,
    choiceLabel), the server's text only for an option the catalogue does not know; every
    refusal reason the games' rules raise in words (why.<REASON>)."""
    context, page = _context(chromium, locale)
    _bundle_i18n(page)
    assert page.evaluate("I18n.lang()") == locale[:2]
    games = web.server.stub().ListGames(pb.ListGamesRequest()).games
    assert {g.name for g in games} == {"dix", "six-dozens", "durak-dice"}
    russian = locale == "ru-RU"
    for g in games:
        for o in g.options:
            label, help_, choices = page.evaluate(
                "([g, o, help, choices]) => [I18n.optionLabel(g, o), I18n.optionHelp(g, o, help),"
                " choices.map(c => I18n.choiceLabel(g, o, c))]",
                [g.name, o.name, o.help, list(o.choices)],
            )
            where = f"{g.name} {o.name}"
            assert label and "_" not in label, (where, label)
            rule = o.help.split(":")[0]  # the rule IDs the server's help starts with
            assert help_.startswith(rule + ":"), (where, help_)
            for choice, worded in zip(o.choices, choices, strict=True):
                assert worded != choice and not re.fullmatch(r"[A-Z_]+", worded), (
                    where,
                    choice,
                    worded,
                )
            if russian:
                # The rule IDs, suit letters (S H D C, SD) and SIX-6(d) aside: no English.
                for text in (label, re.sub(RULE_OR_SUITS, "", help_), *choices):
                    assert re.search("[а-яё]", text) and not LATIN.search(text), (where, text)
    # An option the catalogue does not know: the server's words.
    assert page.evaluate("I18n.optionLabel('dix', 'new_option')") == "new_option"
    assert page.evaluate("I18n.optionHelp('dix', 'new_option', 'R-6: new')") == "R-6: new"
    assert page.evaluate("I18n.choiceLabel('dix', 'first_lead', 'NEW')") == "NEW"
    for reason in sorted(_refusal_reasons()):
        words = page.evaluate("r => I18n.reasonText(r)", reason)
        assert words and (bool(re.search("[а-яё]", words)) == russian), (reason, words)
    # A seat the server named after its bot; a person's name is never touched.
    bot = page.evaluate("I18n.displayName('heuristic (bot)', 'heuristic')")
    assert bot == ("эвристика (бот)" if russian else "heuristic (bot)")
    assert page.evaluate("I18n.displayName('Аня (bot)', '')") == "Аня (bot)"
    context.close()


def _refused(page: Any) -> str:
    """Click a card the rules refuse (the seat is to play) and return what the page says."""
    page.locator("button.card[aria-disabled=true]").first.click(force=True)
    page.wait_for_function("document.querySelector('[data-testid=message]').dataset.rule")
    return str(page.inner_text("[data-testid=message]"))


def test_a_russian_six_dozens_table_words_the_last_play_trumps_and_bots(
    web: Web, chromium: Any
) -> None:
    """Six Dozens with two bots on a Russian page: the board's facts (the last play, the trump
    mode, the dealer and first mover by name) and the move list hold no English word; the bots'
    seats read "(бот)"; a card the bank refuses says why in words (CARD_NOT_PLAYABLE)."""
    context, page = _context(chromium)
    page.goto(web.url + "/")
    form = page.locator("form[data-game=six-dozens]")
    form.locator("[name=name]").fill("Аня")
    form.locator("[name=players]").fill("3")
    form.locator("[data-seat='1']").select_option("heuristic")
    form.locator("[data-seat='2']").select_option("random")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("section.board")
    refusal = ""
    lasts = set()
    for _ in range(30):
        page.wait_for_function(
            "document.querySelector('button.card.legal') ||"
            " document.querySelector('[data-testid=status]').dataset.state === 'finished'"
        )
        assert not _latin(page, "section.board"), page.inner_text("section.board")
        assert not _latin(page, "[data-testid=moves]"), page.inner_text("[data-testid=moves]")
        facts = page.inner_text("section.board .facts")
        lasts.add(facts.split("Последняя")[-1].strip())
        if page.get_attribute(STATUS, "data-state") == "finished":
            break
        if not refusal and page.locator("button.card[aria-disabled=true]").count():
            refusal = _refused(page)
        before = page.get_attribute(STATUS, "data-version")
        page.locator("button.card.legal").first.click()
        page.wait_for_function(
            "v => document.querySelector('[data-testid=status]').dataset.version !== v", arg=before
        )
    facts = page.inner_text("section.board .facts")
    assert "личные: ♠ ♥ ♦" in facts, facts  # the trump mode PERSONAL, one suit a seat
    assert "(бот)" in facts and "(bot)" not in facts, facts
    assert len(lasts) > 3 and any("кладёт" in x for x in lasts), lasts
    moves = page.inner_text("[data-testid=moves]")
    assert "эвристика (бот)" in moves or "случайный (бот)" in moves, moves
    assert refusal, "no card was refused while the seat was to play"
    assert "(CARD_NOT_PLAYABLE)" in refusal and _ru("why.CARD_NOT_PLAYABLE") in refusal, refusal
    context.close()


def test_a_russian_durak_table_says_why_a_card_cannot_beat(web: Web, chromium: Any) -> None:
    """Durak against a bot on a Russian page: a refused card (one that cannot beat, or not of a
    rank on the table) is explained with the catalogue's words for its reason."""
    context, page = _context(chromium)
    page.goto(web.url + "/")
    form = page.locator("form[data-game=durak-dice]")
    form.locator("[name=name]").fill("Аня")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("section.board")
    seen: dict[str, str] = {}
    for _ in range(200):
        page.wait_for_function(
            "document.querySelector('button.card.legal, button.action') ||"
            " document.querySelector('[data-testid=status]').dataset.state === 'finished'"
        )
        if page.get_attribute(STATUS, "data-state") == "finished" or len(seen) >= 2:
            break
        if page.locator("button.card[aria-disabled=true]").count():
            message = _refused(page)
            code = re.search(r"\(([A-Z_]+)\)$", message)
            assert code, message
            seen.setdefault(code.group(1), message)
        before = page.get_attribute(STATUS, "data-version")
        page.locator(PLAYABLE).first.click()
        page.wait_for_function(
            "v => document.querySelector('[data-testid=status]').dataset.version !== v"
            " || document.querySelector('[data-testid=message]').textContent",
            arg=before,
        )
    assert seen and set(seen) <= {
        "CANNOT_BEAT",
        "CANNOT_THROW_IN",
        "MUST_ATTACK",
        "NOTHING_TO_BEAT",
    }, seen
    for code, message in seen.items():
        assert _ru(f"why.{code}") in message, message
        latin = re.sub(r"\([A-Z_]+\)|\b(R|DIX|SIX|DUR)-\d+", "", message)
        assert not LATIN.search(latin), message
    context.close()


def _finished_by_bots(web: Web, game: str, options: dict[str, str], seats: int = 2) -> str:
    stub = web.server.stub()
    made = stub.CreateMatch(
        pb.CreateMatchRequest(
            game=game,
            options=options,
            seats=[
                pb.SeatRequest(bot="heuristic" if s % 2 == 0 else "random") for s in range(seats)
            ],
        )
    ).match_id
    for _ in range(300):  # the bots play it out at once; its log is readable once it is over
        try:
            stub.GetMatchLog(pb.GetMatchLogRequest(match_id=made))
            return made
        except grpc.RpcError:
            time.sleep(0.1)
    raise AssertionError("the bots did not finish the match")


@pytest.mark.parametrize(
    ("game", "options", "seats"),
    [
        ("dix", {"single_hand": "true"}, 2),
        ("six-dozens", {"deck": "28", "max_hands": "1"}, 3),
        ("durak-dice", {}, 2),
    ],
)
def test_the_russian_replay_viewer_words_every_step(
    web: Web, chromium: Any, game: str, options: dict[str, str], seats: int
) -> None:
    """A match the server's bots played, in the replay viewer of a Russian page: the verdict in
    words beside its status code, the report and the table as text labelled as the server's
    (English) text, and at every step the events and the board without an English word."""
    match_id = _finished_by_bots(web, game, options, seats)
    context, page = _context(chromium)
    page.goto(f"{web.url}/#/replay/{match_id}")
    page.wait_for_selector("[data-testid=step]")
    assert page.inner_text("[data-testid=verdict]") == "VERIFIED"
    words = page.locator("[data-testid=verdict-words]")
    assert words.count() == 1 and words.inner_text() == _ru("replay.VERIFIED")
    summary = page.inner_text("section.replay details summary")
    assert summary == f"{_ru('replay.report')} ({_ru('replay.serverText')})", summary
    assert page.get_attribute("[data-testid=report]", "lang") == "en"
    assert page.get_attribute("[data-testid=table-text]", "lang") == "en"
    total = int(re.findall(r"\d+", page.inner_text("[data-testid=step]"))[-1])
    assert total > 10
    page.click("[aria-label='первый шаг']")
    lines = set()
    for step in range(1, total + 1):
        page.wait_for_function(
            "n => document.querySelector('[data-testid=step]').textContent.startsWith(`шаг ${n} `)",
            arg=step,
        )
        latin = _latin(page, "section.replay")
        assert not latin, (step, latin, page.inner_text("section.replay ol.log"))
        lines.update(
            page.eval_on_selector_all(
                "section.replay ol.log li", "els => els.map(e => e.textContent)"
            )
        )
        if step < total:
            page.click("[data-testid=next]")
    assert any("(бот)" in line for line in lines), lines
    assert _ru("move.seedRevealed") in lines, lines
    context.close()


def test_the_russian_lobby_names_each_option_and_choice(web: Web, chromium: Any) -> None:
    context, page = _context(chromium)
    page.goto(web.url + "/")
    form = page.locator("form[data-game=six-dozens]")
    form.locator("summary").click()
    assert form.locator("label[for=opt-six-dozens-trumps]").inner_text() == _ru(
        "opt.six-dozens.trumps"
    )
    texts = form.locator("[data-option=trumps] option").all_inner_texts()
    assert _ru("opt.six-dozens.trumps.PERSONAL") in texts, texts
    assert form.locator("[data-option=trumps]").input_value() == "PERSONAL"  # the value stays
    text = form.locator("details").inner_text()  # rule IDs and suit letters (S H D C) aside
    assert not LATIN.search(re.sub(RULE_OR_SUITS, "", text)), text
    context.close()


def test_a_russian_table_shows_a_bots_seat_in_russian(web: Web, chromium: Any) -> None:
    context, page = _context(chromium)
    page.goto(web.url + "/")
    form = page.locator("form[data-game=dix]")
    form.locator("summary").click()
    form.locator("[data-option=single_hand]").check()
    form.locator("button[type=submit]").click()
    page.locator(PLAYABLE).first.wait_for()
    plates = page.inner_text(".seats")
    assert "эвристика (бот)" in plates and "(bot)" not in plates, plates
    context.close()
