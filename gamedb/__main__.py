from gamedb.cli import cli
cli()
