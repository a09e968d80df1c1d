"""Fixtures shared by the gateway's tests: the in-process gateway with its backends down, and its
catalogues (tests/fixtures/offline_gateway.py).
A test module's own fixture of the same name wins."""

from tests.fixtures.offline_gateway import app, catalogues, client  # noqa: F401 (fixtures)
