"""The tenants' side: results feed and lobby publishing, their stores, webhooks."""
