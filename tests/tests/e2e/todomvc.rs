//! Pins the walking skeleton: a job submitted over HTTP runs on a real web app (TodoMVC,
//! four framework variants) through PostgreSQL → NATS → worker on headless Chromium → S3 →
//! report, and its effect is confirmed by an independent read of the page (the injected
//! probe), not by the worker's own "ok". Also prints the per-action time split.

use std::time::Duration;

use argus_tests::site::{Item, Site};
use argus_tests::{jpeg_size, stored_size, Farm, FarmOptions};
use serde_json::json;

pub const TODO_STEPS: &str = r#"type "buy milk" into "What needs to be done?"
press Enter
type "walk the dog" into "What needs to be done?"
press Enter
check "buy milk"
wait for "1 item left"
assert screen contains "1 item left"
tap "Clear completed"
assert screen contains "walk the dog"
assert screen does not contain "buy milk""#;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn todomvc_four_variants_pass_end_to_end() {
    let opts = FarmOptions {
        worker_slots: Some(2),
        viewport: (1000, 700),
        dpr: 2.0,
        ..Default::default()
    };
    let site = Site::todomvc().await;
    let farm = Farm::start(opts.allowing(&site.base_url)).await;
    let variants = ["vanillajs", "jquery", "backbone", "react"];
    let mut runs = Vec::new();
    for v in variants {
        let token = format!("{v}-{}", farm.token);
        let spec = json!({
            "platform": "web",
            "start_url": site.example_url(v, &token),
            "instruction": TODO_STEPS,
            "selector": {"labels": {"browser": "chromium", "team": "qa"}},
            "name": format!("todomvc {v}"),
            "timeout_s": 120,
        });
        runs.push((v, token, farm.submit(&spec).await));
    }
    let mut splits: Vec<[f64; 4]> = Vec::new();
    for (v, token, run_id) in runs {
        let d = farm.wait_run(run_id, Duration::from_secs(180)).await;
        assert_eq!(
            d.status.as_str(),
            "succeeded",
            "{v}: run {run_id} ended {} ({:?})",
            d.status.as_str(),
            d.error
        );
        assert_eq!(d.steps.len(), 11, "{v}: open + 10 script steps");
        // Independent read of the page: only "walk the dog" is left, not completed.
        let state = site
            .state(&token)
            .unwrap_or_else(|| panic!("{v}: page never reported"));
        assert_eq!(
            state.items,
            vec![Item {
                text: "walk the dog".into(),
                completed: false
            }],
            "{v}: todo list as the page sees it"
        );
        assert_eq!(state.count.as_deref(), Some("1 item left"), "{v}: counter");

        // Every action has before/after screenshots in S3: JPEGs of the viewport's device-px
        // size (2000×1400) scaled to the stored bound, an unchanged frame under one key.
        for s in &d.steps {
            for a in &s.actions {
                for key in [&a.before_key, &a.after_key] {
                    let key = key
                        .as_deref()
                        .unwrap_or_else(|| panic!("{v}: step {} lacks a screenshot", s.index));
                    let bytes = farm
                        .s3_get(key)
                        .await
                        .unwrap_or_else(|| panic!("{v}: {key} missing in S3"));
                    assert_eq!(
                        jpeg_size(&bytes),
                        Some(stored_size(2000, 1400)),
                        "{v}: {key} size"
                    );
                }
            }
        }
        // The report renders and every image link in it serves an image.
        let html = farm
            .http
            .get(format!("{}/runs/{run_id}", farm.base_url))
            .send()
            .await
            .expect("report");
        assert_eq!(html.status().as_u16(), 200);
        let html = html.text().await.expect("report body");
        let srcs: Vec<&str> = html
            .split("src=\"")
            .skip(1)
            .filter_map(|s| s.split('"').next())
            .collect();
        assert_eq!(srcs.len(), 22, "{v}: 2 images per action");
        for src in srcs {
            let r = farm
                .http
                .get(format!("{}{src}", farm.base_url))
                .send()
                .await
                .expect("image");
            assert_eq!(r.status().as_u16(), 200, "{src}");
            assert_eq!(
                r.headers()
                    .get("content-type")
                    .and_then(|h| h.to_str().ok()),
                Some("image/jpeg")
            );
            assert!(
                jpeg_size(&r.bytes().await.expect("bytes")).is_some(),
                "{src} decodes"
            );
        }
        // Time split: perceive / act / screenshot+upload / event round trip.
        let applied: Vec<(i32, f64)> = sqlx::query_as(
            "select step, (extract(epoch from applied_at - (record->>'finished_at')::timestamptz) * 1000)::float8
               from actions where run_id = $1",
        )
        .bind(run_id)
        .fetch_all(&farm.pool)
        .await
        .expect("applied_at");
        for s in &d.steps {
            for a in &s.actions {
                let rt = applied
                    .iter()
                    .find(|(st, _)| *st as u32 == a.step)
                    .map(|x| x.1)
                    .unwrap_or(f64::NAN);
                let t = a.timings;
                splits.push([t.perceive_ms, t.act_ms, t.screenshot_ms + t.upload_ms, rt]);
            }
        }
    }
    let median = |i: usize| {
        let mut v: Vec<f64> = splits
            .iter()
            .map(|s| s[i])
            .filter(|x| x.is_finite())
            .collect();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    eprintln!(
        "per-action median over {} actions: perceive {:.1} ms, act {:.1} ms, screenshot+upload {:.1} ms, event round trip {:.1} ms",
        splits.len(),
        median(0),
        median(1),
        median(2),
        median(3)
    );
}

