//! The NATS connection shared by coordinators and workers: seed URLs (a cluster), credentials
//! (a `.creds` file, user + password, or a token) and TLS (a private CA, an optional client
//! certificate, `tls://` URLs), all configured with `ARGUS_NATS_*` flags.

use std::path::PathBuf;

/// How to reach NATS securely: credentials (a `.creds` file, user + password, or a token)
/// and TLS (a private CA, an optional client certificate, `tls://` URLs). Every field is
/// optional; none set means a plain connection (a laptop's loopback NATS).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct NatsAuth {
    /// NATS credentials file (user JWT + NKey seed, as `nsc` writes it).
    #[arg(long, env = "ARGUS_NATS_CREDS")]
    pub nats_creds: Option<PathBuf>,
    /// NATS user name (with `--nats-password`).
    #[arg(long, env = "ARGUS_NATS_USER", requires = "nats_password")]
    pub nats_user: Option<String>,
    /// NATS password (with `--nats-user`).
    #[arg(
        long,
        env = "ARGUS_NATS_PASSWORD",
        hide_env_values = true,
        requires = "nats_user"
    )]
    pub nats_password: Option<String>,
    /// NATS authorization token (`authorization { token: … }` on the server).
    #[arg(long, env = "ARGUS_NATS_TOKEN", hide_env_values = true)]
    pub nats_token: Option<String>,
    /// PEM file of the CA that signed the NATS servers' certificates; implies TLS.
    #[arg(long, env = "ARGUS_NATS_TLS_CA")]
    pub nats_tls_ca: Option<PathBuf>,
    /// PEM client certificate for mutual TLS (with `--nats-tls-key`).
    #[arg(long, env = "ARGUS_NATS_TLS_CERT", requires = "nats_tls_key")]
    pub nats_tls_cert: Option<PathBuf>,
    /// PEM private key of `--nats-tls-cert`.
    #[arg(long, env = "ARGUS_NATS_TLS_KEY", requires = "nats_tls_cert")]
    pub nats_tls_key: Option<PathBuf>,
    /// Prefix of this client's reply inboxes (default `_INBOX`). Give each worker its own,
    /// `_INBOX_<worker id>`, so NATS permissions can let it receive only its own replies
    /// (`deploy/nats/permissions.conf`).
    #[arg(long, env = "ARGUS_NATS_INBOX_PREFIX")]
    pub nats_inbox_prefix: Option<String>,
    /// Refuse to talk to NATS without TLS (also implied by `tls://` URLs and
    /// `--nats-tls-ca`).
    #[arg(long, env = "ARGUS_NATS_REQUIRE_TLS")]
    pub nats_require_tls: bool,
}

