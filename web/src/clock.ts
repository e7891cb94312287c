// The seats' clocks, the match's deadline and how a match ended early (docs/rules.md R-7, R-8).
// A view is a function of the log: it gives each seat's time as of clock_since_ms and when the
// current decision is due; the page counts the seat to act down to that deadline, as time left
// (m:ss; days and hours for correspondence), with a low-time cue.

import { h } from "./dom";
import { MatchStatus, Termination, TimeControlKind, type MatchView } from "./gen/kozyr/v1/kozyr_pb";
import { t } from "./i18n";
import { nameOf } from "./panels";

type Preset = { kind: TimeControlKind; limitMs?: bigint; bankMs?: bigint; incrementMs?: bigint; days?: number };

/** The lobby's time controls: a key, its label and the TimeControl a CreateMatch carries. */
export const TIME_CONTROLS: [string, () => string, Preset][] = [
  ["none", () => t("clock.none"), { kind: TimeControlKind.NONE }],
  ["decision-30", () => t("clock.decision30"), { kind: TimeControlKind.DECISION, limitMs: 30_000n }],
  ["fischer-5-3", () => t("clock.fischer"), { kind: TimeControlKind.FISCHER, bankMs: 300_000n, incrementMs: 3_000n }],
  ["correspondence-1", () => t("clock.corr1"), { kind: TimeControlKind.CORRESPONDENCE, days: 1 }],
];

/** Whether the match has a clock at all. */
export function hasClock(view: MatchView): boolean {
  const k = view.timeControl?.kind ?? TimeControlKind.UNSPECIFIED;
  return k !== TimeControlKind.UNSPECIFIED && k !== TimeControlKind.NONE;
}

/** "4:59", "0:07", "5:03:04", "1 d 2 h": a time left for people (never a time of day). */
export function duration(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const [d, hh, mm, ss] = [Math.floor(s / 86400), Math.floor(s / 3600) % 24, Math.floor(s / 60) % 60, s % 60];
  const two = (n: number) => String(n).padStart(2, "0");
  if (d) return t("clock.dh", { d, h: hh });
  return hh ? `${hh}:${two(mm)}:${two(ss)}` : `${mm}:${two(ss)}`;
}

/** A seat's time left at `now` (Unix ms): the seat to act's runs down to the deadline. */
export function timeLeft(view: MatchView, seat: number, now: number): number | undefined {
  const running = view.status === MatchStatus.PLAYING && view.toAct === seat && view.deadlineMs !== undefined;
  if (running) return Number(view.deadlineMs) - now;
  const left = view.remainingMs[seat];
  return left === undefined ? undefined : Number(left);
}

/** Low on time: under a fifth of a decision's limit (or of a Fischer bank), at most 20 s,
 * or under an hour of a correspondence day. */
export function isLow(view: MatchView, left: number): boolean {
  const tc = view.timeControl;
  switch (tc?.kind) {
    case TimeControlKind.CORRESPONDENCE: return left < 3_600_000;
    case TimeControlKind.DECISION: return left < Math.min(20_000, Number(tc.limitMs) / 5);
    case TimeControlKind.FISCHER: return left < Math.min(20_000, Number(tc.bankMs) / 5);
    default: return false;
  }
}

function clockClass(view: MatchView, seat: number, left: number | undefined): string {
  const running = view.status === MatchStatus.PLAYING && view.toAct === seat;
  return `clock${running ? " running" : ""}${running && left !== undefined && isLow(view, left) ? " low" : ""}`;
}

/** The clock of one seat, redrawn by `tick` every quarter second. */
export function seatClock(view: MatchView, seat: number, now: number): HTMLElement | null {
  if (!hasClock(view)) return null;
  const left = timeLeft(view, seat, now);
  return h("span", { class: clockClass(view, seat, left), "data-clock": seat, role: "timer",
    "aria-label": t("clock.of", { name: nameOf(view, seat) }) }, left === undefined ? "—" : duration(left));
}

/** The line under the status: the time control and how long the current decision (or the
 * open seats) has left, counting down. */
export function deadlineLine(view: MatchView, now: number): HTMLElement | null {
  if (!hasClock(view) && view.deadlineMs === undefined) return null;
  const running = view.deadlineMs !== undefined && view.status !== MatchStatus.FINISHED;
  const left = running ? duration(Number(view.deadlineMs) - now) : "";
  const due = !running ? "" : view.status === MatchStatus.WAITING ? t("clock.expiry", { left }) : t("clock.left", { left });
  return h("p", { class: "deadline", "data-testid": "deadline", "data-deadline": running ? String(view.deadlineMs) : undefined,
    "data-waiting": view.status === MatchStatus.WAITING ? "true" : undefined },
  t("clock.line", { control: controlText(view) }), h("span", { class: "due" }, due));
}

function controlText(view: MatchView): string {
  const tc = view.timeControl;
  switch (tc?.kind) {
    case TimeControlKind.DECISION: return t("clock.perDecision", { t: duration(Number(tc.limitMs)) });
    case TimeControlKind.FISCHER: return t("clock.fischerText", { bank: duration(Number(tc.bankMs)), inc: Number(tc.incrementMs) / 1000 });
    case TimeControlKind.CORRESPONDENCE: return t("clock.days", { n: tc.days });
    default: return t("clock.off");
  }
}

/** Redraw the running clocks under `root` (no full redraw: focus and inputs stay as they are). */
export function tick(root: HTMLElement, view: MatchView | undefined, now: number): void {
  if (!view) return;
  for (const el of root.querySelectorAll<HTMLElement>("[data-clock]")) {
    const seat = Number(el.dataset.clock);
    const left = timeLeft(view, seat, now);
    if (left === undefined) continue;
    el.textContent = duration(left);
    el.className = clockClass(view, seat, left);
  }
  const line = root.querySelector<HTMLElement>("[data-deadline] .due");
  const at = line?.parentElement?.dataset.deadline;
  if (line && at) {
    const left = duration(Number(at) - now);
    line.textContent = line.parentElement?.dataset.waiting ? t("clock.expiry", { left }) : t("clock.left", { left });
  }
}

/** How the match ended, for people ("resigned: bea"); "" for a normal end unless `always`. */
export function terminationText(view: MatchView, always = false): string {
  const o = view.outcome;
  if (!o) return "";
  const endings: Partial<Record<Termination, string>> = {
    [Termination.GUARD]: t("end.guard"),
    [Termination.RESIGNED]: t("end.resigned"),
    [Termination.TIMED_OUT]: t("end.timedOut"),
    [Termination.ABORTED]: t("end.aborted"),
    [Termination.ABANDONED]: t("end.abandoned"),
    [Termination.EXPIRED]: t("end.expired"),
  };
  const what = endings[o.termination];
  if (!what) return always && o.termination === Termination.NORMAL ? t("end.normal") : "";
  const who = o.termination === Termination.EXPIRED ? [] : o.seats.map((s) => nameOf(view, s));
  return who.length ? `${what}: ${who.join(", ")}` : what;
}

/** Whether the page words this ending itself (else it falls back to the server's sentence). */
export function knownEnding(view: MatchView): boolean {
  const k = view.outcome?.termination ?? Termination.UNSPECIFIED;
  return k !== Termination.UNSPECIFIED && k in Termination;
}

/** The scores in the page's language, from the outcome's numbers: "Ann 11 · bot 3". */
export function scoresText(view: MatchView): string {
  const o = view.outcome;
  if (!o?.scores.length) return "";
  return t("end.scores", { scores: view.players.map((p) => `${nameOf(view, p.seat)} ${o.scores[p.seat] ?? 0}`).join(" · ") });
}
