"""The report of a detail bench (echo_bench, websocket_bench): medians per case, the ratios against their targets
with their per-round ranges, both written as result files; and the same report re-rendered from the stored samples,
running nothing, when only the way results are reported changed.

    summary, ratio_rows = bench_report.write_bench_report("echo_bench", rows, cases, summarize, ratios, notes,
                                                          with_ratios=True, env=env)
    bench_report.rerender("echo_bench", summarize, ratios)
"""

from bench.reporting import case_ratios
from bench.analysis import histogram_merge
from bench.reporting import result_files
from bench.reporting import run_environment

# Documents stored before the ratios were rows of their own (bench schema 3) kept them as a table in their notes,
# under this heading.
OLD_RATIOS_HEADING = "\n\n## Ratios (the issue's targets)\n\n"
INTERRUPTED = "INTERRUPTED (Ctrl-C):"


def write_bench_report(name, rows, cases, summarize, ratios, notes, with_ratios, env=None, schema=None,
                       histograms=None, partial=False):
    """The medians per case, the ratios against their targets with their per-round ranges (appended to `notes`), and both
    result files; returns (summary, ratio_rows). `ratios(summary, env)` may read the run's kernel costs
    from `env` (default: this machine now); `schema` is the stored run's schema tag when re-rendering. The
    clients' latency histograms in the rows ("histograms") are merged per case and stored beside the cases;
    `histograms` are those of a stored run, when re-rendering. `partial`: the run was interrupted and `rows` are
    the runs that finished; the notes say so first."""
    env = env or run_environment.environment()
    if partial and not notes.startswith(INTERRUPTED):
        notes = f"{INTERRUPTED} partial, the {len(rows)} run(s) that finished; the rest did not run. " + notes
    histograms = histogram_merge.merge_case_histograms(rows) or histograms
    summary = summarize(rows, cases)
    ratio_rows = case_ratios.add_round_ranges(ratios(summary, env), rows) if with_ratios else []
    result_files.write_results(name, rows, notes=notes, summary_rows=summary, env=env, schema=schema,
                               histograms=histograms, partial=partial, ratios=ratio_rows)
    return summary, ratio_rows


def rerender(name, summarize, ratios):
    """Rewrites a bench's stored tables from its stored samples, running nothing: for a change in how results
    are reported. The environment and the notes stay those of the run."""
    document = result_files.load_results(name)
    cases = [(entry["server"], entry["load"]) for entry in document["summary"]]
    if "ratios" in document:
        notes, with_ratios = document["notes"], True
    else:  # an older document: its notes end with the ratios' table, which is computed again
        notes, separator, _ = document["notes"].partition(OLD_RATIOS_HEADING)
        with_ratios = bool(separator)
    write_bench_report(name, document["cases"], cases, summarize, ratios, notes, with_ratios=with_ratios,
                       env=document["environment"], schema=document["schema"],
                       histograms=document.get("histograms"), partial=document.get("partial", False))
    return 0
