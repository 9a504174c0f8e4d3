//! Client-side subcommands: `submit`, `run`, `runs`, `suite`, `token`, `migrate`.

pub mod migrate;
pub mod run_local;
pub mod runs;
pub mod steps_files;
pub mod submit;
pub mod suite;
pub mod token;

/// An HTTP client that sends `ARGUS_API_TOKEN` (when set) as a bearer token.
pub fn http_client() -> anyhow::Result<reqwest::Client> {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Ok(t) = std::env::var("ARGUS_API_TOKEN") {
        let v = reqwest::header::HeaderValue::from_str(&format!("Bearer {}", t.trim()))
            .map_err(|_| anyhow::anyhow!("ARGUS_API_TOKEN contains invalid characters"))?;
        headers.insert(reqwest::header::AUTHORIZATION, v);
    }
    Ok(reqwest::Client::builder()
        .default_headers(headers)
        .timeout(std::time::Duration::from_secs(30))
        .build()?)
}
