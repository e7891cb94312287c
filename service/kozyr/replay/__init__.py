"""Replays: export a match's log to a portable file, verify it offline, show any step.

- `archive`: the JSON Lines replay file of docs/replay-format.md (read and write);
- `verify`: the pure offline verifier (chain, commit–reveal seed, deals and rolls of
  docs/fairness.md, every move re-decided under the current rules, outcome);
- `show`: the table at step N from a seat, a spectator or the full view;
- `export`: fetch a log from a server (the only part that needs gRPC);
- `record`: play a match in-process and log it exactly as the engine does;
- `cli`: `kozyr replay export | verify | show`.

Nothing here but `export` talks to a server, and nothing talks to Redis.
"""
