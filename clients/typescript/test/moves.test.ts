// Unit tests of the client's helpers (node's own test runner: `npm test` after `npm run build`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { create, toBinary } from "@bufbuild/protobuf";
import {
  Code, ErrorReason, KozyrError, MatchStatus, MatchViewSchema, TimeControlKind, clockLine, clockText, timeLeft, MoveSchema, ReceiptSchema, Receipts, describeMove, moveOf, signedBytes,
  contribution, verifyReceipt, type ReceiptJson,
} from "../src/index.js";

test("moveOf builds each game's move and describeMove reads it back", () => {
  assert.equal(describeMove(moveOf("dix", "play", "10H")), "play 10H");
  assert.equal(describeMove(moveOf("six-dozens", "play", "QS")), "play QS");
  assert.equal(describeMove(moveOf("durak-dice", "beat", "AD")), "beat AD");
  assert.equal(describeMove(moveOf("durak-dice", "take")), "take");
  assert.equal(describeMove(moveOf("durak-dice", "pass")), "pass");
  // The wire bytes of Move{dix{play{card:"10H"}}}: field 1 { field 1 { field 1 "10H" } }.
  assert.deepEqual([...toBinary(MoveSchema, moveOf("dix", "play", "10H"))],
    [0x0a, 0x07, 0x0a, 0x05, 0x0a, 0x03, 0x31, 0x30, 0x48]);
});

test("moveOf refuses moves a game does not have", () => {
  assert.throws(() => moveOf("dix", "take"));
  assert.throws(() => moveOf("durak-dice", "take", "10H"));
  assert.throws(() => moveOf("chess", "play", "10H"));
});

test("a transport error without ErrorInfo keeps the code's name as reason", () => {
  const e = KozyrError.from(new Error("boom"));
  assert.equal(e.code, Code.Unknown);
  assert.equal(e.reason, "Unknown");
});

test("a receipt from docs/fairness.md §7 verifies, and a changed one does not", () => {
  const r: ReceiptJson = {
    kind: "receipt", match_id: "m1", version: 3,
    entry_hash: "081860f0d42780d3b3bf52f4cf210afa2bd50ec8b45309a2e16a55d9443d2f80",
    commitment: "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
    key_id: "56475aa75463474c",
    signature: "43f042dc8565484930b83ea1234ef31e614beef23842561d40ad074c6538b787" +
      "5ab39d822224fbbcc27a95815598970a9b7e36117c2de474abaebc66da07bb07",
  };
  const key = "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8";
  assert.equal(verifyReceipt(r, key), true);
  assert.equal(verifyReceipt({ ...r, version: 4 }, key), false);
  assert.equal(signedBytes(r).toString(), '{"commitment":"' + r.commitment + '","entry_hash":"' +
    r.entry_hash + '","key_id":"56475aa75463474c","match_id":"m1","type":"kozyr-receipt/v1","version":3}');
  // The v2 receipt of the same entry signs the time of the append too.
  const v2: ReceiptJson = { ...r, time_ms: 1764547200000,
    signature: "005e35c0b350cedf5fee96c0a9038a0cea7ecfd8548dd6b80bd8c6ebd2ce3c75" +
      "f03d6387c23f359673bb1c526e5b1db441bef46c6aa8a95d84bbd9ae62c66406" };
  assert.equal(verifyReceipt(v2, key), true);
  assert.equal(verifyReceipt({ ...v2, time_ms: 1764547200001 }, key), false);
});

test("Receipts keeps one receipt per version of its match", () => {
  const kept = new Receipts("m1");
  const receipt = create(ReceiptSchema, { matchId: "m1", version: 2n, entryHash: "ab", commitment: "cd",
    keyId: "k", signature: new Uint8Array([1, 2]) });
  kept.keep(receipt);
  kept.keep(receipt);
  kept.keep(create(ReceiptSchema, { ...receipt, matchId: "other" }));
  kept.keep(undefined);
  assert.equal(kept.all().length, 1);
  assert.equal(kept.commitment, "cd");
  assert.equal(kept.toJsonLines(), JSON.stringify(kept.all()[0]) + "\n");
  assert.equal(kept.all()[0].signature, "0102");
  kept.keep(create(ReceiptSchema, { ...receipt, version: 3n }));
  assert.equal(kept.last?.version, 3);
  const signed = new Receipts("m1");
  signed.keep(create(ReceiptSchema, { ...receipt, commitment: "0123456789abcdef" + "0".repeat(48) }));
  assert.equal(signed.fingerprint, "0123 4567 89ab cdef");
});

test("contribution() gives 32 fresh random bytes", () => {
  const [a, b] = [contribution(), contribution()];
  assert.equal(a.length, 32);
  assert.notDeepEqual(a, b);
});

test("the clock counts the seat to act down to its deadline, and reads as people read it", () => {
  const view = create(MatchViewSchema, {
    status: MatchStatus.PLAYING, toAct: 1,
    timeControl: { kind: TimeControlKind.FISCHER },
    remainingMs: [90_000n, 30_000n], deadlineMs: 1_000_030_000n, clockSinceMs: 1_000_000_000n,
    players: [{ seat: 0, name: "ann" }, { seat: 1, name: "bob" }],
  });
  assert.deepEqual(timeLeft(view, 1_000_017_500), [90_000, 12_500]);
  assert.deepEqual(timeLeft(view, 1_000_040_000), [90_000, 0]);
  assert.equal(clockLine(view, 1_000_017_500), "Clock (Fischer): ann 1:30 · >bob 12.5s");
  assert.equal(clockText(3_725_000), "1:02:05");
  assert.deepEqual(timeLeft(create(MatchViewSchema, {})), []);
  assert.equal(clockLine(create(MatchViewSchema, {})), "");
});

test("errorReason reads the reason as the contract's ErrorReason enum", () => {
  const refused = new KozyrError(Code.FailedPrecondition, "MUST_FOLLOW_SUIT", "follow", { matchId: "m", seat: "0" });
  assert.equal(refused.errorReason, ErrorReason.MUST_FOLLOW_SUIT);
  assert.equal(new KozyrError(Code.Internal, "SOMETHING_NEW", "?").errorReason, ErrorReason.UNSPECIFIED);
  assert.equal(KozyrError.from(new Error("boom")).errorReason, ErrorReason.UNSPECIFIED);
});
