//! How the host policy turns a name into addresses: the system resolver (`getaddrinfo`
//! through tokio) unless a test injects its own, so a test can make Argus's answer differ
//! from Chromium's (DNS rebinding) or make a look-up fail, without touching the host's DNS.

use std::fmt;
use std::io;
use std::net::IpAddr;
use std::sync::Arc;

use futures::future::BoxFuture;

/// A look-up function: `(host, port)` → the addresses, or the resolver's error.
pub type LookupFn =
    dyn Fn(String, u16) -> BoxFuture<'static, io::Result<Vec<IpAddr>>> + Send + Sync;

/// The resolver a [`super::policy::HostPolicy`] uses. Cheap to clone.
#[derive(Clone, Default)]
pub struct Resolver(Option<Arc<LookupFn>>);

impl fmt::Debug for Resolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Resolver(injected)"
        } else {
            "Resolver(system)"
        })
    }
}

impl Resolver {
    /// The system resolver.
    pub fn system() -> Resolver {
        Resolver(None)
    }

    /// A resolver answering with `f` (tests: a fixed table, a failing name, an answer that
    /// changes between look-ups).
    pub fn custom(
        f: impl Fn(String, u16) -> BoxFuture<'static, io::Result<Vec<IpAddr>>> + Send + Sync + 'static,
    ) -> Resolver {
        Resolver(Some(Arc::new(f)))
    }

    /// The addresses `host` (a DNS name, not an IP literal) resolves to for `port`.
    pub async fn lookup(&self, host: &str, port: u16) -> io::Result<Vec<IpAddr>> {
        match &self.0 {
            Some(f) => f(host.to_string(), port).await,
            None => Ok(tokio::net::lookup_host((host, port))
                .await?
                .map(|a| a.ip())
                .collect()),
        }
    }
}
