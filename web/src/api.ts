// The page's client: the generated stubs over Connect's web transport (JSON on the page's own
// origin), the seat tokens this browser holds (localStorage, one per match) and error text.

import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { KozyrService, type CreateMatchRequestSchema, type Receipt } from "./gen/kozyr/v1/kozyr_pb";

export type Kozyr = Client<typeof KozyrService>;

/** The service on the page's own origin. */
export const kozyr: Kozyr = createClient(
  KozyrService,
  createConnectTransport({ baseUrl: location.origin, useBinaryFormat: false }),
);

/** A seat this browser holds in a match. */
export interface Seat {
  matchId: string;
  game: string;
  seat: number;
  name: string;
  token: string;
}

const KEY = "kozyr.seats";

/** Every seat this browser holds, newest first. */
export function seats(): Seat[] {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(KEY) ?? "[]");
    return Array.isArray(value) ? (value as Seat[]) : [];
  } catch {
    return [];
  }
}

/** The seat held in `matchId`, if any. */
export function seatIn(matchId: string): Seat | undefined {
  return seats().find((s) => s.matchId === matchId);
}

/** Remember a seat (its token is shown once by the server and kept only here). */
export function remember(seat: Seat): void {
  const rest = seats().filter((s) => s.matchId !== seat.matchId);
  localStorage.setItem(KEY, JSON.stringify([seat, ...rest].slice(0, 50)));
}

/** Call options carrying a bearer token (none for a spectator). */
export function auth(token?: string, signal?: AbortSignal): {
  headers: Record<string, string>;
  signal?: AbortSignal;
} {
  return { headers: token ? { authorization: `Bearer ${token}` } : {}, signal };
}

/** A refusal as people read it: the message, the reason code and the rule behind it. */
export interface Refusal {
  code: string;
  reason: string;
  rule: string;
  message: string;
}

/** What a failed call says. */
export function refusal(error: unknown): Refusal {
  const e = ConnectError.from(error);
  const info = e.findDetails(ErrorInfoSchema)[0];
  return {
    code: Code[e.code] ?? "Unknown",
    reason: info?.reason ?? "",
    rule: info?.metadata["rule"] ?? "",
    message: e.rawMessage,
  };
}

/** A fresh command id. */
export function commandId(): string {
  return crypto.randomUUID();
}

/** A seat's contribution to the match seed: 32 fresh random bytes (docs/fairness.md §1), sent
 * once the match's commitment is public, so the server cannot have chosen its seed against it. */
export function contribution(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(32));
}

// How long a match this page creates waits for its seat's contribution (docs/fairness.md §1).
const CONTRIBUTION_WINDOW_MS = 30_000n;

/** How long a match this page creates waits for its open seats: an hour (a correspondence
 * match the server's default day), not the server's default day, so a match its creator left
 * soon leaves the lobby's open list (ListMatches hides expired ones). */
export function openSeatWait(correspondence: boolean): bigint | undefined {
  return correspondence ? undefined : 3_600_000n;
}

/** Create a match and take its seat `seat` under `name`, the way every match this page makes
 * is made (the lobby's form and a rematch): with a contribution window, and the seat's 32
 * random bytes given once the commitment is public, so the server cannot have chosen the deal
 * against them (docs/fairness.md §1). The seat is remembered; its receipts kept. */
export async function createWithSeat(request: MessageInitShape<typeof CreateMatchRequestSchema>,
  seat: number, name: string): Promise<string> {
  const made = await kozyr.createMatch({ ...request, requestId: crypto.randomUUID(),
    contributionWindowMs: CONTRIBUTION_WINDOW_MS });
  keepReceipt(made.receipt);
  const token = made.tokens.find((x) => x.seat === seat)?.token;
  if (token !== undefined) {
    remember({ matchId: made.matchId, game: request.game ?? "", seat, name, token });
    const given = await kozyr.contribute({ matchId: made.matchId, seedContribution: contribution() }, auth(token));
    keepReceipt(given.receipt);
  }
  return made.matchId;
}

