"""What the server keeps secret or signs with: sealed server seeds, seat tokens, signing keys."""
