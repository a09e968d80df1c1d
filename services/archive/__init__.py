"""The archive: every finished game kept for good in PostgreSQL (issue 29).

migrations/ the schema, migrate.py applies it, archiver.py moves finished games from Redis (the
engine's outbox) into it (`python -m services.archive`), reads.py serves the gateway.
"""
