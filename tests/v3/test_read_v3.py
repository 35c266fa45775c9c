"""Zarr v3 reading: stores zarr-python 3.1.6 and xarray write (corpus.py)
are read through our library (dump_values.c) and every value, type,
dimension, fill value and attribute is compared with the view expected.py
derives from the store with zarr-python. Corrupt stores must give an
error on the damaged variable, never values.

What the reader does not do yet is listed per variable in KNOWN (an
xfail naming the gap; a variable listed there that reads right is an
XPASS to remove from the list); any other difference fails. The same
corpus written as Zarr v2 runs through the v2 reader (test_v2_harness),
and the expected views are cross-checked with zarr-python
(test_expected_view)."""

import pytest

import corpus
import expected
from conftest import dump


# What our readers do not do yet, by (format, feature, variable); "*" is
# every variable of the feature's store.
KNOWN = {}


def only_known(fmt, feature, problems, got):
    """Fail on any problem not in KNOWN; xfail on known ones."""
    known = {var: why for (f, feat, var), why in KNOWN.items() if f == fmt and feat == feature}

    def why(problem):
        return known.get("*") or next((w for var, w in known.items() if problem.startswith(f"{var}:")), None)

    other = [p for p in problems if why(p) is None]
    assert not other, report(other, got)
    if problems:
        pytest.xfail("; ".join(sorted({why(p) for p in problems})))


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


def test_assumed_mappings_are_listed():
    """Each assumed mapping says what and why."""
    assert all(len(entry) == 2 and all(entry) for entry in expected.ASSUMED_MAPPINGS)
