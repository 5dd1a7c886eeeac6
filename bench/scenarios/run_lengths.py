"""Why a write-up's runs are as long as they are: the stored dimensioning study
(bench/studies/dimensioning_study.py) that chose the main job's run lengths, cut down to what a report shows
beside the claim: the claim's ratio at each length, with servers kept and fresh, and the length it recommends.

    study = run_lengths.study_for("echo")       # None where no study is stored
    study["recommended"], study["points"][0]    # 4, {"length": 1, "servers": "kept", "steady": [0.98, 0.93, 1.03], ...}

A run keeps this in its settings, so that its report (and a re-rendering of it) shows the study the run's
lengths came from, whatever studies are stored later.
"""

import json
import os

from bench.base import checkout

# The study the defaults were chosen from, in the checkout: the project's 2-core VM.
STORED_STUDY = os.path.join("results", "data", "linux-x86_64-2cpu", "dimensioning", "dimensioning.json")
UNITS = {"echo": "s", "websocket": "messages per client"}


def _interval(found):
    return [found["geomean_ratio"], *found["ci95"]] if found else None


def study_for(part, path=None):
    """The stored study's lines of `part`'s headline claim in the shared placement: {"source", "machine",
    "cpu", "claim", "unit", "recommended", "reference_length", "points": [{"length", "servers", "rounds",
    "steady" and "whole": [ratio, low, high], "classes"}]}; None where the study has no such lines or is not
    stored."""
    path = path or os.path.join(checkout.repo_root(), STORED_STUDY)
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    lines = [l for l in doc.get("table", []) if l.get("study") == part and l.get("placement") == "shared"]
    if not lines:
        return None
    found = (doc.get("recommendation") or {}).get(f"{part} shared") or {}
    env = doc.get("environment") or {}
    return {"source": os.path.relpath(path, checkout.repo_root()) if os.path.isabs(path) else path,
            "machine": env.get("machine_label"), "cpu": env.get("cpu_model"),
            "timestamp": env.get("timestamp_utc"), "claim": (doc.get("claims") or {}).get(part, {}).get("text"),
            "unit": UNITS.get(part, ""), "recommended": found.get("length"),
            "reference_length": found.get("reference_length"),
            "points": [{"length": l["length"], "servers": l["servers"],
                        "rounds": (l.get("msgs_per_s") or {}).get("rounds"),
                        "steady": _interval(l.get("steady_msgs_per_s")), "whole": _interval(l.get("msgs_per_s")),
                        "classes": l.get("classes") or {}} for l in lines]}


def note(study, length, as_written=False):
    """One sentence for a section: the run length (chosen by the study, or with `as_written` the write-up's
    own), the study's ratio at the shortest length, at it and at the write-up's own length; "" without a
    study."""
    if not study:
        return ""
    unit = study["unit"]

    def at(value):
        point = next((p for p in study["points"] if p["length"] == value and p["servers"] == "kept"
                      and p["steady"]), None)
        if point is None:
            return None
        ratio, low, high = point["steady"]
        return f"{ratio:.3f} ({low:.3f} .. {high:.3f}) at {value:,} {unit}"

    said = [s for s in (at(min(p["length"] for p in study["points"])), at(length),
                        at(study["reference_length"])) if s]
    said = list(dict.fromkeys(said))
    why = ("the write-up's own (--as-written)" if as_written else
           "the shortest whose ratio agreed with the write-up's own length's in the dimensioning study")
    return (f"Run length {length:,} {unit}: {why}. The study ({study['source']}, "
            f"{study.get('cpu') or study.get('machine')}, {study.get('timestamp', '')}) found for "
            f"\"{study['claim']}\": " + "; ".join(said) + ".")
