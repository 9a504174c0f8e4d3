//! `GET /artifacts/runs/{run_id}/{file}`: screenshots served through the coordinator, so a
//! report shows its images even when the S3 endpoint is not reachable from the viewer's
//! browser. Only keys of runs the caller's team may see, with the screenshot file pattern,
//! are served; anything else is a 404 (guessed keys of other teams included).
//!
//! A served file's content type is decided by its name alone — `<digest>.jpg` (a frame
//! named by its content, issue 25) goes out as `image/jpeg`, `<step>-<action>-<phase>.png`
//! (runs recorded before) as `image/png` — with `X-Content-Type-Options: nosniff`, whatever
//! content type the object store kept: anyone who can write to the bucket (a worker host)
//! must not be able to plant a page that runs in the dashboard's origin.

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::parse_id;
use crate::auth::User;
use crate::error::ApiError;
use crate::store;
use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new().route("/artifacts/runs/{run_id}/{file}", get(show))
}

/// A screenshot's file name: `<digest>.jpg` (32 lowercase hex digits) or, for runs
/// recorded before frames were named by content, `<step>-<action>-<phase>.png` with phase
/// before / after / som.
fn valid_file(f: &str) -> bool {
    if let Some(digest) = f.strip_suffix(".jpg") {
        return digest.len() == 32
            && digest
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c));
    }
    let Some(stem) = f.strip_suffix(".png") else {
        return false;
    };
    let parts: Vec<&str> = stem.split('-').collect();
    parts.len() == 3
        && parts[..2]
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 6 && p.chars().all(|c| c.is_ascii_digit()))
        && matches!(parts[2], "before" | "after" | "som")
}

async fn show(
    State(st): State<AppState>,
    User(caller): User,
    Path((run_id, file)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let id = parse_id("run", &run_id)?;
    if !valid_file(&file) || !store::runs::visible(&st.pool, id, &caller.scope()).await? {
        return Err(ApiError::not_found(
            "artifact",
            &format!("runs/{run_id}/{file}"),
        ));
    }
    let key = format!("runs/{id}/{file}");
    let content_type = argus_infra::content_type(&key).unwrap_or("application/octet-stream");
    match st.s3.get(&key).await.map_err(ApiError::Unavailable)? {
        Some((bytes, _stored_type)) => Ok((
            [
                (header::CONTENT_TYPE, content_type.to_string()),
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_string()),
                (
                    header::CACHE_CONTROL,
                    "private, max-age=86400, immutable".to_string(),
                ),
            ],
            bytes,
        )
            .into_response()),
        None => Err(ApiError::not_found("artifact", &key)),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn file_pattern() {
        assert!(super::valid_file("0-0-before.png"));
        assert!(super::valid_file("12-3-after.png"));
        assert!(!super::valid_file("../x.png"));
        assert!(!super::valid_file("0-0-before.png.exe"));
        assert!(!super::valid_file("a-0-after.png"));
        assert!(super::valid_file("0123456789abcdef0123456789abcdef.jpg"));
        assert!(!super::valid_file("0123456789ABCDEF0123456789abcdef.jpg"));
        assert!(!super::valid_file("0123456789abcdef.jpg"));
        assert!(!super::valid_file("../23456789abcdef0123456789abcdef.jpg"));
        assert!(!super::valid_file("0-0-before.jpg"));
    }
}
