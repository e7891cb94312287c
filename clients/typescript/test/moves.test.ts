// Unit tests of the client's helpers (node's own test runner: `npm test` after `npm run build`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { toBinary } from "@bufbuild/protobuf";
import { Code, KozyrError, MoveSchema, describeMove, moveOf } from "../src/index.js";

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
