"""The server's settings: limits and tenants, from TOML and flags."""
