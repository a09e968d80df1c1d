"""People and programs at the tables: player accounts and device keys, ratings, bot accounts,
a player's own event stream, invitations, follows, and their calls. Builds on core only."""
