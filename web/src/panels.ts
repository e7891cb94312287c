// The game-specific part of a table: the centre (trick, bank or bout; trump and stock as a
// pile; the last trick or bout on hover or tap) and each seat's numbers, for the three games.
// Only what the viewer's MatchView holds is drawn: the server has already removed every hidden
// card.

import { colour, faceParts, faces, shortName, suitSymbol } from "./cards";
import { h } from "./dom";
import type { DixView, DurakDiceView, MatchView, SixDozensView, TablePair } from "./gen/kozyr/v1/kozyr_pb";
import { cardName, displayName, gameTitle, lang, t, trumpModeName } from "./i18n";

/** A face-up card drawn in CSS (not playable), named for screen readers. */
export function card(code: string, extra = ""): HTMLElement {
  return h("span", { class: `card ${colour(code)} ${extra}`, role: "img", title: cardName(code),
    "aria-label": cardName(code), "data-code": code }, faceParts(code, lang() === "ru"));
}

/** A card face down. */
export function back(extra = ""): HTMLElement {
  return h("span", { class: `card back ${extra}`, "aria-hidden": "true" });
}

function cards(codes: readonly string[], testid?: string): HTMLElement {
  return h("span", { class: "cards", "data-testid": testid }, codes.length ? codes.map((c) => card(c)) : "—");
}

function fact(label: string, ...value: (Node | string)[]): HTMLElement {
  return h("div", { class: "fact" }, h("span", { class: "label" }, label), h("span", { class: "value" }, ...value));
}

/** The seat's name for people. */
export function nameOf(view: MatchView, seat: number | undefined): string {
  if (seat === undefined) return "—";
  const p = view.players.find((x) => x.seat === seat);
  return p?.name ? displayName(p.name, p.bot) : t("board.seat", { n: seat });
}

/** A card's face as the page's language writes it ("Q♥", "Д♥"). */
export function faceText(code: string): string {
  return shortName(code, lang() === "ru");
}

/** Each seat's number in the game's unit, by name: "Ann 31 · Bea 19". */
export function bySeat(view: MatchView, values: readonly number[]): string {
  return values.map((v, seat) => `${nameOf(view, seat)} ${v}`).join(" · ");
}

/** Six Dozens' settlement of a hand (SIX-11) in words: who pays, who gets, the kitty. */
export function settledText(view: MatchView, hand: number, paid: readonly number[], received: readonly number[],
  kitty: number): string {
  const parts = [
    ...paid.flatMap((n, seat) => n ? [t("move.pays", { name: nameOf(view, seat), n })] : []),
    ...received.flatMap((n, seat) => n ? [t("move.gets", { name: nameOf(view, seat), n })] : []),
  ];
  return t("move.settled", { n: hand, parts: parts.join("; ") || t("move.nobodyPays"), kitty });
}

/** Six Dozens' end (SIX-12): the winners and their capital. */
export function sixWonText(view: MatchView, winners: readonly number[], best: number): string {
  return t("move.sixWon", { n: winners.length, who: winners.map((s) => nameOf(view, s)).join(", "), best });
}

// The sentences of Six Dozens' SixDozensView.last_play (the server's describe(), English, with
// seat numbers and card codes), each read back into its parts and worded in the page's language.
const CODE = "((?:10|[2-9JQKA])[SHDC])";
const LAST_PLAY: [RegExp, (view: MatchView, m: string[]) => string][] = [
  [new RegExp(`^seat (\\d+) plays ${CODE}$`), (v, m) => t("move.plays", { name: nameOf(v, +m[1]), card: faceText(m[2]) })],
  [/^seat (\d+) passes \(no legal card\)$/, (v, m) => t("move.passesNoCard", { name: nameOf(v, +m[1]) })],
  [/^seat (\d+) loses a turn to the 7$/, (v, m) => t("move.skipped7", { name: nameOf(v, +m[1]) })],
  [/^seat (\d+) is out \((\d+)\w\w\)$/, (v, m) => t("move.outPlace", { name: nameOf(v, +m[1]), n: m[2] })],
  [new RegExp(`^the stock covers the bank with ${CODE}$`), (_, m) => t("move.covered", { card: faceText(m[1]) })],
  [/^hand (\d+): seat (\d+) deals$/, (v, m) => t("move.dealt", { n: m[1], name: nameOf(v, +m[2]) })],
  [new RegExp(`^(\\d+) cards each; bank ${CODE}, stock (\\d+); seat (\\d+) moves first$`),
    (v, m) => t("move.bankDealt", { n: m[1], card: faceText(m[2]), stock: m[3], name: nameOf(v, +m[4]) })],
  [/^hand (\d+) ends \(condition \d+\): (.*); kitty (\d+)$/, (v, m) => {
    const paid: number[] = [], received: number[] = [];
    for (const [, seat, how, n] of m[2].matchAll(/seat (\d+) (pays|gets) (\d+)/g)) (how === "pays" ? paid : received)[+seat] = +n;
    return settledText(v, +m[1], paid, received, +m[3]);
  }],
  [/^match ends: (seat \d+(?:, seat \d+)*) (?:wins|share the win) with (-?\d+)$/,
    (v, m) => sixWonText(v, [...m[1].matchAll(/\d+/g)].map((x) => +x[0]), +m[2])],
  [/^seat (\d+) deals first( \(by lot\))?$/, (v, m) => t("move.dealsFirst", { name: nameOf(v, +m[1]) }) + (m[2] ? t("move.byLot") : "")],
  [/^Six Dozens for (\d+) players: deck (\d+), trumps (\w+)( \(prearranged decks\))?$/, (_, m) =>
    t("move.sixStarted", { game: gameTitle("six-dozens"), n: m[1], deck: m[2], trumps: trumpModeName(m[3]) }) + (m[4] ? t("table.prearranged") : "")],
];

