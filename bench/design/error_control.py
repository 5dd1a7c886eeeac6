"""The run's error control: every claim the run judges, in its family, and the level each is judged at, so that
each family's verdicts together are wrong with at most FAMILY_ALPHA chance (bench/analysis/sequential.py says why
the rule holds; docs/methodology.md says it to a reader).

The families: the write-ups' own claims (the summary's lines), the other loads and placements, and the A/A
controls. A claim of a family of K is judged by one confidence sequence at FAMILY_ALPHA / K, from which its
direction (holds, reversed), its equivalence and an open line's bound are all read: one level covers every
statement its line makes, and it is fixed before the first round, so no later look or part can move it. Every
part of a run (each write-up is one) judges its claims through the one ErrorControl.

    control = error_control.ErrorControl(margin=0.05)                # a user's run: words=YOUR_QUESTIONS
    control.add(("echo", "Racket beats Go"), sequential.SUMMARY)     # before the first round
    options = control.options(("echo", "Racket beats Go"))           # its level
    control.observe(("echo", "Racket beats Go"), p_value)            # after each look: its anytime p-value
    control.levels_of("echo")                                        # [[claim, alpha, alpha], ...]
"""

from bench.analysis import sequential

# What the families are in a run of a user's own questions (--claims, --versus): its questions, each under its
# load in the shared placement (or the one it names), are the summary's lines; the other placement's, the others;
# the A/A control, side B against a second process of itself.
YOUR_QUESTIONS = {
    sequential.SUMMARY: "your questions, each under its load (the summary's lines)",
    sequential.OTHER: "your questions in the other placement",
    sequential.CONTROL: "the A/A control (your side B against a second process of itself)",
}


class ErrorControl:
    """The families of one run's claims, keyed by (part, claim name), and each claim's anytime p-value so far;
    `words` say what each family is (default: the write-ups' families, sequential.FAMILIES)."""

    def __init__(self, margin=sequential.MARGIN, family_alpha=sequential.FAMILY_ALPHA, words=None):
        self.margin, self.family_alpha = margin, family_alpha
        self.words = words or sequential.FAMILIES
        self.family = {}  # key -> family name
        self.p_values = {}  # key -> the smallest p-value of "no difference" over its looks

    def add(self, key, family):
        self.family[key] = family
        self.p_values.setdefault(key, 1.0)

    def sizes(self):
        """{family: how many claims}, in the order of sequential.FAMILIES."""
        counted = {name: 0 for name in sequential.FAMILIES}
        for family in self.family.values():
            counted[family] = counted.get(family, 0) + 1
        return {name: n for name, n in counted.items() if n}

    def observe(self, key, p_value):
        """A claim's p-value at its latest look; its anytime p-value is the smallest seen. Returns whether any
        level changed: never, since a claim's level is its family's rate over its claims."""
        self.p_values[key] = min(self.p_values.get(key, 1.0), p_value)
        return False

    def options(self, key):
        """The sequential.Options a claim is judged at: one level, its family's rate over its claims, for its
        direction and its equivalence alike."""
        family = self.family[key]
        level = self.family_alpha / sum(1 for f in self.family.values() if f == family)
        return sequential.Options(margin=self.margin, alpha=level, direction_alpha=level)

    def levels_of(self, part):
        """[[claim name, alpha, direction alpha], ...] of `part`'s claims: what a part's settings keep, so that its
        verdicts are judged again from its rows at the levels the run used."""
        out = []
        for key in self.family:
            if key[0] == part:
                options = self.options(key)
                out.append([key[1], options.alpha, options.direction_alpha])
        return out

    def statement(self):
        """The settings' "family": what the report says of the error control."""
        return {"claims": len(self.family), "alpha": self.family_alpha, "rule": sequential.FAMILY_RULE,
                "families": {name: {"claims": n, "what": self.words.get(name, name)}
                             for name, n in self.sizes().items()}}
