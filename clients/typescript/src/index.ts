// A small typed client of the Kozyr service (kozyr.v1) for Node: the protobuf-es stubs generated
// from protos/ (src/gen, `npm run generate`) over Connect's gRPC transport (plain gRPC on HTTP/2,
// which is what the Python server speaks; h2c on 127.0.0.1, TLS with an https:// address).
//
//   const kozyr = connectKozyr("127.0.0.1:50051");
//   const { matchId, tokens } = await kozyr.createMatch({ game: "dix", seats: [{ name: "a" }, { name: "b" }] });
//   for await (const update of watch(kozyr, matchId, tokens[0].token)) { ... }

import { createHash, createPublicKey, randomBytes, randomUUID, verify as cryptoVerify } from "node:crypto";
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { create } from "@bufbuild/protobuf";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb.js";
import { ErrorReason } from "./gen/kozyr/v1/errors_pb.js";
import {
  EndReason,
  KozyrService,
  MatchStatus,
  TimeControlKind,
  MoveSchema,
  PassSchema,
  PlayCardSchema,
  SessionRequestSchema,
  TakeSchema,
  type Decision,
  type DurakDiceMove,
  type EndMatchResponse,
  type MatchView,
  type MatchUpdate,
  type Move,
  type SeatFinished,
  type SessionRequest,
  type Receipt,
  type SubmitMoveResponse,
  type TreeHead,
} from "./gen/kozyr/v1/kozyr_pb.js";

export * from "./gen/kozyr/v1/kozyr_pb.js";
export * from "./gen/kozyr/v1/errors_pb.js";
export { Code } from "@connectrpc/connect";

/** A client of the KozyrService. */
export type KozyrClient = Client<typeof KozyrService>;

/** A client on `address` ("host:port" for plain gRPC, or a full http:// / https:// URL). */
export function connectKozyr(address: string): KozyrClient {
  const baseUrl = /^https?:\/\//.test(address) ? address : `http://${address}`;
  return createClient(KozyrService, createGrpcTransport({ baseUrl }));
}

/** A seat's contribution to the match seed: 32 fresh random bytes (docs/fairness.md §1). */
export function contribution(): Uint8Array {
  return new Uint8Array(randomBytes(32));
}

/**
 * Take an open seat of a match (JoinMatch), contributing 32 fresh random bytes to its seed
 * unless `seedContribution` is given (an empty array for none): the match's commitment is public
 * since its entry 1, so a contribution chosen now is one the server could not grind against.
 */
export function joinMatch(client: KozyrClient, request: Parameters<KozyrClient["joinMatch"]>[0]) {
  return client.joinMatch({ ...request, seedContribution: request.seedContribution ?? contribution() });
}

/** How long a match made by createMatch waits for its named seats' contributions (ms). */
export const CONTRIBUTION_WINDOW_MS = 30_000n;

/**
 * Create a match (CreateMatch) whose named seats give their seed contributions after the
 * commitment: a contribution window unless the request sets one (and no prearranged deal),
 * then 32 fresh random bytes for each seat whose token the answer holds (Contribute), so the
 * server could not have chosen the deal (docs/fairness.md §1). The answer of CreateMatch.
 */
export async function createMatch(client: KozyrClient, request: Parameters<KozyrClient["createMatch"]>[0]) {
  const prearranged = (request.prearrangedDecks?.length ?? 0) + (request.prearrangedDice?.length ?? 0) > 0;
  const window = request.contributionWindowMs ?? (prearranged ? undefined : CONTRIBUTION_WINDOW_MS);
  const made = await client.createMatch({ ...request, contributionWindowMs: window });
  if (window) {
    for (const t of made.tokens) {
      await client.contribute({ matchId: made.matchId, seedContribution: contribution() }, auth(t.token));
    }
  }
  return made;
}

/** Call options carrying a bearer token (none for a spectator). */
export function auth(token?: string): { headers: Record<string, string> } {
  return { headers: token ? { authorization: `Bearer ${token}` } : {} };
}

/** A failed call: the gRPC code and the stable reason of the server's google.rpc.ErrorInfo. */
export class KozyrError extends Error {
  constructor(
    readonly code: Code,
    readonly reason: string,
    message: string,
    readonly metadata: Record<string, string> = {},
  ) {
    super(`${Code[code]} ${reason}: ${message}`);
    this.name = "KozyrError";
  }

