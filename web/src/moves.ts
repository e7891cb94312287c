// What happened, in words: the match's events as a move list with the players' names and the
// cards' faces (♥), in the page's language, worded from each event's typed fields. An event
// this list does not know keeps the server's own (English) text with its seat numbers and card
// codes put in the same terms.

import { duration } from "./clock";
import type { Event, MatchTerms, MatchView } from "./gen/kozyr/v1/kozyr_pb";
import { gameTitle, t } from "./i18n";
import { bySeat, faceText, inWords, nameOf, settledText, sixWonText } from "./panels";

const cardText = faceText;

/** The time control of a match's terms in words ("30 s a decision"). */
function clockText(terms: MatchTerms): string {
  switch (terms.clock) {
    case "NONE": return t("clock.none");
    case "DECISION": return t("clock.perDecision", { t: duration(Number(terms.limitMs)) });
    case "FISCHER": return t("clock.fischerText", { bank: duration(Number(terms.bankMs)), inc: Number(terms.incrementMs) / 1000 });
    case "CORRESPONDENCE": return t("clock.days", { n: Math.round(Number(terms.limitMs) / 86_400_000) });
    default: return terms.clock;
  }
}

/** One event as a line of the move list ("" for one not worth a line). */
export function eventText(view: MatchView, e: Event): string {
  const who = (seat: number) => nameOf(view, seat);
  const names = (seats: readonly number[]) => seats.map(who).join(", ");
  const ev = e.event;
  switch (ev.case) {
    case "matchCreated": return t("move.created", { game: gameTitle(ev.value.game), n: ev.value.seats.length });
    case "seatJoined": return t("move.joined", { name: who(ev.value.seat), n: ev.value.seat });
    case "seedContributed": return t("move.contributed", { name: who(ev.value.seat) });
    case "contributionsClosed":
      return t("move.windowClosed") + (ev.value.seats.length ? t("move.gaveNone", { names: names(ev.value.seats) }) : "");
    case "seedRevealed": return t("move.seedRevealed");
    case "matchTerms": return t("move.terms", { clock: clockText(ev.value) });
    case "matchStarted":
      return t("move.started", { game: gameTitle(view.game), players: names(ev.value.players.map((_, seat) => seat)) }) +
        (ev.value.prearranged ? t("table.prearranged") : "");
    case "firstDealerChosen": return t("move.dealsFirst", { name: who(ev.value.seat) }) + (ev.value.byLot ? t("move.byLot") : "");
    case "dealt":
      return t(view.game === "durak-dice" ? "move.dealtGame" : "move.dealt", { n: ev.value.number, name: who(ev.value.dealer) });
    case "resigned": return t("move.resigned", { name: who(ev.value.seat) });
    case "aborted": return t("move.aborted", { name: who(ev.value.seat) });
    case "timedOut": return t("move.timedOut", { name: who(ev.value.seat) });
    case "abandoned": return t("move.abandoned", { name: who(ev.value.seat), claimant: who(ev.value.claimant) });
    case "expired": return t("move.expired");
    case "dixCardPlayed":
    case "sixDozensCardPlayed":
      return t("move.plays", { name: who(ev.value.seat), card: cardText(ev.value.card) });
    case "dixTrickWon": return t("move.wins", { name: who(ev.value.seat), n: ev.value.points });
    case "dixTurnedUp": return t("move.turnedUp", { card: cardText(ev.value.card) });
    case "dixHandEnded": return t("move.handEnded", { n: ev.value.handNumber, totals: bySeat(view, ev.value.totals) });
    case "dixMatchEnded": return t("move.wonMatch", { name: who(ev.value.winner), totals: bySeat(view, ev.value.totals) });
    case "sixDozensBankTurned": return t("move.bankTurned", { card: cardText(ev.value.bank) });
    case "sixDozensPlayerOut": return t("move.outPlace", { name: who(ev.value.seat), n: ev.value.place });
    case "durakDicePlayerOut": return t("move.out", { name: who(ev.value.seat) });
    case "sixDozensTurnSkipped": return t("move.skipped", { name: who(ev.value.seat) });
    case "sixDozensPassed":
    case "durakDicePassed":
      return t("move.passes", { name: who(ev.value.seat) });
    case "sixDozensBankCovered": return t("move.covered", { card: cardText(ev.value.card) });
    case "sixDozensHandSettled":
      return settledText(view, ev.value.handNumber, ev.value.paid, ev.value.received, ev.value.kitty);
    case "sixDozensMatchEnded":
      return sixWonText(view, ev.value.winners, Math.max(...ev.value.capitals));
    case "durakDiceTrumpTurned": return t("move.turnedUp", { card: cardText(ev.value.card) });
    case "durakDiceBoutStarted":
      return t("move.bout", { n: ev.value.bout, a: who(ev.value.attacker), d: who(ev.value.defender) });
    case "durakDiceAttacked": return t("move.attacks", { name: who(ev.value.seat), card: cardText(ev.value.card) });
    case "durakDiceThrownIn": return t("move.throws", { name: who(ev.value.seat), card: cardText(ev.value.card) });
    case "durakDiceBeaten":
      return t("move.beats", { name: who(ev.value.seat), attack: cardText(ev.value.attack), card: cardText(ev.value.card) });
    case "durakDiceTook": return t("move.took", { name: who(ev.value.seat), n: ev.value.cards.length });
    case "durakDiceDiscarded": return t("move.discarded");
    case "durakDiceGameEnded": {
      const g = ev.value;
      if (g.fool !== undefined) return t("move.fool", { n: g.game, name: who(g.fool) });
      return t(g.reason === "MAX_BOUTS" ? "move.drawLimit" : "move.drawEmpty", { n: g.game });
    }
    case "durakDiceMatchEnded": return t("move.durakOver", { who: names(ev.value.winners) });
    default:
      return inWords(view, e.text);
  }
}
