"""Operator tools: the load generator and the stub generator."""
