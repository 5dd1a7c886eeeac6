"""The stored results of one bench on this machine: results/data/<machine label>/<name>.json with every
sample and the run's environment, and <name>.md with its tables. NETBENCH_RESULTS_DIR puts them elsewhere.
Every document is checked against its schema (bench/reporting/result_schema.py, results/README.md) when written and
when read.

    result_files.write_results("microbenchmarks", rows, notes="...", summary_rows=rows, columns=[...])
    result_files.write_document(path, document)          # any result document, validated
    document = result_files.load_results("httpfanout_bench")
"""

import json
import os
import re

from bench.running import checkout
from bench.running import progress
from bench.reporting import result_schema
from bench.reporting import run_environment
from bench.reporting import tables


INTEGER_PAIR = re.compile(r"\[\s*(-?\d+),\s*(-?\d+)\s*\]")
PAIR_BREAK = re.compile(r"(?<=\d)\],\s*\n\s*\[(?=-?\d+, -?\d+\])")


def results_dir():
    path = os.environ.get("NETBENCH_RESULTS_DIR") or os.path.join(checkout.stored_runs(),
                                                                 run_environment.machine_label())
    os.makedirs(path, exist_ok=True)
    return path


def write_results(name, cases, notes="", summary_rows=None, columns=None, env=None, schema=None, histograms=None):
    """Writes results/data/<machine>/<name>.json (every sample) and <name>.md (the tables). `env` is the
    run's environment (default: this machine now); `schema` the document's schema tag (default: the current
    version; a re-rendered run keeps the version it was stored with); `histograms` the clients' latency
    histograms per case (histogram_merge.merge_case_histograms)."""
    directory = results_dir()
    document = {"schema": schema or result_schema.current(result_schema.BENCH), "benchmark": name,
                "environment": env or run_environment.environment(), "cases": cases, "summary": summary_rows or [],
                "notes": notes}
    if histograms:
        document["histograms"] = histograms
    json_path = os.path.join(directory, f"{name}.json")
    errors = write_document(json_path, document, indent=2)
    env = document["environment"]
    md = [f"# {name}", "",
          f"{env['cpu_model']}, {env['cores']} cores, {env['os']} {env['kernel']}, commit {env['git_commit']}, "
          f"{env['timestamp_utc']}", ""]
    costs = env.get("kernel_costs_us")
    if costs:
        md += ["Kernel prices measured in this run (us of CPU, //common:kernel_cost_benchmark): "
               + ", ".join(f"{k} {tables.format_number(v)}" for k, v in costs.items()) + ".", ""]
    if notes:
        md += [notes, ""]
    if summary_rows:
        md += ["## Summary (medians over samples)", "", tables.markdown_table(summary_rows, columns), ""]
    md_path = os.path.join(directory, f"{name}.md")
    with open(md_path, "w") as f:
        f.write("\n".join(md))
    progress.log(f"wrote {json_path} and {md_path}")
    if errors:
        raise result_schema.SchemaError(json_path, errors)
    return json_path, md_path


def write_document(path, document, indent=1):
    """Writes a result document as JSON and returns its mismatches with its schema ([] when it matches). A
    document that does not match is still written, so that a run's samples are never lost to a schema
    mistake, and the mismatches are logged; callers raise result_schema.SchemaError once their other files
    are written."""
    errors = result_schema.validate(document)
    text = json.dumps(document, indent=indent)
    # A histogram's buckets, thousands of [lowest value, count] pairs: one line for all, not four lines each.
    text = PAIR_BREAK.sub("], [", INTEGER_PAIR.sub(r"[\1, \2]", text))
    with open(path, "w") as f:
        f.write(text + "\n")
    if errors:
        progress.log(f"{path} does not match its schema ({document.get('schema')}):\n  " + "\n  ".join(errors[:10]))
    return errors


def load_results(name):
    """The document write_results() stored for bench `name` on this machine, validated against its schema
    (result_schema.SchemaError names the file and the field that differs)."""
    return result_schema.load(os.path.join(results_dir(), f"{name}.json"))
