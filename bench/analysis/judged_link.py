"""Which of a run's rows its verdicts are judged from, when the same cases ran over more than one network link.

    rows = judged_link.on_the_judged_link(doc["rows"])
"""


def on_the_judged_link(rows):
    """The rows a verdict is judged from: every row of a run on one link (its rows name none); with
    --compare-loopback (links "loopback" and "remote", bench/cli/pipeline.py), the remote link's."""
    return [r for r in rows if r.get("link") in (None, "remote")]
