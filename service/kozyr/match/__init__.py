"""The match, pure: its log (entries, canonical JSON, the hash chain), the fold from a log to a
record, and the lifecycle decider. No store, no transport, no clock (time comes in as data).

- `kozyr.match.log`: entries, canonical JSON, hashes, the lifecycle's own events;
- `kozyr.match.record`: the match record and the one fold of entries into it;
- `kozyr.match.lifecycle`: create, join, start on the last seat, play, finish and reveal;
- `kozyr.match.limits`: every size limit of a request and its check;
- `kozyr.match.errors`: the one refusal type (kind, reason code, message, rule).
"""

from kozyr.match.errors import Kind, MatchError
from kozyr.match.record import MatchRecord

__all__ = ["Kind", "MatchError", "MatchRecord"]
