"""The command line the reports of bench/mpi/run and bench/reference/run
share: `report.py RAW_DIR [--markdown FILE] [--results FILE] [--smoke]`."""

import sys


def parse_args(argv, usage):
    """(the raw results directory, {flag: value} of --markdown and
    --results, whether --smoke was given); exits with `usage` otherwise."""
    args = list(argv)
    opts = {}
    for flag in ("--markdown", "--results"):
        if flag in args:
            i = args.index(flag)
            if i + 1 >= len(args):
                sys.exit(usage)
            opts[flag] = args[i + 1]
            del args[i:i + 2]
    smoke = "--smoke" in args
    args = [a for a in args if a != "--smoke"]
    if len(args) != 1:
        sys.exit(usage)
    return args[0], opts, smoke
