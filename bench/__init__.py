"""netbench's suite, behind `bazel run //:bench`: one folder per concern, imports running down this list.

    cli/        the command line (suite.py: flags, the Plan) and the run it asks for (pipeline.py)
    scenarios/  the loads and the write-ups' claims: what is run and what is claimed
    reporting/  the documents' schema and files, tables, charts, the comparison of stored runs
    running/    programs as processes here or over SSH: their CPU clocks, ports, rounds, placement, the runner
    registry/   the contestants as data (contestants.json) and their validation
    analysis/   medians, paired ratios, verdicts, histogram merges: statistics that know no programs

bench/README.md is the map: where each thing is made, how to add a contestant or a scenario.
"""
