// The replay viewer: a finished match (or an exported replay file) stepped through from any
// seat's view, the spectator's or the full table, with the verifier's verdict. The server runs
// the same verifier as `kozyr replay verify` (InspectReplay); nothing is re-implemented here.

import { auth, kozyr, refusal, refusalText, seatIn } from "./api";
import { h, mount } from "./dom";
import type { InspectReplayRequest, InspectReplayResponse } from "./gen/kozyr/v1/kozyr_pb";
import { board, card, handOf, nameOf } from "./panels";

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
      this.message = refusalText(refusal(e));
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
    const picker = h("input", { type: "file", accept: ".jsonl,application/json,text/plain", "aria-label": "replay file",
      onchange: (e: Event) => { const f = (e.target as HTMLInputElement).files?.[0]; if (f) void this.open(f); } });
    const s = this.shown;
    mount(this.root,
      h("h2", {}, "Replay viewer"),
      h("p", {}, "Open an exported replay file (kozyr replay export): ", picker),
      h("p", { class: "message", role: "alert", "data-testid": "message" }, this.message),
      s ? this.step(s) : null);
  }

  private step(s: InspectReplayResponse): HTMLElement {
    const view = s.view;
    const ok = s.status === "VERIFIED";
    const viewers = h("select", { "aria-label": "whose view", "data-testid": "viewer",
      onchange: (e: Event) => { this.viewer = (e.target as HTMLSelectElement).value; void this.load(this.version); } },
    h("option", { value: "full", selected: this.viewer === "full" }, "full table"),
    h("option", { value: "spectator", selected: this.viewer === "spectator" }, "spectator"),
    (view?.players ?? []).map((p) => h("option", { value: String(p.seat), selected: this.viewer === String(p.seat) },
      `seat ${p.seat}: ${p.name}`)));
    const slider = h("input", { type: "range", min: 1, max: Number(s.versions), value: Number(s.version),
      "aria-label": "step", onchange: (e: Event) => void this.load(BigInt((e.target as HTMLInputElement).value)) });
    return h("section", { class: "replay" },
      h("div", { class: `verdict ${ok ? "ok" : "bad"}`, "data-testid": "verdict" }, s.status),
      h("details", {}, h("summary", {}, "Verifier report"), h("pre", { class: "text" }, s.report)),
      view ? h("h3", {}, `${view.game} · `, h("code", {}, view.matchId)) : null,
      h("div", { class: "replay-controls" },
        h("button", { onclick: () => void this.load(1n), "aria-label": "first step" }, "|◀"),
        h("button", { onclick: () => void this.load(this.version - 1n), "aria-label": "previous step" }, "◀"),
        slider,
        h("button", { onclick: () => void this.load(this.version + 1n), "aria-label": "next step", "data-testid": "next" }, "▶"),
        h("button", { onclick: () => void this.load(s.versions), "aria-label": "last step" }, "▶|"),
        h("span", { "data-testid": "step" }, `step ${s.version} of ${s.versions}`), viewers),
      h("ol", { class: "log" }, s.events.map((e) => h("li", {}, e.text || e.type))),
      view ? board(view) : null,
      view && handOf(view).length ? h("p", {}, `${nameOf(view, view.seat)}'s hand: `, handOf(view).map((c) => card(c))) : null,
      h("pre", { class: "text", "data-testid": "table-text" }, s.text),
      h("p", { class: "keys" }, "Keys: ← and → step through."));
  }
}
