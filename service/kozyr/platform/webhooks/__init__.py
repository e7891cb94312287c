"""Webhooks: each tenant's feed events POSTed to its endpoints, signed per Standard Webhooks,
delivered at least once with exponential backoff, dead-lettered, redeliverable."""
