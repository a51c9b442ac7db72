"""The worker processes: one package per worker, each run as ``python -m harness.actors.<name>``."""