  /**
   * The reason as the contract's ErrorReason enum (UNSPECIFIED for a transport error or a reason
   * these stubs do not know yet). Metadata keys are lowerCamelCase: matchId, seat, rule, limit.
   */
  get errorReason(): ErrorReason {
    const value = (ErrorReason as unknown as Record<string, unknown>)[this.reason];
    return typeof value === "number" ? (value as ErrorReason) : ErrorReason.UNSPECIFIED;
  }

  /** The KozyrError of anything a call threw (transport errors get the code's name as reason). */
  static from(error: unknown): KozyrError {
    if (error instanceof KozyrError) return error;
    const e = ConnectError.from(error);
    const info = e.findDetails(ErrorInfoSchema)[0];
    if (info === undefined) return new KozyrError(e.code, Code[e.code] ?? "UNKNOWN", e.rawMessage);
    return new KozyrError(e.code, info.reason, e.rawMessage, { ...info.metadata });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Play a move at most once: a fresh command id, retried with the SAME id while the server is
 * unavailable, so a retry whose first try was recorded gets the recorded answer.
 */
export async function submitMove(
  client: KozyrClient,
  matchId: string,
  token: string,
  move: Move,
  expectedVersion?: bigint,
  attempts = 6,
): Promise<SubmitMoveResponse> {
  const commandId = randomUUID();
  for (let attempt = 0, delay = 100; ; attempt++, delay = Math.min(delay * 2, 2000)) {
    try {
      return await client.submitMove({ matchId, move, commandId, expectedVersion }, auth(token));
    } catch (error) {
      const e = KozyrError.from(error);
      if (e.code !== Code.Unavailable || attempt >= attempts) throw e;
      await sleep(delay);
    }
  }
}

/**
 * Every update after `fromVersion` until the match ends. A dropped stream is reopened from the
 * last version delivered, so versions are consecutive: no gap, no duplicate.
 */
export async function* watch(
  client: KozyrClient,
  matchId: string,
  token?: string,
  fromVersion = 0n,
  attempts = 6,
): AsyncGenerator<MatchUpdate> {
  let version = fromVersion;
  let failures = 0;
  for (;;) {
    try {
      for await (const update of client.watchMatch({ matchId, fromVersion: version }, auth(token))) {
        if (update.version <= version) continue;
        version = update.version;
        failures = 0;
        yield update;
        if (update.view?.status === MatchStatus.FINISHED) return;
      }
      // Ended without the final update: the server is shutting down, or it was over already.
      const view = (await client.getMatch({ matchId }, auth(token))).view;
      if (view?.status === MatchStatus.FINISHED && view.version <= version) return;
    } catch (error) {
      const e = KozyrError.from(error);
      const dropped = [Code.Unavailable, Code.Canceled, Code.Internal, Code.Unknown];
      if (!dropped.includes(e.code) || (e.reason !== Code[e.code] && e.code !== Code.Unavailable)) {
        throw e; // an answer of the service (it carries an ErrorInfo), not a drop
      }
    }
    if (++failures > attempts) throw new KozyrError(Code.Unavailable, "WATCH_LOST", `watch of ${matchId} lost`);
    await sleep(Math.min(100 * 2 ** failures, 2000));
  }
}

/** A Move of `game`: moveOf("dix", "play", "10H"), moveOf("durak-dice", "take"). */
export function moveOf(game: string, action: string, card?: string): Move {
  const play = { card: card ?? "" };
  const needsCard = action === "play" || action === "attack" || action === "beat";
  if (needsCard !== (card !== undefined)) throw new Error(`${action} ${needsCard ? "needs" : "takes no"} card`);
  if (game === "dix" && action === "play") {
    return create(MoveSchema, { game: { case: "dix", value: { action: { case: "play", value: play } } } });
  }
  if (game === "six-dozens" && action === "play") {
    return create(MoveSchema, { game: { case: "sixDozens", value: { action: { case: "play", value: play } } } });
  }
  if (game === "durak-dice") {
    const durak = (a: DurakDiceMove["action"]) => create(MoveSchema, { game: { case: "durakDice", value: { action: a } } });
    if (action === "attack") return durak({ case: "attack", value: create(PlayCardSchema, play) });
    if (action === "beat") return durak({ case: "beat", value: create(PlayCardSchema, play) });
    if (action === "take") return durak({ case: "take", value: create(TakeSchema) });
    if (action === "pass") return durak({ case: "pass", value: create(PassSchema) });
  }
  throw new Error(`${game} has no ${action} move`);
}

/** A move in a few words: "play 10H", "beat QS", "take". */
export function describeMove(move: Move): string {
  const inner = move.game.value;
  if (inner === undefined) return "(empty move)";
  const action = inner.action;
  if (action.case === undefined) return "(no action)";
  const card = "card" in action.value ? action.value.card : "";
  return card ? `${action.case} ${card}` : action.case;
}

/** An async iterable fed by push(); close() ends it (the requests of a PlaySession stream). */
class Outbox<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private waiting: ((r: IteratorResult<T>) => void) | undefined;
  private closed = false;

  push(item: T): void {
    if (this.closed) return;
    const wake = this.waiting;
    this.waiting = undefined;
    if (wake) wake({ value: item, done: false });
    else this.items.push(item);
  }

  close(): void {
    this.closed = true;
    const wake = this.waiting;
    this.waiting = undefined;
    if (wake) wake({ value: undefined, done: true });
  }

  private next(): Promise<IteratorResult<T>> {
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve({ value: item, done: false });
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  // An async generator: Connect needs the requests' iterator to have throw() and return().
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      const result = await this.next();
      if (result.done) return;
      yield result.value;
    }
  }
}

