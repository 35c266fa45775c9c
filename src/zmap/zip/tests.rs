//! The zip driver against archives made here: by the driver itself, by
//! the `zip` crate (deflated entries), and byte by byte (duplicates, data
//! descriptors and every kind of lie).

use std::io::Write;

use super::commit::FAIL_AT;
use super::*;
use crate::zmap::MemoryMap;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nczarr-rs-zip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

/// One entry of a hand-built archive.
struct Raw<'a> {
    name: &'a str,
    data: Vec<u8>,
    deflate: bool,
    /// Local sizes and CRC zero, the real ones after the data.
    descriptor: bool,
}

fn raw<'a>(name: &'a str, data: &[u8]) -> Raw<'a> {
    Raw { name, data: data.to_vec(), deflate: false, descriptor: false }
}

fn deflated(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// Build a zip archive byte by byte, duplicates and all, as Python's
/// `zipfile` and jar writers lay them out. Returns the bytes and each
/// entry's central-directory record offset (for tests that then lie).
fn build(entries: &[Raw]) -> (Vec<u8>, Vec<usize>) {
    let mut out = Vec::new();
    let mut central = Vec::new();
    let mut records = Vec::new();
    for e in entries {
        let packed = if e.deflate { deflated(&e.data) } else { e.data.clone() };
        let crc = crc32fast::hash(&e.data);
        let method: u16 = if e.deflate { 8 } else { 0 };
        let flags: u16 = 0x800 | if e.descriptor { 8 } else { 0 };
        let header_start = out.len() as u32;
        let (lcrc, lc, lu) = if e.descriptor { (0, 0, 0) } else { (crc, packed.len() as u32, e.data.len() as u32) };
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&20u16.to_le_bytes());
        out.extend_from_slice(&flags.to_le_bytes());
        out.extend_from_slice(&method.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        for v in [lcrc, lc, lu] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(e.name.as_bytes());
        out.extend_from_slice(&packed);
        if e.descriptor {
            out.extend_from_slice(&0x0807_4b50u32.to_le_bytes());
            for v in [crc, packed.len() as u32, e.data.len() as u32] {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        records.push(central.len());
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes());
        central.extend_from_slice(&flags.to_le_bytes());
        central.extend_from_slice(&method.to_le_bytes());
        central.extend_from_slice(&[0; 4]);
        for v in [crc, packed.len() as u32, e.data.len() as u32] {
            central.extend_from_slice(&v.to_le_bytes());
        }
        central.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
        central.extend_from_slice(&[0; 12]);
        central.extend_from_slice(&header_start.to_le_bytes());
        central.extend_from_slice(e.name.as_bytes());
    }
    let cd_start = out.len();
    let records = records.iter().map(|r| r + cd_start).collect();
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&(cd_start as u32).to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    (out, records)
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).unwrap();
}

/// The archive's entries as the `zip` crate sees them: (name, method).
fn entries(path: &Path) -> Vec<(String, CompressionMethodName)> {
    let mut archive = zip::ZipArchive::new(File::open(path).unwrap()).unwrap();
    assert!(!archive.has_duplicate_names(), "{path:?} has duplicates");
    (0..archive.len())
        .map(|i| {
            let f = archive.by_index_raw(i).unwrap();
            (f.name().unwrap().to_string(), format!("{:?}", f.compression()))
        })
        .collect()
}
type CompressionMethodName = String;

fn get(map: &dyn Zmap, key: &str) -> Option<Vec<u8>> {
    map.get(key).unwrap()
}

#[test]
fn new_archive_has_netcdf_c_layout() {
    let path = scratch("d.b.zip");
    let map = ZipMap::create_with(&path, false, ZipLayout::Directory, Durability::default(), |m| {
        m.put(".zgroup", b"{}")?;
        m.put("g/v/0.0", &[1, 2, 3])?;
        m.put("g/v/0.0", &[4, 5, 6])?;
        m.put("empty", b"")
    })
    .unwrap();
    let names: Vec<String> = entries(&path)
        .into_iter()
        .map(|(n, m)| {
            assert_eq!(m, "Stored", "{n}");
            n
        })
        .collect();
    assert_eq!(names, ["d.b/", "d.b/.zgroup", "d.b/empty", "d.b/g/", "d.b/g/v/", "d.b/g/v/0.0"]);
    assert_eq!(get(&map, "g/v/0.0").unwrap(), [4, 5, 6]);
    let again = ZipMap::open(&path).unwrap();
    assert_eq!(again.prefix, "d.b/");
    assert_eq!(get(&again, "g/v/0.0").unwrap(), [4, 5, 6]);
    assert_eq!(get(&again, "empty").unwrap(), b"");
    assert_eq!(again.list("").unwrap(), [".zgroup", "empty", "g"]);
    assert_eq!(again.list("g").unwrap(), ["v"]);
    assert_eq!(again.get_range("g/v/0.0", 1, 2).unwrap().unwrap(), [5, 6]);
    assert_eq!(again.get_range("g/v/0.0", 2, 2), Err(NcError::ENCZARR));
    assert_eq!(again.get_suffix("g/v/0.0", 2).unwrap().unwrap(), [5, 6]);
    assert_eq!(again.get_suffix("g/v/0.0", 4), Err(NcError::ENCZARR));
    // No temporary left beside it.
    let left: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".d.b.zip"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn root_layout_and_clobbering() {
    let path = scratch("root.zip");
    ZipMap::create_with(&path, false, ZipLayout::Root, Durability::default(), |m| m.put(".zgroup", b"1")).unwrap();
    assert_eq!(entries(&path), [(".zgroup".to_string(), "Stored".to_string())]);
    let no = ZipMap::create_with(&path, false, ZipLayout::Root, Durability::default(), |m| m.put(".zgroup", b"2"));
    assert_eq!(no.err(), Some(NcError::EEXIST));
    // A failed init leaves the old archive.
    let failed = ZipMap::create_with(&path, true, ZipLayout::Root, Durability::default(), |m| {
        m.put(".zgroup", b"3")?;
        Err(NcError::EIO)
    });
    assert_eq!(failed.err(), Some(NcError::EIO));
    assert_eq!(get(&ZipMap::open(&path).unwrap(), ".zgroup").unwrap(), b"1");
    ZipMap::create_with(&path, true, ZipLayout::Root, Durability::default(), |m| m.put(".zgroup", b"4")).unwrap();
    assert_eq!(get(&ZipMap::open(&path).unwrap(), ".zgroup").unwrap(), b"4");
}

/// The same operations on a zip archive and on the in-memory store give
/// the same views, before and after commits.
#[test]
fn behaves_like_the_memory_store() {
    let path = scratch("same.zip");
    let zip = ZipMap::create_with(&path, false, ZipLayout::Directory, Durability::default(), |_| Ok(())).unwrap();
    let mem = MemoryMap::new();
    let both = |f: &dyn Fn(&dyn Zmap)| {
        f(&zip);
        f(&mem);
    };
    let same = |zip: &dyn Zmap| {
        for prefix in ["", "a", "a/b", "a-b", "c", "z"] {
            assert_eq!(zip.list(prefix).unwrap(), mem.list(prefix).unwrap(), "list {prefix}");
        }
        let keys = mem.list_recursive("").unwrap();
        assert_eq!(zip.list_recursive("").unwrap().len(), keys.len());
        for key in keys {
            assert_eq!(zip.get(&key).unwrap(), mem.get(&key).unwrap(), "{key}");
        }
    };
    both(&|m| {
        m.put(".zgroup", b"{}").unwrap();
        m.put("a/b/0", b"zero").unwrap();
        m.put("a/b/1", b"one").unwrap();
        m.put("a/c", b"c").unwrap();
        // Siblings that sort among `a`'s keys.
        m.put("a-b/x", b"ab").unwrap();
        m.put("a.b", b"a.b").unwrap();
        m.put("top", b"t").unwrap();
    });
    same(&zip);
    zip.commit().unwrap();
    same(&zip);
    both(&|m| {
        m.move_prefix("a/b", "c/d").unwrap();
        m.put("c/d/2", b"two").unwrap();
        m.drop_alias("a/b").unwrap();
        m.delete("top").unwrap();
        m.delete("nothing").unwrap();
    });
    same(&zip);
    zip.commit().unwrap();
    same(&zip);
    let reopened = ZipMap::open(&path).unwrap();
    same(&reopened);
    both(&|m| m.delete_prefix("").unwrap());
    zip.commit().unwrap();
    same(&zip);
    // An empty dataset is not one: nothing says what it is.
    assert_eq!(ZipMap::open(&path).err(), Some(NcError::ENOTNC));
}

#[test]
fn discard_and_failed_commits_leave_the_archive() {
    let path = scratch("keep.zip");
    ZipMap::create_with(&path, false, ZipLayout::Directory, Durability::default(), |m| m.put(".zgroup", b"old"))
        .unwrap();
    let before = std::fs::read(&path).unwrap();
    let map = ZipMap::open(&path).unwrap();
    map.put(".zgroup", b"new").unwrap();
    map.put("v/0", b"data").unwrap();
    assert!(map.discard().unwrap());
    assert_eq!(get(&map, ".zgroup").unwrap(), b"old");
    assert_eq!(get(&map, "v/0"), None);
    map.commit().unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), before, "nothing to commit");
    for step in ["sync", "rename"] {
        map.put(".zgroup", b"new").unwrap();
        FAIL_AT.set(Some(step));
        assert_eq!(map.commit(), Err(NcError::EIO));
        FAIL_AT.set(None);
        assert_eq!(std::fs::read(&path).unwrap(), before, "failed at {step}");
        let temps = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(".keep.zip"))
            .count();
        assert_eq!(temps, 0, "temporary left after failing at {step}");
    }
    // The changes are still there to commit.
    map.commit().unwrap();
    assert_eq!(get(&ZipMap::open(&path).unwrap(), ".zgroup").unwrap(), b"new");
}

