"""The command-line flags every detail bench (bench/scenarios/*_bench.py) shares: how many rounds, a quick smoke
check, and re-rendering the stored results instead of running.

    parser = bench_arguments.common_arguments(argparse.ArgumentParser(description=__doc__))
    bench_arguments.add_rerender_argument(parser)
"""


def common_arguments(parser):
    parser.add_argument("--samples", type=int, default=3, help="rounds; cases are interleaved in each")
    parser.add_argument("--quick", action="store_true", help="tiny loads: a smoke check, not a measurement")
    return parser


def add_rerender_argument(parser):
    parser.add_argument("--rerender", action="store_true",
                        help="rewrite the stored tables from the stored samples (JSON), running nothing")
