"""A pytest plugin the Makefile loads for every suite (-p tests.pytest_no_skip):
with CI=true (set by CI services, and exported by `make test` for all it
runs) a skipped test, or a module skipped at collection, is a failure,
whatever skipped it. The suites' own helpers already fail instead of
skipping under CI=true (tests/s3, tests/zip, tests/v3 conftest.py); this
catches any other pytest.skip or importorskip. Expected failures (xfail)
are not skips and are left alone. Without CI=true (a target run alone,
`make interop-test`) skips stay skips, listed by -rs."""

import os

import pytest

NO_SKIPS = os.environ.get("CI") == "true"


def _fail_skip(report, where):
    if NO_SKIPS and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped {where} under CI=true, where nothing may be skipped: {reason}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    _fail_skip(report, "test")
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    report = yield
    _fail_skip(report, "at collection")
    return report
