from gamedb.cli import main
main()