/** Six Dozens' last play in the page's language, from the view's sentence; a sentence this
 * page does not know keeps the server's words with names and faces (inWords). */
export function lastPlayText(view: MatchView, text: string): string {
  for (const [pattern, word] of LAST_PLAY) {
    const m = pattern.exec(text);
    if (m) return word(view, [...m]);
  }
  return inWords(view, text);
}

/** Six Dozens' trumps (SIX-4) in words: the mode, then its suits (for personal trumps, one per
 * seat in seat order). */
function trumpsText(s: SixDozensView): string {
  const suits = s.trumpSuits.map(suitSymbol).join(" ");
  return s.trumpMode === "NONE" || !suits ? trumpModeName(s.trumpMode) : `${trumpModeName(s.trumpMode)}: ${suits}`;
}

/** The stock as a pile of backs with its count, the trump card turned under it; an empty
 * stock as words beside the trump card ("Stock: 0"). */
function pile(count: number | undefined, trump: string, trumpSuit: string | undefined): HTMLElement {
  const stock = count === undefined ? "" : `${t("board.stock")}: ${count}. `;
  const shown = trumpSuit === undefined ? "" : `${t("board.trump")}: ${trump ? cardName(trump) : trumpSuit || t("board.noTrump")}`;
  return h("div", { class: "pile", role: "group", "aria-label": `${stock}${shown}` },
    trump ? card(trump, "trump-card") : trumpSuit ? h("span", { class: "trump-suit", "aria-hidden": "true" }, trumpSuit) : null,
    count ? back("stock") : null,
    // An empty stock says so beside the trump card: a bare "0" badge over it read as a card.
    count === undefined ? null : h("span", { class: count ? "count" : "count empty", "data-testid": "stock", "data-count": count,
      "aria-hidden": "true" }, count ? String(count) : `${t("board.stock")}: 0`));
}

/** A line of the server's in the table's terms: names for seats, faces for card codes. */
export function inWords(view: MatchView, text: string): string {
  return faces(text.replace(/\bseat (\d+)/g, (_, n: string) => nameOf(view, Number(n))), lang() === "ru");
}

/** The last trick or bout: shown on hover, or on a tap / Enter on its button. */
function lastOne(label: string, content: HTMLElement, note: string): HTMLElement | null {
  const panel = h("div", { class: "last-panel", id: `last-${label.length}` }, content, note ? h("small", {}, note) : null);
  const button = h("button", { type: "button", class: "last-toggle", "aria-expanded": "false", "aria-controls": panel.id,
    "data-testid": "last", onclick: () => {
      const open = button.getAttribute("aria-expanded") !== "true";
      button.setAttribute("aria-expanded", String(open));
    } }, label);
  return h("div", { class: "last" }, button, panel);
}

function dix(view: MatchView, d: DixView): HTMLElement[] {
  const last = d.lastTrick.length
    ? lastOne(t("table.lastTrick"), cards(d.lastTrick),
      d.lastTrickWinner !== undefined ? t("board.wonBy", { name: nameOf(view, d.lastTrickWinner) }).replace(/^ · /, "") : "")
    : null;
  return [
    h("div", { class: "centre" }, pile(d.stockCount, d.turnUp, suitSymbol(d.trump)),
      h("div", { class: "play", "aria-label": t("board.trick") }, cards(d.trick, "trick")), last),
    h("div", { class: "facts" },
      fact(t("board.hand"), String(d.handNumber), t("board.dealer", { name: nameOf(view, d.dealer) }),
        t("board.lead", { name: nameOf(view, d.leader) })),
      fact(t("board.trump"), suitSymbol(d.trump) || t("board.noTrump")),
      fact(t("board.target"), String(d.target))),
  ];
}

