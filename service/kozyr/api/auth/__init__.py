"""Who is calling: tenants' API keys, seat tickets, seat tokens, the arbiter."""
