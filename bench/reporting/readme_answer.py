"""README.md's first screen, computed: each write-up's question answered across the stored runs, and what the
newest run of this version printed at its end. `bazel run //:bench -- --history` writes both blocks from the
stored documents; readme_answer_test fails when either differs from what the stored runs give now.

    text = readme_answer.with_blocks(readme_text, history_report.stored_runs([checkout.stored_runs()]))

The answer to a question is its headline claim (the write-up's own load, server and placement) pooled over
every stored run that ran it, by random effects (bench/analysis/history.py), in the words a report uses for a
verdict, and says what its ratio A/B counts and which way is better ("A takes 0.629 of B's time per fan-out,
and less is better: holds"); beside it the newest run judged by this version's design, with its link. Each
verdict word links to what it means, and no other word of the method's is used. A question about a system this
machine is not (macOS, more cores) is "not testable here", as the run says. The sample's "earlier" counts are
read again from the same stored runs, so that it and its earlier runs are the runs the answers pool.
"""

import copy
import os
import textwrap

from bench.analysis import history
from bench.base import generated_block
from bench.reporting import document
from bench.reporting import history_report
from bench.reporting import terminal
from bench.reporting import verdict_text

WIDTH = 120
STORED = "results/data"
COMMAND = "`bazel run //:bench -- --history`"
ANSWERS = ("the answers across the stored runs", f"<!-- the answers across the stored runs: written by {COMMAND} -->",
           "<!-- end of the answers across the stored runs -->")
SAMPLE = ("the newest run's closing summary",
          f"<!-- the newest run's closing summary: written by {COMMAND} -->",
          "<!-- end of the newest run's closing summary -->")


def with_blocks(text, runs):
    """README.md's `text` with its two blocks set to what the checkout's stored `runs` give."""
    newest = newest_of_this_design(runs)
    text = _replaced(text, ANSWERS, answer_lines(runs, newest))
    return _replaced(text, SAMPLE, sample_lines(newest, runs))


def _replaced(text, block, lines):
    what, begin, end = block
    return generated_block.replaced(text, begin, end, lines, f"{what} in README.md")


def _report(run):
    try:
        return document.load(os.path.join(run["folder"], document.FILE))
    except (OSError, ValueError):
        return None


def newest_of_this_design(runs):
    """(run, its report document) of the newest stored run with a report that this version's design judged;
    (None, None) where none was."""
    for run in reversed(runs):
        if run["run"].get("design") == history.CURRENT_DESIGN:
            doc = _report(run)
            if doc and doc.get("summary") and not doc["run"].get("quick"):
                return run, doc
    return None, None


def _folder(run):
    """The run's folder as README.md links it: the runs it reads are the checkout's stored ones (their paths
    may be Bazel's runfiles, resolved)."""
    return f"{STORED}/{os.path.basename(run['folder'])}"


# Where a verdict word on the first screen links: what it means.
VERDICTS = "docs/methodology.md#verdicts"
# How an answer says its ratio A/B: {figure: (A's verb, what the ratio counts)}.
RATIO_WORDS = {"steady_msgs_per_s": ("does", "msgs/s"), "msgs_per_s": ("does", "msgs/s"),
               "server_cpu_us_per_msg": ("spends", "server CPU per message"),
               "client_cpu_us_per_msg": ("spends", "client CPU per message"),
               "tcp_segs_per_msg": ("sends", "TCP segments per message"), "walls_s": ("takes", "time per fan-out")}


def _above_holds(entries, figure=None):
    """Whether the claim holds where A/B is above 1 (more is better), read from a stored run that decided it;
    where none did, the figure's own way (a rate's more, a cost's less), or None without a figure."""
    for found in entries:
        if found["verdict"] in (history.HOLDS, history.REVERSED) and found["ratio"]:
            return (found["ratio"] > 1) == (found["verdict"] == history.HOLDS)
    return None if figure is None else figure.endswith("msgs_per_s")


def pooled_verdict(pooled, entries, margin=0.05):
    """The verdict words of a pooled ratio: "holds" or "reversed" where its 95% interval leaves out 1 (the
    claim's side read from a stored run that decided it), "equivalent within ±5%" where it lies inside the
    margin, "open" otherwise."""
    low, high = pooled["interval"]
    if 1 / (1 + margin) < low and high < 1 + margin:
        return f"equivalent within ±{margin * 100:g}%"
    above, holds_above = low > 1, _above_holds(entries)
    if low <= 1 <= high or holds_above is None:
        return "open"
    return history.HOLDS if above == holds_above else history.REVERSED


def _word(said):
    """A verdict word as the first screen shows it: bold, linked to what it means (the block ends with the
    link's target)."""
    return f"[**{said}**][verdicts]"


