"""A run's report written to its folder: the document (report.json) and its renderings, REPORT.md and report.html.
After a run the document is built from the samples the run stored (document.read_run) and its charts drawn;
`--rerender` reads the stored document alone (older schemas converted on read) and renders it again.

    doc = report.write_run(directory, catalogue.ALL, run_notes)   # after a run: from its samples
    doc = report.rerender(directory)                              # a stored run: from its report.json
"""

import os

from bench.reporting import charts
from bench.reporting import document
from bench.reporting import forest_chart
from bench.reporting import history_report
from bench.reporting import html_report
from bench.reporting import markdown
from bench.reporting import result_files
from bench.base import progress


def write(directory, doc):
    """report.json, REPORT.md and report.html of `doc` in `directory`; returns `doc`."""
    result_files.write_text(os.path.join(directory, document.FILE), document.to_json(doc))
    result_files.write_text(os.path.join(directory, "REPORT.md"), markdown.render(doc))
    result_files.write_text(os.path.join(directory, "report.html"), html_report.render(doc, directory))
    progress.log(f"wrote {os.path.join(directory, 'REPORT.md')} and report.html")
    return doc


def write_run(directory, definitions, run_notes):
    """The run's document from the documents stored in its folder (`definitions`: the scenarios,
    bench/scenarios/catalogue.ALL; `run_notes`: {section id: what the run says of how it ran}), its charts
    drawn from the document, and its renderings. Returns the document."""
    previous = {"sections": [{"id": part, "run": notes} for part, notes in run_notes.items()]}
    doc = document.read_run(directory, definitions, previous=previous)
    history_report.attach(doc, _history(doc, directory))
    _draw(doc, directory)
    return write(directory, doc)


def _history(doc, directory):
    """The run in `directory` against the runs stored before it: in the checkout and beside it."""
    runs = history_report.stored_runs(history_report.parents_with(os.path.dirname(os.path.abspath(directory))))
    return history_report.of_run(doc, directory, runs)


def _draw(doc, directory):
    """The sections' charts and the summary's forest plot, from the document alone."""
    charts.draw(doc, directory)
    forest = forest_chart.draw(doc, directory)
    if forest is not None:
        doc["summary_chart"] = {"path": forest[0], "alt": forest[1]}


def rerender(directory):
    """The stored run in `directory` rendered again from its report.json alone: its charts, REPORT.md and
    report.html. Returns the document, None when the folder has none."""
    path = os.path.join(directory, document.FILE)
    if not os.path.exists(path):
        return None
    doc = document.load(path)
    doc["summary"] = document.summary(doc["sections"])  # what the sections say, in this version's rows
    # A document stored before histories were kept gets the runs stored before it, once; then its own.
    history = doc.get("history") or _history(doc, directory)
    history_report.attach(doc, history)
    _draw(doc, directory)
    return write(directory, doc)
