"""Kozyr: an event-sourced gRPC game engine for Dix, Six Dozens and Durak with dice."""

__version__ = "0.1.0"