/** A receipt as a receipts file holds it (docs/fairness.md §6): a line `kozyr replay verify
 * --receipts` reads. */
export interface ReceiptLine {
  kind: "receipt";
  match_id: string;
  version: number;
  entry_hash: string;
  commitment: string;
  key_id: string;
  signature: string;
  time_ms?: number;  // the signed time of the append (absent in a v1 receipt)
}

const RECEIPTS = "kozyr.receipts";

function receiptLines(): Record<string, ReceiptLine> {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(RECEIPTS) ?? "{}");
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, ReceiptLine>) : {};
  } catch {
    return {};
  }
}

/** The last receipt this browser kept for a match, if any. */
export function lastReceipt(matchId: string): ReceiptLine | undefined {
  return receiptLines()[matchId];
}

/** Keep a seat's receipt if it is newer than the one kept: the last receipt alone proves the
 * whole log up to it (each entry's hash covers the one before), so it is what a player keeps. */
export function keepReceipt(receipt: Receipt | undefined): void {
  if (!receipt || receipt.signature.length === 0) return;
  const all = receiptLines();
  const kept = all[receipt.matchId];
  if (kept && kept.version >= Number(receipt.version)) return;
  all[receipt.matchId] = {
    kind: "receipt", match_id: receipt.matchId, version: Number(receipt.version), entry_hash: receipt.entryHash,
    commitment: receipt.commitment, key_id: receipt.keyId,
    signature: Array.from(receipt.signature, (b) => b.toString(16).padStart(2, "0")).join(""),
    ...(receipt.timeMs > 0n ? { time_ms: Number(receipt.timeMs) } : {}),
  };
  // As many matches as seats are remembered (50): the oldest go first.
  const held = new Set(seats().map((s) => s.matchId));
  for (const id of Object.keys(all)) if (!held.has(id) && id !== receipt.matchId) delete all[id];
  localStorage.setItem(RECEIPTS, JSON.stringify(all));
}

/** A 64-hex digest as four groups of four, as `kozyr play` and kozyr_client show it. */
export function shortFingerprint(hex: string): string {
  return (hex.slice(0, 16).match(/.{4}/g) ?? []).join(" ");
}

/** A signed tree head of the operator's transparency log as this browser keeps it
 * (docs/fairness.md §9): the JSON form `kozyr log head` prints. */
export interface KeptTreeHead {
  type: "kozyr-tree-head/v1";
  size: number;
  root_hash: string;
  time_ms: number;
  key_id: string;
  signature: string;
}

const TREE_HEAD = "kozyr.treeHead";
const hexOf = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** The newest tree head this browser was shown, if any. */
export function keptTreeHead(): KeptTreeHead | undefined {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(TREE_HEAD) ?? "null");
    return value && typeof value === "object" ? (value as KeptTreeHead) : undefined;
  } catch {
    return undefined;
  }
}

/** Ask for the log's signed tree head and keep it unless a larger one is kept: what a player
 * holds, with the match's last receipt, to show which history the operator logged. None when
 * the server keeps no log (TRANSPARENCY_LOG_OFF) or cannot answer now. */
export async function keepTreeHead(): Promise<KeptTreeHead | undefined> {
  try {
    const head = (await kozyr.getTreeHead({})).treeHead;
    if (!head) return keptTreeHead();
    const kept = keptTreeHead();
    const now: KeptTreeHead = { type: "kozyr-tree-head/v1", size: Number(head.size), root_hash: hexOf(head.rootHash), time_ms: Number(head.timeMs),
      key_id: head.keyId, signature: hexOf(head.signature) };
    if (!kept || now.size >= kept.size) localStorage.setItem(TREE_HEAD, JSON.stringify(now));
    return keptTreeHead();
  } catch {
    return keptTreeHead();
  }
}
