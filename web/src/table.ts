// One match at one table: the view from GetMatch, then every update from WatchMatch (resumed
// from the last version after a drop or a reload), the legal moves of the seat this browser
// holds, and the moves it plays. Nothing here knows a card the server did not send.

import { create } from "@bufbuild/protobuf";
import { auth, commandId, kozyr, refusal, refusalText, remember, seatIn, type Seat } from "./api";
import { colour, face, spoken } from "./cards";
import { deadlineLine, seatClock, terminationText, tick } from "./clock";
import { h, mount } from "./dom";
import { EndReason, MatchStatus, MoveSchema, type MatchView, type Move } from "./gen/kozyr/v1/kozyr_pb";
import { board, handOf, nameOf, seatFacts } from "./panels";

const TITLES: Record<string, string> = { dix: "Dix", "six-dozens": "Six Dozens", "durak-dice": "Durak with dice" };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

export class Table {
  private view?: MatchView;
  private legal: Move[] = [];
  private seat?: Seat;
  private message = "";
  private log: string[] = [];
  private logged = new Set<bigint>();  // a move's events come in its answer and in the watch
  private dropped = false;
  // R-7's abort window, as far as this page saw it: the seats seen deciding (a reload starts
  // empty and leaves the last word to the server's TOO_LATE_TO_ABORT).
  private decided = new Set<number>();
  private tooLate = false;
  private confirming = false;
  private timer?: ReturnType<typeof setInterval>;
  private readonly abort = new AbortController();
  private readonly onKey = (e: KeyboardEvent) => this.key(e);

  constructor(private readonly root: HTMLElement, private readonly matchId: string) {}