/** A seat a play session acts for. */
export interface SessionSeatSpec {
  matchId: string;
  seat: number;
  token: string;
  /** Decisions without the events since the seat's previous one (a bot that needs only the view). */
  skipEvents?: boolean;
  /** Decisions without receipts (the seat's final push still has one). */
  skipReceipts?: boolean;
}

// Refusals that only mean the table moved on before our move arrived: a later push decides.
const STALE = new Set(["STALE_VERSION", "NOT_YOUR_TURN", "MATCH_OVER"]);

/**
 * Play seats over one PlaySession stream until every seat's match has ended: the server pushes
 * each decision, `choose` answers it. A dropped stream is reopened and every seat added again
 * from the last version it saw; a decision pushed again gets the same move with the same
 * command id, and each move names the decision's version, so no move is lost or played twice.
 * Returns each seat's final push, keyed "matchId/seat".
 */
export async function playSession(
  client: KozyrClient,
  seats: SessionSeatSpec[],
  choose: (decision: Decision) => Move,
  attempts = 6,
): Promise<Map<string, SeatFinished>> {
  const key = (matchId: string, seat: number) => `${matchId}/${seat}`;
  const state = new Map(seats.map((s) => [key(s.matchId, s.seat), { ...s, version: 0n, answered: undefined as [bigint, Move] | undefined }]));
  const finished = new Map<string, SeatFinished>();
  const moveOf = (s: { matchId: string; seat: number; answered?: [bigint, Move] }) =>
    ({ matchId: s.matchId, seat: s.seat, move: s.answered![1], commandId: `ps-v${s.answered![0]}`, version: s.answered![0] });
  let failures = 0;
  while (finished.size < state.size) {
    const outbox = new Outbox<SessionRequest>();
    const open = [...state.values()].filter((s) => !finished.has(key(s.matchId, s.seat)));
    outbox.push(create(SessionRequestSchema, {
      seats: open.map((s) => ({
        matchId: s.matchId, seat: s.seat, token: s.token, fromVersion: s.version,
        skipEvents: s.skipEvents ?? false, skipReceipts: s.skipReceipts ?? false,
      })),
    }));
    try {
      for await (const message of client.playSession(outbox)) {
        failures = 0;
        const moves = []; // this message's answers, sent as one request
        for (const push of message.pushes) {
          if (push.kind.case === "decision") {
            const d = push.kind.value;
            const s = state.get(key(d.matchId, d.seat));
            if (s === undefined || d.version < s.version) continue;
            s.version = d.version;
            if (s.answered === undefined || s.answered[0] !== d.version) s.answered = [d.version, choose(d)];
            moves.push(moveOf(s));
          } else if (push.kind.case === "finished") {
            const f = push.kind.value;
            const s = state.get(key(f.matchId, f.seat));
            if (s !== undefined) s.version = f.version;
            finished.set(key(f.matchId, f.seat), f);
          } else if (push.kind.case === "refusal") {
            const r = push.kind.value;
            if (STALE.has(r.reason)) continue;
            const s = state.get(key(r.matchId, r.seat));
            if (r.code === Code.Unavailable && s?.answered !== undefined && r.commandId) {
              // The store was briefly away: the same move, same id, after a pause.
              setTimeout(() => outbox.push(create(SessionRequestSchema, { moves: [moveOf(s)] })), 100);
              continue;
            }
            throw new KozyrError(r.code as Code, r.reason, r.message, { matchId: r.matchId, seat: String(r.seat) });
          }
        }
        if (moves.length > 0) outbox.push(create(SessionRequestSchema, { moves }));
        if (finished.size === state.size) break;
      }
    } catch (error) {
      const e = KozyrError.from(error);
      const dropped = [Code.Unavailable, Code.Canceled, Code.Internal, Code.Unknown];
      if (!dropped.includes(e.code) || (e.reason !== Code[e.code] && e.code !== Code.Unavailable)) throw e;
    } finally {
      outbox.close();
    }
    if (finished.size < state.size) {
      if (++failures > attempts) throw new KozyrError(Code.Unavailable, "SESSION_LOST", "the play session could not be resumed");
      await sleep(Math.min(100 * 2 ** failures, 2000));
    }
  }
  return finished;
}

