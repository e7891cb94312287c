"""Every ErrorInfo reason the service's code can send, found by reading the code (ast).

A reason enters the wire through a *producer*: MatchError (the engine's refusal), the rules'
IllegalMove and InvalidOptions, bad_request, the status table's `exhausted`, or a Refusal /
SessionRefusal / ErrorInfo built by hand, and through any function that forwards one of its
parameters to a producer (found to a fixpoint, so a new helper such as `_denied(code, …)` is
followed without being named here). A reason is a string literal, or a module-level string
constant (the games declare theirs in model.py), at the producer's reason argument; the limits'
tables (api/guard.py RANGES, COUNTS) are read as data. Any other argument must forward an
error's own code, or the scan reports it as unreadable (and the test fails).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from kozyr.api import guard
from tests.conftest import repo_root

SERVICE = repo_root() / "service" / "kozyr"
# A producer is known by its name; a private helper (`_refused`) by its module and name, since
# another module's helper of the same name is another function.
Key = str | tuple[str, str]

# gRPC status of each engine Kind (kozyr.wire.status.STATUS, by name).
KIND_STATUS = {
    "BAD_REQUEST": "INVALID_ARGUMENT",
    "RULES": "FAILED_PRECONDITION",
    "NOT_FOUND": "NOT_FOUND",
    "UNAUTHENTICATED": "UNAUTHENTICATED",
    "FORBIDDEN": "PERMISSION_DENIED",
    "CONFLICT": "ABORTED",
    "UNAVAILABLE": "UNAVAILABLE",
    "EXHAUSTED": "RESOURCE_EXHAUSTED",
    "EXISTS": "ALREADY_EXISTS",
    "INTERNAL": "INTERNAL",
}


@dataclass
class Producer:
    """Where a callable takes its reason, and which status it gives (None: from an argument
    `kind_at` / `kind_kw`, defaulting to `kind_default`)."""

    reason_at: int | None
    reason_kw: str
    status: str | None = None
    kind_at: int | None = None
    kind_kw: str = ""
    kind_default: str | None = None


# The producers the scan starts from (positions count the call's arguments, not `self`).
ROOTS = {
    "MatchError": Producer(1, "code", None, 0, "kind"),
    "IllegalMove": Producer(0, "code", "FAILED_PRECONDITION"),
    # InvalidOptions become MatchError(Kind.BAD_REQUEST, e.code) in match/lifecycle.py.
    "InvalidOptions": Producer(0, "code", "INVALID_ARGUMENT"),
    "bad_request": Producer(0, "code", "INVALID_ARGUMENT"),
    "exhausted": Producer(0, "reason", "RESOURCE_EXHAUSTED"),
    "ErrorInfo": Producer(None, "reason", ""),
    "Refusal": Producer(None, "reason", ""),
    "SessionRefusal": Producer(None, "reason", ""),
}
# Arguments that forward a reason already made (an error's own code), not a new one.
FORWARDED = {"e.code", "error.code", "info.reason"}
# Locals unpacked from the limits' tables, read as data below.
TABLE_LOCALS = {("api/guard.py", "reason")}


@dataclass
class Scan:
    """The reasons found, each with the statuses it is sent with and where it is made."""

    statuses: dict[str, set[str]] = field(default_factory=dict)
    places: dict[str, set[str]] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)

    def add(self, reason: str, status: str | None, where: str) -> None:
        """Record one place that sends `reason` (with `status` when known)."""
        self.statuses.setdefault(reason, set())
        if status:
            self.statuses[reason].add(status)
        self.places.setdefault(reason, set()).add(where)


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _arg(call: ast.Call, at: int | None, kw: str) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == kw:
            return keyword.value
    if at is not None and len(call.args) > at:
        return call.args[at]
    return None


def _modules() -> dict[str, ast.Module]:
    return {
        str(p.relative_to(SERVICE)): ast.parse(p.read_text("utf-8"))
        for p in sorted(SERVICE.rglob("*.py"))
        if "_proto" not in p.parts
    }


def _constants(trees: dict[str, ast.Module]) -> dict[str, set[str]]:
    """Module-level `NAME = "TEXT"` (annotated or not) of every module."""
    out: dict[str, set[str]] = {}
    for tree in trees.values():
        for node in tree.body:
            target, value = None, None
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
            elif isinstance(node, ast.AnnAssign):
                target, value = node.target, node.value
            if (
                isinstance(target, ast.Name)
                and isinstance(value, ast.Constant)
                and isinstance(value.value, str)
            ):
                out.setdefault(target.id, set()).add(value.value)
    return out


def _functions(
    trees: dict[str, ast.Module],
) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield path, node


def _key(path: str, name: str) -> Key:
    return (path, name) if name.startswith("_") else name


def _producer(producers: dict[Key, Producer], path: str, call: ast.Call) -> Producer | None:
    """The producer a call in module `path` calls, if it calls one."""
    name = _name(call.func)
    return None if name is None else producers.get(_key(path, name))


def _kind_status(producer: Producer, call: ast.Call) -> str | None:
    if producer.status is not None:
        return producer.status or None
    kind = _arg(call, producer.kind_at, producer.kind_kw)
    if kind is None:
        return producer.kind_default
    name = _name(kind)
    return KIND_STATUS.get(name or "")


def _producers(trees: dict[str, ast.Module]) -> dict[Key, Producer]:
    """The roots and every function forwarding a parameter to one, to a fixpoint."""
    producers: dict[Key, Producer] = dict(ROOTS)
    changed = True
    while changed:
        changed = False
        for path, fn in _functions(trees):
            if _key(path, fn.name) in producers:
                continue
            params = [a.arg for a in fn.args.args if a.arg not in ("self", "cls")]
            defaults = dict(
                zip(params[len(params) - len(fn.args.defaults) :], fn.args.defaults, strict=True)
            )
            for call in ast.walk(fn):
                inner = _producer(producers, path, call) if isinstance(call, ast.Call) else None
                if inner is None:
                    continue
                assert isinstance(call, ast.Call)
                reason = _arg(call, inner.reason_at, inner.reason_kw)
                if not (isinstance(reason, ast.Name) and reason.id in params):
                    continue
                made = Producer(params.index(reason.id), reason.id, _kind_status(inner, call))
                kind = _arg(call, inner.kind_at, inner.kind_kw)
                if inner.status is None and isinstance(kind, ast.Name) and kind.id in params:
                    made.status, made.kind_at, made.kind_kw = None, params.index(kind.id), kind.id
                    default = defaults.get(kind.id)
                    made.kind_default = KIND_STATUS.get(_name(default) or "") if default else None
                producers[_key(path, fn.name)] = made
                changed = True
                break
    return producers


def scan() -> Scan:
    """Every reason the code under service/kozyr can send, with its statuses."""
    trees = _modules()
    constants = _constants(trees)
    producers = _producers(trees)
    found = Scan()
    for path, tree in trees.items():
        for call in ast.walk(tree):
            producer = _producer(producers, path, call) if isinstance(call, ast.Call) else None
            if producer is None:
                continue
            assert isinstance(call, ast.Call)
            reason = _arg(call, producer.reason_at, producer.reason_kw)
            if isinstance(reason, ast.Call) and _name(reason.func) == "reason_name":
                reason = reason.args[0]  # the wire's name of a code: the code is the reason
            where, status = f"{path}:{call.lineno}", _kind_status(producer, call)
            if isinstance(reason, ast.Constant) and isinstance(reason.value, str):
                found.add(reason.value, status, where)
            elif isinstance(reason, ast.Name | ast.Attribute) and _name(reason) in constants:
                for value in constants[_name(reason) or ""]:
                    found.add(value, status, where)
            elif reason is None and producer.reason_at is None:
                continue  # a message built empty (a reader's ErrorInfo), no reason in it
            elif reason is not None and (
                ast.unparse(reason) in FORWARDED
                or (path, ast.unparse(reason)) in TABLE_LOCALS
                or _forwards_parameter(call, reason, trees[path])
            ):
                continue
            else:
                found.unreadable.append(f"{where}: {ast.unparse(reason) if reason else '?'}")
    for _low, _high, reason in guard.RANGES.values():
        found.add(reason, "INVALID_ARGUMENT", "api/guard.py RANGES")
    for _most, reason in guard.COUNTS.values():
        found.add(reason, "INVALID_ARGUMENT", "api/guard.py COUNTS")
    return found


def _forwards_parameter(call: ast.Call, reason: ast.expr, tree: ast.Module) -> bool:
    """True when `reason` is a parameter of the function around `call` (a forwarding helper,
    whose own callers the scan reads)."""
    if not isinstance(reason, ast.Name):
        return False
    for fn in ast.walk(tree):
        if (
            isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)
            and any(node is call for node in ast.walk(fn))
            and reason.id in [a.arg for a in fn.args.args]
        ):
            return True
    return False
