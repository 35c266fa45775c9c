"""Directory stores zipped by hand with Info-ZIP's zip, as users do: the
store's own directory at the top (with and without directory entries,
deflated or stored), its contents at the root, a deep path prefix, and
macOS junk (__MACOSX/) beside the store. Each zip reads exactly as the
directory does: describe.c and Debian's ncdump -s over our library."""

import shutil
import subprocess
import zipfile

import pytest

import ziputil
from conftest import describe, dir_url, ncdump, run, zip_url

# variant -> (zip arguments, directory zip runs in relative to the store's
# parent, path of the zip relative to the store's parent, the prefix of
# every store key in the zip).
VARIANTS = {
    "r": (["-qr", "../z/d.zip", "d.file"], "", "d.file/"),
    "rD": (["-qrD", "../z/d.zip", "d.file"], "", "d.file/"),
    "r0": (["-qr0", "../z/d.zip", "d.file"], "", "d.file/"),
    "root": (["-qr", "../../z/d.zip", "."], "d.file", ""),
    "deep": (["-qr", "../z/d.zip", "sub/dir/d.file"], "", "sub/dir/d.file/"),
    "macosx": (["-qr", "../z/d.zip", "d.file"], "", "d.file/"),
}


@pytest.fixture(scope="session")
def stores(progs, tmp_path_factory):
    """source -> directory store d.file our library wrote: "make" is
    zip_edit's compressible dataset, "data" write_data.c's."""
    made = {}

    def get(source):
        if source not in made:
            path = tmp_path_factory.mktemp(f"src-{source}") / "d.file"
            if source == "make":
                run(progs["zip_edit"], "make", dir_url(path))
            else:
                run(progs["write_data"], dir_url(path))
            made[source] = path
        return made[source]
    return get


def infozip_zip(infozip, store, workdir, variant):
    """Zip a copy of store under workdir/src one way; returns the zip,
    workdir/z/d.zip."""
    args, cwd, _ = VARIANTS[variant]
    src = workdir / "src"
    (workdir / "z").mkdir(parents=True)
    target = src / "sub" / "dir" / "d.file" if variant == "deep" else src / "d.file"
    shutil.copytree(store, target)
    subprocess.run([infozip, *args], cwd=src / cwd, check=True)
    if variant == "macosx":
        junk = src / "__MACOSX" / "d.file"
        junk.mkdir(parents=True)
        (junk / "._.zgroup").write_bytes(b"\0\5\26\7 Mac OS X resource fork")
        (src / "__MACOSX" / "._x").write_bytes(b"\0\5\26\7")
        subprocess.run([infozip, "-qr", "../z/d.zip", "__MACOSX"], cwd=src, check=True)
    return workdir / "z" / "d.zip"


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("source", ["make", "data"])
def test_infozip_zip_reads_like_directory(progs, ours, infozip, stores, tmp_path, source, variant):
    store = stores(source)
    archive = infozip_zip(infozip, store, tmp_path, variant)
    prefix = VARIANTS[variant][2]
    infos = ziputil.infos(archive)
    # The zip is what the variant says: the store's objects under prefix,
    # directory entries unless -D, deflated unless -0.
    files = ziputil.contents(archive)
    if variant == "macosx":
        assert infos[-1].filename.startswith("__MACOSX/")
        files = {k: v for k, v in files.items() if not k.startswith("__MACOSX/")}
    assert ziputil.strip_prefix(files, prefix) == ziputil.tree(store)
    assert any(i.is_dir() for i in infos) == (variant != "rD")
    methods = {i.compress_type for i in infos if not i.is_dir()}
    if variant == "r0":
        assert methods == {zipfile.ZIP_STORED}
    elif source == "make":
        assert zipfile.ZIP_DEFLATED in methods
    expected = describe(progs, dir_url(store))
    assert describe(progs, zip_url(archive)) == expected
    assert "    data " in expected
    assert ncdump(ours, "-s", zip_url(archive)) == ncdump(ours, "-s", dir_url(store))


def test_infozip_values(progs, infozip, stores, tmp_path):
    """The compressible dataset's values, from a deflated zip."""
    archive = infozip_zip(infozip, stores("make"), tmp_path, "r")
    assert ziputil.infos(archive)[0].filename == "d.file/"
    text = describe(progs, zip_url(archive))
    assert "    data [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5]\n" in text
    assert "    data [100, 99, 98, 97, 96, 95, 94, 93, 92, 91]\n" in text
    assert "    data [0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6, 0, " in text
