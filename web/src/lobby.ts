// The lobby: the matches this browser holds a seat in, the tenant's open matches to join
// (ListMatches, paged), a match id or join link to open, and the form that creates a match
// (game, seats, options) and takes its first seat.

import { auth, contribution, createWithSeat, keepReceipt, kozyr, openSeatWait, refusal, remember, seatIn, seats } from "./api";
import { TIME_CONTROLS } from "./clock";
import { h, mount } from "./dom";
import { MatchStatus, type GameInfo, type MatchSummary, type OptionSpec } from "./gen/kozyr/v1/kozyr_pb";
import { choiceLabel, displayName, gameTitle, optionHelp, optionLabel, t } from "./i18n";
import { explain } from "./table";

// Open matches per page of the lobby's list: a phone screen shows about this many rows.
const PAGE = 10;

// The server's seat bots (SeatRequest.bot): the server plays such a seat as an ordinary one.
const BOTS: [string, () => string][] = [
  ["heuristic", () => t("bot.heuristic")], ["random", () => t("bot.random")], ["ismcts:iters=200", () => t("bot.ismcts")],
];

// The spectator delays offered (CreateMatchRequest.spectator_delay_ms): a broadcast table
// shown that far behind cannot be used to ghost.
const DELAYS = [0, 10, 60, 300];