/// A row's delete button that TodoMVC draws only under the pointer (`li:hover .destroy`)
/// and names only by its glyph (`::after { content: "✖" }`), and an item renamed in place:
/// `tap "Delete" in the row of …` finds it by resting the pointer over the row and reading
/// the glyph by its meaning; double tap + type into the field that opens renames. Judged by
/// the page's own list, on two variants.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn hover_revealed_delete_and_rename_in_place() {
    let site = Site::todomvc().await;
    let farm = Farm::start(FarmOptions::default().allowing(&site.base_url)).await;
    let steps = r#"type "buy milk" into "What needs to be done?"
press Enter
type "walk the dog" into "What needs to be done?"
press Enter
tap "Delete" in the row of "buy milk"
assert screen does not contain "buy milk"
double tap "walk the dog"
type "walk the cat" into "walk the dog"
press Enter
assert screen contains "walk the cat""#;
    for v in ["vanillajs", "react"] {
        let token = format!("hover-{v}-{}", farm.token);
        let spec = json!({
            "platform": "web",
            "start_url": site.example_url(v, &token),
            "instruction": steps,
            "selector": {"labels": {"browser": "chromium", "team": "qa"}},
            "timeout_s": 120,
        });
        let run_id = farm.submit(&spec).await;
        let d = farm.wait_run(run_id, Duration::from_secs(180)).await;
        assert_eq!(
            d.status.as_str(),
            "succeeded",
            "{v}: run {run_id} ended {} ({:?})",
            d.status.as_str(),
            d.error
        );
        let delete = d
            .steps
            .iter()
            .flat_map(|s| &s.actions)
            .find(|a| a.detail.starts_with("tap "))
            .unwrap_or_else(|| panic!("{v}: no tap: {:#?}", d.steps));
        // The button is named by its glyph only (✖ in todomvc@0.1.1's CSS).
        assert!(
            delete.detail.contains("button \"✖\"")
                && delete
                    .detail
                    .contains("revealed by resting the pointer over"),
            "{v}: the delete button was not found by a hover and its glyph: {}",
            delete.detail
        );
        let state = site
            .state(&token)
            .unwrap_or_else(|| panic!("{v}: page never reported"));
        assert_eq!(
            state.items,
            vec![Item {
                text: "walk the cat".into(),
                completed: false
            }],
            "{v}: todo list as the page sees it"
        );
    }
}
