// The replay viewer: a finished match (or an exported replay file) stepped through from any
// seat's view, the spectator's or the full table, with the verifier's verdict. The server runs
// the same verifier as `kozyr replay verify` (InspectReplay); nothing is re-implemented here.

import { auth, kozyr, refusal, seatIn } from "./api";
import { h, mount } from "./dom";
import type { InspectReplayRequest, InspectReplayResponse } from "./gen/kozyr/v1/kozyr_pb";
import { displayName, gameTitle, t, verdictName } from "./i18n";
import { eventText } from "./moves";
import { board, card, handOf, nameOf } from "./panels";
import { explain } from "./table";

type Source = InspectReplayRequest["source"];

export class Replay {
  private source?: Source;
  private shown?: InspectReplayResponse;
  private version = 0n;
  private viewer = "full";
  private message = "";

  constructor(private readonly root: HTMLElement, matchId?: string) {
    if (matchId) this.source = { case: "matchId", value: matchId };
  }

  async start(): Promise<void> {
    document.addEventListener("keydown", this.onKey);
    if (this.source) await this.load(0n);
    else this.render();
  }

  stop(): void {
    document.removeEventListener("keydown", this.onKey);
  }

  private readonly onKey = (e: KeyboardEvent) => {
    if (!this.shown || e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === "ArrowRight") void this.load(this.version + 1n);
    if (e.key === "ArrowLeft") void this.load(this.version - 1n);
  };

  private async load(version: bigint): Promise<void> {
    if (!this.source) return;
    const total = this.shown?.versions ?? 0n;
    if (total && (version < 1n || version > total)) return;
    const token = this.source.case === "matchId" ? seatIn(this.source.value)?.token : undefined;
    const seat = /^\d+$/.test(this.viewer) ? Number(this.viewer) : undefined;
    try {
      this.shown = await kozyr.inspectReplay({ source: this.source, version, asSeat: seat,
        spectator: this.viewer === "spectator" }, auth(token));
      this.version = this.shown.version;
      this.message = "";
    } catch (e) {
      this.message = explain(refusal(e));
    }
    this.render();
  }

  private async open(file: File): Promise<void> {
    this.source = { case: "replayFile", value: await file.text() };
    this.shown = undefined;
    this.viewer = "full";
    await this.load(0n);
  }

  private render(): void {
    const picker = h("input", { id: "replay-file", type: "file", accept: ".jsonl,application/json,text/plain",
      onchange: (e: Event) => { const f = (e.target as HTMLInputElement).files?.[0]; if (f) void this.open(f); } });
    const s = this.shown;
    mount(this.root,
      h("h1", {}, t("replay.title")),
      h("p", {}, h("label", { for: "replay-file" }, t("replay.open")), picker),
      h("p", { class: "message", role: "alert", "data-testid": "message" }, this.message),
      s ? this.step(s) : null);
  }

  private step(s: InspectReplayResponse): HTMLElement {
    const view = s.view;
    const ok = s.status === "VERIFIED";
    const viewers = h("select", { "aria-label": t("replay.whose"), "data-testid": "viewer",
      onchange: (e: Event) => { this.viewer = (e.target as HTMLSelectElement).value; void this.load(this.version); } },
    h("option", { value: "full", selected: this.viewer === "full" }, t("replay.full")),
    h("option", { value: "spectator", selected: this.viewer === "spectator" }, t("replay.spectator")),
    (view?.players ?? []).map((p) => h("option", { value: String(p.seat), selected: this.viewer === String(p.seat) },
      t("replay.seat", { n: p.seat, name: displayName(p.name, p.bot) }))));
    const slider = h("input", { type: "range", min: 1, max: Number(s.versions), value: Number(s.version),
      "aria-label": t("replay.step"), onchange: (e: Event) => void this.load(BigInt((e.target as HTMLInputElement).value)) });
    // The verdict in words, with the verifier's status code beside it (as a refusal shows its
    // reason code); the verifier's report and the table as text are the server's own English
    // text, shown as such (lang="en" for screen readers).
    const serverText = ` (${t("replay.serverText")})`;
    return h("section", { class: "replay" },
      h("div", { class: `verdict ${ok ? "ok" : "bad"}`, "data-status": s.status },
        h("span", { "data-testid": "verdict-words" }, verdictName(s.status)), " (",
        h("code", { "data-testid": "verdict" }, s.status), ")"),
      h("details", {}, h("summary", {}, t("replay.report"), serverText),
        h("pre", { class: "text", tabindex: 0, lang: "en", "data-testid": "report" }, s.report)),
      view ? h("h2", {}, `${gameTitle(view.game)} · `, h("code", {}, view.matchId)) : null,
      h("div", { class: "replay-controls" },
        h("button", { type: "button", onclick: () => void this.load(1n), "aria-label": t("replay.first") }, "|◀"),
        h("button", { type: "button", onclick: () => void this.load(this.version - 1n), "aria-label": t("replay.prev") }, "◀"),
        slider,
        h("button", { type: "button", onclick: () => void this.load(this.version + 1n), "aria-label": t("replay.next"), "data-testid": "next" }, "▶"),
        h("button", { type: "button", onclick: () => void this.load(s.versions), "aria-label": t("replay.lastStep") }, "▶|"),
        h("span", { "data-testid": "step" }, t("replay.stepOf", { v: s.version, n: s.versions })), viewers),
      h("ol", { class: "log" }, s.events.map((e) => h("li", {}, (view ? eventText(view, e) : e.text) || e.type))),
      view ? board(view) : null,
      view && handOf(view).length ? h("p", {}, t("replay.handOf", { name: nameOf(view, view.seat) }), handOf(view).map((c) => card(c))) : null,
      s.text ? h("h3", { id: "table-text-title" }, t("replay.tableText"), serverText) : null,
      h("pre", { class: "text", tabindex: 0, lang: "en", "data-testid": "table-text" }, s.text),
      h("p", { class: "keys" }, t("replay.keys")));
  }
}
