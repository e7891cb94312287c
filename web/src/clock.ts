// The seats' clocks, the match's deadline and how a match ended early (docs/rules.md R-7, R-8).
// A view is a function of the log: it gives each seat's time as of clock_since_ms and when the
// current decision is due; the page only counts the seat to act down to that deadline.

import { h } from "./dom";
import { MatchStatus, Termination, TimeControlKind, type MatchView } from "./gen/kozyr/v1/kozyr_pb";
import { nameOf } from "./panels";

/** The lobby's time controls: a label and the TimeControl a CreateMatch carries. */
export const TIME_CONTROLS: [string, string, { kind: TimeControlKind; limitMs?: bigint; bankMs?: bigint; incrementMs?: bigint; days?: number }][] = [
  ["none", "no clock", { kind: TimeControlKind.NONE }],
  ["decision-30", "30 s a decision", { kind: TimeControlKind.DECISION, limitMs: 30_000n }],
  ["fischer-5-3", "5 min + 3 s a decision", { kind: TimeControlKind.FISCHER, bankMs: 300_000n, incrementMs: 3_000n }],
  ["correspondence-1", "1 day a decision", { kind: TimeControlKind.CORRESPONDENCE, days: 1 }],
];

/** Whether the match has a clock at all. */
export function hasClock(view: MatchView): boolean {
  const k = view.timeControl?.kind ?? TimeControlKind.UNSPECIFIED;
  return k !== TimeControlKind.UNSPECIFIED && k !== TimeControlKind.NONE;
}

/** "4:59", "0:07", "1 d 2:03:04": a time left for people. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const [d, hh, mm, ss] = [Math.floor(s / 86400), Math.floor(s / 3600) % 24, Math.floor(s / 60) % 60, s % 60];
  const two = (n: number) => String(n).padStart(2, "0");
  if (d) return `${d} d ${hh}:${two(mm)}:${two(ss)}`;
  return hh ? `${hh}:${two(mm)}:${two(ss)}` : `${mm}:${two(ss)}`;
}

/** A seat's time left at `now` (Unix ms): the seat to act's runs down to the deadline. */
export function timeLeft(view: MatchView, seat: number, now: number): number | undefined {
  const running = view.status === MatchStatus.PLAYING && view.toAct === seat && view.deadlineMs !== undefined;
  if (running) return Number(view.deadlineMs) - now;
  const left = view.remainingMs[seat];
  return left === undefined ? undefined : Number(left);
}

/** The clock of one seat's row, redrawn by `tick` every quarter second. */
export function seatClock(view: MatchView, seat: number, now: number): HTMLElement | null {
  if (!hasClock(view)) return null;
  const left = timeLeft(view, seat, now);
  const running = view.status === MatchStatus.PLAYING && view.toAct === seat;
  return h("span", { class: `clock${running ? " running" : ""}`, "data-clock": seat, role: "timer",
    "aria-label": `${nameOf(view, seat)}'s time` }, left === undefined ? "—" : duration(left));
}

/** The line under the status: the time control and when the current decision is due. */
export function deadlineLine(view: MatchView): HTMLElement | null {
  if (!hasClock(view) && view.deadlineMs === undefined) return null;
  const due = view.deadlineMs !== undefined && view.status !== MatchStatus.FINISHED
    ? ` · due at ${new Date(Number(view.deadlineMs)).toLocaleTimeString()}` : "";
  const what = view.status === MatchStatus.WAITING ? " (the open seats' expiry)" : "";
  return h("p", { class: "deadline", "data-testid": "deadline" }, `Clock: ${controlText(view)}${due}${what}`);
}

function controlText(view: MatchView): string {
  const t = view.timeControl;
  switch (t?.kind) {
    case TimeControlKind.DECISION: return `${duration(Number(t.limitMs))} a decision`;
    case TimeControlKind.FISCHER: return `${duration(Number(t.bankMs))} + ${Number(t.incrementMs) / 1000} s a decision`;
    case TimeControlKind.CORRESPONDENCE: return `${t.days} day${t.days === 1 ? "" : "s"} a decision`;
    default: return "none";
  }
}

/** Redraw the running clocks under `root` (no full redraw: focus and inputs stay as they are). */
export function tick(root: HTMLElement, view: MatchView | undefined, now: number): void {
  if (!view || !hasClock(view)) return;
  for (const el of root.querySelectorAll<HTMLElement>("[data-clock]")) {
    const left = timeLeft(view, Number(el.dataset.clock), now);
    if (left !== undefined) el.textContent = duration(left);
  }
}

const ENDINGS: Partial<Record<Termination, string>> = {
  [Termination.GUARD]: "stopped by the guard (R-5)",
  [Termination.RESIGNED]: "resigned",
  [Termination.TIMED_OUT]: "out of time",
  [Termination.ABORTED]: "aborted (no result)",
  [Termination.ABANDONED]: "abandoned",
  [Termination.EXPIRED]: "expired: the open seats were never filled (no result)",
};

/** How a finished match ended early, for people ("resigned: bea"), or "" for a normal end. */
export function terminationText(view: MatchView): string {
  const o = view.outcome;
  const what = o ? ENDINGS[o.termination] : undefined;
  if (!o || !what) return "";
  const who = o.termination === Termination.EXPIRED ? [] : o.seats.map((s) => nameOf(view, s));
  return who.length ? `${what}: ${who.join(", ")}` : what;
}
