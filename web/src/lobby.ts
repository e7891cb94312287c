// The lobby: the matches this browser holds a seat in, the tenant's open matches to join
// (ListMatches, paged), a match id or join link to open, and the form that creates a match
// (game, seats, options) and takes its first seat.

import { auth, kozyr, refusal, refusalText, remember, seatIn, seats } from "./api";
import { TIME_CONTROLS } from "./clock";
import { h, mount } from "./dom";
import { MatchStatus, type GameInfo, type MatchSummary, type OptionSpec } from "./gen/kozyr/v1/kozyr_pb";

// Open matches per page of the lobby's list: a phone screen shows about this many rows.
const PAGE = 10;

// The server's seat bots (SeatRequest.bot): the server plays such a seat as an ordinary one.
const BOTS: [string, string][] = [
  ["heuristic", "bot: heuristic"], ["random", "bot: random"], ["ismcts:iters=200", "bot: ISMCTS (200 iterations)"],
];

function optionInput(game: string, o: OptionSpec): HTMLElement {
  const id = `opt-${game}-${o.name}`;
  const common = { id, name: o.name, "data-option": o.name };
  let input: HTMLElement;
  if (o.kind === "bool") {
    input = h("input", { ...common, type: "checkbox", checked: o.defaultValue === "true" });
  } else if (o.choices.length) {
    input = h("select", common, (o.defaultValue ? [] : [h("option", { value: "" }, "(default)")]).concat(
      o.choices.map((c) => h("option", { value: c, selected: c === o.defaultValue }, c))));
  } else {
    input = h("input", { ...common, type: o.kind === "int" ? "number" : "text", value: o.defaultValue,
      min: o.minimum, placeholder: o.defaultValue ? undefined : "(derived)" });
  }
  return h("div", { class: "field" }, h("label", { for: id, title: o.help }, o.name), input,
    h("small", {}, o.help));
}

function valueOf(el: Element): string {
  if (el instanceof HTMLInputElement) return el.type === "checkbox" ? String(el.checked) : el.value.trim();
  if (el instanceof HTMLSelectElement) return el.value;
  return "";
}

export class Lobby {
  private games: GameInfo[] = [];
  private message = "";
  private open: MatchSummary[] = [];
  // The page tokens of the open-match pages shown so far (the first page's is ""): Back pops.
  private pages: string[] = [""];
  private nextPage = "";
  private joinName = "";

  constructor(private readonly root: HTMLElement) {}

  /** Load the games and draw the lobby. */
  async start(): Promise<void> {
    try {
      this.games = (await kozyr.listGames({})).games;
    } catch (e) {
      this.message = refusalText(refusal(e));
    }
    await this.openMatches(this.pages[this.pages.length - 1]);
    void this.statuses();
  }

  /** Load one page of the open matches (ListMatches open_seats) and redraw. */
  private async openMatches(token: string): Promise<void> {
    try {
      const got = await kozyr.listMatches({ openSeats: true, status: MatchStatus.WAITING, pageSize: PAGE, pageToken: token });
      this.open = got.matches;
      this.nextPage = got.nextPageToken;
    } catch (e) {
      this.message = refusalText(refusal(e));
    }
    this.render();
  }

  private async page(step: 1 | -1): Promise<void> {
    if (step === 1 && this.nextPage) this.pages.push(this.nextPage);
    else if (step === -1 && this.pages.length > 1) this.pages.pop();
    await this.openMatches(this.pages[this.pages.length - 1]);
  }

  /** Take the next open seat of a listed match under the lobby's name, then open its table. */
  private async join(m: MatchSummary): Promise<void> {
    const name = this.joinName.trim();
    if (!name) {
      this.message = "Type your name before joining.";
      this.render();
      return;
    }
    try {
      const joined = await kozyr.joinMatch({ matchId: m.matchId, name });
      remember({ matchId: m.matchId, game: m.game, seat: joined.seat, name, token: joined.token });
      location.hash = `#/m/${m.matchId}`;
    } catch (e) {
      this.message = refusalText(refusal(e));
      await this.openMatches(this.pages[this.pages.length - 1]);
    }
  }

  private openList(): HTMLElement {
    const name = h("input", { name: "join-name", maxlength: 32, value: this.joinName, placeholder: "your name",
      "aria-label": "your name to join", oninput: () => { this.joinName = name.value; } });
    const title = (g: string) => this.games.find((x) => x.name === g)?.title ?? g;
    const row = (m: MatchSummary) => h("li", { "data-open-match": m.matchId },
      `${title(m.game)} · ${m.names.filter((n) => n).join(", ") || "nobody yet"} · `,
      `${m.openSeats.length} open seat${m.openSeats.length === 1 ? "" : "s"} `,
      seatIn(m.matchId)
        ? h("a", { href: `#/m/${m.matchId}` }, "your table")
        : h("button", { type: "button", onclick: () => void this.join(m) }, "Join"),
      " ", h("a", { href: `#/m/${m.matchId}`, class: "small" }, "watch"));
    return h("section", { class: "open-matches", "aria-label": "open matches" }, h("h2", {}, "Open matches"),
      h("div", { class: "field" }, h("label", {}, "your name"), name),
      this.open.length ? h("ul", {}, this.open.map(row)) : h("p", {}, "No match is waiting for players."),
      h("p", { class: "paging" },
        h("button", { type: "button", disabled: this.pages.length <= 1, onclick: () => void this.page(-1) }, "Newer"),
        ` page ${this.pages.length} `,
        h("button", { type: "button", disabled: !this.nextPage, onclick: () => void this.page(1) }, "Older"),
        " ", h("button", { type: "button", onclick: () => void this.openMatches(this.pages[this.pages.length - 1]) }, "Refresh")));
  }

