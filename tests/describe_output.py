"""Reading what tests/interop/describe.c prints, and writing values the
way it prints them, for the suites that compare its output with another
implementation's reading of the same store."""


def data_lines(description):
    """{variable path: its data line without `data `} from describe.c's
    output ("sub/inner" for variable inner of group /sub)."""
    out, group, var = {}, "/", None
    for line in description.splitlines():
        if line.startswith("group "):
            group = line.split(" ", 1)[1]
        elif line.startswith("  var "):
            var = line.split()[1]
        elif line.startswith("    data ") and var:
            out[(group.rstrip("/") + "/" + var).lstrip("/")] = line[len("    data "):]
    return out


def values_line(values):
    """describe.c's data line for numeric values (doubles as %.17g), without `data `."""
    return "[" + ", ".join(f"{v:.17g}" if values.dtype.kind == "f" else str(v) for v in values.ravel()) + "]"
