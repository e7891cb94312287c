"""Playing tournament matches through a Kozyr server over PlaySession streams.

`kozyr tournament --server ADDR`: each worker creates its chunk's matches (real, stored
matches with the fixtures' deals prearranged, or dealt by the server with `deals="seeded"`,
see kozyr.tournament.remote) and plays every seat of them over PlaySession: the chunk is dealt
over `SESSIONS` connections, one session each, a group's matches created on the connection
that plays them. (gRPC gives all of a process's channels to one address one TCP connection;
remote.next_connection gives each its own, spread evenly over the processes of `kozyr serve
--workers N`, and the process that created a match holds its record for every move.) The
server pushes each decision (the seat's view, its legal moves and the events it was sent since
its last decision), the seat's bot answers. Each
seat still sees only what its own token is sent: its observation is rebuilt from its events
and checked against the server's table (remote.SeatMind), exactly as over unary calls.
With `--save-dir` (a seat's receipts are kept) the matches are played as in remote.py.

With `--server-bots` no client plays: see kozyr.tournament.serverbots.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from kozyr._proto.kozyr.v1 import kozyr_pb2 as pb
from kozyr.bots import make_bot, parse_spec
from kozyr.fairness import RandomStream
from kozyr.games import get_game
from kozyr.tournament.model import MatchResult, Tournament
from kozyr.tournament.remote import SeatMind, next_connection, prearranged
from kozyr.tournament.schedule import Fixture, bot_seed, deal_seed
from kozyr_client import Created, KozyrClient, PlaySession, match_request
from kozyr_client.client import created_of

SESSIONS = 2  # sessions (connections) a worker plays its chunk over, each in a thread


def play_served(t: Tournament, fixtures: Sequence[Fixture], address: str) -> list[MatchResult]:
    """Play `fixtures` as real matches on the server at `address`: they are dealt over
    `SESSIONS` connections, each group created and played over one session on its own."""
    return _in_threads(fixtures, SESSIONS,
                       lambda group: _play_session(t, group, next_connection(address)))


def _in_threads(fixtures: Sequence[Fixture], groups: int,
                play: Callable[[list[Fixture]], list[MatchResult]]) -> list[MatchResult]:
    """The fixtures dealt round robin into `groups`, each played by `play` in a thread of its
    own; the results in the fixtures' order."""
    dealt = [g for k in range(groups) if (g := list(fixtures[k::groups]))]
    with ThreadPoolExecutor(len(dealt)) as threads:
        by_index = {r.index: r for results in threads.map(play, dealt) for r in results}
    return [by_index[f.index] for f in fixtures]


def _create(client: KozyrClient, t: Tournament, fixture: Fixture) -> Created:
    """Create the fixture's match on `client`'s connection with its deal prearranged (the
    in-process deal)."""
    return created_of(client.call(client.stub.CreateMatch, request_of(t, fixture)))


def request_of(t: Tournament, fixture: Fixture, bots: Sequence[str] = ()
               ) -> pb.CreateMatchRequest:
    """The CreateMatch request of the fixture, its deal prearranged (the in-process deal)."""
    game = get_game(t.game)
    names = [t.names[p] for p in fixture.lineup]
    config = game.make_config(dict(t.options), len(names))
    first, decks, dice = prearranged(game, config, names, deal_seed(t.master, fixture.deal))
    return match_request(game.NAME, names, dict(t.options), first_dealer=first,
                         prearranged_decks=decks, prearranged_dice=dice,
                         bots=list(bots) or None)


def _play_session(t: Tournament, fixtures: Sequence[Fixture], client: KozyrClient
                  ) -> list[MatchResult]:
    """Create `fixtures` on `client`'s connection and play all their seats over one session
    on it (the server process that made the matches holds their records)."""
    game = get_game(t.game)
    minds: dict[tuple[str, int], SeatMind] = {}
    tokens_of: dict[str, dict[int, str]] = {}
    created_ids: list[str] = []
    for fixture in fixtures:
        if t.deals == "seeded":  # the server's seed and each seat's contribution: a fair deal
            created = client.create_match(game.NAME, [t.names[p] for p in fixture.lineup],
                                          dict(t.options), seed_contributions=[
                RandomStream(t.master, f"tournament/contribution/{fixture.index}/{s}").read(16)
                for s in range(len(fixture.lineup))])
        else:
            created = _create(client, t, fixture)
        created_ids.append(created.match_id)
        tokens_of[created.match_id] = created.tokens
        for s, p in enumerate(fixture.lineup):
            bot = make_bot(parse_spec(t.players[p]), game, s, bot_seed(t.master, fixture.index, s))
            minds[(created.match_id, s)] = SeatMind(game, s, bot)

    def choose(decision: pb.Decision) -> pb.Move:
        mind = minds[(decision.match_id, decision.seat)]
        mind.heard(decision.events)
        return mind.choose(decision.view, decision.moves)

    session = PlaySession(client, choose, receipts=False)  # none is kept without --save-dir
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


def seeded(spec: str, seed: int) -> str:
    """The bot spec with the seed the in-process tournament would give that bot."""
    return f"{spec}{',' if ':' in spec else ':'}seed={seed}"
