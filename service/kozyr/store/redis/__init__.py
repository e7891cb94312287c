"""The Redis adapter: a stream per match, its append script, lanes, ticks, names, and the
embedded server."""
