"""Zarr v3 reading: stores zarr-python 3.1.6 and xarray write (corpus.py)
are read through our library (dump_values.c) and every value, type,
dimension, fill value and attribute is compared with the view expected.py
derives from the store with zarr-python. Corrupt stores must give an
error on the damaged variable, never values.

What the reader does not do yet is listed per variable in KNOWN with the
one problem it may cause (an xfail naming the gap, for that exact problem
only: wrong values or another error still fail; a gap that no longer
shows fails as a strict XPASS, to be removed from the list); any other
difference fails. The same
corpus written as Zarr v2 runs through the v2 reader (test_v2_harness),
and the expected views are cross-checked with zarr-python
(test_expected_view)."""

import pytest

import corpus
import expected
from conftest import dump


# What our readers do not do yet, by (format, feature, variable): the one
# problem each gap may cause, exactly as expected.compare words it, and
# why. Only that problem is excused (never wrong values, another error
# code or anything else about the variable); a gap that no longer shows
# fails the test (strict XPASS), so that it is taken off this list. "*" as
# the variable is the whole store (a problem such as "open failed: -51").
NC_ENOFILTER = -136
KNOWN = {}


def known_problems(fmt, feature):
    """{problem text: why} of the known gaps of a store."""
    return {(what if var == "*" else f"{var}: {what}"): why
            for (f, feat, var), (what, why) in KNOWN.items() if f == fmt and feat == feature}


def only_known(fmt, feature, problems, got):
    """Fail on any problem but the known ones; fail too when a known one
    is gone (XPASS, strict); xfail when exactly the known ones remain."""
    known = known_problems(fmt, feature)
    other = [p for p in problems if p not in known]
    assert not other, report(other, got)
    fixed = sorted(set(known) - set(problems))
    if fixed:
        pytest.fail("[XPASS(strict)] known gaps no longer show: remove them from KNOWN in "
                    f"tests/v3/test_read_v3.py: {fixed}", pytrace=False)
    if problems:
        pytest.xfail("; ".join(sorted(set(known.values()))))


def check(dumper, path, fmt, corrupt=None):
    """Problems found comparing our view of a store with the expected one."""
    want = expected.expected_view(path, fmt, corrupt=corrupt)
    got = dump(dumper, path)
    return want, got, expected.compare(want, got)


def report(problems, got):
    return "\n".join(problems) + "\n--- dump ---\n" + got["text"][:20000]


@pytest.mark.parametrize("fmt,writer", [(3, w) for w in corpus.V3_WRITERS] + [(2, w) for w in corpus.V2_WRITERS],
                         ids=lambda x: x.__name__ if callable(x) else f"v{x}")
def test_expected_view(tmp_path, fmt, writer):
    """The expectations agree with zarr-python: nodes, fill values, sizes."""
    path = tmp_path / f"{writer.__name__}.zarr"
    writer(path, zarr_format=fmt)
    view = expected.expected_view(path, fmt)
    assert view["vars"]
    assert not expected.self_check(view, path, fmt)


@pytest.mark.parametrize("writer", corpus.V3_WRITERS, ids=lambda w: w.__name__)
def test_v3_store(dumper, tmp_path, writer):
    path = tmp_path / f"{writer.__name__}.zarr"
    writer(path, zarr_format=3)
    _, got, problems = check(dumper, path, 3)
    only_known(3, writer.__name__, problems, got)


@pytest.mark.parametrize("damage", corpus.CORRUPTORS, ids=lambda f: f.__name__)
def test_v3_corrupt(dumper, tmp_path, damage):
    path = corpus.corruptible(tmp_path / "corrupt.zarr")
    victim = damage(path)
    want, got, problems = check(dumper, path, 3, corrupt={victim})
    assert want["vars"][victim]["data"] == {"kind": "error", "codes": None}
    # The healthy arrays beside it still read; the victim never gives values.
    only_known(3, "corruptible", problems, got)


