"""Playing a game: the lobby (create, join, list), moves, looking at a game, chat, seats that
change hands, offers to stop, rematch, party tables and analysis. Builds on core and players."""
