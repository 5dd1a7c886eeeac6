"""Statistics of samples, knowing nothing of programs or files: medians (medians.py), the paired per-round ratio
(paired_ratio.py), verdicts (verdict.py), latency histograms merged exactly (histogram_merge.py)."""
