"""The run's error control: every claim the run judges, in its family, and the levels each is judged at as the
run goes, so that each family's verdicts together are wrong with at most FAMILY_ALPHA chance
(bench/analysis/sequential.py says why the rule holds; docs/methodology.md says it to a reader).

Two families: the write-ups' own claims (the summary's lines) and the other loads and placements. A claim's
direction (holds, reversed) is decided at its Holm level, which loosens as other claims of its family are
decided; equivalence at the family's rate over its claims. Every part of a run (each write-up is one) judges
its claims through the one ErrorControl, so a claim decided in the echo part loosens the level of an open one
in the fan-out.

    control = error_control.ErrorControl(margin=0.05)                # a user's run: words=YOUR_QUESTIONS
    control.add(("echo", "Racket beats Go"), sequential.SUMMARY)     # before the first round
    options = control.options(("echo", "Racket beats Go"))           # its levels now
    control.observe(("echo", "Racket beats Go"), p_value)            # after each look: its anytime p-value
    control.levels_of("echo")                                        # [[claim, alpha, direction alpha], ...]
"""

from bench.analysis import sequential

# What the two families are in a run of a user's own questions (--claims, --versus): its questions, each under its
# load in the shared placement (or the one it names), are the summary's lines; the other placement's, the others.
YOUR_QUESTIONS = {
    sequential.SUMMARY: "your questions, each under its load (the summary's lines)",
    sequential.OTHER: "your questions in the other placement",
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
        level of its family changed."""
        before = self._levels(self.family[key])
        self.p_values[key] = min(self.p_values.get(key, 1.0), p_value)
        return self._levels(self.family[key]) != before

    def _levels(self, family):
        members = {key: p for key, p in self.p_values.items() if self.family[key] == family}
        return sequential.holm_levels(members, self.family_alpha)

    def options(self, key):
        """The sequential.Options a claim is judged at now: equivalence at its family's rate over its claims,
        a direction at its Holm level."""
        family = self.family[key]
        size = sum(1 for f in self.family.values() if f == family)
        return sequential.Options(margin=self.margin, alpha=self.family_alpha / size,
                                  direction_alpha=self._levels(family)[key])

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
