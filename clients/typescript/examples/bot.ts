// An example Kozyr bot in TypeScript: it takes a seat in a match and plays seeded random legal
// moves until the match ends, following the match through the WatchMatch stream.
//
//   node dist/examples/bot.js --server 127.0.0.1:50051 --match <id> [--name ts-bot] [--seat N]
//   node dist/examples/bot.js --server 127.0.0.1:50051 --match <id> --token <seat token>
//   (it plays over one PlaySession stream, one message each way a move; add --watch to follow
//   WatchMatch and move by unary calls instead)
//   node dist/examples/bot.js --server 127.0.0.1:50051 --create dix   (creates a match with every
//        seat open, prints {"matchId": ...} on stdout, takes seat 0 and plays)
//
// Progress goes to stderr; the last line on stdout is a JSON summary:
//   {"matchId":"…","seat":1,"version":97,"moves":41,"status":"FINISHED","winners":[1],"scores":[52,31]}

import { parseArgs } from "node:util";
import {
  Code,
  KozyrError,
  MatchStatus,
  auth,
  connectKozyr,
  describeMove,
  joinMatch,
  KeptTreeHead,
  playSession,
  Receipts,
  submitMove,
  watch,
} from "../src/index.js";

const { values: args } = parseArgs({
  options: {
    server: { type: "string", default: "127.0.0.1:50051" },
    match: { type: "string" },
    create: { type: "string" },
    players: { type: "string" },
    name: { type: "string", default: "ts-bot" },
    seat: { type: "string" },
    token: { type: "string" },
    seed: { type: "string", default: "1" },
    quiet: { type: "boolean", default: false },
    watch: { type: "boolean", default: false },
    session: { type: "boolean", default: false },  // the default since issue 32; kept for old scripts
  },
});

/** mulberry32: a tiny seeded PRNG, so a bot's choices repeat for a seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const log = (text: string) => {
  if (!args.quiet) process.stderr.write(`[ts-bot] ${text}\n`);
};

/** The transparency log's signed tree head once the match ended (null: the server keeps none). */
async function loggedHead(kozyr: ReturnType<typeof connectKozyr>): Promise<Record<string, unknown> | null> {
  const kept = new KeptTreeHead();
  try {
    await kept.refresh(kozyr);
  } catch (error) {
    if (KozyrError.from(error).reason !== "TRANSPARENCY_LOG_OFF") throw error;
  }
  return kept.toJson() ?? null;
}

async function main(): Promise<number> {
  const kozyr = connectKozyr(args.server!);
  const random = rng(Number(args.seed));
  let matchId = args.match;
  if (args.create) {
    const games = (await kozyr.listGames({})).games;
    const info = games.find((g) => g.name === args.create);
    if (!info) throw new Error(`unknown game ${args.create}`);
    const players = args.players ? Number(args.players) : info.minPlayers;
    const created = await kozyr.createMatch({
      game: info.name,
      seats: Array.from({ length: players }, () => ({ name: "" })),
    });
    matchId = created.matchId;
    process.stdout.write(JSON.stringify({ matchId }) + "\n");
  }
  if (!matchId) throw new Error("give --match ID or --create GAME");

  let token = args.token;
  let seat: number;
  if (token) {
    const view = (await kozyr.getMatch({ matchId }, auth(token))).view!;
    seat = view.seat!;
  } else {
    // 32 fresh random bytes to the match seed (not the --seed of the bot's choices: the server
    // must not be able to predict them).
    const joined = await joinMatch(kozyr, {
      matchId,
      name: args.name!,
      seat: args.seat === undefined ? undefined : Number(args.seat),
    });
    token = joined.token;
    seat = joined.seat;
    const kept = new Receipts(matchId);
    kept.keep(joined.receipt);
    log(`joined ${matchId} as seat ${seat}${joined.started ? "; the match starts" : ""}`);
    log(`seed commitment ${kept.fingerprint || "(no signed receipt)"}`);
  }

  if (!args.watch) {
    let moves = 0;
    const done = await playSession(kozyr, [{ matchId, seat, token }], (decision) => {
      const move = decision.moves[Math.floor(random() * decision.moves.length)];
      moves++;
      log(`v${decision.version}: ${describeMove(move)}`);
      return move;
    });
    const final = done.get(`${matchId}/${seat}`)!;
    const view = final.view!;
    process.stdout.write(JSON.stringify({
      matchId, seat, version: Number(final.version), moves, status: MatchStatus[view.status],
      winners: view.outcome?.winners ?? [], scores: view.outcome?.scores ?? [], session: true,
      treeHead: await loggedHead(kozyr),
    }) + "\n");
    return view.status === MatchStatus.FINISHED ? 0 : 1;
  }

  // Watch from one before the current version: the first update is the table as it is now, so
  // a turn that is already ours is not missed, and every later turn arrives in order.
  const now = (await kozyr.getMatch({ matchId }, auth(token))).view!;
  let moves = 0;
  let last = now;
  for await (const update of watch(kozyr, matchId, token, now.version - 1n)) {
    last = update.view!;
    if (last.status !== MatchStatus.PLAYING || last.toAct !== seat) continue;
    const legal = await kozyr.listLegalMoves({ matchId }, auth(token));
    if (legal.version !== update.version || legal.moves.length === 0) continue; // a later update comes
    const move = legal.moves[Math.floor(random() * legal.moves.length)];
    try {
      await submitMove(kozyr, matchId, token, move, legal.version);
      moves++;
      log(`v${legal.version}: ${describeMove(move)}`);
    } catch (error) {
      const e = KozyrError.from(error);
      // Someone moved in between (another client of this seat): the next update decides.
      if (e.code !== Code.Aborted && e.reason !== "NOT_YOUR_TURN") throw e;
    }
  }
  const summary = {
    matchId,
    seat,
    version: Number(last.version),
    moves,
    status: MatchStatus[last.status],
    winners: last.outcome?.winners ?? [],
    scores: last.outcome?.scores ?? [],
  };
  process.stdout.write(JSON.stringify(summary) + "\n");
  return last.status === MatchStatus.FINISHED ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    const e = KozyrError.from(error);
    process.stderr.write(`[ts-bot] ${e.message} ${JSON.stringify(e.metadata)}\n`);
    process.exit(2);
  },
);
