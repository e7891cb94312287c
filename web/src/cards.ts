// Cards as people see them: "10H" -> "10♥", red or black, with a spoken name in the page's
// language (i18n.ts), and the CSS-drawn face: rank in the corners, the suit in the middle.

import { h } from "./dom";
import { Suit } from "./gen/kozyr/v1/kozyr_pb";
import { cardName } from "./i18n";

const SUITS: Record<string, string> = { S: "♠", H: "♥", D: "♦", C: "♣" };
// The Russian ranks of the original texts: В (валет), Д (дама), К (король), Т (туз).
const RU_FACES: Record<string, string> = { J: "В", Q: "Д", K: "К", A: "Т" };

/** The card's face: rank and suit symbol. */
export function face(code: string): string {
  if (code === "JK") return "🃏";
  const suit = SUITS[code.slice(-1)];
  return suit ? code.slice(0, -1) + suit : code;
}

/** The card's short name as the page's language writes it ("Q♥", "Д♥"). */
export function shortName(code: string, russian: boolean): string {
  if (code === "JK" || !SUITS[code.slice(-1)]) return face(code);
  const rank = code.slice(0, -1);
  return (russian ? RU_FACES[rank] ?? rank : rank) + SUITS[code.slice(-1)];
}

/** A text with its card codes ("KH") as faces ("K♥", "К♥"). */
export function faces(text: string, russian: boolean): string {
  return text.replace(/\b(10|[2-9JQKA])([SHDC])\b/g, (c) => shortName(c, russian));
}

/** The card's spoken name ("10 of hearts", "десятка червей"). */
export function spoken(code: string): string {
  return cardName(code);
}

/** "red" for hearts and diamonds, else "black". */
export function colour(code: string): string {
  return /[HD]$/.test(code) ? "red" : "black";
}

/** A suit enum as its symbol ("" when unspecified). */
export function suitSymbol(suit: Suit): string {
  const letter = Suit[suit]?.replace("SUIT_", "") ?? "";
  return SUITS[letter] ?? "";
}

/** The inside of a drawn card: the rank and suit in two corners, the suit large in the middle
 * (decorative: the element carrying it has the card's name as its label). */
export function faceParts(code: string, russian: boolean): HTMLElement[] {
  const short = shortName(code, russian);
  const suit = SUITS[code.slice(-1)] ?? "";
  return [
    h("span", { class: "corner tl", "aria-hidden": "true" }, short),
    h("span", { class: "pip", "aria-hidden": "true" }, code === "JK" ? "🃏" : suit),
    h("span", { class: "corner br", "aria-hidden": "true" }, short),
  ];
}
