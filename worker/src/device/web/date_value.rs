//! The value a date/time `<input>` holds for a date or time as people write it.
//!
//! Chromium's date/time fields are segmented: typed key by key, `11:10 AM` leaves a time
//! field empty and `02/04/2012` a date field too (measured on Chromium 156: the separators
//! and the space are dropped with everything after them), and digits alone depend on the
//! browser's locale for the segment order. So the worker sets the field's value in the
//! HTML form (`YYYY-MM-DD`, `HH:MM[:SS]`, `YYYY-MM-DDTHH:MM`, `YYYY-MM`), as Playwright's
//! `fill` does, and fires `input` and `change`.
//!
//! Read formats: dates as ISO `2012-02-04` or US `02/04/2012`, `2/4/12` (month first, as
//! en-US writes them; two-digit years are 20xx); times as `11:10`, `8:05 pm`, `23:59:30`;
//! a date-time as a date, a space or `T`, and a time; a month as `2012-02` or `02/2012`.
//! Anything else (and `week` fields) is typed as keys, as before.

/// The form value for `text` in an `<input type=…>` of `input_type`; `None` when the type
/// is not a date/time type or the text is in none of the read formats.
pub(super) fn field_value(input_type: &str, text: &str) -> Option<String> {
    let text = text.trim();
    match input_type {
        "date" => date(text).map(|(y, m, d)| format!("{y:04}-{m:02}-{d:02}")),
        "time" => time(text),
        "datetime-local" => {
            let (d, t) = text.split_once('T').or_else(|| text.split_once(' '))?;
            let (y, m, dd) = date(d.trim())?;
            Some(format!("{y:04}-{m:02}-{dd:02}T{}", time(t.trim())?))
        }
        "month" => month(text).map(|(y, m)| format!("{y:04}-{m:02}")),
        _ => None,
    }
}

/// Runs of ASCII digits in `s`, as numbers with their lengths.
fn groups(s: &str) -> Vec<(u32, usize)> {
    s.split(|c: char| !c.is_ascii_digit())
        .filter(|g| !g.is_empty() && g.len() <= 4)
        .filter_map(|g| Some((g.parse().ok()?, g.len())))
        .collect()
}

fn year(v: u32, len: usize) -> Option<u32> {
    match len {
        4 => Some(v),
        2 => Some(2000 + v),
        _ => None,
    }
}

fn date(s: &str) -> Option<(u32, u32, u32)> {
    if s.chars().any(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let (y, m, d) = match groups(s).as_slice() {
        [(y, 4), (m, _), (d, _)] => (*y, *m, *d),
        [(m, 1..=2), (d, 1..=2), (y, yl)] => (year(*y, *yl)?, *m, *d),
        _ => return None,
    };
    ((1..=12).contains(&m) && (1..=31).contains(&d)).then_some((y, m, d))
}

fn time(s: &str) -> Option<String> {
    let lower = s.to_ascii_lowercase();
    let pm = lower.ends_with("pm") || lower.ends_with("p.m.");
    let am = lower.ends_with("am") || lower.ends_with("a.m.");
    let (h, m, sec) = match groups(s).as_slice() {
        [(h, 1..=2), (m, 2)] => (*h, *m, None),
        [(h, 1..=2), (m, 2), (sec, 2)] => (*h, *m, Some(*sec)),
        _ => return None,
    };
    let h = match (am, pm) {
        (true, _) | (_, true) if !(1..=12).contains(&h) => return None,
        (true, _) => h % 12,
        (_, true) => h % 12 + 12,
        _ => h,
    };
    if h > 23 || m > 59 || sec.is_some_and(|s| s > 59) {
        return None;
    }
    Some(match sec {
        Some(sec) => format!("{h:02}:{m:02}:{sec:02}"),
        None => format!("{h:02}:{m:02}"),
    })
}

fn month(s: &str) -> Option<(u32, u32)> {
    let (y, m) = match groups(s).as_slice() {
        [(y, 4), (m, 1..=2)] => (*y, *m),
        [(m, 1..=2), (y, 4)] => (*y, *m),
        _ => return None,
    };
    (1..=12).contains(&m).then_some((y, m))
}

#[cfg(test)]
mod tests {
    use super::field_value;

    #[test]
    fn dates_times_and_months_as_people_write_them() {
        let v = |t: &str, s: &str| field_value(t, s);
        assert_eq!(v("date", "02/04/2012").as_deref(), Some("2012-02-04"));
        assert_eq!(v("date", "3/1/2012").as_deref(), Some("2012-03-01"));
        assert_eq!(v("date", "2012-02-04").as_deref(), Some("2012-02-04"));
        assert_eq!(v("date", "2/4/12").as_deref(), Some("2012-02-04"));
        assert_eq!(v("time", "11:10 AM").as_deref(), Some("11:10"));
        assert_eq!(v("time", "1:05 PM").as_deref(), Some("13:05"));
        assert_eq!(v("time", "12:30 am").as_deref(), Some("00:30"));
        assert_eq!(v("time", "12:30 PM").as_deref(), Some("12:30"));
        assert_eq!(v("time", "23:59:30").as_deref(), Some("23:59:30"));
        assert_eq!(
            v("datetime-local", "02/04/2012 8:05 pm").as_deref(),
            Some("2012-02-04T20:05")
        );
        assert_eq!(v("month", "02/2012").as_deref(), Some("2012-02"));
        // Not a date / time this reads: typed as keys instead.
        for (t, s) in [
            ("date", "13/45/2012"),
            ("date", "tomorrow"),
            ("date", "Feb 4 2012"),
            ("time", "25:00"),
            ("time", "13:00 PM"),
            ("time", "noon"),
            ("text", "11:10 AM"),
            ("week", "2012-W05"),
        ] {
            assert_eq!(v(t, s), None, "{t} {s}");
        }
    }
}
