"""The AI seats' queue of turns (bots, bot_calls) and the bot ladder, which opens tables
through the lobby. Builds on core, players and play."""
