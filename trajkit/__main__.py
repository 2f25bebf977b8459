"""`python -m trajkit`: the same command line as the `trajkit` console script."""

from trajkit.cli import main

if __name__ == "__main__":
    main(prog_name="trajkit")
