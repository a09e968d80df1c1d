"""Tests of the engine service: a real process, a real Redis, real gRPC."""