// ---------------------------------------------------------------------------- receipts

/** A receipt as a receipts file holds it (docs/fairness.md §6): what `kozyr replay verify
 * --receipts` reads, the same JSON Lines the Python client writes. */
export interface ReceiptJson {
  kind: "receipt";
  match_id: string;
  version: number;
  entry_hash: string;
  commitment: string;
  key_id: string;
  signature: string;
  /** The server's time of the append (ms since the epoch), signed; absent in a v1 receipt. */
  time_ms?: number;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/** The receipt of a response or update (undefined when the server sent none) as file JSON. */
export function receiptJson(receipt: Receipt | undefined): ReceiptJson | undefined {
  if (receipt === undefined || receipt.signature.length === 0) return undefined;
  return {
    kind: "receipt", match_id: receipt.matchId, version: Number(receipt.version),
    entry_hash: receipt.entryHash, commitment: receipt.commitment, key_id: receipt.keyId,
    signature: hex(receipt.signature),
    ...(receipt.timeMs > 0n ? { time_ms: Number(receipt.timeMs) } : {}),
  };
}

/** The exact bytes a receipt's signature covers: canonical JSON, keys sorted, no spaces
 * (kozyr-receipt/v2 with the time of the append; v1, made before issue 30, without). */
export function signedBytes(r: ReceiptJson): Buffer {
  const head = { commitment: r.commitment, entry_hash: r.entry_hash, key_id: r.key_id, match_id: r.match_id };
  const fields = r.time_ms === undefined
    ? { ...head, type: "kozyr-receipt/v1", version: r.version }
    : { ...head, time_ms: r.time_ms, type: "kozyr-receipt/v2", version: r.version };
  return Buffer.from(JSON.stringify(fields), "utf8");
}

/** True when `r` is the signature of the Ed25519 key `publicKeyHex` (64 hex digits) on its
 * fields, and names that key (key id = first 16 hex digits of SHA-256 of the raw key). */
export function verifyReceipt(r: ReceiptJson, publicKeyHex: string): boolean {
  const raw = Buffer.from(publicKeyHex, "hex");
  if (raw.length !== 32) return false;
  if (createHash("sha256").update(raw).digest("hex").slice(0, 16) !== r.key_id) return false;
  // SPKI DER of an Ed25519 key: a fixed 12-byte prefix, then the 32 raw bytes (RFC 8410).
  const der = Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), raw]);
  const key = createPublicKey({ key: der, format: "der", type: "spki" });
  return cryptoVerify(null, signedBytes(r), key, Buffer.from(r.signature, "hex"));
}

/** One match's receipts by version, as a seat collects them from its answers and updates. */
export class Receipts {
  private readonly byVersion = new Map<number, ReceiptJson>();

  constructor(readonly matchId: string) {}

  /** Keep the receipt of a response or update (other matches' and missing ones are ignored). */
  keep(receipt: Receipt | undefined): void {
    const r = receiptJson(receipt);
    if (r !== undefined && r.match_id === this.matchId && !this.byVersion.has(r.version)) {
      this.byVersion.set(r.version, r);
    }
  }

  /** Every receipt kept, by version. */
  all(): ReceiptJson[] {
    return [...this.byVersion.values()].sort((a, b) => a.version - b.version);
  }

  /** The seed commitment the server signed ("" before any receipt). */
  get commitment(): string {
    return this.all()[0]?.commitment ?? "";
  }

  /** The signed commitment's first 16 hex digits in groups of four, for people to compare (as
   * `kozyr play` and the web page show it); "" before any receipt. */
  get fingerprint(): string {
    return (this.commitment.slice(0, 16).match(/.{4}/g) ?? []).join(" ");
  }

