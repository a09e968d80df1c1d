"""The live layer (issue 21): Server-Sent Event streams fanned out once per game per process.

- `wire`: the stream's messages (docs/api-deltas.md, "On the event stream"), shared by the
  threaded Flask route (services/gateway/events.py) and the async one.
- `hub`: per process, one engine `WatchGame` per watched game, and each event written to every
  watcher of that game with the view of that watcher's audience (a seat or the spectators).
- `asgi`: the ASGI application: the stream path served natively, everything else by Flask.
"""
