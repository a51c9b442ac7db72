"""Starts, watches, restarts and kills the worker processes."""