  /** The newest receipt kept: it alone vouches for the whole log up to it (each entry's hash
   * covers the one before), so it is the one a player must keep. */
  get last(): ReceiptJson | undefined {
    return this.all().at(-1);
  }

  /** The receipts file's text (JSON Lines). */
  toJsonLines(): string {
    return this.all().map((r) => JSON.stringify(r) + "\n").join("");
  }
}

/**
 * The newest signed tree head of the operator's transparency log this client was shown
 * (docs/fairness.md §9): `await kept.refresh(kozyr)` asks for the current one (GetTreeHead) and
 * keeps it unless a larger one is kept. Keep it with the match's last receipt.
 */
export class KeptTreeHead {
  head?: TreeHead;

  async refresh(client: KozyrClient): Promise<TreeHead | undefined> {
    const now = (await client.getTreeHead({})).treeHead;
    if (now !== undefined && (this.head === undefined || now.size >= this.head.size)) this.head = now;
    return this.head;
  }

  /** The head as `kozyr log head` prints it (what `kozyr replay verify --tree-head` reads). */
  toJson(): Record<string, unknown> | undefined {
    const h = this.head;
    return h && { type: "kozyr-tree-head/v1", size: Number(h.size), root_hash: hex(h.rootHash),
      time_ms: Number(h.timeMs), key_id: h.keyId, signature: hex(h.signature) };
  }
}

// ---------------------------------------------------------------------------- the clock

const KIND_TEXT: Partial<Record<TimeControlKind, string>> = {
  [TimeControlKind.DECISION]: "per decision",
  [TimeControlKind.FISCHER]: "Fischer",
  [TimeControlKind.CORRESPONDENCE]: "correspondence",
};

/**
 * Each seat's time left at `nowMs` (default: now), in ms; [] for a match without a clock. A
 * view gives every seat's time as of the start of the current decision and that decision's
 * deadline by the server's clock: the seat to act counts down to it (docs/api.md).
 */
export function timeLeft(view: MatchView, nowMs: number = Date.now()): number[] {
  const kind = view.timeControl?.kind;
  if (kind === undefined || !(kind in KIND_TEXT) || view.remainingMs.length === 0) return [];
  const left = view.remainingMs.map(Number);
  if (view.toAct !== undefined && view.deadlineMs !== undefined
      && view.status === MatchStatus.PLAYING) {
    left[view.toAct] = Math.max(0, Number(view.deadlineMs) - nowMs);
  }
  return left;
}

/** A time left as people read it: 1:05:00, 4:07, 12.3s. */
export function clockText(ms: number): string {
  const s = Math.floor(ms / 1000);
  const two = (n: number) => String(n).padStart(2, "0");
  if (ms >= 3_600_000) return `${Math.floor(ms / 3_600_000)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
  if (ms >= 60_000) return `${Math.floor(ms / 60_000)}:${two(s % 60)}`;
  return `${(ms / 1000).toFixed(1)}s`;
}

/** One line: the time control and each seat's time left, the seat to act marked; "" without. */
export function clockLine(view: MatchView, nowMs: number = Date.now()): string {
  const left = timeLeft(view, nowMs);
  if (left.length === 0) return "";
  const names = view.players.map((p) => p.name || `seat ${p.seat}`);
  const parts = left.map((ms, s) => `${s === view.toAct ? ">" : ""}${names[s]} ${clockText(ms)}`);
  return `Clock (${KIND_TEXT[view.timeControl!.kind]}): ${parts.join(" · ")}`;
}

/**
 * End the match early for the seat of `token`: resign, abort (before every seat has decided)
 * or claim victory over an abandoning seat (docs/rules.md R-7). Retried on UNAVAILABLE with the
 * same command id, so it is applied at most once.
 */
export async function endMatch(
  client: KozyrClient, matchId: string, token: string, reason: EndReason, attempts = 6,
): Promise<EndMatchResponse> {
  const commandId = randomUUID();
  for (let attempt = 0, delay = 100; ; attempt++, delay = Math.min(delay * 2, 2000)) {
    try {
      return await client.endMatch({ matchId, reason, commandId }, auth(token));
    } catch (error) {
      const e = KozyrError.from(error);
      if (e.code !== Code.Unavailable || attempt >= attempts) throw e;
      await sleep(delay);
    }
  }
}

/** Give the match up (the game's forfeit). */
export function resign(client: KozyrClient, matchId: string, token: string
): Promise<EndMatchResponse> {
  return endMatch(client, matchId, token, EndReason.RESIGN);
}
