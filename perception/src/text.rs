//! Text helpers shared by the stages: whitespace collapsing and number-aware `contains`.
//! A leaf: it imports nothing from this crate.

/// `hay.contains(needle)`, except that a needle starting (ending) with a digit must not be
/// preceded (followed) by a digit in `hay`.
pub fn contains_number_aware(hay: &str, needle: &str) -> bool {
    let starts = needle.chars().next().is_some_and(|c| c.is_ascii_digit());
    let ends = needle.chars().last().is_some_and(|c| c.is_ascii_digit());
    if !starts && !ends {
        return hay.contains(needle);
    }
    hay.match_indices(needle).any(|(at, m)| {
        let before = hay[..at].chars().last().is_some_and(|c| c.is_ascii_digit());
        let after = hay[at + m.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit());
        !(starts && before || ends && after)
    })
}

/// Collapses runs of whitespace to one space and trims.
pub fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::contains_number_aware as c;

    #[test]
    fn a_count_is_not_found_inside_a_bigger_number() {
        assert!(c("3 items left", "3 items left"));
        assert!(!c("13 items left", "3 items left"));
        assert!(c("13 items left · 3 items left", "3 items left"));
        assert!(!c("total 1,230", "1,23"));
        assert!(c("buy milk", "milk"));
        assert!(c("page 2 of 5", "2 of 5"));
    }
}
