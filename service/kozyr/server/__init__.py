"""The composition root: settings -> a running server (store, engine, actors, transports)."""
