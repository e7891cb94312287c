"""Playing tournament matches through a Kozyr server over one PlaySession stream.

`kozyr tournament --server ADDR`: each worker creates its chunk's matches (real, stored
matches with the fixtures' deals prearranged, or dealt by the server with `deals="seeded"`,
see kozyr.tournament.remote) and plays every seat
of all of them over ONE PlaySession: the server pushes each decision (the seat's view, its
legal moves and the events it was sent since its last decision), the seat's bot answers. Each
seat still sees only what its own token is sent: its observation is rebuilt from its events
and checked against the server's table (remote.SeatMind), exactly as over unary calls.
With `--save-dir` (a seat's receipts are kept) the matches are played as in remote.py.

With `--server-bots` no client plays: each match is created with the server's own bot on every
seat (SeatRequest.bot; kozyr.engine.seatbots plays them inside the server, in runs appended as
one), and the worker only waits for each match's final table.
"""

from __future__ import annotations

from collections.abc import Sequence

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.bots import make_bot, parse_spec
from kozyr.fairness import RandomStream
from kozyr.games import get_game
from kozyr.tournament.model import MatchResult, Tournament
from kozyr.tournament.remote import SeatMind, next_connection, prearranged
from kozyr.tournament.schedule import Fixture, bot_seed, deal_seed
from kozyr_client import KozyrClient, PlaySession


def play_served(t: Tournament, fixtures: Sequence[Fixture], address: str) -> list[MatchResult]:
    """Play `fixtures` as real matches on the server at `address`, all over one session."""
    game = get_game(t.game)
    organiser = next_connection(address)
    minds: dict[tuple[str, int], SeatMind] = {}
    tokens_of: dict[str, dict[int, str]] = {}
    created_ids: list[str] = []
    for fixture in fixtures:
        names = [t.names[p] for p in fixture.lineup]
        if t.deals == "seeded":  # the server's seed and each seat's contribution: a fair deal
            created = organiser.create_match(game.NAME, names, dict(t.options),
                                             seed_contributions=[
                RandomStream(t.master, f"tournament/contribution/{fixture.index}/{s}").read(16)
                for s in range(len(names))])
        else:
            config = game.make_config(dict(t.options), len(names))
            first, decks, dice = prearranged(game, config, names,
                                             deal_seed(t.master, fixture.deal))
            created = organiser.create_match(game.NAME, names, dict(t.options),
                                             first_dealer=first, prearranged_decks=decks,
                                             prearranged_dice=dice)
        created_ids.append(created.match_id)
        tokens_of[created.match_id] = created.tokens
        for s, p in enumerate(fixture.lineup):
            bot = make_bot(parse_spec(t.players[p]), game, s, bot_seed(t.master, fixture.index, s))
            minds[(created.match_id, s)] = SeatMind(game, s, bot)

    def choose(decision: pb.Decision) -> pb.Move:
        mind = minds[(decision.match_id, decision.seat)]
        mind.heard(decision.events)
        return mind.choose(decision.view, decision.moves)

    session = PlaySession(organiser, choose)  # the connection (server process) that made them
    for match_id, seat in minds:
        session.add(match_id, seat, tokens_of[match_id][seat])
    finished = session.run()
    results = []
    for fixture, match_id in zip(fixtures, created_ids, strict=True):
        final = finished[(match_id, 0)].view
        moves = sum(m.moves for (mid, _), m in minds.items() if mid == match_id)
        results.append(MatchResult(
            fixture.index, fixture.deal, fixture.lineup, tuple(final.outcome.winners),
            tuple(final.outcome.scores), moves, final.outcome.reason, match_id=match_id))
    return results


def play_server_bots(t: Tournament, fixtures: Sequence[Fixture], address: str
                     ) -> list[MatchResult]:
    """Play `fixtures` on the server at `address` with its own bots on every seat."""
    game = get_game(t.game)
    organiser = next_connection(address)
    created_ids = []
    for fixture in fixtures:
        names = [t.names[p] for p in fixture.lineup]
        config = game.make_config(dict(t.options), len(names))
        first, decks, dice = prearranged(game, config, names, deal_seed(t.master, fixture.deal))
        created = organiser.create_match(game.NAME, names, dict(t.options), first_dealer=first,
                                         prearranged_decks=decks, prearranged_dice=dice,
                                         bots=[seeded(t.players[p], bot_seed(
                                             t.master, fixture.index, s))
                                             for s, p in enumerate(fixture.lineup)])
        created_ids.append(created.match_id)
    results = []
    for fixture, match_id in zip(fixtures, created_ids, strict=True):
        final = final_view(organiser, match_id)
        results.append(MatchResult(
            fixture.index, fixture.deal, fixture.lineup, tuple(final.outcome.winners),
            tuple(final.outcome.scores), final.version - 1, final.outcome.reason,
            match_id=match_id))
    return results


def seeded(spec: str, seed: int) -> str:
    """The bot spec with the seed the in-process tournament would give that bot."""
    return f"{spec}{',' if ':' in spec else ':'}seed={seed}"


def final_view(client: KozyrClient, match_id: str) -> pb.MatchView:
    """The match's table once it has ended (watched as a spectator until then)."""
    spectator = client.spectate(match_id)
    view = spectator.view()
    if view.status == pb.MATCH_STATUS_PLAYING:
        with spectator.watch(max(view.version - 1, 0)) as updates:
            for update in updates:
                view = update.view
    return view
