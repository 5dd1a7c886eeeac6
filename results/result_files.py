"""The stored results of one bench on this machine: results/data/<machine label>/<name>.json with every
sample and the run's environment, and <name>.md with its tables. NETBENCH_RESULTS_DIR puts them elsewhere.

    result_files.write_results("microbenchmarks", rows, notes="...", summary_rows=rows, columns=[...])
    document = result_files.load_results("httpfanout_bench")
"""

import json
import os

import checkout
import progress
import run_environment
import tables


def results_dir():
    path = os.environ.get("NETBENCH_RESULTS_DIR") or os.path.join(checkout.repo_root(), "results", "data",
                                                                 run_environment.machine_label())
    os.makedirs(path, exist_ok=True)
    return path


def write_results(name, cases, notes="", summary_rows=None, columns=None, env=None):
    """Writes results/data/<machine>/<name>.json (every sample) and <name>.md (the tables). `env` is the
    run's environment (default: this machine now)."""
    directory = results_dir()
    document = {"schema": "netbench.bench/1", "benchmark": name,
                "environment": env or run_environment.environment(), "cases": cases, "summary": summary_rows or [],
                "notes": notes}
    json_path = os.path.join(directory, f"{name}.json")
    with open(json_path, "w") as f:
        json.dump(document, f, indent=2, sort_keys=False)
        f.write("\n")
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
    return json_path, md_path


def load_results(name):
    """The document write_results() stored for bench `name` on this machine."""
    with open(os.path.join(results_dir(), f"{name}.json")) as f:
        return json.load(f)
