"""The live layer (issue 21): the gateway's one server of Server-Sent Events (issue 31 item 1),
game streams fanned out once per game per process and players' own streams once per player.

- `wire`: the streams' messages (docs/api-deltas.md, "On the event stream").
- `request`: what a stream request asks, checked before it opens (400, 403).
- `hub`: per process, one engine `WatchGame` per watched game, and each event written to every
  watcher of that game with the view of that watcher's audience (a seat or the spectators).
- `players`: per process, one engine `WatchPlayer` per player with an open stream
  (`GET /api/players/me/events`; a newer stream of the player ends the one before).
- `caps`: the cap per client address over every worker, and the rate of opens.
- `asgi`: the ASGI application: the stream paths served natively, everything else by Flask.
"""