function six(view: MatchView, s: SixDozensView): HTMLElement[] {
  return [
    h("div", { class: "centre" }, pile(s.stockCount, "", undefined),
      h("div", { class: "play", "aria-label": t("board.bank") }, h("span", { "data-testid": "bank" }, s.bank ? card(s.bank) : "—")),
      h("div", { class: "kitty", "aria-label": t("board.kitty") }, h("span", { class: "label" }, t("board.kitty")),
        h("span", { "data-testid": "kitty" }, String(s.kitty)))),
    h("div", { class: "facts" },
      fact(t("board.hand"), String(s.handNumber), t("board.dealer", { name: nameOf(view, s.dealer) }),
        t("board.first", { name: nameOf(view, s.firstMover) })),
      fact(t("board.trumps"), trumpsText(s)),
      fact(t("board.out"), s.outOrder.map((x) => nameOf(view, x)).join(", ") || "—"),
      s.skipNext ? fact(t("board.skip"), t("board.skipText")) : null,
      fact(t("board.last"), s.lastPlay ? lastPlayText(view, s.lastPlay) : "—")),
  ];
}

function pairs(list: readonly TablePair[], testid?: string): HTMLElement {
  if (!list.length) return h("span", { class: "cards", "data-testid": testid }, t("board.noBout"));
  return h("span", { class: "pairs", "data-testid": testid }, list.map((p) =>
    h("span", { class: "pair" }, card(p.attack), p.defence ? card(p.defence, "beat") : h("span", { class: "open" }, "?"))));
}

/** The dice as each seat's rolls: "Bea rolled 5, 6 · Ann rolled 1". */
function dice(view: MatchView, d: DurakDiceView): string {
  const bySeat = new Map<number, number[]>();
  for (const r of d.rolls) bySeat.set(r.seat, [...(bySeat.get(r.seat) ?? []), r.value]);
  return [...bySeat].map(([seat, values]) => t("board.roll", { name: nameOf(view, seat), n: values.join(", ") })).join(" · ") || "—";
}

function durak(view: MatchView, d: DurakDiceView): HTMLElement[] {
  const last = d.lastBout.length
    ? lastOne(t("table.lastBout"), pairs(d.lastBout),
      (d.lastBoutTakenBy !== undefined ? t("board.takenBy", { name: nameOf(view, d.lastBoutTakenBy) }) : t("board.beatenOff")).replace(/^ · /, ""))
    : null;
  const fighting = d.attacker !== undefined && d.defender !== undefined;
  return [
    h("div", { class: "centre" }, pile(undefined, d.trumpCard, suitSymbol(d.trump)),
      h("div", { class: "play", "aria-label": t("board.bout") }, pairs(d.table, "bout")), last),
    h("div", { class: "facts" },
      fact(t("board.game"), t("board.gameOf", { n: d.gameNumber, games: d.games, bout: d.boutNumber, name: nameOf(view, d.dealer) })),
      fighting ? fact(t("board.bout"), t("board.attacks", { a: nameOf(view, d.attacker), d: nameOf(view, d.defender) }).replace(/^ · /, "")) : null,
      fact(t("board.discards"), String(d.discardCount)),
      fact(t("board.dice"), dice(view, d)),
      fact(t("board.out"), d.out.map((x) => nameOf(view, x)).join(", ") || "—")),
  ];
}

/** The centre of the table and its facts, or nothing while the match waits for players. */
export function board(view: MatchView): HTMLElement | null {
  let parts: HTMLElement[];
  let hand = 0;
  switch (view.table.case) {
    case "dix": parts = dix(view, view.table.value); hand = view.table.value.handNumber; break;
    case "sixDozens": parts = six(view, view.table.value); hand = view.table.value.handNumber; break;
    case "durakDice": parts = durak(view, view.table.value); hand = view.table.value.gameNumber; break;
    default: return null;
  }
  return h("section", { class: "board", "data-game": view.game, "data-hand": hand, "aria-label": gameTitle(view.game) }, parts);
}

/** The viewer's own cards (empty for a spectator). */
export function handOf(view: MatchView): string[] {
  return view.table.case ? [...view.table.value.hand] : [];
}

/** Per-seat numbers: cards held, and the score in the game's unit. */
export function seatFacts(view: MatchView, seat: number): { held: number; score: string } {
  const v = view.table;
  switch (v.case) {
    case "dix": return { held: v.value.handSizes[seat] ?? 0,
      score: t("score.dix", { pts: v.value.totals[seat] ?? 0, tricks: v.value.tricks[seat] ?? 0, tens: v.value.tens[seat] ?? 0 }) };
    case "sixDozens": return { held: v.value.handSizes[seat] ?? 0, score: t("score.six", { n: v.value.capitals[seat] ?? 0 }) };
    case "durakDice": return { held: v.value.handSizes[seat] ?? 0, score: t("score.durak", { n: v.value.fools[seat] ?? 0 }) };
    default: return { held: 0, score: "" };
  }
}
