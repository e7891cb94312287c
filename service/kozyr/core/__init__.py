"""The pure base: cards, the fairness stream, receipts' format, canonical JSON, speed helpers."""