  stop(): void {}

  private async statuses(): Promise<void> {
    for (const s of seats().slice(0, 12)) {
      try {
        const v = (await kozyr.getMatch({ matchId: s.matchId }, auth(s.token))).view;
        const el = this.root.querySelector(`[data-match="${s.matchId}"] .state`);
        if (el && v) el.textContent = MatchStatus[v.status].toLowerCase() + (v.toAct === s.seat ? " · your turn" : "");
      } catch {
        // a match this browser remembers may be gone from a test server: leave it as it is
      }
    }
  }

  private render(): void {
    const open = h("input", { name: "match", "aria-label": "match id or join link", placeholder: "match id or join link" });
    mount(this.root,
      h("section", { class: "mine" }, h("h2", {}, "Your matches"),
        seats().length ? h("ul", {}, seats().map((s) => h("li", { "data-match": s.matchId },
          h("a", { href: `#/m/${s.matchId}` }, `${s.game} · ${s.name} (seat ${s.seat})`), " ",
          h("span", { class: "state" }, ""), " ",
          h("a", { href: `#/replay/${s.matchId}`, class: "small" }, "replay")))) : h("p", {}, "None yet.")),
      this.openList(),
      h("form", { class: "open-match", onsubmit: (e: Event) => {
        e.preventDefault();
        const id = open.value.trim().split("/").pop() ?? "";
        if (id) location.hash = `#/m/${id}`;
      } }, h("h2", {}, "Join or watch"), open, h("button", { type: "submit" }, "Open")),
      h("section", { class: "create" }, h("h2", {}, "New match"), this.games.map((g) => this.form(g))),
      h("p", {}, h("a", { href: "#/replay" }, "Open an exported replay file")),
      h("p", { class: "message", role: "alert", "data-testid": "message" }, this.message),
    );
  }

  private form(g: GameInfo): HTMLElement {
    const count = h("input", { type: "number", name: "players", min: g.minPlayers, max: g.maxPlayers,
      value: g.minPlayers, "aria-label": `${g.title} players` });
    const name = h("input", { name: "name", value: "me", maxlength: 32, "aria-label": "your name" });
    const seatsBox = h("div", { class: "seats" });
    const drawSeats = () => mount(seatsBox, Array.from({ length: Math.max(0, Number(count.value) - 1) }, (_, i) =>
      h("div", { class: "field" }, h("label", {}, `seat ${i + 1}`),
        h("select", { "data-seat": i + 1, "aria-label": `seat ${i + 1}` },
          BOTS.map(([spec, label]) => h("option", { value: spec }, label)),
          h("option", { value: "open" }, "open seat (join link)")))));
    // Only the presets whose kind the game offers (GameInfo.time_controls, R-8).
    const clock = h("select", { name: "clock", "data-clock-preset": "", "aria-label": `${g.title} clock` },
      TIME_CONTROLS.filter(([key, , t]) => key === "none" || g.timeControls.includes(t.kind))
        .map(([key, label]) => h("option", { value: key }, label)));
    count.addEventListener("input", drawSeats);
    drawSeats();
    const form: HTMLFormElement = h("form", { class: "game", "data-game": g.name, onsubmit: (e: Event) => {
      e.preventDefault();
      void this.create(g, form, name.value.trim() || "me", Number(count.value));
    } },
    h("h3", {}, g.title, h("small", {}, ` ${g.minPlayers}–${g.maxPlayers} players · rules ${g.rulesVersion}`)),
    h("div", { class: "field" }, h("label", {}, "your name"), name),
    h("div", { class: "field" }, h("label", {}, "players"), count),
    seatsBox,
    h("div", { class: "field" }, h("label", {}, "clock"), clock),
    h("details", {}, h("summary", {}, "Options"), g.options.map((o) => optionInput(g.name, o))),
    h("button", { type: "submit" }, `Create a ${g.title} match`));
    return form;
  }

  private async create(g: GameInfo, form: HTMLFormElement, me: string, players: number): Promise<void> {
    const options: Record<string, string> = {};
    for (const o of g.options) {
      const el = form.querySelector(`[data-option="${o.name}"]`);
      const value = el ? valueOf(el) : "";
      if (value !== "" && value !== o.defaultValue) options[o.name] = value;
    }
    const seatRequests: { name: string; bot?: string }[] = [{ name: me }];
    for (let i = 1; i < players; i++) {
      const kind = form.querySelector<HTMLSelectElement>(`[data-seat="${i}"]`)?.value ?? "open";
      seatRequests.push(kind === "open" ? { name: "" } : { name: "", bot: kind });
    }
    try {
      const preset = form.querySelector<HTMLSelectElement>("[data-clock-preset]")?.value ?? "none";
      const timeControl = TIME_CONTROLS.find(([key]) => key === preset && key !== "none")?.[2];
      const made = await kozyr.createMatch({ game: g.name, options, seats: seatRequests, timeControl,
        requestId: crypto.randomUUID() });
      for (const t of made.tokens) {
        if (t.seat === 0) remember({ matchId: made.matchId, game: g.name, seat: 0, name: me, token: t.token });
      }
      location.hash = `#/m/${made.matchId}`;
    } catch (e) {
      this.message = refusalText(refusal(e));
      this.render();
    }
  }
}
