"""The Store port (an append-only log per match) and its two adapters: in memory and Redis."""
