// What happened, in words: the match's events as a move list with the players' names and the
// cards' faces (♥), in the page's language. An event this list does not word keeps the server's
// own text with its seat numbers and card codes put in the same terms.

import { shortName } from "./cards";
import type { Event, MatchView } from "./gen/kozyr/v1/kozyr_pb";
import { lang, t } from "./i18n";
import { inWords, nameOf } from "./panels";

function cardText(code: string): string {
  return shortName(code, lang() === "ru");
}

/** One event as a line of the move list ("" for one not worth a line). */
export function eventText(view: MatchView, e: Event): string {
  const who = (seat: number) => nameOf(view, seat);
  const ev = e.event;
  switch (ev.case) {
    case "dixCardPlayed":
    case "sixDozensCardPlayed":
      return t("move.plays", { name: who(ev.value.seat), card: cardText(ev.value.card) });
    case "dixTrickWon": return t("move.wins", { name: who(ev.value.seat), n: ev.value.points });
    case "dixTurnedUp": return t("move.turnedUp", { card: cardText(ev.value.card) });
    case "sixDozensBankTurned": return t("move.bankTurned", { card: cardText(ev.value.bank) });
    case "sixDozensPlayerOut":
    case "durakDicePlayerOut":
      return t("move.out", { name: who(ev.value.seat) });
    case "sixDozensTurnSkipped": return t("move.skipped", { name: who(ev.value.seat) });
    case "sixDozensPassed":
    case "durakDicePassed":
      return t("move.passes", { name: who(ev.value.seat) });
    case "sixDozensBankCovered": return t("move.covered", { card: cardText(ev.value.card) });
    case "durakDiceTrumpTurned": return t("move.turnedUp", { card: cardText(ev.value.card) });
    case "durakDiceBoutStarted":
      return t("move.bout", { n: ev.value.bout, a: who(ev.value.attacker), d: who(ev.value.defender) });
    case "durakDiceAttacked": return t("move.attacks", { name: who(ev.value.seat), card: cardText(ev.value.card) });
    case "durakDiceThrownIn": return t("move.throws", { name: who(ev.value.seat), card: cardText(ev.value.card) });
    case "durakDiceBeaten":
      return t("move.beats", { name: who(ev.value.seat), attack: cardText(ev.value.attack), card: cardText(ev.value.card) });
    case "durakDiceTook": return t("move.took", { name: who(ev.value.seat), n: ev.value.cards.length });
    case "durakDiceDiscarded": return t("move.discarded");
    default:
      return inWords(view, e.text);
  }
}
