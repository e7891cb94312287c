// Cards as people see them: "10H" -> "10♥", red or black, with a spoken label.

import { Suit } from "./gen/kozyr/v1/kozyr_pb";

const SUITS: Record<string, [string, string]> = {
  S: ["♠", "spades"], H: ["♥", "hearts"], D: ["♦", "diamonds"], C: ["♣", "clubs"],
};
const RANKS: Record<string, string> = { J: "jack", Q: "queen", K: "king", A: "ace" };

/** The card's face: rank and suit symbol. */
export function face(code: string): string {
  if (code === "JK") return "🃏";
  const suit = SUITS[code.slice(-1)];
  return suit ? code.slice(0, -1) + suit[0] : code;
}

/** The card's spoken name ("10 of hearts"). */
export function spoken(code: string): string {
  if (code === "JK") return "joker";
  const suit = SUITS[code.slice(-1)];
  const rank = code.slice(0, -1);
  return suit ? `${RANKS[rank] ?? rank} of ${suit[1]}` : code;
}

/** "red" for hearts and diamonds, else "black". */
export function colour(code: string): string {
  return /[HD]$/.test(code) ? "red" : "black";
}

/** A suit enum as its symbol ("" when unspecified). */
export function suitSymbol(suit: Suit): string {
  const letter = Suit[suit]?.replace("SUIT_", "") ?? "";
  return SUITS[letter]?.[0] ?? "";
}