impl NatsAuth {
    /// The NATS secrets as `(variable, value)` pairs, for
    /// [`crate::placeholder::refuse_placeholders`].
    pub fn credentials(&self) -> [(&'static str, Option<&str>); 2] {
        [
            ("ARGUS_NATS_PASSWORD", self.nats_password.as_deref()),
            ("ARGUS_NATS_TOKEN", self.nats_token.as_deref()),
        ]
    }

    /// Connects to `urls` (one URL or several, comma-separated: the seed servers of a
    /// cluster; `tls://` URLs require TLS) with these credentials and TLS settings.
    pub async fn connect(&self, urls: &str, name: &str) -> anyhow::Result<async_nats::Client> {
        let servers: Vec<&str> = urls
            .split(',')
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .collect();
        anyhow::ensure!(!servers.is_empty(), "no NATS URL given (ARGUS_NATS_URL)");
        let mut opts = async_nats::ConnectOptions::new().name(name);
        if let Some(path) = &self.nats_creds {
            opts = opts.credentials_file(path).await.map_err(|e| {
                anyhow::anyhow!("cannot read NATS credentials {} ({e})", path.display())
            })?;
        }
        if let (Some(user), Some(pass)) = (&self.nats_user, &self.nats_password) {
            opts = opts.user_and_password(user.clone(), pass.clone());
        }
        if let Some(token) = &self.nats_token {
            opts = opts.token(token.clone());
        }
        if let Some(prefix) = &self.nats_inbox_prefix {
            opts = opts.custom_inbox_prefix(prefix);
        }
        if let Some(ca) = &self.nats_tls_ca {
            anyhow::ensure!(ca.is_file(), "NATS TLS CA {} is not a file", ca.display());
            opts = opts.add_root_certificates(ca.clone());
        }
        if let (Some(cert), Some(key)) = (&self.nats_tls_cert, &self.nats_tls_key) {
            opts = opts.add_client_certificate(cert.clone(), key.clone());
        }
        let tls = self.nats_require_tls
            || self.nats_tls_ca.is_some()
            || servers.iter().any(|u| u.starts_with("tls://"));
        if tls {
            opts = opts.require_tls(true);
        }
        opts.connect(servers)
            .await
            .map_err(|e| anyhow::anyhow!("cannot connect to NATS at {urls}: {e}"))
    }
}

/// The next batch of a pull consumer's message stream: waits for one message, then takes
/// what has already arrived without waiting, up to `max` in all. `None` when the stream
/// ended. Errors: the first stream error met (messages taken before it are dropped and
/// come back after their ack wait).
pub async fn next_batch<S, T, E>(messages: &mut S, max: usize) -> Option<anyhow::Result<Vec<T>>>
where
    S: futures::Stream<Item = Result<T, E>> + Unpin,
    E: std::fmt::Display,
{
    use futures::{FutureExt, StreamExt};
    let first = messages.next().await?;
    let mut batch = match first {
        Ok(m) => vec![m],
        Err(e) => return Some(Err(anyhow::anyhow!("{e}"))),
    };
    while batch.len() < max {
        match messages.next().now_or_never() {
            Some(Some(Ok(m))) => batch.push(m),
            Some(Some(Err(e))) => return Some(Err(anyhow::anyhow!("{e}"))),
            _ => break,
        }
    }
    Some(Ok(batch))
}

/// Waits up to `linger` for more messages after a batch's first ones, each pushed onto
/// `batch` as it arrives, until `batch` holds `max`: fewer, larger batches while messages
/// arrive steadily, at the price of up to `linger` more delay for the batch. Cancel-safe:
/// dropped early (a drain), `batch` keeps what had arrived and nothing is lost. Ends early
/// when the stream ends (what arrived stays in `batch`; the next [`next_batch`] reports the
/// end). Errors: the first stream error met; `batch` keeps what arrived before it, so the
/// caller can hand that out before restarting the stream.
pub async fn linger_fill<S, T, E>(
    messages: &mut S,
    batch: &mut Vec<T>,
    max: usize,
    linger: std::time::Duration,
) -> anyhow::Result<()>
where
    S: futures::Stream<Item = Result<T, E>> + Unpin,
    E: std::fmt::Display,
{
    use futures::StreamExt;
    let deadline = tokio::time::Instant::now() + linger;
    while batch.len() < max {
        match tokio::time::timeout_at(deadline, messages.next()).await {
            Ok(Some(Ok(m))) => batch.push(m),
            Ok(Some(Err(e))) => anyhow::bail!("{e}"),
            // the stream ended or the time is up: the batch is what is here
            Ok(None) | Err(_) => break,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{linger_fill, next_batch};
    use tokio::sync::mpsc;

    type Feed = mpsc::UnboundedSender<Result<u32, String>>;

    /// A message stream fed by hand, as a pull consumer's messages arrive.
    fn feed() -> (
        Feed,
        impl futures::Stream<Item = Result<u32, String>> + Unpin,
    ) {
        let (tx, mut rx) = mpsc::unbounded_channel::<Result<u32, String>>();
        let stream = Box::pin(futures::stream::poll_fn(move |cx| rx.poll_recv(cx)));
        (tx, stream)
    }

    #[tokio::test]
    async fn lingering_takes_what_arrives_in_time_and_no_more_than_max() {
        let (tx, mut s) = feed();
        tx.send(Ok(1)).ok();
        let late = tx.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(5)).await;
            late.send(Ok(2)).ok();
            tokio::time::sleep(Duration::from_millis(400)).await;
            late.send(Ok(3)).ok();
        });
        let mut b = next_batch(&mut s, 8)
            .await
            .and_then(|r| r.ok())
            .unwrap_or_default();
        assert_eq!(b, vec![1]);
        // 2 arrives within the linger and joins 1; 3 comes long after it and waits
        assert!(linger_fill(&mut s, &mut b, 8, Duration::from_millis(200))
            .await
            .is_ok());
        assert_eq!(b, vec![1, 2]);
        let b = next_batch(&mut s, 8).await.and_then(|r| r.ok());
        assert_eq!(b, Some(vec![3]));
        // a full batch goes out without waiting for the linger to end
        for n in 4..10 {
            tx.send(Ok(n)).ok();
        }
        let t = tokio::time::Instant::now();
        let mut b = next_batch(&mut s, 1)
            .await
            .and_then(|r| r.ok())
            .unwrap_or_default();
        assert!(linger_fill(&mut s, &mut b, 4, Duration::from_secs(5))
            .await
            .is_ok());
        assert_eq!(b, vec![4, 5, 6, 7]);
        assert!(t.elapsed() < Duration::from_secs(1));
    }

    #[tokio::test]
    async fn an_error_or_the_end_while_lingering_keeps_what_arrived() {
        let (tx, mut s) = feed();
        tx.send(Ok(1)).ok();
        tx.send(Err("consumer deleted".into())).ok();
        let mut b = next_batch(&mut s, 1)
            .await
            .and_then(|r| r.ok())
            .unwrap_or_default();
        let e = linger_fill(&mut s, &mut b, 8, Duration::from_secs(5)).await;
        assert!(e.is_err_and(|e| e.to_string().contains("consumer deleted")));
        assert_eq!(b, vec![1]);
        // the stream ends during the linger: the batch is what arrived, at once
        tx.send(Ok(2)).ok();
        drop(tx);
        let t = tokio::time::Instant::now();
        let mut b = Vec::new();
        assert!(linger_fill(&mut s, &mut b, 8, Duration::from_secs(5))
            .await
            .is_ok());
        assert_eq!(b, vec![2]);
        assert!(t.elapsed() < Duration::from_secs(1));
        assert!(next_batch(&mut s, 8).await.is_none());
    }

    #[tokio::test]
    async fn a_linger_dropped_early_loses_nothing() {
        let (tx, mut s) = feed();
        tx.send(Ok(1)).ok();
        let mut b = Vec::new();
        // dropped (as a drain drops it) before its time is up
        let _ = tokio::time::timeout(
            Duration::from_millis(50),
            linger_fill(&mut s, &mut b, 8, Duration::from_secs(5)),
        )
        .await;
        assert_eq!(b, vec![1]);
        tx.send(Ok(2)).ok();
        assert_eq!(
            next_batch(&mut s, 8).await.and_then(|r| r.ok()),
            Some(vec![2])
        );
    }
}
