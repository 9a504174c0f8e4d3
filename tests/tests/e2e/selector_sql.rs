//! Pins that the two implementations of selector matching agree: the SQL the claim runs
//! (`labels @> selector_labels and argus_selector_match(labels, constraints)`, migration
//! 0002) and the Rust reference [`Selector::matches`] (used at submit time). Generated
//! selectors and device label sets (values built from digits, dots, signs, spaces,
//! non-breaking spaces, letters and numbers longer than `u64`) are fed to both; every
//! answer must be the same. A fixed seed and a bounded number of cases keep it quick.

use std::collections::BTreeMap;

use argus_protocol::job::Selector;
use argus_protocol::selector::{Constraint, Op};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRng, TestRunner};

/// How many generated (selector, labels) pairs go to PostgreSQL.
const CASES: usize = 400;

/// Label values: short strings over an alphabet that hits every edge of the numeric rule.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9]{1,3}(\\.[0-9]{1,2}){0,2}",
        "[0-9]{19,22}",
        "[0-9. +a\u{a0}-]{0,5}",
        Just("13".to_string()),
        Just("13.0".to_string()),
        Just(" 13".to_string()),
        Just("+13".to_string()),
        Just("013".to_string()),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("a".to_string()),
        Just("b".to_string()),
        Just("c".to_string())
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        Just(Op::Eq),
        Just(Op::Ne),
        Just(Op::Lt),
        Just(Op::Le),
        Just(Op::Gt),
        Just(Op::Ge),
        Just(Op::In),
    ]
}

/// A constraint as [`Constraint::parse`] can produce it: values trimmed and non-empty, one
/// value unless the operator is `in`.
fn constraint() -> impl Strategy<Value = Constraint> {
    (key(), op(), prop::collection::vec(value(), 1..4)).prop_filter_map(
        "values as parse makes them",
        |(key, op, values)| {
            let mut values: Vec<String> = values
                .into_iter()
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .collect();
            if op != Op::In {
                values.truncate(1);
            }
            (!values.is_empty()).then_some(Constraint { key, op, values })
        },
    )
}

type Case = (
    BTreeMap<String, String>,
    Vec<Constraint>,
    BTreeMap<String, String>,
);

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::btree_map(key(), value(), 0..2),
        prop::collection::vec(constraint(), 0..3),
        prop::collection::btree_map(key(), value(), 0..4),
    )
}

/// The Rust answer, through the public selector API.
fn rust_matches(
    sel_labels: &BTreeMap<String, String>,
    cons: &[Constraint],
    dev: &BTreeMap<String, String>,
) -> bool {
    let sel = Selector {
        labels: sel_labels.clone(),
        require: Vec::new(),
    };
    sel.matches(dev) && cons.iter().all(|c| c.matches(dev))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sql_and_rust_selector_matching_agree() {
    let farm = crate::bare_farm().await;
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha),
    );
    let strategy = case();
    let mut disagreements = Vec::new();
    let mut matched = 0;
    for _ in 0..CASES {
        let (sel_labels, cons, dev) = strategy
            .new_tree(&mut runner)
            .expect("generate a case")
            .current();
        let want = rust_matches(&sel_labels, &cons, &dev);
        let (got,): (bool,) = sqlx::query_as(
            "select $1::jsonb @> $2::jsonb and argus_selector_match($1::jsonb, $3::jsonb)",
        )
        .bind(sqlx::types::Json(&dev))
        .bind(sqlx::types::Json(&sel_labels))
        .bind(sqlx::types::Json(&cons))
        .fetch_one(&farm.pool)
        .await
        .expect("argus_selector_match");
        matched += usize::from(want);
        if got != want {
            disagreements.push(format!(
                "labels {dev:?}, selector {sel_labels:?} {cons:?}: rust {want}, sql {got}"
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} of {CASES} disagree:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
    // the generator is not degenerate: both answers occur
    assert!(
        matched > CASES / 20 && matched < CASES * 19 / 20,
        "{matched} of {CASES} matched"
    );
}