function optionInput(game: string, o: OptionSpec): HTMLElement {
  const id = `opt-${game}-${o.name}`;
  const common = { id, name: o.name, "data-option": o.name };
  let input: HTMLElement;
  if (o.kind === "bool") {
    input = h("input", { ...common, type: "checkbox", checked: o.defaultValue === "true" });
  } else if (o.choices.length) {
    input = h("select", common, (o.defaultValue ? [] : [h("option", { value: "" }, t("lobby.default"))]).concat(
      o.choices.map((c) => h("option", { value: c, selected: c === o.defaultValue }, choiceLabel(game, o.name, c)))));
  } else {
    input = h("input", { ...common, type: o.kind === "int" ? "number" : "text", value: o.defaultValue,
      min: o.minimum, placeholder: o.defaultValue ? undefined : t("lobby.derived") });
  }
  const help = optionHelp(game, o.name, o.help);
  return h("div", { class: "field" }, h("label", { for: id, title: help }, optionLabel(game, o.name)), input,
    h("small", {}, help));
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
      this.message = explain(refusal(e));
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
      this.message = explain(refusal(e));
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
      this.message = t("lobby.nameFirst");
      this.render();
      return;
    }
    try {
      const joined = await kozyr.joinMatch({ matchId: m.matchId, name, seedContribution: contribution() });
      remember({ matchId: m.matchId, game: m.game, seat: joined.seat, name, token: joined.token });
      keepReceipt(joined.receipt);
      location.hash = `#/m/${m.matchId}`;
    } catch (e) {
      this.message = explain(refusal(e));
      await this.openMatches(this.pages[this.pages.length - 1]);
    }
  }

  private openList(): HTMLElement {
    const name = h("input", { id: "join-name", name: "join-name", maxlength: 32, value: this.joinName, placeholder: t("lobby.yourName"),
      oninput: () => { this.joinName = name.value; } });
    const title = gameTitle;
    const row = (m: MatchSummary) => h("li", { "data-open-match": m.matchId },
      `${title(m.game)} · ${m.names.filter((n) => n).map((n) => displayName(n)).join(", ") || t("lobby.nobody")} · `,
      `${t("lobby.openSeats", { n: m.openSeats.length })} `,
      seatIn(m.matchId)
        ? h("a", { href: `#/m/${m.matchId}` }, t("lobby.yourTable"))
        : h("button", { type: "button", onclick: () => void this.join(m) }, t("lobby.join")),
      " ", h("a", { href: `#/watch/${m.matchId}`, class: "small" }, t("lobby.watch")));
    return h("section", { class: "open-matches", "aria-labelledby": "open-title" }, h("h2", { id: "open-title" }, t("lobby.open")),
      h("div", { class: "field" }, h("label", { for: "join-name" }, t("lobby.yourNameToJoin")), name),
      this.open.length ? h("ul", {}, this.open.map(row)) : h("p", {}, t("lobby.noOpen")),
      h("p", { class: "paging" },
        h("button", { type: "button", disabled: this.pages.length <= 1, onclick: () => void this.page(-1) }, t("lobby.newer")),
        t("lobby.page", { n: this.pages.length }),
        h("button", { type: "button", disabled: !this.nextPage, onclick: () => void this.page(1) }, t("lobby.older")),
        " ", h("button", { type: "button", onclick: () => void this.openMatches(this.pages[this.pages.length - 1]) }, t("lobby.refresh"))));
  }

  stop(): void {}

  private async statuses(): Promise<void> {
    for (const s of seats().slice(0, 12)) {
      try {
        const v = (await kozyr.getMatch({ matchId: s.matchId }, auth(s.token))).view;
        const el = this.root.querySelector(`[data-match="${s.matchId}"] .state`);
        if (el && v) el.textContent = t(`status.${MatchStatus[v.status].toLowerCase()}` as "status.waiting") + (v.toAct === s.seat ? t("lobby.yourTurn") : "");
      } catch {
        // a match this browser remembers may be gone from a test server: leave it as it is
      }
    }
  }

  private render(): void {
    const open = h("input", { id: "open-id", name: "match", placeholder: t("lobby.matchOrLink") });
    mount(this.root,
      h("h1", { class: "visually-hidden" }, "Kozyr"),
      h("section", { class: "mine", "aria-labelledby": "mine-title" }, h("h2", { id: "mine-title" }, t("lobby.mine")),
        seats().length ? h("ul", {}, seats().map((s) => h("li", { "data-match": s.matchId },
          h("a", { href: `#/m/${s.matchId}` }, t("lobby.seat", { game: gameTitle(s.game), name: s.name, seat: s.seat })), " ",
          h("span", { class: "state" }, ""), " ",
          h("a", { href: `#/replay/${s.matchId}`, class: "small" }, t("lobby.replay"))))) : h("p", {}, t("lobby.none"))),
      this.openList(),
      h("form", { class: "open-match", onsubmit: (e: Event) => {
        e.preventDefault();
        const id = open.value.trim().split("/").pop() ?? "";
        if (id) location.hash = `#/m/${id}`;
      } }, h("h2", {}, h("label", { for: "open-id" }, t("lobby.joinOrWatch"))), open, " ", h("button", { type: "submit" }, t("lobby.openButton"))),
      h("section", { class: "create", "aria-labelledby": "new-title" }, h("h2", { id: "new-title" }, t("lobby.new")), this.games.map((g) => this.form(g))),
      h("p", {}, h("a", { href: "#/replay" }, t("lobby.replayFile"))),
      h("p", { class: "message", role: "alert", "data-testid": "message" }, this.message),
    );
  }

  private form(g: GameInfo): HTMLElement {
    const id = (what: string) => `${g.name}-${what}`;
    const title = gameTitle(g.name);
    const count = h("input", { id: id("players"), type: "number", name: "players", min: g.minPlayers, max: g.maxPlayers,
      value: g.minPlayers });
    const name = h("input", { id: id("name"), name: "name", value: "me", maxlength: 32 });
    const seatsBox = h("div", { class: "seats" });
    const drawSeats = () => mount(seatsBox, Array.from({ length: Math.max(0, Number(count.value) - 1) }, (_, i) =>
      h("div", { class: "field" }, h("label", { for: id(`seat-${i + 1}`) }, t("lobby.seatN", { n: i + 1 })),
        h("select", { id: id(`seat-${i + 1}`), "data-seat": i + 1 },
          BOTS.map(([spec, label]) => h("option", { value: spec }, label())),
          h("option", { value: "open" }, t("lobby.openSeat"))))));
    // Only the presets whose kind the game offers (GameInfo.time_controls, R-8).
    const clock = h("select", { id: id("clock"), name: "clock", "data-clock-preset": "" },
      TIME_CONTROLS.filter(([key, , tc]) => key === "none" || g.timeControls.includes(tc.kind))
        .map(([key, label]) => h("option", { value: key }, label())));
    const delay = h("select", { id: id("delay"), name: "delay", "data-delay": "" },
      DELAYS.map((sec) => h("option", { value: sec }, sec ? t("lobby.delayS", { n: sec }) : t("lobby.delayNone"))));
    count.addEventListener("input", drawSeats);
    drawSeats();
    const form: HTMLFormElement = h("form", { class: "game", "data-game": g.name, "aria-labelledby": id("title"), onsubmit: (e: Event) => {
      e.preventDefault();
      void this.create(g, form, name.value.trim() || "me", Number(count.value));
    } },
    h("h3", { id: id("title") }, title, h("small", {}, t("lobby.range", { min: g.minPlayers, max: g.maxPlayers, rules: g.rulesVersion }))),
    h("div", { class: "field" }, h("label", { for: id("name") }, t("lobby.yourName")), name),
    h("div", { class: "field" }, h("label", { for: id("players") }, t("lobby.players")), count),
    seatsBox,
    h("div", { class: "field" }, h("label", { for: id("clock") }, t("lobby.clock")), clock),
    h("div", { class: "field" }, h("label", { for: id("delay") }, t("lobby.delay")), delay),
    h("details", {}, h("summary", {}, t("lobby.options")), g.options.map((o) => optionInput(g.name, o))),
    h("button", { type: "submit" }, t("lobby.create", { game: title })));
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
      const delaySeconds = Number(form.querySelector<HTMLSelectElement>("[data-delay]")?.value ?? "0");
      const expireMs = openSeatWait(preset === "correspondence-1");
      const matchId = await createWithSeat({ game: g.name, options, seats: seatRequests, timeControl,
        spectatorDelayMs: BigInt(delaySeconds * 1000), expireMs }, 0, me);
      location.hash = `#/m/${matchId}`;
    } catch (e) {
      this.message = explain(refusal(e));
      this.render();
    }
  }
}
