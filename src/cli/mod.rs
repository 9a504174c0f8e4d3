//! Client-side subcommands: `submit`, `run`, `migrate`.

pub mod migrate;
pub mod run_local;
pub mod submit;
pub mod suite;
pub mod token;

/// `--steps FILE|TEXT`: the file's contents when `s` names an existing file, else `s`.
pub fn read_steps(s: &str) -> anyhow::Result<String> {
    let p = std::path::Path::new(s);
    if !s.contains('\n') && p.is_file() {
        return std::fs::read_to_string(p)
            .map_err(|e| anyhow::anyhow!("cannot read steps file {s}: {e}"));
    }
    Ok(s.to_string())
}

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
