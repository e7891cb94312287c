// The game-specific part of a table: what lies on it, for each of the three games. Only what
// the viewer's MatchView holds is drawn: the server has already removed every hidden card.

import { colour, face, spoken, suitSymbol } from "./cards";
import { h } from "./dom";
import type { DixView, DurakDiceView, MatchView, SixDozensView, TablePair } from "./gen/kozyr/v1/kozyr_pb";

/** A face-up card (not playable). */
export function card(code: string, extra = ""): HTMLElement {
  return h("span", { class: `card ${colour(code)} ${extra}`, title: spoken(code), "aria-label": spoken(code) },
    face(code));
}

function cards(codes: readonly string[], empty = "—"): HTMLElement {
  return h("span", { class: "cards" }, codes.length ? codes.map((c) => card(c)) : empty);
}

function fact(label: string, ...value: (Node | string)[]): HTMLElement {
  return h("div", { class: "fact" }, h("span", { class: "label" }, label), h("span", { class: "value" }, ...value));
}

/** The seat's name for people. */
export function nameOf(view: MatchView, seat: number | undefined): string {
  if (seat === undefined) return "—";
  const p = view.players.find((x) => x.seat === seat);
  return p?.name || `seat ${seat}`;
}

function dix(view: MatchView, d: DixView): HTMLElement {
  return h("section", { class: "board", "data-game": "dix", "data-hand": d.handNumber },
    fact("Hand", String(d.handNumber), ` · dealer ${nameOf(view, d.dealer)}`),
    fact("Trump", d.turnUp ? card(d.turnUp) : "—", ` ${suitSymbol(d.trump) || "no trump"}`),
    fact("Stock", h("span", { "data-testid": "stock" }, String(d.stockCount))),
    fact("Trick", h("span", { "data-testid": "trick" }, cards(d.trick)), ` · lead ${nameOf(view, d.leader)}`),
    fact("Last trick", cards(d.lastTrick),
      d.lastTrickWinner !== undefined ? ` · won by ${nameOf(view, d.lastTrickWinner)}` : ""),
    fact("Target", String(d.target)),
  );
}

function six(view: MatchView, s: SixDozensView): HTMLElement {
  return h("section", { class: "board", "data-game": "six-dozens", "data-hand": s.handNumber },
    fact("Hand", String(s.handNumber), ` · dealer ${nameOf(view, s.dealer)} · first ${nameOf(view, s.firstMover)}`),
    fact("Bank", h("span", { "data-testid": "bank" }, s.bank ? card(s.bank) : "—")),
    fact("Trumps", `${s.trumpMode} `, s.trumpSuits.map(suitSymbol).join(" ") || "none"),
    fact("Stock", String(s.stockCount)),
    fact("Kitty", h("span", { "data-testid": "kitty" }, String(s.kitty))),
    fact("Out", s.outOrder.map((x) => nameOf(view, x)).join(", ") || "—"),
    s.skipNext ? fact("Skip", "the next seat is skipped (SIX-8)") : null,
    fact("Last", s.lastPlay || "—"),
  );
}

function pairs(list: readonly TablePair[]): HTMLElement {
  if (!list.length) return h("span", { class: "cards" }, "—");
  return h("span", { class: "pairs" }, list.map((p) =>
    h("span", { class: "pair" }, card(p.attack), p.defence ? card(p.defence, "beat") : h("span", { class: "open" }, "?"))));
}

function durak(view: MatchView, d: DurakDiceView): HTMLElement {
  return h("section", { class: "board", "data-game": "durak-dice", "data-hand": d.gameNumber },
    fact("Game", `${d.gameNumber} of ${d.games} · bout ${d.boutNumber} · dealer ${nameOf(view, d.dealer)}`),
    fact("Trump", d.trumpCard ? card(d.trumpCard) : "—", ` ${suitSymbol(d.trump)}`),
    fact("Bout", h("span", { "data-testid": "bout" }, pairs(d.table)),
      ` · ${nameOf(view, d.attacker)} attacks ${nameOf(view, d.defender)}`),
    fact("Last bout", pairs(d.lastBout),
      d.lastBoutTakenBy !== undefined ? ` · taken by ${nameOf(view, d.lastBoutTakenBy)}` : d.lastBout.length ? " · beaten off" : ""),
    fact("Discards", String(d.discardCount)),
    fact("Dice", d.rolls.map((r) => `${nameOf(view, r.seat)} ${r.value}`).join(", ") || "—"),
    fact("Out", d.out.map((x) => nameOf(view, x)).join(", ") || "—"),
  );
}

/** The board of any game, or nothing while the match waits for players. */
export function board(view: MatchView): HTMLElement | null {
  switch (view.table.case) {
    case "dix": return dix(view, view.table.value);
    case "sixDozens": return six(view, view.table.value);
    case "durakDice": return durak(view, view.table.value);
    default: return null;
  }
}

/** The viewer's own cards (empty for a spectator). */
export function handOf(view: MatchView): string[] {
  return view.table.case ? [...view.table.value.hand] : [];
}

/** Per-seat numbers: cards held, and the score in the game's unit. */
export function seatFacts(view: MatchView, seat: number): { held: number; score: string } {
  const t = view.table;
  switch (t.case) {
    case "dix": return { held: t.value.handSizes[seat] ?? 0,
      score: `${t.value.totals[seat] ?? 0} pts · ${t.value.tricks[seat] ?? 0} tricks · ${t.value.tens[seat] ?? 0} tens` };
    case "sixDozens": return { held: t.value.handSizes[seat] ?? 0, score: `capital ${t.value.capitals[seat] ?? 0}` };
    case "durakDice": return { held: t.value.handSizes[seat] ?? 0, score: `fool ×${t.value.fools[seat] ?? 0}` };
    default: return { held: 0, score: "" };
  }
}
