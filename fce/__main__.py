"""``python -m fce``: the same as the ``fce`` command."""

from fce._entry import main

if __name__ == "__main__":
    main()
