"""Credentials: from the environment, from ~/.aws/config + credentials (or
AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE), a profile chosen in the
URL fragment (aws.profile=NAME), unsigned requests (aws.profile=no, or no
credentials at all). s3s-fs verifies signatures, so a wrong secret there is
NC_EACCESS; moto does not, so unsigned access is checked on the wire (the
proxy sees no Authorization header) against a public-read bucket. And
NCTRACING=6 traces requests without ever printing the secret."""

import re

import pytest

from conftest import (ACCESS_KEY, BUCKET, NC_EACCESS, PUBLIC_BUCKET, SECRET_KEY, run, s3_url, status_of)

WRONG_SECRET = "this-is-not-the-secret-0000000000"


def no_keys(env):
    return {k: v for k, v in env.items() if k not in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}


def write_aws_files(directory):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config").write_text(
        "[default]\nregion = us-east-1\n\n[profile good]\nregion = us-east-1\n\n[profile bad]\nregion = us-east-1\n")
    (directory / "credentials").write_text(
        f"[default]\naws_access_key_id = {ACCESS_KEY}\naws_secret_access_key = {WRONG_SECRET}\n\n"
        f"[good]\naws_access_key_id = {ACCESS_KEY}\naws_secret_access_key = {SECRET_KEY}\n\n"
        f"[bad]\naws_access_key_id = {ACCESS_KEY}\naws_secret_access_key = {WRONG_SECRET}\n")


@pytest.fixture
def dataset(progs, s3sfs_server, prefix, env):
    url = s3_url(s3sfs_server.endpoint, BUCKET, f"{prefix}/d.zarr")
    run(progs["write_sample"], url, env=env)
    return url


def open_status(progs, url, env):
    return status_of(run(progs["s3probe"], "open", url, env=env).stdout, "open")


def test_environment_keys(progs, dataset, env):
    assert open_status(progs, dataset, env) == 0
    wrong = dict(env, AWS_SECRET_ACCESS_KEY=WRONG_SECRET)
    assert open_status(progs, dataset, wrong) == NC_EACCESS


def test_profiles_from_home(progs, dataset, env):
    e = no_keys(env)
    write_aws_files(__import__("pathlib").Path(e["HOME"]) / ".aws")
    # The default profile has the wrong secret; `good` the right one.
    assert open_status(progs, dataset, e) == NC_EACCESS
    assert open_status(progs, dataset + "&aws.profile=good", e) == 0
    assert open_status(progs, dataset + "&aws.profile=bad", e) == NC_EACCESS
    # Writing with the chosen profile works too.
    out = run(progs["s3probe"], "writebig", dataset.replace("/d.zarr", "/p.zarr") + "&aws.profile=good", 4, 8, 1,
              env=e).stdout
    assert status_of(out, "close") == 0


def test_profiles_from_named_files(progs, dataset, env, tmp_path):
    e = no_keys(env)
    write_aws_files(tmp_path / "elsewhere")
    e["AWS_CONFIG_FILE"] = str(tmp_path / "elsewhere" / "config")
    e["AWS_SHARED_CREDENTIALS_FILE"] = str(tmp_path / "elsewhere" / "credentials")
    assert open_status(progs, dataset + "&aws.profile=good", e) == 0
    assert open_status(progs, dataset, e) == NC_EACCESS


@pytest.fixture
def public_dataset(progs, moto_server, prefix, env):
    """A dataset we wrote to moto's public bucket, every object public-read."""
    key = f"{prefix}/pub.zarr"
    run(progs["write_data"], s3_url(moto_server.endpoint, PUBLIC_BUCKET, key), env=env)
    for k in moto_server.keys(PUBLIC_BUCKET, key + "/"):
        moto_server.client.put_object_acl(Bucket=PUBLIC_BUCKET, Key=k, ACL="public-read")
    return key


@pytest.mark.parametrize("how", ["profile-no", "no-credentials"])
def test_unsigned_public_bucket(progs, moto_server, public_dataset, env, proxy_for, how):
    expected = run(progs["describe"], s3_url(moto_server.endpoint, PUBLIC_BUCKET, public_dataset), env=env).stdout
    proxy = proxy_for(moto_server)
    url = s3_url(proxy.endpoint, PUBLIC_BUCKET, public_dataset)
    if how == "profile-no":
        e, url = env, url + "&aws.profile=no"  # keys in the environment, but not used
    else:
        e = no_keys(env)
    assert run(progs["describe"], url, env=e).stdout == expected
    reqs = proxy.snapshot()
    assert reqs and not any(r.signed for r in reqs), [(r.method, r.key, r.signed) for r in reqs]


def test_unsigned_private_object_refused(progs, moto_server, prefix, env):
    url = s3_url(moto_server.endpoint, BUCKET, f"{prefix}/private.zarr")
    run(progs["write_sample"], url, env=env)
    assert open_status(progs, url + "&aws.profile=no", env) == NC_EACCESS
    assert open_status(progs, url, env) == 0


def test_tracing_never_shows_the_secret(progs, server, prefix, env):
    url = s3_url(server.endpoint, BUCKET, f"{prefix}/d.zarr")
    for level in ("6", "7"):
        e = dict(env, NCTRACING=level)
        w = run(progs["write_data"], url, env=e)
        r = run(progs["describe"], url, env=e)
        for result in (w, r):
            assert SECRET_KEY not in result.stderr and SECRET_KEY not in result.stdout
            assert "Signature=" not in result.stderr and "X-Amz-Signature" not in result.stderr
        lines = r.stderr.splitlines()
        gets = [ln for ln in lines if re.fullmatch(r"nczarr-rs \(6\) s3 get \S+ bytes=\d+ ms=[0-9.]+ retries=\d+", ln)]
        assert gets, r.stderr[-2000:]
        assert any(".zmetadata" in ln for ln in gets)
        assert any(re.match(r"nczarr-rs \(6\) s3 (put|set|write)\S* ", ln) for ln in w.stderr.splitlines()), \
            w.stderr[-2000:]
    # A wrong secret: the failure is traced, the secret still not.
    e = dict(env, NCTRACING="7", AWS_SECRET_ACCESS_KEY=WRONG_SECRET)
    r = run(progs["s3probe"], "open", url, env=e)
    assert WRONG_SECRET not in r.stderr and WRONG_SECRET not in r.stdout