def _pooled_words(line, entries, pooled):
    """"A does 0.881 (0.846 .. 0.918) of B's msgs/s across 11 stored runs, and more is better: **reversed**; a
    new machine's run would fall in 0.771 .. 1.01." """
    verb, what = RATIO_WORDS.get(line.get("figure"), ("has", line.get("figure")))
    better = "more" if _above_holds(entries, line.get("figure")) else "less"
    prediction = pooled["prediction"]
    return (f"A {verb} {verdict_text.ratio_with_interval(pooled['ratio'], pooled['interval'])} of B's {what} across "
            f"{pooled['runs']} stored runs, and {better} is better: {_word(pooled_verdict(pooled, entries))}"
            + (f"; a new machine's run would fall in {prediction[0]:.3g} .. {prediction[1]:.3g}" if prediction
               else "") + ".")


def _newest_words(row, line, newest):
    """"The [newest run](...) of this version (2026-12-07): 0.876 (0.775 .. 0.997) at 97.5%, the median of its 82
    rounds' ratios (each side's median: 199,904 vs 237,090 msgs/s): **reversed**." The ratio is the median of the
    per-round ratios, which a reader cannot get by dividing the two medians: the words say so."""
    unit = verdict_text.FIGURES.get(line.get("figure"), line.get("figure") or "").replace(" (steady state)", "")
    level = (line.get("sequence") or {}).get("level")
    return (f"The [newest run]({_folder(newest)}/REPORT.md) of this version ({newest['run']['time'][:10]}): "
            f"{verdict_text.ratio_interval(line, with_level=False)}"
            + (f" at {level * 100:.3g}%" if level else "")
            + (f", the median of its {row['rounds']} rounds' ratios" if row.get("rounds") not in (None, "-") else "")
            + f" (each side's median: {verdict_text.number(line.get('median_a'))} vs "
              f"{verdict_text.number(line.get('median_b'))} {unit})"
            + f": {_word(row['verdict'])}.")


def _answer(section, doc, runs, newest):
    """The lines of one write-up's answer: its question, its headline claim across the runs, the newest run."""
    rows = [r for r in doc["summary"] if r["section"] == section["id"]]
    untestable, headline = [], None
    for row in rows:
        index = history_report.summary_line(doc, row)
        line = section["verdicts"][index] if index is not None else {}
        if row["verdict"] == "not testable here":
            untestable.append(row["question"])
        elif headline is None and line.get("a") and history_report.judged(line.get("verdict")):
            headline = (row, line)
    said = []
    if headline:
        row, line = headline
        wanted = history.key(line, section["source"][:-len(".json")], history_report.commands(section))
        entries = [e for run in reversed(runs) for e in run["entries"] if e["key"] == wanted]
        pooled = history.pool(entries)
        said.append(f"{row['question']}: " + (_pooled_words(line, entries, pooled) if pooled else ""))
        said.append(_newest_words(row, line, newest))
    if untestable:
        said.append("Not testable on this machine: " + "; ".join(untestable) + ".")
    words = " ".join(said) or "no stored run of this version judged it."
    return _wrapped(f"- **{section['title']}** {words}", "  ")


def _wrapped(text, indent=""):
    """`text` wrapped at WIDTH, never inside an interval or a link's words."""
    kept = text.replace(" .. ", "\0..\0").replace("[newest run]", "[newest\0run]").replace(
        "[**equivalent within", "[**equivalent\0within").replace(", by less than ", ",\0by\0less\0than\0")
    return [line.replace("\0", " ") for line in textwrap.wrap(kept, WIDTH, subsequent_indent=indent,
                                                              break_long_words=False, break_on_hyphens=False)]


def answer_lines(runs, newest=None):
    """The answers block: one item per write-up of the newest run of this version, [] where there is none."""
    run, doc = newest if newest is not None else newest_of_this_design(runs)
    if doc is None:
        return ["No stored run of this version yet: `bazel run //:bench` makes one."]
    out = []
    for section in [s for s in doc["sections"] if s["kind"] == "writeup"]:
        out += _answer(section, doc, runs, run)
    older = sum(1 for r in runs if r["run"].get("design") not in (None, history.CURRENT_DESIGN))
    out += ["", *_wrapped(
        f"A is the first system a claim names, B the second. An answer pools the stored runs of its claim in a 95% "
        f"range ({len(runs)} stored runs in all, {older} judged by an older design: "
        "[every claim, every run](results/data/HISTORY.md)); a new machine's run may still fall beyond 1. The newest "
        "run's interval is at its printed level ([verdicts])."),
        "", f"[verdicts]: {VERDICTS}"]
    return out


def sample_lines(newest, runs=()):
    """The sample block: the newest run of this version's closing summary as the terminal prints it, its
    "earlier" counts read again from the stored `runs` (those that started before it, as the answers read them),
    and a sentence that says so."""
    run, doc = newest
    if doc is None:
        return []
    doc = copy.deepcopy(doc)
    if runs:
        history_report.attach(doc, history_report.of_run(doc, run["folder"], runs))
    later = [r for r in runs if (r["run"]["time"] or "") > (run["run"]["time"] or "")]
    said = ("The newest run of this version ended with this summary (its report is in the folder it names); it and "
            'its "earlier" runs are the stored runs the answers above pool' +
            (f", with {len(later)} stored after it" if later else "") + ".")
    report = os.path.join(_folder(run), "REPORT.md")
    return [*_wrapped(said), "", "```text", *terminal.render(doc, report, width=WIDTH).strip("\n").splitlines(),
            "```"]
