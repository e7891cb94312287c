// Random playouts of two card games written for boardgame.io (pinned in .anchors/bgio), run by
// tests/bench/anchors.py: node bgio_playout.mjs <trick|shed> <seconds>  ->  {"actions_per_s": …}
//
// They are small ports, not the full rules: "trick" has Dix's shape (two seats, a 52-card deck,
// six cards in hand, a trump turned up, follow suit if able, the trick's winner leads, both draw
// from the stock), "shed" has Six Dozens' (three seats, 36 cards, eight in hand, a bank card to
// cover by the next rank of its suit, the same rank or an 8, else pass). Kozyr's playouts run
// the full rules, so these ratios flatter boardgame.io, if anything.
import { createRequire } from "node:module";

// boardgame.io lives in its own folder (BGIO_DIR, .anchors/bgio), not beside this file.
const require = createRequire(`${process.env.BGIO_DIR}/package.json`);
// The game reducer a boardgame.io master runs per move (its pure core, no transport): the
// closest thing to Kozyr's decide + evolve playout.
const { CreateGameReducer, InitializeGame } = require("boardgame.io/internal");

const RANKS = (low) => Array.from({ length: 15 - low }, (_, i) => low + i);
const deck = (low) => RANKS(low).flatMap((r) => [0, 1, 2, 3].map((s) => ({ r, s })));

const Trick = {
  name: "trick",
  setup: ({ random }) => {
    const cards = random.Shuffle(deck(2));
    const hands = [cards.splice(0, 6), cards.splice(0, 6)];
    return { hands, stock: cards, trump: cards[cards.length - 1].s, trick: [], leader: 0, next: 0, won: [0, 0] };
  },
  turn: { maxMoves: 1, order: { first: () => 0, next: ({ G }) => G.next } },
  moves: {
    play: ({ G, playerID }, i) => {
      const seat = Number(playerID);
      const card = G.hands[seat][i];
      G.hands[seat].splice(i, 1);
      G.trick.push({ seat, card });
      if (G.trick.length < 2) {
        G.next = 1 - seat;
        return;
      }
      const [a, b] = G.trick;
      const beats = b.card.s === a.card.s ? b.card.r > a.card.r : b.card.s === G.trump;
      const winner = beats ? b.seat : a.seat;
      G.won[winner] += 1;
      for (const s of [winner, 1 - winner]) if (G.stock.length) G.hands[s].push(G.stock.shift());
      G.trick = [];
      G.next = winner;
    },
  },
  endIf: ({ G }) => (G.hands[0].length === 0 && G.hands[1].length === 0 ? { won: G.won } : undefined),
};

function trickLegal(G, seat) {
  const hand = G.hands[seat];
  const all = hand.map((_, i) => i);
  if (G.trick.length === 0) return all;
  const follow = all.filter((i) => hand[i].s === G.trick[0].card.s);
  return follow.length ? follow : all;
}

const Shed = {
  name: "shed",
  setup: ({ random }) => {
    const cards = random.Shuffle(deck(6));
    const hands = [cards.splice(0, 8), cards.splice(0, 8), cards.splice(0, 8)];
    return { hands, bank: cards.shift(), stock: cards, passes: 0, next: 0 };
  },
  turn: { maxMoves: 1, order: { first: () => 0, next: ({ G }) => G.next } },
  moves: {
    play: ({ G, playerID }, i) => {
      const seat = Number(playerID);
      G.bank = G.hands[seat].splice(i, 1)[0];
      G.passes = 0;
      G.next = (seat + 1) % 3;
    },
    pass: ({ G, playerID }) => {
      const seat = Number(playerID);
      if (G.stock.length) G.hands[seat].push(G.stock.shift());
      else G.passes += 1;
      G.next = (seat + 1) % 3;
    },
  },
  endIf: ({ G }) => (G.hands.some((h) => h.length === 0) || G.passes >= 3 ? { over: true } : undefined),
};

function shedLegal(G, seat) {
  const b = G.bank;
  return G.hands[seat]
    .map((c, i) => [c, i])
    .filter(([c]) => c.r === 8 || c.r === b.r || (c.s === b.s && c.r === b.r + 1))
    .map(([, i]) => i);
}

// mulberry32, for the playout's own choices (boardgame.io's random is for the deal).
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const move = (type, args, playerID) => ({ type: "MAKE_MOVE", payload: { type, args, playerID } });

function playout(game, players, legal, seed, random) {
  const seeded = { ...game, seed: String(seed) };
  const reducer = CreateGameReducer({ game: seeded, isClient: false });
  let state = InitializeGame({ game: seeded, numPlayers: players });
  let actions = 0;
  while (!state.ctx.gameover) {
    const seat = state.ctx.currentPlayer;
    const options = legal(state.G, Number(seat));
    const action = options.length
      ? move("play", [options[Math.floor(random() * options.length)]], seat)
      : move("pass", [], seat);
    const next = reducer(state, action);
    if (next === state || next._stateID === state._stateID) throw new Error(`move refused at ${actions}`);
    state = next;
    actions += 1;
  }
  return actions;
}

const [which, seconds] = [process.argv[2], Number(process.argv[3] ?? "2")];
const [game, players, legal] = which === "trick" ? [Trick, 2, trickLegal] : [Shed, 3, shedLegal];
const random = rng(1);
let actions = 0, matches = 0;
const start = performance.now();
while (performance.now() - start < seconds * 1000) {
  actions += playout(game, players, legal, matches, random);
  matches += 1;
}
const elapsed = (performance.now() - start) / 1000;
process.stdout.write(JSON.stringify({ game: which, matches_per_s: matches / elapsed, actions_per_s: actions / elapsed }) + "\n");
