//! How an instruction is cut into clauses: at sentences, "but", "so", colons and dashes, a
//! Chinese condition's 就; without list markers, lead fillers and clauses of fillers alone.

use crate::agent::{clauses, conditions, effects};

/// The instruction's clauses as read: (without fillers, as written), split at sentences,
/// "but", "so", a Chinese condition's 就; clauses of nothing but fillers dropped.
pub(super) fn clauses_of(instruction: &str) -> Vec<(String, String)> {
    clauses::segments(instruction)
        .iter()
        .flat_map(|s| effects::split_but(s))
        .flat_map(|s| split_so(&s))
        .flat_map(|s| conditions::split_zh(&s))
        .map(|s| (strip_all_fillers(&s), s))
        .filter(|(s, _)| !only_fillers(s))
        .collect()
}

/// Lead words of a correction that goes on with an order of its own ("…, untick it, no
/// actually just delete it").
const CORRECTION_LEADS: &[&str] = &[
    "no actually, ",
    "no actually ",
    "no, actually, ",
    "no, actually ",
    "actually no, ",
    "actually no ",
    "no wait, ",
    "no wait ",
    "actually, ",
    "actually ",
    "no, ",
    "sorry, ",
];

/// The order in clause `seg` after a correction's lead ([`CORRECTION_LEADS`]): `None` when
/// it has no such lead or what follows orders nothing.
pub(super) fn correction_rest(seg: &str) -> Option<String> {
    let t = seg.trim();
    let lower = t.to_lowercase();
    let lead = CORRECTION_LEADS.iter().find(|l| lower.starts_with(**l))?;
    let rest = t.get(lead.len()..)?.trim();
    let rest = rest.strip_prefix("just ").unwrap_or(rest);
    // "actually scratch that" takes back, it orders nothing of its own.
    if super::clause_kind::cancels(rest) || super::clause_kind::cancels(t) {
        return None;
    }
    effects::order_of(rest).map(|_| rest.to_string())
}

/// `seg` without the lead words of [`clauses::strip_fillers`] and [`effects::EN_FILLERS`]
/// ("so", "and then", "afterwards").
fn strip_all_fillers(seg: &str) -> String {
    let seg = correction_rest(seg).unwrap_or_else(|| seg.to_string());
    let mut s = clauses::strip_fillers(without_marker(&seg))
        .trim()
        .to_string();
    while let Some(f) = effects::EN_FILLERS
        .iter()
        .find(|f| s.get(..f.len()).is_some_and(|h| h.eq_ignore_ascii_case(f)))
    {
        s = clauses::strip_fillers(&s[f.len()..]).trim().to_string();
    }
    s
}

/// `seg` without a list marker before it ("1) ", "2. ", "- ", "• ", "（1）").
fn without_marker(seg: &str) -> &str {
    let t = seg.trim_start();
    let t = t.trim_start_matches(['-', '*', '•', '·']).trim_start();
    let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
    let rest = &t[digits..];
    if digits > 0 && digits < 3 {
        if let Some(r) = rest
            .strip_prefix([')', '.', '、', '）', ':'])
            .filter(|r| r.starts_with(' ') || r.chars().next().is_some_and(effects::is_cjk))
        {
            return r.trim_start();
        }
    }
    // "a) ", "iv) ": a letter or a roman numeral before a bracket.
    if let Some((n, r)) = t.split_once([')', '）']) {
        if lettered(n) && r.starts_with(' ') {
            return r.trim_start();
        }
    }
    t.strip_prefix(['(', '（'])
        .and_then(|r| r.split_once([')', '）']))
        .filter(|(n, _)| !n.is_empty() && (n.chars().all(|c| c.is_ascii_digit()) || lettered(n)))
        .map(|(_, r)| r.trim_start())
        .unwrap_or(t)
}

/// Whether `n` is a list marker's letter: one ASCII letter, or a roman numeral up to viii.
fn lettered(n: &str) -> bool {
    let n = n.trim().to_lowercase();
    (n.len() == 1 && n.chars().all(|c| c.is_ascii_lowercase()))
        || ["ii", "iii", "iv", "vi", "vii", "viii"].contains(&n.as_str())
}

/// Whether a clause is nothing but joining words ("and", "then", "然后").
fn only_fillers(seg: &str) -> bool {
    seg.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .all(|w| {
            [
                "and",
                "then",
                "also",
                "so",
                "or",
                "now",
                "please",
                "after",
                "that",
                "this",
                "afterwards",
                "next",
                "然后",
                "再",
                "并",
            ]
            .contains(&w)
        })
}

