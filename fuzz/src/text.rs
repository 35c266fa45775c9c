//! Targets over text parsers: dataset names (`url::parse`), and the
//! netcdf-c internals the utilities import (`ncuri`, cdtime, filter
//! specs, with the HDF5-parameter <-> codec JSON mapping).

use arbitrary::Unstructured;
use netcdf::codec::spec;
use netcdf::compat::cdtime::{self, CompTime, HumanTime, cal, tt};
use netcdf::compat::{filterspec, ncuri};

/// `url::parse`: any name is an answer or an error; a parsed URL's
/// display name (what `nc_inq_path` reports) names the same dataset.
pub fn url(data: &[u8]) {
    let Ok(name) = std::str::from_utf8(data) else { return };
    let Ok(u) = netcdf::url::parse(name) else { return };
    let _ = (u.pure_zarr(), u.xarray_dims(), u.layout_490());
    if let Some(display) = u.display_name() {
        let again = netcdf::url::parse(&display)
            .unwrap_or_else(|e| panic!("{name:?} displays as {display:?}, which does not parse: {e:?}"));
        assert_eq!(
            (&again.mode, &again.params, &again.storage),
            (&u.mode, &u.params, &u.storage),
            "{name:?} displays as {display:?}, which names something else"
        );
    }
}

/// The characters `ncuri` leaves unencoded in paths, less `%`.
const ALLOW: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!#$&'()*+,-./:;=?@_~";

/// `ncuriparse`, `ncuribuild` with every flag combination, the fragment
/// and query edits, `%` coding and `nc__testurl`.
pub fn ncuri(data: &[u8]) {
    let (flags, text) = match data.split_first() {
        Some((&f, rest)) => (i32::from(f & 63), rest),
        None => return,
    };
    assert_eq!(ncuri::decode(&ncuri::encode(text, ALLOW)), text, "%-coding round trip");
    let _ = ncuri::parse_params(text);
    let _ = ncuri::test_url(text);
    let Ok(mut uri) = ncuri::parse(text) else { return };
    let _ = uri.build(b"", b"", flags);
    let _ = uri.build(b"pre", b"suf", ncuri::NCURIPATH | ncuri::NCURIQUERY | ncuri::NCURIFRAG);
    if flags & 1 != 0 {
        uri.ensure_query();
    }
    if flags & 2 != 0 {
        uri.ensure_fragment();
    }
    uri.append_fragment_key(b"mode", Some(b"nczarr,file"));
    uri.append_fragment_key(b"log", None);
    let rebuilt = uri.build(b"", b"", ncuri::NCURIPATH | ncuri::NCURIPWD | ncuri::NCURIQUERY | ncuri::NCURIFRAG);
    let _ = ncuri::parse(&rebuilt);
}

const CALENDARS: &[u32] = &[
    cal::STANDARD,
    cal::JULIAN,
    cal::NOLEAP,
    cal::D360,
    cal::D366,
    cal::CLIM,
    cal::CLIM_LEAP,
    cal::CLIM_360,
    cal::MIXED,
];
const TIME_TYPES: &[u32] =
    &[tt::CHRON, tt::JULIAN, tt::CHRON_NOLEAP, tt::CHRON_360, tt::CHRON_366, tt::CLIM, tt::CLIM_LEAP, tt::CLIM_360];

/// cdtime: relative units ("days since 1-1-1"), dates, ISO output and
/// the epochal conversions, in every calendar (and invalid ones).
pub fn cdtime(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let pick = |u: &mut Unstructured, table: &[u32]| -> u32 {
        match u.int_in_range(0..=table.len()).unwrap_or(0) {
            i if i < table.len() => table[i],
            _ => u.arbitrary().unwrap_or(0),
        }
    };
    let calendar = pick(&mut u, CALENDARS);
    let time_type = pick(&mut u, TIME_TYPES);
    let separator: u8 = u.arbitrary().unwrap_or(b' ');
    let reltime: f64 = u.arbitrary().unwrap_or(0.0);
    let human = HumanTime {
        year: u.arbitrary().unwrap_or(0),
        month: u.arbitrary().unwrap_or(1),
        day: u.arbitrary().unwrap_or(1),
        hour: u.arbitrary().unwrap_or(0.0),
        base_year: u.arbitrary().unwrap_or(0),
        time_type,
    };
    let comp = CompTime::new(human.year, human.month, human.day, human.hour);
    let split = u.arbitrary::<u8>().unwrap_or(0) as usize;
    let text = u.take_rest();
    let (units, date) = text.split_at(split.min(text.len()));

    let mut diag = Vec::new();
    let _ = cdtime::parse_relunits(calendar, units, &mut diag);
    let _ = cdtime::rel_to_comp(calendar, units, reltime, &mut diag);
    let _ = cdtime::rel_to_iso(calendar, units, separator, reltime, &mut diag);
    let parsed = cdtime::char_to_comp(calendar, date, &mut diag);
    let _ = cdtime::comp_to_iso(calendar, separator, &parsed, &mut diag);
    let _ = cdtime::comp_to_iso(calendar, separator, &comp, &mut diag);
    let epoch = cdtime::human_to_epoch(&human, &mut diag);
    let _ = cdtime::epoch_to_human(epoch, time_type, human.base_year);
    let _ = cdtime::epoch_to_human(reltime, time_type, human.base_year);
}

/// Filter specs (`ncaux_h5filterspec_parselist` and its parts) and the
/// HDF5 parameters <-> codec JSON mapping of what they name.
pub fn filterspec(data: &[u8]) {
    let _ = filterspec::parse_parameter(data);
    let _ = filterspec::parse_spec(data);
    let Ok(list) = filterspec::parse_list(data) else { return };
    for s in &list.specs {
        let elem_size = s.params.first().map_or(4, |&p| (p % 16) as usize);
        let Ok(json) = spec::to_json(s.id, &s.params, elem_size) else { continue };
        let (id, params) = spec::from_json(&json);
        assert_eq!(id, s.id, "{json}");
        let one_level = matches!(s.id, spec::DEFLATE | spec::BZIP2 | spec::ZSTD | spec::LZ4) && s.params.len() == 1;
        let blosc = s.id == spec::BLOSC && s.params[..3] == [0, 0, 0];
        if one_level || blosc {
            assert_eq!(params, s.params, "{json}");
        }
    }
}
