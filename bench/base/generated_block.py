"""A block of a page that a program writes: the lines between a begin marker ("<!-- ... written by `COMMAND`
-->") and an end marker ("<!-- end ... -->"), replaced whole, so that no figure in it is typed by hand (README.md's
answers, docs/methodology.md's global-null rates; bench/cli/hand_written_figures_test.py reads the rest).

    text = generated_block.replaced(text, BEGIN, END, lines, "README.md's answers")
"""


def replaced(text, begin, end, lines, what):
    """`text` with the lines between `begin` and `end` set to `lines`; ValueError naming `what` and the
    markers where `text` lacks either."""
    if begin not in text or end not in text:
        raise ValueError(f"no block for {what} (its markers: {begin} ... {end})")
    start, stop = text.index(begin) + len(begin), text.index(end)
    return text[:start] + "\n" + "\n".join(lines) + "\n" + text[stop:]