@pytest.mark.parametrize("writer", corpus.V2_WRITERS, ids=lambda w: w.__name__)
def test_v2_harness(dumper, tmp_path, writer):
    """The harness on the same features written as Zarr v2, which the v2
    reader reads: everything must match but the known gaps."""
    path = tmp_path / f"{writer.__name__}.zarr"
    writer(path, zarr_format=2)
    _, got, problems = check(dumper, path, 2)
    only_known(2, writer.__name__, problems, got)


def test_compare_notices_differences(dumper, tmp_path):
    """The comparison is not vacuous: a store read right matches, and each
    kind of difference is reported."""
    path = tmp_path / "defaults.zarr"
    corpus.defaults(path, zarr_format=2)
    want, got, problems = check(dumper, path, 2)
    assert not problems
    assert want["vars"]["/t_float32"]["fill"]["bits"] == "0x00000000"
    edits = {
        "a float value": lambda v: v["vars"]["/t_float32"]["data"]["values"].__setitem__(3, 1.5),
        "-0.0 for 0.0": lambda v: v["vars"]["/t_float64"]["data"]["values"].__setitem__(3, 0.0),
        "NaN for a number": lambda v: v["vars"]["/t_float64"]["data"]["values"].__setitem__(4, float("nan")),
        "u64 max - 1": lambda v: v["vars"]["/t_uint64"]["data"]["values"].__setitem__(-1, 2**64 - 2),
        "fill bits": lambda v: v["vars"]["/t_float32"]["fill"].__setitem__("bits", "0x80000000"),
        "a dimension": lambda v: v["vars"]["/cube"]["dims"].__setitem__(0, ("m", 3)),
        "group dims": lambda v: v["groups"]["/g1/g2"]["dims"].__setitem__("x", 5),
        "a type": lambda v: v["vars"]["/t_bool"].__setitem__("type", "byte"),
        "a variable": lambda v: v["vars"].pop("/empty"),
        "a group": lambda v: v["groups"].pop("/empty_group"),
        "an attribute": lambda v: v["groups"]["/"]["atts"].__setitem__("int", ("int64", [7])),
        "a string": lambda v: v["vars"]["/g1/v"]["atts"].__setitem__("new", ("char", "x")),
        "an error": lambda v: v["vars"]["/scalar"].__setitem__("data", {"kind": "error", "codes": None}),
        "an error code": lambda v: v["vars"]["/t_float16"].__setitem__("data", {"kind": "error", "codes": {-136}}),
    }
    quiet = []
    for name, edit in edits.items():
        altered = expected.expected_view(path, 2)
        edit(altered)
        if not expected.compare(altered, got):
            quiet.append(name)
    assert not quiet, f"differences not reported: {quiet}"


def test_known_gaps_excuse_only_their_problem(monkeypatch):
    """A known gap excuses its own problem and nothing else: not wrong
    values or another error of the same variable, and not its absence.
    (Two gaps issue 22 closed stand in for whatever the list holds.)"""
    got = {"text": ""}
    nested = f"/nested: data error {NC_ENOFILTER}, expected values"
    transposed = f"/transposed: data error {NC_ENOFILTER}, expected values"
    monkeypatch.setitem(KNOWN, (3, "sharding", "/nested"), (nested.split(": ", 1)[1], "shards inside shards"))
    monkeypatch.setitem(KNOWN, (3, "sharding", "/transposed"), (transposed.split(": ", 1)[1], "transpose first"))
    with pytest.raises(pytest.xfail.Exception):
        only_known(3, "sharding", [nested, transposed], got)
    for wrong in ("/nested: [0] = 1, expected 2", "/nested: data error -45, expected values",
                  "/nested: type int, expected short", "/other: data error -136, expected values"):
        with pytest.raises(AssertionError):
            only_known(3, "sharding", [nested, transposed, wrong], got)
    for fixed in ([nested], [transposed], []):
        with pytest.raises(pytest.fail.Exception, match="XPASS"):
            only_known(3, "sharding", fixed, got)
    only_known(3, "defaults", [], got)  # no gaps, no problems: passes


def test_assumed_mappings_are_listed():
    """Each assumed mapping says what and why."""
    assert all(len(entry) == 2 and all(entry) for entry in expected.ASSUMED_MAPPINGS)
