"""Playing one tournament match in-process: the rules core holds the state, bots see seats.

The runner owns the true state; each seat's bot receives only a `Seat` observation built from
it (view, that seat's redacted history, legal commands). Nothing else leaves the loop.
"""

from __future__ import annotations

from kozyr.bots import Seat, make_bot, parse_spec
from kozyr.bots.protocol import Event
from kozyr.games import fold, get_game
from kozyr.tournament.schedule import Fixture, bot_seed, deal_seed
from kozyr.tournament.spec import MatchResult, Tournament


def play_local(t: Tournament, fixture: Fixture) -> MatchResult:
    """Play one fixture to its end in this process."""
    game = get_game(t.game)
    seats = len(fixture.lineup)
    names = t.names
    config = game.make_config(dict(t.options), seats)
    events = game.start(
        config, [names[p] for p in fixture.lineup], deal_seed(t.master, fixture.deal)
    )
    state = fold(game, events)
    redact = game.redact
    histories: list[list[Event]] = [[] for _ in range(seats)]

    def record(new: tuple[Event, ...]) -> None:
        for event in new:
            for s in range(seats):
                shown = redact(event, s)
                if shown is not None:
                    histories[s].append(shown)

    record(events)
    master = t.master
    bots = [
        make_bot(parse_spec(t.players[p]), game, s, bot_seed(master, fixture.index, s))
        for s, p in enumerate(fixture.lineup)
    ]
    to_act, legal_commands, view, decide, evolve = (
        game.to_act,
        game.legal_commands,
        game.view,
        game.decide,
        game.evolve,
    )
    moves = 0
    while (seat := to_act(state)) is not None:
        legal = legal_commands(state, seat)
        command = bots[seat].choose(
            Seat(game, seat, view(state, seat), tuple(histories[seat]), legal)
        )
        new = decide(state, seat, command)
        for event in new:
            state = evolve(state, event)
        record(new)
        moves += 1
    outcome = game.outcome(state)
    assert outcome is not None
    return MatchResult(
        fixture.index,
        fixture.deal,
        fixture.lineup,
        outcome.winners,
        outcome.scores,
        moves,
        outcome.reason,
        details=outcome.details,
    )
