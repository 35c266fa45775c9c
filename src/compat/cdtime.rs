//! The cdtime calendar arithmetic behind `ncdump -t`/`-i` and ncgen's
//! CDL `time()` literals, as netcdf-c 4.9.0 does it (libdispatch/nctime.c,
//! itself taken from LLNL's CDMS).
//!
//! Values must come out exactly as Debian's library prints them, so the
//! floating-point steps follow the same order: a relative time is turned
//! into "epochal" hours since 1970-01-01 in the calendar at hand, and
//! back into a calendar date by walking years and months. The year walks
//! are done here in 400-year strides (the C code steps one year at a
//! time), which gives the same answer for every year count.
//!
//! Every function is pure; cdtime's error reports ("CDMS error: ...") are
//! collected in a [`Diag`] for the caller to print or act on.

use super::scan::{Directive, Item, c_double_to_int, c_double_to_long, c_fmt_f, c_fmt_int, sscanf};

/// `cdCalenType` values.
///
/// cbindgen:ignore
pub mod cal {
    pub const STANDARD: u32 = 0x1111;
    pub const JULIAN: u32 = 0x11111;
    pub const NOLEAP: u32 = 0x1011;
    pub const D360: u32 = 0x0011;
    pub const D366: u32 = 0x2011;
    pub const CLIM: u32 = 0x1000;
    pub const CLIM_LEAP: u32 = 0x1100;
    pub const CLIM_360: u32 = 0x0000;
    pub const MIXED: u32 = 0x21111;
    /// `cdStandardCal`: set in every non-climatological calendar.
    pub const STANDARD_BITS: u32 = 0x11;
}

/// `CdTimeType` bits and values (the "old" time types the arithmetic
/// works in).
///
/// cbindgen:ignore
pub mod tt {
    pub const CHRON_CAL: u32 = 0x1;
    pub const BASE_1970: u32 = 0x10;
    pub const HAS_LEAP: u32 = 0x100;
    pub const D366: u32 = 0x2000;
    pub const D365: u32 = 0x1000;
    pub const JULIAN_TYPE: u32 = 0x10000;
    pub const CHRON: u32 = 0x1111;
    pub const JULIAN: u32 = 0x11111;
    pub const CHRON_NOLEAP: u32 = 0x1011;
    pub const CHRON_360: u32 = 0x11;
    pub const CHRON_366: u32 = 0x2011;
    pub const CLIM: u32 = 0x1000;
    pub const CLIM_LEAP: u32 = 0x1100;
    /// netcdf-c defines `CdClim360` with the 365-day bit, so the
    /// climatological 360-day calendar counts 365 days; kept.
    pub const CLIM_360: u32 = 0x1000;
}

/// `cdUnitTime`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Unit {
    Minute = 1,
    Hour = 2,
    Day = 3,
    Week = 4,
    Month = 5,
    Season = 6,
    Year = 7,
    Second = 8,
}

/// `cdCompTime`: a calendar date with fractional hours.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompTime {
    pub year: i64,
    pub month: i16,
    pub day: i16,
    pub hour: f64,
}

impl CompTime {
    pub const fn new(year: i64, month: i16, day: i16, hour: f64) -> Self {
        CompTime { year, month, day, hour }
    }
}

/// `CdTime`: a date in one of the old time types, relative to a base
/// year for the relative types.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HumanTime {
    pub year: i64,
    pub month: i16,
    pub day: i16,
    pub hour: f64,
    pub base_year: i64,
    pub time_type: u32,
}

/// cdtime's error reports, in order, each the text cdtime prints after
/// "CDMS error: " (its own trailing newline included where it has one).
pub type Diag = Vec<Vec<u8>>;

fn report(diag: &mut Diag, parts: &[&[u8]]) {
    diag.push(parts.concat());
}

/// The Gregorian switch of the mixed calendar: 1582-10-05 (Julian) is
/// followed by 1582-10-15 (Gregorian).
const ZA: CompTime = CompTime::new(1582, 10, 5, 0.0);
const ZB: CompTime = CompTime::new(1582, 10, 15, 0.0);