/// "Rent's paid, so tick it off" / "clear them so it disappears": `so` starts a clause.
fn split_so(seg: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = seg.to_string();
    while let Some(at) = [
        " so ",
        ": ",
        "：",
        "（",
        "(",
        " - ",
        " – ",
        " — ",
        "——",
        ", which means ",
    ]
    .iter()
    .filter_map(|w| rest.find(w).map(|i| (i, w.len())))
    .filter(|(i, _)| {
        // "rename it to 'book the van (new company)'": never inside a quote.
        !clauses::quoted_spans(&rest)
            .iter()
            .any(|(a, b)| (*a..*b).contains(i))
    })
    .filter(|(i, n)| {
        // "edit 'x' so it says 'y'": what it should say is the order's own.
        let lower = rest[i + n..].to_lowercase();
        if rest[*i..].starts_with(" so ")
            && [
                "it says",
                "it reads",
                "that it",
                "it shows",
                "it's",
                "its ",
                "it becomes",
                "it will say",
                "it'll say",
                "the text",
                "the title",
                "the name",
            ]
            .iter()
            .any(|w| lower.starts_with(w))
        {
            return false;
        }
        // "dentist booking: done": the state after a colon is the clause's own.
        let after = &rest[i + n..];
        let state = after
            .trim()
            .trim_end_matches(['.', '!', ';'])
            .to_lowercase();
        if rest[*i..].starts_with([':', '：'])
            && (effects::DONE_WORDS.contains(&state.as_str())
                || ["not done", "not finished", "undone", "open", "to do"]
                    .contains(&state.as_str()))
        {
            return false;
        }
        // "add these: 'a', 'b' and 'c'": the items after a colon are the order's.
        !(rest[*i..].starts_with([':', '：'])
            && effects::starts_with_item(after)
            && effects::is_only_items(after))
    })
    .min()
    {
        out.push(rest[..at.0].to_string());
        rest = rest[at.0 + at.1..].to_string();
    }
    out.push(rest.trim_end_matches([')', '）']).to_string());
    out
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{list, steps};

    #[test]
    fn list_markers_and_joined_items_read() {
        let obs = list(&[
            ("renew the lease", false),
            ("mow the lawn", false),
            ("pay tax", false),
        ]);
        assert_eq!(
            steps(
                "1) Tick off the lease and the lawn\n2) delete the tax one",
                &obs
            )
            .unwrap(),
            vec![
                "check \"renew the lease\"",
                "check \"mow the lawn\"",
                "tap \"Delete\" in the row of \"pay tax\""
            ]
        );
        assert_eq!(
            steps("Check off mow the lawn and pay tax.", &obs).unwrap(),
            vec!["check \"mow the lawn\"", "check \"pay tax\""]
        );
        let zh = list(&[("交电费", false), ("取快递", false)]);
        assert_eq!(
            steps("把电费和快递都勾上。", &zh).unwrap(),
            vec!["check \"交电费\"", "check \"取快递\""]
        );
    }

    #[test]
    fn dashes_colons_states_replace_and_whatever() {
        let obs = list(&[
            ("print boarding passes", false),
            ("confirm the dentist booking", false),
            ("pack sunscreen", true),
        ]);
        let cases = [
            (
                "I printed the boarding passes last night - mark them done.",
                vec!["check \"print boarding passes\""],
            ),
            (
                "Dentist booking: done.",
                vec!["check \"confirm the dentist booking\""],
            ),
            (
                "Replace 'pack sunscreen' with 'pack sunscreen SPF 50'.",
                vec![
                    "double tap \"pack sunscreen\"",
                    "type \"pack sunscreen SPF 50\" into \"pack sunscreen\"",
                    "press Enter",
                ],
            ),
            ("Untick whatever is ticked.", vec!["uncheck every item"]),
            // A colon inside a quote stays the text's; a dash outside it still cuts.
            (
                "Add 'call mum: birthday' - and tick 'print boarding passes'.",
                vec![
                    "type \"call mum: birthday\" into \"New item\"",
                    "press Enter",
                    "check \"print boarding passes\"",
                ],
            ),
        ];
        for (t, want) in cases {
            assert_eq!(steps(t, &obs).unwrap(), want, "{t}");
        }
    }

    #[test]
    fn unquoted_add_lists_edits_that_say_and_polite_orders_read() {
        let empty = list(&[]);
        assert_eq!(
            steps(
                "Please add two todos: sand the deck, oil the gate. Then tick the deck one.",
                &empty
            )
            .unwrap(),
            vec![
                "type \"sand the deck\" into \"New item\"",
                "press Enter",
                "type \"oil the gate\" into \"New item\"",
                "press Enter",
                "check \"sand the deck\""
            ]
        );
        let obs = list(&[("renew the lease", false), ("mow the lawn", false)]);
        assert_eq!(
            steps(
                "The lease is renewed, you can tick that off. And can you edit 'mow the lawn' so it says 'mow the back lawn' instead? Thanks!",
                &obs
            )
            .unwrap(),
            vec![
                "check \"renew the lease\"",
                "double tap \"mow the lawn\"",
                "type \"mow the back lawn\" into \"mow the lawn\"",
                "press Enter"
            ]
        );
        assert_eq!(
            steps("lease and lawn are both sorted. take those two off the list completely, and stick 'buy paint' on there", &obs)
                .unwrap(),
            vec![
                "tap \"Delete\" in the row of \"renew the lease\"",
                "tap \"Delete\" in the row of \"mow the lawn\"",
                "type \"buy paint\" into \"New item\"",
                "press Enter"
            ]
        );
        assert_eq!(
            steps("Add a new one, 'buy paint'.", &obs).unwrap(),
            vec!["type \"buy paint\" into \"New item\"", "press Enter"]
        );
        let zh = list(&[("洗窗帘", true), ("修水龙头", false)]);
        assert_eq!(
            steps(
                "“洗窗帘”那条是我手滑点成完成的，窗帘还没洗呢，改回未完成。",
                &zh
            )
            .unwrap(),
            vec!["uncheck \"洗窗帘\""]
        );
    }
}
