// One match at one table: the view from GetMatch, then every update from WatchMatch (resumed
// from the last version after a drop or a reload), the legal moves of the seat this browser
// holds, and the moves it plays. Nothing here knows a card the server did not send. A watch
// page (#/watch/<id>) is the same table as a spectator: it never sends a seat's token.

import { create } from "@bufbuild/protobuf";
import { auth, commandId, contribution, createWithSeat, keepReceipt, keepTreeHead, kozyr, lastReceipt, openSeatWait, refusal, remember, seatIn, shortFingerprint, type KeptTreeHead, type Refusal, type Seat } from "./api";
import { colour, faceParts, faces } from "./cards";
import { deadlineLine, knownEnding, scoresText, seatClock, terminationText, tick } from "./clock";
import { h, mount } from "./dom";
import { EndReason, MatchStatus, MoveSchema, TimeControlKind, type Event as MatchEvent, type MatchView, type Move } from "./gen/kozyr/v1/kozyr_pb";
import { cardName, gameTitle, lang, reasonText, ruleName, t } from "./i18n";
import { eventText } from "./moves";
import { back, board, handOf, inWords, nameOf, seatFacts } from "./panels";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MAX_BACKS = 8;  // an opponent's hand drawn as at most this many backs, with its count

/** The card a move plays, if it plays one. */
function cardOf(move: Move): string | undefined {
  const g = move.game;
  if (g.case === "dix" || g.case === "sixDozens") return g.value.action.value?.card;
  if (g.case === "durakDice") {
    const a = g.value.action;
    if (a.case === "attack" || a.case === "beat") return a.value.card;
  }
  return undefined;
}

function durakAction(move: Move): string | undefined {
  return move.game.case === "durakDice" ? move.game.value.action.case : undefined;
}

/** The move a refused card would be (sent so that the server says which rule refuses it). */
function tryCard(view: MatchView, seat: number, code: string): Move {
  const play = { card: code };
  switch (view.table.case) {
    case "dix": return create(MoveSchema, { game: { case: "dix", value: { action: { case: "play", value: play } } } });
    case "sixDozens": return create(MoveSchema, { game: { case: "sixDozens", value: { action: { case: "play", value: play } } } });
    default: {
      const beat = view.table.case === "durakDice" && view.table.value.defender === seat;
      return create(MoveSchema, { game: { case: "durakDice", value: { action: beat ? { case: "beat", value: play } : { case: "attack", value: play } } } });
    }
  }
}

/** A refusal in words, in the page's language: the rule by ID and name and the reason from the
 * catalogue, with the ErrorInfo code; the server's (English) message only when neither is known. */
export function explain(r: Refusal): string {
  const words = [r.rule ? ruleName(r.rule) : "", reasonText(r.reason)].filter(Boolean).join(": ");
  const head = `${words}${words ? " " : ""}(${r.reason || r.code})`;
  const fallback = !r.rule && !reasonText(r.reason) && r.message ? `: ${faces(r.message, lang() === "ru")}` : "";
  return `${t("table.refused", { why: head })}${fallback}`;
}

export class Table {
  private view?: MatchView;
  private legal: Move[] = [];
  private seat?: Seat;
  private message = "";
  private rule = "";
  private log: string[] = [];
  private logged = new Set<bigint>();  // a move's events come in its answer and in the watch
  private dropped = false;
  // R-7's abort window, as far as this page saw it: the seats seen deciding (a reload starts
  // empty and leaves the last word to the server's TOO_LATE_TO_ABORT).
  private decided = new Set<number>();
  private tooLate = false;
  private confirming = false;
  private onTable = new Set<string>();  // the centre's cards at the last draw (new ones move in)
  private timer?: ReturnType<typeof setInterval>;
  private treeHead?: KeptTreeHead;  // the log's head asked for once the match ended
  private headAsked = false;  // the end comes from the watch and from our own last move: ask once
  private readonly abort = new AbortController();
  private readonly onKey = (e: KeyboardEvent) => this.key(e);

  constructor(private readonly root: HTMLElement, private readonly matchId: string, private readonly watching = false) {}

