"""Server-side actors that append through the engine like any caller: timers and seat bots."""