#[test]
fn rewrite_copies_entries_raw() {
    // A zipped directory with deflated entries, a data descriptor, a
    // directory entry and junk beside the store.
    let path = scratch("deflated.zip");
    let chunk: Vec<u8> = (0..5000u32).map(|i| (i % 7) as u8).collect();
    let (bytes, _) = build(&[
        raw("d.zarr/", b""),
        Raw { deflate: true, ..raw("d.zarr/.zgroup", br#"{"zarr_format":2}"#) },
        Raw { deflate: true, descriptor: true, ..raw("d.zarr/v/0", &chunk) },
        raw("d.zarr/v/1", b"stored"),
        raw("__MACOSX/._junk", b"mac"),
    ]);
    write(&path, &bytes);
    let map = ZipMap::open(&path).unwrap();
    assert_eq!(map.prefix, "d.zarr/");
    assert_eq!(get(&map, "v/0").unwrap(), chunk);
    assert_eq!(map.list("").unwrap(), [".zgroup", "v"]);
    map.put("v/1", b"changed").unwrap();
    map.move_prefix("v", "w").unwrap();
    map.drop_alias("v").unwrap();
    map.commit().unwrap();
    let listed = entries(&path);
    let method = |n: &str| listed.iter().find(|(name, _)| name == n).map(|(_, m)| m.clone());
    assert_eq!(listed[0].0, "d.zarr/");
    assert_eq!(method("d.zarr/.zgroup").as_deref(), Some("Deflated"));
    assert_eq!(method("d.zarr/w/0").as_deref(), Some("Deflated"));
    assert_eq!(method("d.zarr/w/1").as_deref(), Some("Stored"));
    assert_eq!(method("d.zarr/v/0"), None);
    assert_eq!(listed.last().unwrap().0, "__MACOSX/._junk");
    let again = ZipMap::open(&path).unwrap();
    assert_eq!(get(&again, "w/0").unwrap(), chunk);
    assert_eq!(get(&again, "w/1").unwrap(), b"changed");
    assert_eq!(get(&again, "v/0"), None);
    let mut archive = zip::ZipArchive::new(File::open(&path).unwrap()).unwrap();
    for i in 0..archive.len() {
        std::io::copy(&mut archive.by_index(i).unwrap(), &mut std::io::sink()).unwrap();
    }
}

#[test]
fn duplicates_resolve_to_the_last_and_are_dropped_on_rewrite() {
    // zarr-python's ZipStore: keys at the root, rewritten keys appended.
    let path = scratch("dups.zip");
    let (bytes, _) =
        build(&[raw(".zgroup", b"first"), raw("v/0", &[1, 1]), raw(".zgroup", b"second"), raw("v/0", &[7, 7])]);
    write(&path, &bytes);
    let map = ZipMap::open(&path).unwrap();
    assert_eq!(map.prefix, "");
    assert_eq!(get(&map, ".zgroup").unwrap(), b"second");
    assert_eq!(get(&map, "v/0").unwrap(), [7, 7]);
    map.put("v/1", &[2]).unwrap();
    map.commit().unwrap();
    let names: Vec<String> = entries(&path).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, [".zgroup", "v/0", "v/1"]);
    assert_eq!(get(&ZipMap::open(&path).unwrap(), "v/0").unwrap(), [7, 7]);
}

#[test]
fn many_entries_make_zip64() {
    let path = scratch("many.zip");
    let n = 70_000u32;
    ZipMap::create_with(&path, false, ZipLayout::Root, Durability::default(), |m| {
        m.put(".zgroup", b"{}")?;
        (0..n).try_for_each(|i| m.put(&format!("v/{i}"), &i.to_le_bytes()))
    })
    .unwrap();
    let map = ZipMap::open(&path).unwrap();
    assert_eq!(map.list("v").unwrap().len(), n as usize);
    for i in [0, 65_535, 65_536, n - 1] {
        assert_eq!(get(&map, &format!("v/{i}")).unwrap(), i.to_le_bytes());
    }
}

/// Each damaged or lying archive is an error, at open or at the read of
/// the entry concerned; nothing panics.
#[test]
fn hostile_archives() {
    let path = scratch("hostile.zip");
    let open_err = |bytes: &[u8]| {
        write(&path, bytes);
        ZipMap::open(&path).err()
    };
    let good = build(&[raw(".zgroup", b"{}"), raw("v/0", b"12345678"), raw("v/1", b"abcdefgh")]);
    assert!(open_err(&good.0).is_none());
    // Not a zip, empty, truncated.
    assert_eq!(open_err(b"hello, not a zip at all"), Some(NcError::ENOTNC));
    assert_eq!(open_err(b""), Some(NcError::ENOTNC));
    assert_eq!(open_err(&good.0[..good.0.len() - 10]), Some(NcError::ENCZARR));
    assert_eq!(open_err(&good.0[..good.0.len() / 2]), Some(NcError::ENCZARR));
    // Names escaping the root.
    for bad in ["../x", "/abs", "a\\b", "a//b", "./a"] {
        let (bytes, _) = build(&[raw(".zgroup", b"{}"), raw(bad, b"1")]);
        assert_eq!(open_err(&bytes), Some(NcError::ENCZARR), "{bad}");
    }
    // Neither a store nor a zip of one.
    assert_eq!(open_err(&build(&[raw("readme.txt", b"hi")]).0), Some(NcError::ENOTNC));
    // A stored entry whose sizes run into the next entry.
    let mut lie = good.0.clone();
    let record = good.1[1];
    lie[record + 20..record + 28].copy_from_slice(&[40, 0, 0, 0, 40, 0, 0, 0]);
    assert_eq!(open_err(&lie), Some(NcError::ENCZARR));
    // A deflated entry claiming far less (or far more) than it holds.
    let big = vec![0u8; 1 << 20];
    let bomb = build(&[raw(".zgroup", b"{}"), Raw { deflate: true, ..raw("v/0", &big) }]);
    for claimed in [1000u32, u32::MAX - 1] {
        let mut lie = bomb.0.clone();
        let record = bomb.1[1];
        lie[record + 24..record + 28].copy_from_slice(&claimed.to_le_bytes());
        match open_err(&lie) {
            Some(e) => assert_eq!(e, NcError::ENCZARR),
            None => assert_eq!(ZipMap::open(&path).unwrap().get("v/0"), Err(NcError::ENCZARR)),
        }
    }
    // An honest bomb: 65 MiB of zeros in 64 KiB, refused before inflating.
    let zeros = vec![0u8; 65 << 20];
    let honest = build(&[raw(".zgroup", b"{}"), Raw { deflate: true, ..raw(".zattrs", &zeros) }]);
    assert!(open_err(&honest.0).is_none());
    assert_eq!(ZipMap::open(&path).unwrap().get(".zattrs"), Err(NcError::ENCZARR));
    // A flipped data byte: the CRC catches it.
    let mut flipped = good.0.clone();
    let at = flipped.windows(8).position(|w| w == b"12345678").unwrap();
    flipped[at] ^= 1;
    assert!(open_err(&flipped).is_none());
    assert_eq!(ZipMap::open(&path).unwrap().get("v/0"), Err(NcError::ENCZARR));
    // A local header that disagrees with the central directory.
    let mut renamed = good.0.clone();
    let at = renamed.windows(3).position(|w| w == b"v/1").unwrap();
    renamed[at + 2] = b'9';
    assert!(open_err(&renamed).is_none());
    assert_eq!(ZipMap::open(&path).unwrap().get("v/1"), Err(NcError::ENCZARR));
    // Two entries at the same place (the overlapping-entries bomb).
    let mut overlap = good.0.clone();
    let (first, second) = (good.1[1], good.1[2]);
    let offset: [u8; 4] = overlap[first + 42..first + 46].try_into().unwrap();
    overlap[second + 42..second + 46].copy_from_slice(&offset);
    assert_eq!(open_err(&overlap), Some(NcError::ENCZARR));
    // Encrypted, or compressed with a method we do not read.
    let mut encrypted = good.0.clone();
    encrypted[good.1[1] + 8] |= 1;
    assert_eq!(open_err(&encrypted), Some(NcError::ENCZARR));
    let mut bzip = good.0.clone();
    bzip[good.1[1] + 10] = 12;
    if open_err(&bzip).is_none() {
        assert_eq!(ZipMap::open(&path).unwrap().get("v/0"), Err(NcError::ENCZARR));
    }
    // A name that is not UTF-8.
    let mut latin = good.0.clone();
    for at in [good.1[2] + 46, 30 + 7 + 2 + 30 + 3 + 8 + 30] {
        assert_eq!(&latin[at..at + 3], b"v/1");
        latin[at + 2] = 0xff;
    }
    assert_eq!(open_err(&latin), Some(NcError::ENCZARR));
}

#[test]
fn directories_and_missing_files() {
    let dir = scratch("a-directory.zip");
    std::fs::create_dir_all(&dir).unwrap();
    assert_eq!(ZipMap::open(&dir).err(), Some(NcError::ENOTNC));
    let _ = std::fs::remove_dir(&dir);
    assert_eq!(ZipMap::open(&scratch("missing.zip")).err(), Some(NcError::ENOOBJECT));
}

#[test]
fn a_link_to_an_archive_stays_a_link() {
    let target = scratch("target.zip");
    let link = scratch("link.zip");
    ZipMap::create_with(&target, false, ZipLayout::Root, Durability::default(), |m| m.put(".zgroup", b"1")).unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let map = ZipMap::open(&link).unwrap();
    map.put(".zgroup", b"2").unwrap();
    map.commit().unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(get(&ZipMap::open(&target).unwrap(), ".zgroup").unwrap(), b"2");
    ZipMap::create_with(&link, true, ZipLayout::Root, Durability::default(), |m| m.put(".zgroup", b"3")).unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(get(&ZipMap::open(&target).unwrap(), ".zgroup").unwrap(), b"3");
}
