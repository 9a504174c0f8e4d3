//! Argus's clients for the shared infrastructure: the NATS connection ([`nats`]: cluster
//! seeds, credentials, TLS) and artifact storage (below).
//!
//! Where run artifacts go: an S3-compatible bucket (`aws-sdk-s3`, path-style, static
//! credentials, rustls with ring) or, for `argus run`, a local folder. Keys look like
//! `runs/<run_id>/<digest>.jpg` ([`frame_key`]).
//!
//! Shared by the worker (uploads, NATS) and the coordinator (serves images to report viewers,
//! NATS), so it is a crate of its own rather than a copy in each. Both refuse the shipped
//! examples' placeholder secrets at start ([`placeholder`]).

pub mod nats;
pub mod placeholder;

pub use nats::NatsAuth;

use std::path::PathBuf;

use async_trait::async_trait;
use aws_sdk_s3::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_s3::primitives::ByteStream;

/// Storage for run artifacts.
#[async_trait]
pub trait ArtifactStore: Send + Sync {
    /// Stores `bytes` under `key` with the given content type.
    async fn put(&self, key: &str, bytes: Vec<u8>, content_type: &str) -> Result<(), String>;
}

/// Key of a stored screenshot: `runs/<run>/<digest>.jpg`, where `digest` (32 lowercase hex
/// digits) names the frame's content, so a frame several actions show is one object (see
/// the worker's upload queue). Runs recorded before issue 25 have
/// `runs/<run>/<step>-<action>-<phase>.png` keys; both are served ([`content_type`]).
pub fn frame_key(run_id: &uuid::Uuid, digest: &str) -> String {
    format!("runs/{run_id}/{digest}.jpg")
}

/// The content type of an artifact, by its key's extension: `.jpg` → `image/jpeg`, `.png`
/// → `image/png`, `.webp` → `image/webp`; `None` for any other key.
pub fn content_type(key: &str) -> Option<&'static str> {
    let (_, ext) = key.rsplit_once('.')?;
    match ext {
        "jpg" => Some("image/jpeg"),
        "png" => Some("image/png"),
        "webp" => Some("image/webp"),
        _ => None,
    }
}

/// Connection settings of an S3-compatible store (`ARGUS_S3_*`).
#[derive(Debug, Clone, clap::Args)]
pub struct S3Settings {
    /// S3 endpoint URL. Default `http://127.0.0.1:8333` (dev-up's SeaweedFS).
    #[arg(
        long = "s3-endpoint",
        env = "ARGUS_S3_ENDPOINT",
        default_value = "http://127.0.0.1:8333"
    )]
    pub endpoint: String,
    /// Region name (SeaweedFS accepts any; AWS needs the real one). Default `us-east-1`.
    #[arg(
        long = "s3-region",
        env = "ARGUS_S3_REGION",
        default_value = "us-east-1"
    )]
    pub region: String,
    /// Bucket for screenshots; created if missing. Default `argus`.
    #[arg(long = "s3-bucket", env = "ARGUS_S3_BUCKET", default_value = "argus")]
    pub bucket: String,
    /// Access key id. Default `argus` (dev-up's).
    #[arg(
        long = "s3-access-key",
        env = "ARGUS_S3_ACCESS_KEY",
        default_value = "argus"
    )]
    pub access_key: String,
    /// Secret key. Default dev-up's; set your own in production.
    #[arg(
        long = "s3-secret-key",
        env = "ARGUS_S3_SECRET_KEY",
        default_value = "argus-secret-key",
        hide_env_values = true
    )]
    pub secret_key: String,
}

