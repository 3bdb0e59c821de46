"""``python -m fastrate`` runs the command-line interface."""

from fastrate.cli import main

if __name__ == "__main__":
    main()