  /** Load the match and follow it until the page leaves it. */
  async start(): Promise<void> {
    this.seat = this.watching ? undefined : seatIn(this.matchId);
    document.addEventListener("keydown", this.onKey);
    this.timer = setInterval(() => tick(this.root, this.view, Date.now()), 250);
    try {
      const got = await kozyr.getMatch({ matchId: this.matchId }, auth(this.seat?.token));
      await this.apply(got.view);
    } catch (e) {
      this.refused(refusal(e));
      return;
    }
    void this.follow();
  }

  /** Stop following (the page went elsewhere). */
  stop(): void {
    this.abort.abort();
    clearInterval(this.timer);
    document.removeEventListener("keydown", this.onKey);
  }

  private async follow(): Promise<void> {
    let backoff = 200;
    for (let round = 0; !this.abort.signal.aborted; round++) {
      try {
        const from = this.view?.version ?? 0n;
        const stream = kozyr.watchMatch({ matchId: this.matchId, fromVersion: from },
          auth(this.seat?.token, this.abort.signal));
        for await (const update of stream) {
          this.dropped = false;
          backoff = 200;
          this.note(update.version, update.events, update.view);
          if (this.seat) keepReceipt(update.receipt);
          await this.apply(update.view);
        }
        if (this.view?.status === MatchStatus.FINISHED) break;
      } catch {
        if (this.abort.signal.aborted) break;
      }
      this.dropped = true;
      this.render();
      await sleep(backoff);
      backoff = Math.min(backoff * 2, 3000);
    }
  }

  private note(version: bigint, events: readonly MatchEvent[], view: MatchView | undefined): void {
    if (this.logged.has(version)) return;
    this.logged.add(version);
    const names = view ?? this.view;
    if (!names) return;
    for (const e of events) {
      const text = eventText(names, e);
      if (text) this.log = [text, ...this.log].slice(0, 12);
    }
  }

  private async apply(view: MatchView | undefined): Promise<void> {
    if (!view || (this.view && view.version < this.view.version)) return;
    const before = this.view;
    if (before?.status === MatchStatus.PLAYING && before.toAct !== undefined && view.version === before.version + 1n) {
      this.decided.add(before.toAct);
    }
    this.view = view;
    this.legal = [];
    if (this.seat && view.status === MatchStatus.FINISHED && !this.headAsked) void this.loggedHead();
    this.render();
    if (this.seat && view.status === MatchStatus.PLAYING && view.toAct === this.seat.seat) {
      try {
        const legal = await kozyr.listLegalMoves({ matchId: this.matchId }, auth(this.seat.token));
        if (legal.version === this.view.version) this.legal = legal.moves;
      } catch (e) {
        this.refused(refusal(e));
        return;
      }
      this.render();
    }
  }

  private refused(r: Refusal): void {
    if (r.reason === "TOO_LATE_TO_ABORT") this.tooLate = true;
    this.message = explain(r);
    this.rule = r.rule;
    this.render();
  }

  private async play(move: Move): Promise<void> {
    if (!this.seat || !this.view) return;
    this.message = "";
    this.rule = "";
    this.legal = [];  // no second move before this one is answered
    this.render();
    try {
      // No expected version: the server decides on the match as it is, so a move from a view
      // that fell behind is refused by the rule it breaks (NOT_YOUR_TURN, DUR-5, ...).
      const done = await kozyr.submitMove({ matchId: this.matchId, move, commandId: commandId() },
        auth(this.seat.token));
      this.note(done.version, done.events, done.view);
      keepReceipt(done.receipt);
      await this.apply(done.view);
    } catch (e) {
      this.refused(refusal(e));
      await this.apply(this.view);  // the same view: its legal moves again
    }
  }

  /** Resign or abort for this browser's seat (EndMatch); the update redraws the table. */
  private async end(reason: EndReason): Promise<void> {
    if (!this.seat) return;
    this.message = "";
    this.confirming = false;
    try {
      const done = await kozyr.endMatch({ matchId: this.matchId, reason, commandId: commandId() }, auth(this.seat.token));
      this.note(done.version, done.events, done.view);
      keepReceipt(done.receipt);
      await this.apply(done.view);
    } catch (e) {
      this.refused(refusal(e));
    }
  }