const MONTH_DAYS: [i32; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MONTH_DAYS_LEAP: [i32; 12] = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DAYS_BEFORE: [i32; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

fn is_leap(year: i64, time_type: u32) -> bool {
    time_type & tt::D366 != 0
        || (time_type & tt::HAS_LEAP != 0
            && year % 4 == 0
            && (time_type & tt::JULIAN_TYPE != 0 || year % 100 != 0 || year % 400 == 0))
}

/// Days in a (leap, common) year of a time type.
fn year_lengths(time_type: u32) -> (i64, i64) {
    if time_type & tt::D366 != 0 {
        (366, 366)
    } else if time_type & tt::D365 != 0 {
        (366, 365)
    } else {
        (360, 360)
    }
}

fn year_length(year: i64, time_type: u32) -> i64 {
    let (leap, common) = year_lengths(time_type);
    if is_leap(year, time_type) { leap } else { common }
}

/// Total days of the years `from..to` (from <= to).
fn days_in_years(time_type: u32, from: i64, to: i64) -> i128 {
    let (a, b) = (i128::from(from), i128::from(to));
    let multiples = |k: i128| (b - 1).div_euclid(k) - (a - 1).div_euclid(k);
    let leaps = if time_type & tt::D366 != 0 {
        b - a
    } else if time_type & tt::HAS_LEAP != 0 {
        if time_type & tt::JULIAN_TYPE != 0 { multiples(4) } else { multiples(4) - multiples(100) + multiples(400) }
    } else {
        0
    };
    let (leap, common) = year_lengths(time_type);
    (b - a) * i128::from(common) + leaps * i128::from(leap - common)
}

/// The year whose leap rule applies to a date: none for climatological
/// types, base + offset for relative ones.
fn calendar_year(h: &HumanTime) -> i64 {
    if h.time_type & tt::CHRON_CAL == 0 {
        0
    } else if h.time_type & tt::BASE_1970 == 0 {
        h.base_year.wrapping_add(h.year)
    } else {
        h.year
    }
}

/// Day of year from month and day (`CdDayOfYear`).
fn day_of_year(h: &HumanTime, diag: &mut Diag) -> i32 {
    let mut month = i32::from(h.month);
    if !(1..=12).contains(&month) {
        report(diag, &[format!("Day-of-year error; month: {month}\n").as_bytes()]);
        month = 1;
    }
    let leap_add = i32::from(is_leap(calendar_year(h), h.time_type) && month > 2);
    let day = i32::from(h.day);
    if h.time_type & (tt::D365 | tt::D366) != 0 {
        DAYS_BEFORE[(month - 1) as usize] + day + leap_add
    } else {
        30 * (month - 1) + day + leap_add
    }
}

/// Month and day from day of year (`CdMonthDay`).
fn set_month_day(doy: i32, h: &mut HumanTime) {
    if doy < 1 {
        h.month = 0;
        h.day = 0;
        return;
    }
    let table = if is_leap(calendar_year(h), h.time_type) { &MONTH_DAYS_LEAP } else { &MONTH_DAYS };
    let mut rest = doy;
    h.month = 0;
    for _ in 0..12 {
        h.month += 1;
        h.day = rest as i16;
        rest -= if h.time_type & (tt::D365 | tt::D366) != 0 { table[(h.month - 1) as usize] } else { 30 };
        if rest <= 0 {
            return;
        }
    }
}

/// `Cdh2e`: hours since 1970-01-01 (or since the base year, or since year
/// 0 for climatological types).
pub fn human_to_epoch(h: &HumanTime, diag: &mut Diag) -> f64 {
    let doy = day_of_year(h, diag);
    let t = h.time_type;
    let (mut base, mut year) =
        if t & tt::BASE_1970 != 0 { (1970, h.year) } else { (h.base_year, h.year.wrapping_add(h.base_year)) };
    if t & tt::CHRON_CAL == 0 {
        base = 0;
        year = 0;
    }
    let day_count = match year.cmp(&base) {
        std::cmp::Ordering::Greater => days_in_years(t, base, year),
        std::cmp::Ordering::Less => -days_in_years(t, year, base),
        std::cmp::Ordering::Equal => 0,
    };
    (day_count + i128::from(doy) - 1) as f64 * 24.0 + h.hour
}

/// `Cde2h`: the calendar date of an epochal time.
pub fn epoch_to_human(etime: f64, time_type: u32, base_year: i64) -> HumanTime {
    let mut doy = c_double_to_int((etime / 24.0).floor()).wrapping_add(1);
    let mut hour = etime - f64::from(doy.wrapping_sub(1)) * 24.0;
    if hour >= 24.0 {
        doy = doy.wrapping_add(1);
        hour -= 24.0;
    }
    let mut base = if time_type & tt::BASE_1970 != 0 { 1970 } else { base_year };
    if time_type & tt::CHRON_CAL == 0 {
        base = 0;
    }
    let cycle = days_in_years(time_type, 0, 400) as i64;
    let mut doy = i64::from(doy);
    let mut year;
    if doy > 0 {
        year = base;
        while doy > cycle {
            doy -= cycle;
            year = year.wrapping_add(400);
        }
        loop {
            let n = year_length(year, time_type);
            if doy <= n {
                break;
            }
            doy -= n;
            year = year.wrapping_add(1);
        }
    } else {
        year = base.wrapping_sub(1);
        while doy + cycle <= 0 {
            doy += cycle;
            year = year.wrapping_sub(400);
        }
        loop {
            doy += year_length(year, time_type);
            if doy > 0 {
                break;
            }
            year = year.wrapping_sub(1);
        }
    }
    let mut h = HumanTime {
        year: if time_type & tt::BASE_1970 != 0 { year } else { year.wrapping_sub(base) },
        month: 0,
        day: 0,
        hour,
        base_year: base,
        time_type,
    };
    if time_type & tt::CHRON_CAL == 0 {
        h.year = 0;
    }
    set_month_day(doy as i32, &mut h);
    h
}

/// Add `n` months to an epochal time (`CdAddDelTime` for month steps):
/// the result is the first of the target month at 00:00.
fn add_months(begin: f64, n: i64, time_type: u32, base_year: i64, diag: &mut Diag) -> f64 {
    let b = epoch_to_human(begin, time_type, base_year);
    let months = n.wrapping_add(i64::from(b.month) - 1);
    let years = if months >= 0 { months / 12 } else { (months + 1) / 12 - 1 };
    let e = HumanTime {
        year: b.year.wrapping_add(years),
        month: months.wrapping_sub(years.wrapping_mul(12)).wrapping_add(1) as i16,
        day: 1,
        hour: 0.0,
        base_year: if time_type & tt::CHRON_CAL == 0 {
            0
        } else if time_type & tt::BASE_1970 != 0 {
            1970
        } else {
            base_year
        },
        time_type,
    };
    human_to_epoch(&e, diag)
}

fn validate(c: &CompTime, diag: &mut Diag) -> bool {
    if !(1..=12).contains(&c.month) {
        report(diag, &[format!("Error on time conversion: invalid month = {}\n", c.month).as_bytes()]);
        return false;
    }
    if !(1..=31).contains(&c.day) {
        report(diag, &[format!("Error on time conversion: invalid day = {}\n", c.day).as_bytes()]);
        return false;
    }
    if c.hour < 0.0 || c.hour > 24.0 {
        report(diag, &[format!("Error on time conversion: invalid hour = {}\n", c_fmt_f(c.hour)).as_bytes()]);
        return false;
    }
    true
}

/// `cdChar2Comp`: "yyyy-mm-dd hh:mm:ss.s" (any tail may be missing;
/// "mm-dd hh:mm:ss" for climatological calendars). Missing parts are
/// January, the first, 00:00; range errors are reported and the parts
/// read so far kept.
pub fn char_to_comp(calendar: u32, chartime: &[u8], diag: &mut Diag) -> CompTime {
    use Directive::*;
    let mut c = CompTime::new(0, 1, 1, 0.0);
    let standard = calendar & cal::STANDARD_BITS != 0;
    let tail = [Space, Int(32), Literal(b':'), Int(32), Literal(b':'), Double];
    let format: Vec<Directive> = if standard {
        [Int(64), Literal(b'-'), Int(16), Literal(b'-'), Int(16)].iter().chain(&tail).copied().collect()
    } else {
        [Int(16), Literal(b'-'), Int(16)].iter().chain(&tail).copied().collect()
    };
    let items = match sscanf(chartime, &format) {
        Some(items) if !items.is_empty() => items,
        _ => {
            let end: &[u8] = if standard { b"\n" } else { b"" };
            report(diag, &[b"Error on character time conversion, string = ", chartime, end]);
            return c;
        }
    };
    let long = |i: usize| match items.get(i) {
        Some(Item::Long(v)) => Some(*v),
        _ => None,
    };
    let mut next = 0;
    if standard {
        c.year = long(0).unwrap_or(0);
        next = 1;
    }
    if let Some(m) = long(next) {
        c.month = m as i16;
    }
    if let Some(d) = long(next + 1) {
        c.day = d as i16;
    }
    if let Some(h) = long(next + 2) {
        if !(0..=23).contains(&h) {
            report(diag, &[format!("Error on character time conversion: invalid hour = {h}\n").as_bytes()]);
            return c;
        }
        c.hour = h as f64;
    }
    if let Some(m) = long(next + 3) {
        if !(0..=59).contains(&m) {
            report(diag, &[format!("Error on character time conversion: invalid minute = {m}\n").as_bytes()]);
            return c;
        }
        c.hour += m as f64 / 60.0;
    }
    if let Some(Item::Double(s)) = items.get(next + 4) {
        if *s < 0.0 || *s > 60.0 {
            report(
                diag,
                &[format!("Error on character time conversion: invalid second = {}\n", c_fmt_f(*s)).as_bytes()],
            );
            return c;
        }
        c.hour += s / 3600.0;
    }
    validate(&c, diag);
    c
}

fn starts_ci(word: &[u8], prefix: &[u8]) -> bool {
    word.len() >= prefix.len() && word[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// `cdParseRelunits`: "<unit> since <date>[ <time>]" or "<unit> since
/// <date>T<time>"; without a "since" clause the base is 1979 (month 1 for
/// climatological calendars). None is cdtime's failure (return 1).
pub fn parse_relunits(calendar: u32, relunits: &[u8], diag: &mut Diag) -> Option<(Unit, CompTime)> {
    use Directive::*;
    let since = [Space, Literal(b's'), Literal(b'i'), Literal(b'n'), Literal(b'c'), Literal(b'e'), Space];
    let blank: Vec<Directive> = [Word].iter().chain(&since).chain(&[Word, Space, Word]).copied().collect();
    let iso: Vec<Directive> =
        [Word].iter().chain(&since).chain(&[AllBut(b'T'), Literal(b'T'), Word]).copied().collect();
    let mut scanned = sscanf(relunits, &blank);
    if let Some(items) = &scanned
        && let Some(Item::Str(first)) = items.get(1)
        && first.contains(&b'T')
    {
        scanned = sscanf(relunits, &iso);
    }
    let words: Vec<Vec<u8>> = match scanned {
        Some(items) if !items.is_empty() => items
            .into_iter()
            .map(|i| match i {
                Item::Str(s) => s,
                _ => Vec::new(),
            })
            .collect(),
        _ => {
            report(diag, &[b"Error on relative units conversion, string = ", relunits, b"\n"]);
            return None;
        }
    };
    // cdtime's buffers hold 63 characters of unit and 47 of each date part.
    let clip = |s: &[u8], n: usize| s[..s.len().min(n)].to_vec();
    let units = clip(&words[0], 63);
    let exact = |s: &[u8]| units.eq_ignore_ascii_case(s);
    let unit = if starts_ci(&units, b"sec") || exact(b"s") {
        Unit::Second
    } else if starts_ci(&units, b"min") || exact(b"mn") {
        Unit::Minute
    } else if starts_ci(&units, b"hour") || exact(b"hr") {
        Unit::Hour
    } else if starts_ci(&units, b"day") || exact(b"dy") {
        Unit::Day
    } else if starts_ci(&units, b"week") || exact(b"wk") {
        Unit::Week
    } else if starts_ci(&units, b"month") || exact(b"mo") {
        Unit::Month
    } else if starts_ci(&units, b"season") {
        Unit::Season
    } else if starts_ci(&units, b"year") || exact(b"yr") {
        if calendar & cal::STANDARD_BITS == 0 {
            report(diag, &[b"Error on relative units conversion: climatological units cannot be 'years'.\n"]);
            return None;
        }
        Unit::Year
    } else {
        report(diag, &[b"Error on relative units conversion: invalid units = ", &units, b"\n"]);
        return None;
    };
    let basetime = match words.len() {
        1 if calendar & cal::STANDARD_BITS != 0 => b"1979".to_vec(),
        1 => b"1".to_vec(),
        2 => clip(&words[1], 47),
        _ => [clip(&words[1], 47), b" ".to_vec(), clip(&words[2], 47)].concat(),
    };
    Some((unit, char_to_comp(calendar, &basetime, diag)))
}

fn old_time_type(calendar: u32, diag: &mut Diag) -> Option<u32> {
    Some(match calendar {
        cal::STANDARD => tt::CHRON,
        cal::JULIAN => tt::JULIAN,
        cal::NOLEAP => tt::CHRON_NOLEAP,
        cal::D360 => tt::CHRON_360,
        cal::D366 => tt::CHRON_366,
        cal::CLIM => tt::CLIM,
        cal::CLIM_LEAP => tt::CLIM_LEAP,
        cal::CLIM_360 => tt::CLIM_360,
        _ => {
            report(
                diag,
                &[format!("Error on relative units conversion, invalid timetype = {}", calendar as i32).as_bytes()],
            );
            return None;
        }
    })
}

fn human(c: &CompTime, time_type: u32) -> HumanTime {
    HumanTime { year: c.year, month: c.month, day: c.day, hour: c.hour, base_year: 1970, time_type }
}

fn comp(h: &HumanTime) -> CompTime {
    CompTime::new(h.year, h.month, h.day, h.hour)
}

/// 1979-01-01: the base of a unit given without "since".
const DEFAULT_BASE: CompTime = CompTime::new(1979, 1, 1, 0.0);

/// Hours from 1979-01-01 to `c` in the standard or Julian calendar
/// (cdtime's `cdComp2Rel(calendar, c, "hours")`).
fn hours_since_default(calendar: u32, c: &CompTime, diag: &mut Diag) -> f64 {
    let t = if calendar == cal::JULIAN { tt::JULIAN } else { tt::CHRON };
    let base = human_to_epoch(&human(&DEFAULT_BASE, t), diag);
    let at = human_to_epoch(&human(c, t), diag);
    at - base
}

/// The date `hours` after 1979-01-01 (`cdRel2Comp(calendar, "hours", ...)`).
fn date_after_default(calendar: u32, hours: f64, diag: &mut Diag) -> CompTime {
    let t = if calendar == cal::JULIAN { tt::JULIAN } else { tt::CHRON };
    let base = human_to_epoch(&human(&DEFAULT_BASE, t), diag);
    comp(&epoch_to_human(base + hours, t, 1970))
}

fn compare(a: &CompTime, b: &CompTime) -> std::cmp::Ordering {
    a.year
        .cmp(&b.year)
        .then(a.month.cmp(&b.month))
        .then(a.day.cmp(&b.day))
        .then(a.hour.partial_cmp(&b.hour).unwrap_or(std::cmp::Ordering::Equal))
}

fn add_hours(c: &CompTime, hours: f64, calendar: u32, diag: &mut Diag) -> CompTime {
    let rel = hours_since_default(calendar, c, diag) + hours;
    date_after_default(calendar, rel, diag)
}

/// Add hours in the mixed calendar: Julian before 1582-10-15, Gregorian
/// from then on.
fn add_hours_mixed(c: &CompTime, hours: f64, diag: &mut Diag) -> CompTime {
    if compare(c, &ZB).is_lt() {
        let to_switch = hours_since_default(cal::JULIAN, &ZA, diag) - hours_since_default(cal::JULIAN, c, diag);
        if hours <= to_switch {
            add_hours(c, hours, cal::JULIAN, diag)
        } else {
            add_hours(&ZB, hours - to_switch, cal::STANDARD, diag)
        }
    } else {
        let to_switch = hours_since_default(cal::STANDARD, &ZB, diag) - hours_since_default(cal::STANDARD, c, diag);
        if hours > to_switch {
            add_hours(c, hours, cal::STANDARD, diag)
        } else {
            add_hours(&ZA, hours - to_switch, cal::JULIAN, diag)
        }
    }
}

/// `cdRel2Comp`: the date `reltime` units after the base in `relunits`.
/// None where cdtime leaves its result unset.
pub fn rel_to_comp(calendar: u32, relunits: &[u8], reltime: f64, diag: &mut Diag) -> Option<CompTime> {
    let (unit, base) = parse_relunits(calendar, relunits, diag)?;
    let mut calendar = calendar;
    if calendar == cal::MIXED {
        match unit {
            Unit::Year | Unit::Season | Unit::Month => calendar = cal::STANDARD,
            _ => {
                let hours = match unit {
                    Unit::Second => reltime / 3600.0,
                    Unit::Minute => reltime / 60.0,
                    Unit::Hour => reltime,
                    Unit::Day => 24.0 * reltime,
                    _ => 168.0 * reltime,
                };
                return Some(add_hours_mixed(&base, hours, diag));
            }
        }
    }
    let nudge = if reltime < 0.0 { -1.0e-10 } else { 1.0e-10 };
    let (hours, months) = match unit {
        Unit::Second => (reltime / 3600.0, 0),
        Unit::Minute => (reltime / 60.0, 0),
        Unit::Hour => (reltime, 0),
        Unit::Day => (24.0 * reltime, 0),
        Unit::Week => (168.0 * reltime, 0),
        Unit::Month => (0.0, c_double_to_long(reltime + nudge)),
        Unit::Season => (0.0, c_double_to_long(3.0 * reltime + nudge)),
        Unit::Year => (0.0, c_double_to_long(12.0 * reltime + nudge)),
    };
    let t = old_time_type(calendar, diag)?;
    let base_epoch = human_to_epoch(&human(&base, t), diag);
    let by_months = matches!(unit, Unit::Month | Unit::Season | Unit::Year);
    if by_months {
        if reltime == 0.0 {
            return Some(base);
        }
        let end = add_months(base_epoch, months, t, 1970, diag);
        Some(comp(&epoch_to_human(end, t, 1970)))
    } else {
        Some(comp(&epoch_to_human(base_epoch + hours, t, 1970)))
    }
}

/// cdtime's ISO text of a date (`cdComp2Iso`): trailing zero fields are
/// left out, seconds with a fraction are printed with six decimals.
pub fn comp_to_iso(calendar: u32, separator: u8, c: &CompTime, diag: &mut Diag) -> Option<Vec<u8>> {
    if !validate(c, diag) {
        return None;
    }
    let eps_sec = 0.5e-6;
    let eps_min = eps_sec / 60.0;
    let eps_hour = eps_min / 60.0;
    let hours = c_double_to_int(c.hour + eps_hour);
    let minutes_f = 60.0 * (c.hour - f64::from(hours));
    let minutes = c_double_to_int(minutes_f + eps_min);
    let sec = 60.0 * (minutes_f - f64::from(minutes));
    let whole_sec = c_double_to_int(sec + eps_sec);
    let skip = if sec - f64::from(whole_sec) < eps_sec {
        match (whole_sec, minutes, hours) {
            (0, 0, 0) => 4,
            (0, 0, _) => 3,
            (0, _, _) => 2,
            _ => 1,
        }
    } else {
        0
    };
    let mut out = Vec::new();
    if calendar & cal::STANDARD_BITS != 0 {
        out.extend(format!("{}-", c_fmt_int(c.year, 4)).bytes());
    }
    out.extend(format!("{}-{}", c_fmt_int(c.month.into(), 2), c_fmt_int(c.day.into(), 2)).bytes());
    if skip < 4 {
        out.push(separator);
        out.extend(c_fmt_int(hours.into(), 2).bytes());
    }
    if skip < 3 {
        out.extend(format!(":{}", c_fmt_int(minutes.into(), 2)).bytes());
    }
    match skip {
        0 => out.extend(format!(":{}", c_fmt_f(sec)).bytes()),
        1 => out.extend(format!(":{}", c_fmt_int(whole_sec.into(), 2)).bytes()),
        _ => {}
    }
    Some(out)
}

/// `cdRel2Iso`: a relative time value as ISO text. None where cdtime
/// writes nothing.
pub fn rel_to_iso(calendar: u32, relunits: &[u8], separator: u8, reltime: f64, diag: &mut Diag) -> Option<Vec<u8>> {
    let c = rel_to_comp(calendar, relunits, reltime, diag)?;
    comp_to_iso(calendar, separator, &c, diag)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iso(calendar: u32, units: &str, value: f64) -> String {
        let mut d = Diag::new();
        let out = rel_to_iso(calendar, units.as_bytes(), b' ', value, &mut d).expect("a date");
        assert!(d.is_empty(), "unexpected errors {d:?}");
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn standard_calendars() {
        assert_eq!(iso(cal::STANDARD, "days since 2000-01-01", 59.0), "2000-02-29");
        assert_eq!(iso(cal::STANDARD, "days since 2000-01-01", 60.5), "2000-03-01 12");
        assert_eq!(iso(cal::STANDARD, "hours since 1970-01-01 00:00:00", -1.0), "1969-12-31 23");
        assert_eq!(iso(cal::STANDARD, "seconds since 2000-01-01T00:00:00Z", 90.5), "2000-01-01 00:01:30.500000");
        assert_eq!(iso(cal::STANDARD, "minutes since 1999-12-31 23:59", 1.0), "2000-01-01");
        assert_eq!(iso(cal::STANDARD, "days since 1900-01-01", 365.0 * 200.0 + 49.0), "2100-01-01");
    }

    #[test]
    fn other_calendars() {
        assert_eq!(iso(cal::NOLEAP, "days since 2000-01-01", 59.0), "2000-03-01");
        assert_eq!(iso(cal::D366, "days since 2001-01-01", 59.0), "2001-02-29");
        assert_eq!(iso(cal::D360, "days since 2000-01-01", 59.0), "2000-02-30");
        assert_eq!(iso(cal::JULIAN, "days since 1900-02-28", 1.0), "1900-02-29");
        assert_eq!(iso(cal::STANDARD, "days since 1900-02-28", 1.0), "1900-03-01");
    }

    #[test]
    fn mixed_calendar_crosses_1582() {
        // cdtime treats Julian 1582-10-05 and Gregorian 1582-10-15 as one
        // instant and prints the Julian name when landing exactly on it.
        assert_eq!(iso(cal::MIXED, "days since 1582-10-04", 1.0), "1582-10-05");
        assert_eq!(iso(cal::MIXED, "days since 1582-10-04", 2.0), "1582-10-16");
        assert_eq!(iso(cal::MIXED, "days since 1582-10-15", -1.0), "1582-10-04");
        assert_eq!(iso(cal::MIXED, "days since 1500-02-28", 1.0), "1500-02-29");
        assert_eq!(iso(cal::MIXED, "days since 2000-01-01", 1.0), "2000-01-02");
    }

    #[test]
    fn month_units_land_on_the_first() {
        assert_eq!(iso(cal::STANDARD, "months since 2000-01-15", 1.0), "2000-02-01");
        assert_eq!(iso(cal::STANDARD, "months since 2000-01-15", 0.0), "2000-01-15");
        assert_eq!(iso(cal::STANDARD, "years since 2000-06-01", -1.0), "1999-06-01");
        assert_eq!(iso(cal::STANDARD, "seasons since 2000-01-01", 5.0), "2001-04-01");
    }

    #[test]
    fn relunits_parsing() {
        let mut d = Diag::new();
        let (u, b) = parse_relunits(cal::STANDARD, b"hours", &mut d).unwrap();
        assert_eq!((u, b), (Unit::Hour, DEFAULT_BASE));
        let (u, b) = parse_relunits(cal::STANDARD, b"Sec since 1-2-3 4:5:6", &mut d).unwrap();
        assert_eq!(u, Unit::Second);
        assert_eq!((b.year, b.month, b.day), (1, 2, 3));
        assert!((b.hour - (4.0 + 5.0 / 60.0 + 6.0 / 3600.0)).abs() < 1e-12);
        assert!(d.is_empty());
        assert!(parse_relunits(cal::STANDARD, b"", &mut d).is_none());
        assert!(parse_relunits(cal::STANDARD, b"furlongs since 2000", &mut d).is_none());
        assert!(parse_relunits(cal::CLIM, b"years since 1", &mut d).is_none());
        assert_eq!(d.len(), 3);
        assert_eq!(d[1], b"Error on relative units conversion: invalid units = furlongs\n");
        let long = format!("seconds{} since {}", "x".repeat(500), "9".repeat(500));
        let (_, b) = parse_relunits(cal::STANDARD, long.as_bytes(), &mut d).unwrap();
        assert_eq!(b.year, i64::MAX);
    }

    #[test]
    fn bad_dates_are_reported_and_kept() {
        let mut d = Diag::new();
        let c = char_to_comp(cal::STANDARD, b"2000-13-01", &mut d);
        assert_eq!((c.year, c.month, c.day), (2000, 13, 1));
        assert_eq!(d, vec![b"Error on time conversion: invalid month = 13\n".to_vec()]);
        d.clear();
        let c = char_to_comp(cal::STANDARD, b"2000-01-01 25:00", &mut d);
        assert_eq!(c.hour, 0.0);
        assert_eq!(d, vec![b"Error on character time conversion: invalid hour = 25\n".to_vec()]);
        d.clear();
        assert_eq!(char_to_comp(cal::STANDARD, b"junk", &mut d), CompTime::new(0, 1, 1, 0.0));
        assert_eq!(d.len(), 1);
    }

    #[test]
    fn epoch_round_trip_over_a_wide_range() {
        let mut d = Diag::new();
        for t in [tt::CHRON, tt::JULIAN, tt::CHRON_NOLEAP, tt::CHRON_360, tt::CHRON_366] {
            for year in [-100_000i64, -1, 0, 1, 1582, 1969, 1970, 2000, 2400, 1_000_000] {
                let h = HumanTime { year, month: 3, day: 1, hour: 6.0, base_year: 1970, time_type: t };
                let e = human_to_epoch(&h, &mut d);
                let back = epoch_to_human(e, t, 1970);
                assert_eq!((back.year, back.month, back.day, back.hour), (year, 3, 1, 6.0), "type {t:#x}");
            }
        }
        assert!(d.is_empty());
    }

    #[test]
    fn huge_and_odd_values_do_not_panic() {
        let mut d = Diag::new();
        for v in [f64::NAN, f64::INFINITY, -f64::INFINITY, 1e300, -1e300, 9.96921e36] {
            for c in [cal::STANDARD, cal::MIXED, cal::D360, cal::CLIM, cal::JULIAN] {
                for u in ["days since 2000-01-01", "months since 2000-01-01", "years since 1-1-1"] {
                    let _ = rel_to_iso(c, u.as_bytes(), b'T', v, &mut d);
                }
            }
        }
        let h = HumanTime { year: i64::MAX, month: 12, day: 31, hour: 0.0, base_year: 0, time_type: tt::CHRON };
        assert!(human_to_epoch(&h, &mut d).is_finite());
    }

    #[test]
    fn iso_format_details() {
        let mut d = Diag::new();
        let c = CompTime::new(-5, 1, 2, 1.5);
        assert_eq!(comp_to_iso(cal::STANDARD, b'T', &c, &mut d).unwrap(), b"-0005-01-02T01:30");
        assert_eq!(comp_to_iso(cal::CLIM, b' ', &c, &mut d).unwrap(), b"01-02 01:30");
        assert_eq!(comp_to_iso(cal::STANDARD, b' ', &CompTime::new(1, 1, 1, 25.0), &mut d), None);
        assert_eq!(d, vec![b"Error on time conversion: invalid hour = 25.000000\n".to_vec()]);
    }
}
