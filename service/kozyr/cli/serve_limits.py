"""What each limit of `kozyr serve` means (its --flag's help; the fields are
kozyr.config.settings.ServerConfig, where the comments say why each default is what it is)."""

from __future__ import annotations

LIMIT_HELP: dict[str, str] = {
    "max_message_bytes": "largest gRPC message taken or sent, in bytes",
    "watchers_per_match": "WatchMatch streams open on one match",
    "watchers_per_peer": "WatchMatch streams open from one connection (peer address and port)",
    "max_watchers": "WatchMatch streams open in all",
    "max_pending_calls": "gRPC calls that may wait for a handler in a burst (past twice this "
    "gRPC's core cancels them, with no reason)",
    "max_concurrent_streams": "HTTP/2 streams one gRPC connection may have open at once "
    "(more wait at the client)",
    "grpc_connections_per_peer": "gRPC connections one client host may have calls in flight "
    "on at once",
    "web_max_connections": "web port connections open in all (more are closed at once)",
    "web_connections_per_peer": "web port connections open from one client host (more are "
    "closed at once)",
    "web_header_timeout_s": "seconds a web request's headers may take to arrive (then the "
    "connection is closed)",
    "web_body_timeout_s": "seconds a web request's body may take to arrive after its headers",
    "web_keepalive_s": "seconds an idle keep-alive web connection stays open",
    "edge_log_interval_s": "seconds between two log lines about refused connections or failed "
    "accepts (each is counted in the metrics)",
    "metrics_interval_s": "seconds between two readings of the metrics kept in Redis (matches "
    "in play, webhook backlog and dead letters)",
    "rate_per_token": "requests a second one seat token may make, sustained",
    "burst_per_token": "requests one seat token may make above its rate, in a burst",
    "rate_per_peer": "requests a second one client host may make, sustained",
    "burst_per_peer": "requests one client host may make above its rate, in a burst",
    "matches_per_minute": "matches one client host may create a minute, burst included",
    "redis_socket_timeout_s": "seconds a Redis call may take before it fails (UNAVAILABLE)",
    "redis_connect_timeout_s": "seconds opening a Redis connection may take",
    "redis_max_connections": "Redis connections for moves and reads",
    "redis_watch_connections": "Redis connections of the watchers' reads (kept apart, so "
    "watchers never starve moves)",
    "health_interval_s": "seconds between two pings of the store by the health check",
    "health_timeout_s": "seconds a health ping may take before the server says NOT_SERVING",
    "keepalive_time_s": "seconds between keepalive pings on an idle connection",
    "keepalive_timeout_s": "seconds a keepalive ping may go unanswered before the "
    "connection is closed",
    "max_connection_idle_s": "seconds a connection with no call may stay open",
    "max_connection_age_s": "seconds a connection may live (then a graceful GOAWAY)",
    "max_connection_age_grace_s": "seconds the calls of an aged connection get to finish",
    "ticket_leeway_s": "seconds past its expiry a seat ticket is still taken (clock skew "
    "between a platform and this server)",
    "feed_sweep_interval_s": "seconds between two catch-ups of the tenants' feed and lobby "
    "with match logs a process died while writing",
    "webhook_timeout_s": "seconds a webhook delivery may take",
    "webhook_retry_for_s": "seconds a failing webhook delivery is retried before it is dropped",
    "webhook_backoff_s": "seconds before the first retry of a failed webhook delivery",
    "webhook_backoff_max_s": "most seconds between two retries of a webhook delivery",
    "move_log_interval_s": "seconds between two `moves` summary log lines",
    "session_moves_in_flight": "moves one PlaySession may have in flight at once",
    "session_moves_per_s": "moves a second one PlaySession may make, sustained",
    "session_moves_burst": "moves one PlaySession may make above its rate, in a burst",
    "abandon_grace_s": "seconds a seat may be away before its opponents may claim the win, "
    "for a match that does not set it",
    "open_match_expiry_s": "seconds a match may wait for its players before it expires, for "
    "a match that does not set it",
    "contribution_window_s": "seconds a match waits for its named seats' seed contributions "
    "when its request does not say (0: none; docs/fairness.md)",
    "timer_interval_s": "seconds between two looks for due deadlines while some are near",
    "timer_idle_interval_s": "seconds between two looks for due deadlines while none is near",
    "timer_lease_s": "seconds a process holds a due deadline before another may take it over",
    "policy_dir": "folder the server's policy bots are read from (`policy:path=NAME`, a file "
    "name in it); none: the server plays no policy bots",
    "gc_young_threshold": "allocations between two young collections of Python's cycle "
    "collector (CPython's default: 700)",
}
