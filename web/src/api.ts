// The page's client: the generated stubs over Connect's web transport (JSON on the page's own
// origin), the seat tokens this browser holds (localStorage, one per match) and error text.

import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb";
import { KozyrService } from "./gen/kozyr/v1/kozyr_pb";

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
