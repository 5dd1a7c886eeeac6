"""How the reports print numbers and tables: one number format everywhere (a float to 3 significant digits
below 10, one decimal below 1,000, whole with thousands separators above; "-" for a missing value), and
Markdown tables of rows.

    tables.format_number(1234.5)                                   # "1,234"
    print(tables.markdown_table(rows, ["server", "load", "msgs_per_s"]))
"""


def format_number(value):
    if value is None:
        return "-"
    if isinstance(value, float):
        if value == 0:
            return "0"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        if abs(value) >= 10:
            return f"{value:.1f}"
        return f"{value:.3g}"
    return str(value)


def markdown_table(rows, columns=None):
    if not rows:
        return "(no rows)\n"
    if columns is None:
        columns = []
        for row in rows:
            for key in row:
                if key not in columns and not isinstance(row[key], (list, dict)):
                    columns.append(key)
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(format_number(row.get(c)) for c in columns) + " |")
    return "\n".join(lines) + "\n"
