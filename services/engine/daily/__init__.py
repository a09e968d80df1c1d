"""The daily puzzle: one deal a day and game, its book, and its calls (an attempt is a table
opened through the lobby). Builds on core, players and play."""