  /** A new match with the same game, options, clock, timeout policy and seats: this
   * browser's seat under its name (contributing after the commitment, as the lobby's matches
   * do), each bot's seat the same bot, every other person's seat open to the join link, which
   * the new table shows (an open seat waits an hour, as the lobby's do). */
  private async rematch(view: MatchView): Promise<void> {
    if (!this.seat) return;
    const mine = this.seat;
    const seats = view.players.map((p) => p.seat === mine.seat ? { name: mine.name } : p.bot ? { name: p.name, bot: p.bot } : { name: "" });
    const open = seats.some((s) => s.name === "");
    const correspondence = view.timeControl?.kind === TimeControlKind.CORRESPONDENCE;
    try {
      const matchId = await createWithSeat({ game: view.game, options: { ...view.options }, seats,
        timeControl: view.timeControl, timeoutPolicy: view.timeoutPolicy,
        expireMs: open ? openSeatWait(correspondence) : undefined }, mine.seat, mine.name);
      location.hash = `#/m/${matchId}`;
    } catch (e) {
      this.refused(refusal(e));
    }
  }

  private endControls(view: MatchView): HTMLElement | null {
    if (!this.seat || view.status === MatchStatus.FINISHED) return null;
    const mayAbort = !this.tooLate && this.decided.size < view.players.length;
    const resign = view.status !== MatchStatus.PLAYING ? null : this.confirming
      ? [h("button", { type: "button", class: "danger", "data-testid": "resign-confirm", onclick: () => void this.end(EndReason.RESIGN) }, t("table.resignYes")),
        h("button", { type: "button", onclick: () => { this.confirming = false; this.render(); } }, t("table.keepPlaying"))]
      : h("button", { type: "button", "data-testid": "resign", onclick: () => { this.confirming = true; this.render(); } }, t("table.resign"));
    return h("p", { class: "end-controls" }, resign, " ",
      mayAbort ? h("button", { type: "button", "data-testid": "abort", title: t("table.abortTitle"),
        onclick: () => void this.end(EndReason.ABORT) }, t("table.abort")) : null);
  }

  private async join(name: string): Promise<void> {
    try {
      const joined = await kozyr.joinMatch({ matchId: this.matchId, name, seedContribution: contribution() });
      this.seat = { matchId: this.matchId, game: this.view?.game ?? "", seat: joined.seat, name, token: joined.token };
      remember(this.seat);
      keepReceipt(joined.receipt);
      this.abort.abort();  // restart the watch with the seat's token
      location.hash = `#/m/${this.matchId}`;
      location.reload();
    } catch (e) {
      this.refused(refusal(e));
    }
  }

  private key(e: KeyboardEvent): void {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const playable = this.legal.filter((m) => cardOf(m) !== undefined);
    if (/^[1-9]$/.test(e.key) && playable[Number(e.key) - 1]) void this.play(playable[Number(e.key) - 1]);
    const named = { t: "take", p: "pass" }[e.key.toLowerCase()];
    const move = named && this.legal.find((m) => durakAction(m) === named);
    if (move) void this.play(move);
  }

  private status(view: MatchView): string {
    if (view.status === MatchStatus.WAITING) return t("table.waiting");
    if (view.status === MatchStatus.FINISHED) {
      const o = view.outcome;
      const who = o?.winners.map((w) => nameOf(view, w)).join(", ");
      const early = terminationText(view);
      const how = knownEnding(view) ? scoresText(view) : inWords(view, o?.reason ?? "");
      return `${t("table.finished")}${early ? ` (${early})` : ""}: ${who ? t("table.won", { who }) : ""}${how}`;
    }
    if (this.seat && view.toAct === this.seat.seat) return t("table.yourTurn");
    return t("table.toPlay", { name: nameOf(view, view.toAct) });
  }

