"""Kozyr for learning agents (docs/agents.md): PettingZoo and Gymnasium environments, the
three games as OpenSpiel games, decisions in bulk and an MCP seat for tool-using agents.

The modules here import their learning packages (numpy, pettingzoo, gymnasium, pyspiel,
pyarrow, mcp: the ``agents`` extra) themselves; importing this package imports none of them.
"""
