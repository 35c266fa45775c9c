"""The storage under an NCZarr URL, for the stand-ins of netcdf-c's
nczarr_test helper programs (zmapio.py, ncdumpchunks.py): a directory
(mode=...,file) or a zip archive (mode=...,zip), read directly, with no
libnetcdf. Keys are netcdf-c's: '/'-separated, starting with '/'."""

import os
import sys
import zipfile


def shell_unescape(s):
    """netcdf-c's NC_shellUnescape: drop each backslash, keep what follows."""
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            i += 1
        out.append(s[i])
        i += 1
    return "".join(out)


def split_url(url):
    """(scheme, path, {fragment key: value}) of netcdf-c's URL forms; the
    scheme is None for a plain path."""
    base, _, frag = url.partition("#")
    params = {}
    for kv in frag.split("&") if frag else []:
        k, _, v = kv.partition("=")
        params[k] = v
    if "://" not in base:
        return None, base, params
    scheme, _, rest = base.partition("://")
    return scheme, rest, params


def impl_of(params):
    """The storage named in mode=...: 'file', 'zip', 's3' or None."""
    for seg in params.get("mode", "").split(","):
        if seg in ("file", "zip", "s3"):
            return seg
    return None


class FileStore:
    """A dataset in a directory (netcdf-c's zmap_file)."""

    def __init__(self, root):
        if not os.path.isdir(root):
            raise FileNotFoundError(root)
        self.root = root

    def _path(self, key):
        return os.path.join(self.root, key.lstrip("/"))

    def search(self, prefix):
        """Names just below prefix (objects and directories)."""
        p = self._path(prefix)
        return os.listdir(p) if os.path.isdir(p) else []

    def length(self, key):
        """The object's size, or None for a directory (no content)."""
        p = self._path(key)
        return None if os.path.isdir(p) or not os.path.exists(p) else os.path.getsize(p)

    def read(self, key):
        with open(self._path(key), "rb") as f:
            return f.read()


class ZipStore:
    """A dataset in a zip archive (netcdf-c's zmap_zip): the keys live under
    one top directory (netcdf-c's layout: the first entry's first segment),
    or at the root of the archive."""

    def __init__(self, path):
        self.zf = zipfile.ZipFile(path)
        names = self.zf.namelist()
        top = names[0].split("/", 1)[0] if names else ""
        if names and "/" in names[0] and all(n == top or n.startswith(top + "/") for n in names):
            self.prefix = top + "/"
        else:
            self.prefix = ""
        self.files = {}
        self.dirs = set()
        for n in names:
            if not n.startswith(self.prefix):
                continue
            key = n[len(self.prefix):]
            if n.endswith("/"):
                key = key.rstrip("/")
                if key:
                    self.dirs.add(key)
            elif key:
                self.files[key] = n
            parts = key.split("/")
            for i in range(1, len(parts)):
                self.dirs.add("/".join(parts[:i]))

    def search(self, prefix):
        p = prefix.strip("/")
        if p and p not in self.dirs:
            return []
        want = p + "/" if p else ""
        out = set()
        for k in list(self.files) + list(self.dirs):
            if k.startswith(want) and k != p:
                out.add(k[len(want):].split("/", 1)[0])
        return sorted(out)

    def length(self, key):
        n = self.files.get(key.strip("/"))
        return None if n is None else self.zf.getinfo(n).file_size

    def read(self, key):
        return self.zf.read(self.files[key.strip("/")])


def open_store(url):
    """The store an NCZarr URL names; exits 1 with a message when it cannot."""
    scheme, path, params = split_url(url)
    impl = impl_of(params)
    if scheme != "file" or impl not in ("file", "zip"):
        sys.stderr.write("%s: only file:// URLs with mode=...,file or mode=...,zip are read\n" % url)
        sys.exit(1)
    try:
        return FileStore(path) if impl == "file" else ZipStore(path)
    except (OSError, zipfile.BadZipFile) as e:
        sys.stderr.write("fail: %s: %s\n" % (url, e))
        sys.exit(1)
