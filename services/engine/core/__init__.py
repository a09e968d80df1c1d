"""The engine's floor: a game in Redis and the one way to change it (store, commit_lua,
tables), what a table is in memory (table, meta, clocks, timeouts), who may act (access,
validation), what leaves the engine (messages, edge) and what a commit owes others (the
outboxes). Every other engine package builds on this one; it imports none of them."""
