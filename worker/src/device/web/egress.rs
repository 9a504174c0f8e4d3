//! The worker's egress proxy: a launched Chromium reaches the network only through it
//! (`--proxy-server`, with `--proxy-bypass-list=<-loopback>` so loopback goes through it
//! too). Each request's host is resolved once, with the host policy's own resolver,
//! decided by [`HostPolicy::admit`], and connected to exactly an address that was decided.
//! So a DNS answer that changes between Argus's look-up and Chromium's (rebinding) cannot
//! move a connection — Chromium does no look-up of its own behind a proxy — and WebSocket
//! handshakes, which CDP `Fetch` never sees, are policed like every other request.
//!
//! - `CONNECT host:port` (https, wss, and ws — Chromium tunnels every WebSocket through an
//!   HTTP proxy) is decided on its authority, then tunnelled byte for byte.
//! - Absolute-form requests (plain `http://`) are forwarded one at a time, each on a fresh
//!   upstream connection, so a keep-alive connection from Chromium never carries a request
//!   to a host it was not decided for; an `Upgrade` answered `101` is then tunnelled.
//! - A refusal is a `403` whose body says why (a tunnel Chromium reports as
//!   `ERR_TUNNEL_CONNECTION_FAILED`); the reason is logged.
//!
//! One task per browser owns the listener; one task per client connection.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use super::policy::HostPolicy;

/// Longest wait for a TCP connection to a decided address.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

type Body = BoxBody<Bytes, hyper::Error>;

/// Why a request was not forwarded: the status Chromium gets and the reason.
type Refusal = (StatusCode, String);

/// A running proxy; stops when dropped.
pub struct Egress {
    task: JoinHandle<()>,
}

impl Drop for Egress {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Binds the proxy's listener on 127.0.0.1 (any port), so its address can go on Chromium's
/// command line before the proxy serves ([`serve`]).
pub async fn bind() -> std::io::Result<TcpListener> {
    TcpListener::bind(("127.0.0.1", 0)).await
}

/// Serves `listener` with `policy` until the returned [`Egress`] is dropped.
pub fn serve(listener: TcpListener, policy: HostPolicy) -> std::io::Result<Egress> {
    listener.local_addr()?;
    let policy = Arc::new(policy);
    let task = tokio::spawn(async move {
        loop {
            let (tcp, _) = match listener.accept().await {
                Ok(c) => c,
                Err(e) => {
                    // Out of descriptors, say: back off rather than spin on the error.
                    tracing::warn!(error = %e, "egress proxy accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            };
            let policy = policy.clone();
            tokio::spawn(async move {
                let svc = hyper::service::service_fn(move |req| handle(req, policy.clone()));
                let conn = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(tcp), svc)
                    .with_upgrades();
                if let Err(e) = conn.await {
                    tracing::debug!(error = %e, "egress proxy connection ended");
                }
            });
        }
    });
    Ok(Egress { task })
}

async fn handle(
    req: Request<Incoming>,
    policy: Arc<HostPolicy>,
) -> Result<Response<Body>, Infallible> {
    let res = if req.method() == Method::CONNECT {
        tunnel(req, &policy).await
    } else {
        forward(req, &policy).await
    };
    Ok(res.unwrap_or_else(|(status, why)| {
        let mut r = Response::new(text(format!(
            "blocked by Argus's navigation policy: {why}\n"
        )));
        *r.status_mut() = status;
        r
    }))
}

fn text(s: String) -> Body {
    Full::new(Bytes::from(s))
        .map_err(|never| match never {})
        .boxed()
}

/// Decides `host:port` and connects to one of the addresses that were decided.
async fn open(policy: &HostPolicy, host: &str, port: u16) -> Result<TcpStream, Refusal> {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let addrs = policy.admit(host, port).await.map_err(|why| {
        tracing::info!(host, port, reason = %why, "connection blocked by the navigation policy");
        (StatusCode::FORBIDDEN, why)
    })?;
    let to: Vec<SocketAddr> = addrs.iter().map(|ip| SocketAddr::new(*ip, port)).collect();
    match tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(&to[..])).await {
        Ok(Ok(tcp)) => Ok(tcp),
        Ok(Err(e)) => Err((StatusCode::BAD_GATEWAY, format!("{host}:{port}: {e}"))),
        Err(_) => Err((
            StatusCode::GATEWAY_TIMEOUT,
            format!(
                "{host}:{port}: no connection within {} s",
                CONNECT_TIMEOUT.as_secs()
            ),
        )),
    }
}

/// `CONNECT host:port`: decided, then tunnelled.
async fn tunnel(req: Request<Incoming>, policy: &HostPolicy) -> Result<Response<Body>, Refusal> {
    let bad = || {
        (
            StatusCode::BAD_REQUEST,
            "CONNECT needs host:port".to_string(),
        )
    };
    let auth = req.uri().authority().ok_or_else(bad)?.clone();
    let port = auth.port_u16().ok_or_else(bad)?;
    let mut upstream = open(policy, auth.host(), port).await?;
    tokio::spawn(async move {
        match hyper::upgrade::on(req).await {
            Ok(up) => {
                let _ = tokio::io::copy_bidirectional(&mut TokioIo::new(up), &mut upstream).await;
            }
            Err(e) => tracing::debug!(error = %e, "egress tunnel was not taken up"),
        }
    });
    Ok(Response::new(text(String::new())))
}

/// An absolute-form `http://` request: decided, sent on its own upstream connection.
async fn forward(
    mut req: Request<Incoming>,
    policy: &HostPolicy,
) -> Result<Response<Body>, Refusal> {
    let uri = req.uri().clone();
    let (Some("http"), Some(host)) = (uri.scheme_str(), uri.host()) else {
        return Err((
            StatusCode::BAD_REQUEST,
            "only absolute http:// requests and CONNECT are proxied".into(),
        ));
    };
    let upstream = open(policy, host, uri.port_u16().unwrap_or(80)).await?;
    let gateway = |e: hyper::Error| (StatusCode::BAD_GATEWAY, e.to_string());
    let (mut sender, conn) = hyper::client::conn::http1::Builder::new()
        .handshake(TokioIo::new(upstream))
        .await
        .map_err(gateway)?;
    tokio::spawn(async move {
        if let Err(e) = conn.with_upgrades().await {
            tracing::debug!(error = %e, "egress upstream connection ended");
        }
    });
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    *req.uri_mut() = path
        .parse()
        .map_err(|_| (StatusCode::BAD_REQUEST, "bad request target".to_string()))?;
    req.headers_mut().remove("proxy-connection");
    req.headers_mut().remove("proxy-authorization");
    let client_side = hyper::upgrade::on(&mut req);
    let mut resp = sender.send_request(req).await.map_err(gateway)?;
    if resp.status() == StatusCode::SWITCHING_PROTOCOLS {
        let server_side = hyper::upgrade::on(&mut resp);
        tokio::spawn(async move {
            if let (Ok(c), Ok(s)) = (client_side.await, server_side.await) {
                let _ =
                    tokio::io::copy_bidirectional(&mut TokioIo::new(c), &mut TokioIo::new(s)).await;
            }
        });
    }
    Ok(resp.map(BodyExt::boxed))
}