impl S3Settings {
    /// The S3 credentials as `(variable, value)` pairs, for [`placeholder::refuse_placeholders`].
    pub fn credentials(&self) -> [(&'static str, Option<&str>); 2] {
        [
            ("ARGUS_S3_ACCESS_KEY", Some(self.access_key.as_str())),
            ("ARGUS_S3_SECRET_KEY", Some(self.secret_key.as_str())),
        ]
    }
}

/// Builds an S3 client with a rustls (ring) HTTP client and path-style addressing.
pub fn s3_client(s: &S3Settings) -> aws_sdk_s3::Client {
    let http = aws_smithy_http_client::Builder::new()
        .tls_provider(aws_smithy_http_client::tls::Provider::Rustls(
            aws_smithy_http_client::tls::rustls_provider::CryptoMode::Ring,
        ))
        .build_https();
    let conf = aws_sdk_s3::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(&s.endpoint)
        .region(Region::new(s.region.clone()))
        .credentials_provider(Credentials::new(
            &s.access_key,
            &s.secret_key,
            None,
            None,
            "argus-config",
        ))
        .force_path_style(true)
        .http_client(http)
        .build();
    aws_sdk_s3::Client::from_conf(conf)
}

/// Creates the bucket unless it exists. Errors name the endpoint and bucket.
pub async fn ensure_bucket(client: &aws_sdk_s3::Client, s: &S3Settings) -> Result<(), String> {
    if client.head_bucket().bucket(&s.bucket).send().await.is_ok() {
        return Ok(());
    }
    match client.create_bucket().bucket(&s.bucket).send().await {
        Ok(_) => Ok(()),
        Err(e) => {
            // Another process may have created it meanwhile.
            if client.head_bucket().bucket(&s.bucket).send().await.is_ok() {
                return Ok(());
            }
            Err(format!(
                "cannot create bucket {:?} at {}: {}",
                s.bucket,
                s.endpoint,
                aws_sdk_s3::error::DisplayErrorContext(e)
            ))
        }
    }
}

/// An S3 bucket.
pub struct S3Store {
    client: aws_sdk_s3::Client,
    bucket: String,
}

impl S3Store {
    /// Connects and makes sure the bucket exists.
    pub async fn connect(s: &S3Settings) -> Result<S3Store, String> {
        let client = s3_client(s);
        ensure_bucket(&client, s).await?;
        Ok(S3Store {
            client,
            bucket: s.bucket.clone(),
        })
    }
}

impl S3Store {
    /// Connects for uploads only (the worker). Its identity may be limited to writing under
    /// `runs/` (the shipped `argus-worker`, which may not even look at the bucket), so a
    /// refused bucket check is not fatal: a GET of a key under `runs/` that does not exist
    /// tells a valid identity without read access (`AccessDenied`) from bad credentials
    /// (`InvalidAccessKeyId`, `SignatureDoesNotMatch`: an error naming the code). A missing
    /// bucket is created when the identity may.
    pub async fn connect_writer(s: &S3Settings) -> Result<S3Store, String> {
        use aws_sdk_s3::error::ProvideErrorMetadata;
        let client = s3_client(s);
        let store = |client| S3Store {
            client,
            bucket: s.bucket.clone(),
        };
        if client.head_bucket().bucket(&s.bucket).send().await.is_ok() {
            return Ok(store(client));
        }
        let probe = client
            .get_object()
            .bucket(&s.bucket)
            .key("runs/.argus-credentials-probe")
            .send()
            .await;
        match probe {
            Ok(_) => Ok(store(client)),
            Err(e) => match e.code() {
                Some("NoSuchKey" | "AccessDenied") => Ok(store(client)),
                Some("NoSuchBucket") => {
                    ensure_bucket(&client, s).await?;
                    Ok(store(client))
                }
                _ => Err(format!(
                    "the S3 credentials ARGUS_S3_ACCESS_KEY {:?} are refused at {} (bucket {:?}): {}",
                    s.access_key,
                    s.endpoint,
                    s.bucket,
                    aws_sdk_s3::error::DisplayErrorContext(e)
                )),
            },
        }
    }
}

#[async_trait]
impl ArtifactStore for S3Store {
    async fn put(&self, key: &str, bytes: Vec<u8>, content_type: &str) -> Result<(), String> {
        self.client
            .put_object()
            .bucket(&self.bucket)
            .key(key)
            .content_type(content_type)
            .body(ByteStream::from(bytes))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| {
                format!(
                    "upload of {key} failed: {}",
                    aws_sdk_s3::error::DisplayErrorContext(e)
                )
            })
    }
}

impl S3Store {
    /// Reads an object: `Ok(None)` when the key does not exist.
    pub async fn get(&self, key: &str) -> Result<Option<(Vec<u8>, String)>, String> {
        match self
            .client
            .get_object()
            .bucket(&self.bucket)
            .key(key)
            .send()
            .await
        {
            Ok(out) => {
                let ct = out
                    .content_type()
                    .unwrap_or("application/octet-stream")
                    .to_string();
                let body = out
                    .body
                    .collect()
                    .await
                    .map_err(|e| format!("read of {key} failed: {e}"))?;
                Ok(Some((body.into_bytes().to_vec(), ct)))
            }
            Err(e) => {
                if e.as_service_error().is_some_and(|s| s.is_no_such_key()) {
                    Ok(None)
                } else {
                    Err(format!(
                        "read of {key} failed: {}",
                        aws_sdk_s3::error::DisplayErrorContext(e)
                    ))
                }
            }
        }
    }
}

/// A local folder: `<root>/<key>`.
pub struct DirStore {
    root: PathBuf,
}

impl DirStore {
    /// Stores under `root`.
    pub fn new(root: PathBuf) -> DirStore {
        DirStore { root }
    }
}

#[async_trait]
impl ArtifactStore for DirStore {
    async fn put(&self, key: &str, bytes: Vec<u8>, _content_type: &str) -> Result<(), String> {
        let path = self.root.join(key);
        if let Some(dir) = path.parent() {
            tokio::fs::create_dir_all(dir)
                .await
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        tokio::fs::write(&path, bytes)
            .await
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn content_type_follows_the_extension() {
        let run = uuid::Uuid::nil();
        let key = super::frame_key(&run, "0123456789abcdef0123456789abcdef");
        assert_eq!(
            key,
            "runs/00000000-0000-0000-0000-000000000000/0123456789abcdef0123456789abcdef.jpg"
        );
        assert_eq!(super::content_type(&key), Some("image/jpeg"));
        assert_eq!(
            super::content_type("runs/x/1-0-before.png"),
            Some("image/png")
        );
        assert_eq!(super::content_type("runs/x/a.webp"), Some("image/webp"));
        assert_eq!(super::content_type("runs/x/a.html"), None);
        assert_eq!(super::content_type("runs/x/jpg"), None);
    }
}