  private render(): void {
    const view = this.view;
    if (!view) {
      mount(this.root, h("p", { class: "message", role: "alert", "data-testid": "message", "data-rule": this.rule },
        this.message || t("table.loading")));
      return;
    }
    const link = `${location.origin}/#/m/${view.matchId}`;
    const open = view.players.some((p) => !p.joined);
    const finished = view.status === MatchStatus.FINISHED;
    mount(this.root,
      h("header", { class: "match-head" },
        h("h1", {}, `${gameTitle(view.game)} · `, h("code", {}, view.matchId)),
        h("p", { class: "status", "data-testid": "status", "data-version": String(view.version), "data-state": MatchStatus[view.status].toLowerCase(), "aria-live": "polite" }, this.status(view)),
        h("p", { class: "meta" }, t("table.version", { v: view.version }), this.dropped ? t("table.reconnecting") : t("table.live"),
          view.prearranged ? t("table.prearranged") : "", this.watching || !this.seat ? ` · ${t("table.spectating")}` : ""),
        deadlineLine(view, Date.now()), this.endControls(view)),
      finished ? this.banner(view) : null,
      open && !this.watching ? h("p", { class: "join-link" }, h("label", { for: "join-link" }, t("table.joinLink")),
        h("input", { id: "join-link", readonly: true, value: link, "data-testid": "join-link" })) : null,
      open && !this.seat && !this.watching ? this.joinForm() : null,
      h("div", { class: "felt" }, this.seats(view), board(view), this.mySeat(view)),
      this.hand(view),
      h("p", { class: "message", role: "alert", "data-testid": "message", "data-rule": this.rule }, this.message),
      h("h2", { class: "log-title" }, t("table.whatHappened")),
      h("ol", { class: "log", "data-testid": "moves" }, this.log.map((line) => h("li", {}, line))),
      this.seat ? this.kept() : null,
      h("p", { class: "keys" }, t("table.keys")),
    );
    this.animate();
  }

  /** Keep the transparency log's head once the match ended (its final head is in the log). */
  private async loggedHead(): Promise<void> {
    this.headAsked = true;
    this.treeHead = await keepTreeHead();
    this.render();
  }

  /** What this browser keeps to settle a dispute: the seed commitment the server signed, to
   * compare by eye, and the last receipt, to save as a receipts file (docs/fairness.md §6). */
  private kept(): HTMLElement | null {
    const receipt = lastReceipt(this.matchId);
    if (!receipt) return null;
    const file = `data:application/jsonl;charset=utf-8,${encodeURIComponent(JSON.stringify(receipt) + "\n")}`;
    const head = this.treeHead;
    return h("p", { class: "kept", "data-testid": "kept", "data-commitment": receipt.commitment, "data-version": receipt.version },
      t("table.commitment", { fingerprint: shortFingerprint(receipt.commitment), key: receipt.key_id }), " ",
      h("a", { href: file, download: `${this.matchId}.receipts.jsonl`, "data-testid": "receipt-file" },
        t("table.saveReceipt", { v: receipt.version })),
      head ? h("span", { "data-testid": "tree-head", "data-size": head.size },
        " ", t("table.treeHead", { size: head.size, root: shortFingerprint(head.root_hash) })) : null);
  }

  /** Cards new on the table since the last draw move in (CSS; none under reduced motion). */
  private animate(): void {
    const now = new Set<string>();
    for (const el of this.root.querySelectorAll<HTMLElement>(".centre .play .card[data-code]")) {
      const code = el.dataset.code ?? "";
      now.add(code);
      if (!this.onTable.has(code)) el.classList.add("arrive");
    }
    this.onTable = now;
  }

  private banner(view: MatchView): HTMLElement {
    const o = view.outcome;
    const winners = new Set(o?.winners ?? []);
    return h("section", { class: "banner", "data-testid": "banner", "aria-labelledby": "banner-title" },
      h("h2", { id: "banner-title" }, t("table.banner")),
      // The server's sentence is English: shown only for an ending this page cannot word.
      h("p", { "data-testid": "how" }, t("table.how", { how: terminationText(view, true) || "—" }),
        o?.reason && !knownEnding(view) ? ` · ${inWords(view, o.reason)}` : ""),
      o?.scores.length ? h("table", { class: "scores" }, h("caption", {}, t("table.scores")),
        h("tbody", {}, view.players.map((p) => h("tr", { class: winners.has(p.seat) ? "winner" : "" },
          h("th", { scope: "row" }, `${winners.has(p.seat) ? "★ " : ""}${nameOf(view, p.seat)}`),
          h("td", {}, String(o.scores[p.seat] ?? "")))))) : null,
      h("p", { class: "banner-actions" },
        this.seat ? h("button", { type: "button", "data-testid": "rematch", title: t("table.rematchHint"),
          onclick: () => void this.rematch(view) }, t("table.rematch")) : null, " ",
        h("a", { href: "#/", class: "button", "data-testid": "lobby" }, t("table.back")), " ",
        h("a", { href: `#/replay/${view.matchId}`, class: "button", "data-testid": "replay-link" }, t("table.replayLink"))));
  }

