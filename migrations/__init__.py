"""Alembic scripts of the gamedb file format (installed as ``gamedb.migrations``)."""