  /** Load the match and follow it until the page leaves it. */
  async start(): Promise<void> {
    this.seat = seatIn(this.matchId);
    document.addEventListener("keydown", this.onKey);
    this.timer = setInterval(() => tick(this.root, this.view, Date.now()), 250);
    try {
      const got = await kozyr.getMatch({ matchId: this.matchId }, auth(this.seat?.token));
      await this.apply(got.view);
    } catch (e) {
      this.message = refusalText(refusal(e));
      this.render();
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
          this.note(update.version, update.events);
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

  private note(version: bigint, events: readonly { text: string }[]): void {
    if (this.logged.has(version)) return;
    this.logged.add(version);
    for (const e of events) if (e.text) this.log = [e.text, ...this.log].slice(0, 8);
  }

  private async apply(view: MatchView | undefined): Promise<void> {
    if (!view || (this.view && view.version < this.view.version)) return;
    const before = this.view;
    if (before?.status === MatchStatus.PLAYING && before.toAct !== undefined && view.version === before.version + 1n) {
      this.decided.add(before.toAct);
    }
    this.view = view;
    this.legal = [];
    this.render();
    if (this.seat && view.status === MatchStatus.PLAYING && view.toAct === this.seat.seat) {
      try {
        const legal = await kozyr.listLegalMoves({ matchId: this.matchId }, auth(this.seat.token));
        if (legal.version === this.view.version) this.legal = legal.moves;
      } catch (e) {
        this.message = refusalText(refusal(e));
      }
      this.render();
    }
  }

  private async play(move: Move): Promise<void> {
    if (!this.seat || !this.view) return;
    this.message = "";
    try {
      // No expected version: the server decides on the match as it is, so a move from a view
      // that fell behind is refused by the rule it breaks (NOT_YOUR_TURN, DUR-5, ...).
      const done = await kozyr.submitMove({ matchId: this.matchId, move, commandId: commandId() },
        auth(this.seat.token));
      this.note(done.version, done.events);
      await this.apply(done.view);
    } catch (e) {
      this.message = refusalText(refusal(e));
      this.render();
    }
  }

  /** Resign or abort for this browser's seat (EndMatch); the update redraws the table. */
  private async end(reason: EndReason): Promise<void> {
    if (!this.seat) return;
    this.message = "";
    this.confirming = false;
    try {
      const done = await kozyr.endMatch({ matchId: this.matchId, reason, commandId: commandId() }, auth(this.seat.token));
      this.note(done.version, done.events);
      await this.apply(done.view);
    } catch (e) {
      const r = refusal(e);
      if (r.reason === "TOO_LATE_TO_ABORT") this.tooLate = true;
      this.message = refusalText(r);
      this.render();
    }
  }

  private endControls(view: MatchView): HTMLElement | null {
    if (!this.seat || view.status === MatchStatus.FINISHED) return null;
    const mayAbort = !this.tooLate && this.decided.size < view.players.length;
    const resign = view.status !== MatchStatus.PLAYING ? null : this.confirming
      ? [h("button", { type: "button", class: "danger", "data-testid": "resign-confirm", onclick: () => void this.end(EndReason.RESIGN) }, "Yes, resign"),
        h("button", { type: "button", onclick: () => { this.confirming = false; this.render(); } }, "Keep playing")]
      : h("button", { type: "button", "data-testid": "resign", onclick: () => { this.confirming = true; this.render(); } }, "Resign…");
    return h("p", { class: "end-controls" }, resign, " ",
      mayAbort ? h("button", { type: "button", "data-testid": "abort", title: "call the match off before every seat has decided (no result)",
        onclick: () => void this.end(EndReason.ABORT) }, "Abort") : null);
  }

  private async join(name: string): Promise<void> {
    try {
      const joined = await kozyr.joinMatch({ matchId: this.matchId, name });
      this.seat = { matchId: this.matchId, game: this.view?.game ?? "", seat: joined.seat, name, token: joined.token };
      remember(this.seat);
      const got = await kozyr.getMatch({ matchId: this.matchId }, auth(this.seat.token));
      this.view = undefined;
      await this.apply(got.view);
      this.abort.abort();  // restart the watch with the seat's token
      location.reload();
    } catch (e) {
      this.message = refusalText(refusal(e));
      this.render();
    }
  }

  private key(e: KeyboardEvent): void {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    const playable = this.legal.filter((m) => cardOf(m) !== undefined);
    if (/^[1-9]$/.test(e.key) && playable[Number(e.key) - 1]) void this.play(playable[Number(e.key) - 1]);
    const named = { t: "take", p: "pass" }[e.key.toLowerCase()];
    const move = named && this.legal.find((m) => durakAction(m) === named);
    if (move) void this.play(move);
  }

  private status(view: MatchView): string {
    if (view.status === MatchStatus.WAITING) return "Waiting for players to join";
    if (view.status === MatchStatus.FINISHED) {
      const o = view.outcome;
      const who = o?.winners.map((w) => nameOf(view, w)).join(", ");
      const early = terminationText(view);
      return `Finished${early ? ` (${early})` : ""}: ${who ? `${who} won. ` : ""}${o?.reason ?? ""}`;
    }
    if (this.seat && view.toAct === this.seat.seat) return "Your turn";
    return `${nameOf(view, view.toAct)} to play`;
  }

  private render(): void {
    const view = this.view;
    if (!view) {
      mount(this.root, h("p", { class: "message", role: "alert" }, this.message || "Loading…"));
      return;
    }
    const link = `${location.origin}/#/m/${view.matchId}`;
    const open = view.players.some((p) => !p.joined);
    mount(this.root,
      h("header", { class: "match-head" },
        h("h2", {}, `${TITLES[view.game] ?? view.game} · `, h("code", {}, view.matchId)),
        h("p", { class: "status", "data-testid": "status", "data-version": String(view.version), "aria-live": "polite" }, this.status(view)),
        h("p", { class: "meta" }, `version ${view.version}`, this.dropped ? " · reconnecting…" : " · live",
          view.prearranged ? " · prearranged deal" : ""),
        deadlineLine(view), this.endControls(view)),
      open ? h("p", { class: "join-link" }, "Join link: ",
        h("input", { readonly: true, value: link, "aria-label": "join link", "data-testid": "join-link" })) : null,
      open && !this.seat ? this.joinForm() : null,
      this.players(view),
      board(view),
      this.hand(view),
      h("p", { class: "message", role: "alert", "data-testid": "message" }, this.message),
      h("ol", { class: "log", "aria-label": "what happened" }, this.log.map((t) => h("li", {}, t))),
      view.status === MatchStatus.FINISHED
        ? h("p", {}, h("a", { href: `#/replay/${view.matchId}`, "data-testid": "replay-link" }, "Replay and verify this match"))
        : null,
      h("p", { class: "keys" }, "Keys: Tab to a card and Enter, or 1–9 for the n-th playable card; T take, P pass (Durak)."),
    );
  }

  private joinForm(): HTMLElement {
    const name = h("input", { name: "name", required: true, maxlength: 32, "aria-label": "your name", placeholder: "your name" });
    return h("form", { class: "join", onsubmit: (e: Event) => { e.preventDefault(); void this.join(name.value.trim()); } },
      name, h("button", { type: "submit" }, "Take a seat"));
  }

  private players(view: MatchView): HTMLElement {
    return h("ul", { class: "players" }, view.players.map((p) => {
      const facts = seatFacts(view, p.seat);
      const mine = this.seat?.seat === p.seat;
      return h("li", { class: `player${view.toAct === p.seat ? " to-act" : ""}${mine ? " me" : ""}`, "data-seat": p.seat },
        h("span", { class: "name" }, p.joined ? p.name : "(open seat)", mine ? " (you)" : ""),
        seatClock(view, p.seat, Date.now()),
        h("span", { class: "held" }, view.table.case ? `${facts.held} cards` : ""),
        h("span", { class: "score" }, facts.score),
        view.outcome?.scores.length ? h("span", { class: "final" }, `final ${view.outcome.scores[p.seat]}`) : null);
    }));
  }

  private hand(view: MatchView): HTMLElement {
    const byCard = new Map<string, Move>();
    for (const m of this.legal) {
      const c = cardOf(m);
      if (c !== undefined && !byCard.has(c)) byCard.set(c, m);
    }
    const buttons = handOf(view).map((code) => {
      const move = byCard.get(code);
      return h("button", {
        class: `card ${colour(code)}${move ? " legal" : ""}`, "data-card": code, disabled: !move,
        "aria-label": `${spoken(code)}${move ? "" : " (not playable now)"}`,
        onclick: () => { if (move) void this.play(move); },
      }, face(code));
    });
    const extra = this.legal.filter((m) => cardOf(m) === undefined).map((m) =>
      h("button", { class: "action", "data-action": durakAction(m) ?? "", onclick: () => void this.play(create(MoveSchema, m)) },
        durakAction(m) === "take" ? "Take the table (T)" : "Pass (P)"));
    return h("section", { class: "hand", "aria-label": "your hand" },
      this.seat ? h("h3", {}, `Your hand (${this.seat.name})`) : h("h3", {}, "Spectating"),
      h("div", { class: "cards", "data-testid": "hand" }, buttons), extra.length ? h("div", { class: "actions" }, extra) : null);
  }
}