  private joinForm(): HTMLElement {
    const name = h("input", { id: "take-seat-name", name: "name", required: true, maxlength: 32, placeholder: t("lobby.yourName") });
    return h("form", { class: "join", onsubmit: (e: Event) => { e.preventDefault(); void this.join(name.value.trim()); } },
      h("label", { for: "take-seat-name" }, t("lobby.yourName")), " ", name, " ", h("button", { type: "submit" }, t("table.takeSeat")));
  }

  /** One seat's plate: name, turn marker, clock, cards (as backs for another's), score. */
  private plate(view: MatchView, seat: number, backs: boolean): HTMLElement {
    const p = view.players.find((x) => x.seat === seat);
    const facts = seatFacts(view, seat);
    const mine = this.seat?.seat === seat;
    const turn = view.status === MatchStatus.PLAYING && view.toAct === seat;
    const name = p?.joined ? nameOf(view, seat) : t("table.openSeat");
    const shown = Math.min(facts.held, MAX_BACKS);
    return h("li", { class: `player seat${turn ? " to-act" : ""}${mine ? " me" : ""}`, "data-seat": seat,
      "aria-current": turn ? "true" : undefined },
    h("span", { class: "name" }, turn ? h("span", { class: "turn", "aria-hidden": "true" }, "▶ ") : null, name, mine ? t("table.you") : ""),
    seatClock(view, seat, Date.now()),
    backs && view.table.case ? h("span", { class: "backs", role: "img", "aria-label": t("table.backs", { name, n: facts.held }) },
      Array.from({ length: shown }, () => back("mini"))) : null,
    h("span", { class: "held", "data-testid": "held" }, view.table.case ? t("table.held", { n: facts.held }) : ""),
    h("span", { class: "score" }, facts.score),
    view.outcome?.scores.length ? h("span", { class: "final" }, t("table.final", { n: view.outcome.scores[seat] ?? 0 })) : null);
  }

  /** The other seats around the table, clockwise from this browser's left. */
  private seats(view: MatchView): HTMLElement {
    const n = view.players.length;
    const me = this.seat?.seat;
    const order = Array.from({ length: n }, (_, k) => ((me ?? -1) + 1 + k + n) % n).filter((s) => s !== me);
    return h("ul", { class: `players seats around-${order.length}` }, order.map((s) => this.plate(view, s, true)));
  }

  private mySeat(view: MatchView): HTMLElement | null {
    if (this.seat === undefined) return null;
    return h("ul", { class: "players mine" }, this.plate(view, this.seat.seat, false));
  }

  private hand(view: MatchView): HTMLElement {
    const byCard = new Map<string, Move>();
    for (const m of this.legal) {
      const c = cardOf(m);
      if (c !== undefined && !byCard.has(c)) byCard.set(c, m);
    }
    const seat = this.seat;
    const playing = seat !== undefined && view.status === MatchStatus.PLAYING;
    const russian = lang() === "ru";
    const buttons = handOf(view).map((code) => {
      const move = byCard.get(code);
      // A card the rules refuse stays dimmed but can be clicked: the server says which rule.
      return h("button", {
        type: "button", class: `card ${colour(code)}${move ? " legal" : " refused"}`, "data-card": code,
        "aria-disabled": move ? undefined : "true",
        "aria-label": `${cardName(code)}${move ? "" : t("table.notPlayable")}`,
        onclick: () => {
          if (move) void this.play(move);
          else if (playing && seat) void this.play(tryCard(view, seat.seat, code));
        },
      }, faceParts(code, russian));
    });
    const extra = this.legal.filter((m) => cardOf(m) === undefined).map((m) =>
      h("button", { type: "button", class: "action", "data-action": durakAction(m) ?? "", onclick: () => void this.play(create(MoveSchema, m)) },
        durakAction(m) === "take" ? t("table.take") : t("table.pass")));
    return h("section", { class: "hand", "aria-labelledby": "hand-title" },
      h("h2", { id: "hand-title" }, seat ? t("table.hand", { name: seat.name }) : t("table.spectating")),
      h("div", { class: "cards", "data-testid": "hand" }, buttons), extra.length ? h("div", { class: "actions" }, extra) : null);
  }
}
