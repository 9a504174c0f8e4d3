//! The dashboard's device-matrix and data-row text fields: one cell (or row) per line,
//! written `k=v, k2>=13, k3 in [a, b]`. Shared by the schedules page and the New suite form;
//! each parse has its inverse, so an edit form shows a stored spec as it would be typed.

use std::collections::BTreeMap;

use argus_protocol::Selector;

/// The comma-separated parts of a matrix line, trimmed; a comma inside `[…]` (the list
/// of an `in` constraint) does not split.
fn top_level_parts(line: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in line.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth <= 0 => {
                parts.push(&line[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&line[start..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// One matrix line, `k=v, k2>=13, k3 in [a, b]` → a cell: plain `k=v` parts are labels,
/// the other constraints go to `require` (checked when the schedule is validated).
pub(super) fn parse_cell(line: &str) -> Result<Selector, String> {
    let mut sel = Selector::default();
    let mut labels = BTreeMap::new();
    for part in top_level_parts(line) {
        let plain = !part.contains("!=")
            && !part.contains(">=")
            && !part.contains("<=")
            && !part.contains(" in ")
            && !part.contains('>')
            && !part.contains('<');
        match part.split_once('=') {
            Some((k, v)) if plain => {
                labels.insert(k.trim().to_string(), v.trim().to_string());
            }
            _ if !plain => sel.require.push(part.to_string()),
            _ => return Err(format!("{part:?} is not key=value")),
        }
    }
    sel.labels = labels;
    Ok(sel)
}

/// The cell as a matrix line, the inverse of [`parse_cell`].
pub(super) fn cell_line(sel: &Selector) -> String {
    let mut parts: Vec<String> = sel.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
    parts.extend(sel.require.iter().cloned());
    parts.join(", ")
}

/// One data-row line, `USER=alice, PASS=${secret.alice}` → the row's vars. A part that is
/// not `KEY=value`, or a key given twice, is refused with what to fix.
pub(super) fn parse_row(line: &str) -> Result<BTreeMap<String, String>, String> {
    let mut row = BTreeMap::new();
    for part in top_level_parts(line) {
        let Some((k, v)) = part.split_once('=') else {
            return Err(format!("{part:?} is not KEY=value"));
        };
        let k = k.trim();
        if k.is_empty() {
            return Err(format!("{part:?} has no name before ="));
        }
        if row.insert(k.to_string(), v.trim().to_string()).is_some() {
            return Err(format!("{k} is given twice"));
        }
    }
    Ok(row)
}

/// The row as a data-row line, the inverse of [`parse_row`].
pub(super) fn row_line(row: &BTreeMap<String, String>) -> String {
    row.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_lines_round_trip_labels_and_constraints() {
        let sel = parse_cell("model=Pixel 7,os_version>=13, team in [a, b]").unwrap();
        assert_eq!(sel.labels.len(), 1);
        assert_eq!(sel.labels["model"], "Pixel 7");
        assert_eq!(sel.require, vec!["os_version>=13", "team in [a, b]"]);
        assert_eq!(parse_cell(&cell_line(&sel)).unwrap(), sel);
        assert!(parse_cell("just words").is_err());
    }

    #[test]
    fn data_rows_round_trip_and_refuse_what_is_not_a_pair() {
        let row = parse_row("USER=alice, PASS=${secret.alice}, LIST=[a, b]").unwrap();
        assert_eq!(row.len(), 3);
        assert_eq!(row["PASS"], "${secret.alice}");
        assert_eq!(row["LIST"], "[a, b]");
        assert_eq!(parse_row(&row_line(&row)).unwrap(), row);
        assert!(parse_row("alice").is_err());
        assert!(parse_row("=x").is_err());
        assert!(parse_row("A=1, A=2").is_err());
    }
}
