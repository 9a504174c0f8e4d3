//! Draining on shutdown (SIGTERM or SIGINT), as the worker does: the HTTP server stops
//! accepting and finishes the requests in flight; the dispatcher, applier, reaper and
//! scheduler each finish the pass they are in (a claimed batch is published, a received
//! batch of events is applied and acked) and return instead of starting another; pending
//! NATS acks are flushed; then the process exits 0. Requests that stay open (a live
//! report's event stream) and tasks still busy after [`DRAIN_LIMIT`] are cut off.

use std::time::Duration;

use tokio::sync::watch;

/// How long in-flight requests and task passes get to finish once draining starts.
pub const DRAIN_LIMIT: Duration = Duration::from_secs(10);

/// Tells the coordinator's tasks to stop; dropping it stops them too.
pub struct StopSender(watch::Sender<bool>);

/// What a task watches to know it should stop after its current pass.
#[derive(Clone)]
pub struct Stop(watch::Receiver<bool>);

/// A new stop signal, not yet given.
pub fn channel() -> (StopSender, Stop) {
    let (tx, rx) = watch::channel(false);
    (StopSender(tx), Stop(rx))
}

impl StopSender {
    /// Asks every task to stop after its current pass.
    pub fn stop(&self) {
        self.0.send_replace(true);
    }
}

impl Stop {
    /// Whether draining has started.
    pub fn is_stopped(&self) -> bool {
        *self.0.borrow() || self.0.has_changed().is_err()
    }

    /// Completes once draining has started (or the sender is gone).
    pub async fn wait(&mut self) {
        let _ = self.0.wait_for(|s| *s).await;
    }
}

/// Completes on SIGTERM or SIGINT (Ctrl-C).
pub async fn signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        if let Ok(mut term) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            tokio::select! {
                _ = ctrl_c => tracing::info!("SIGINT: draining"),
                _ = term.recv() => tracing::info!("SIGTERM: draining"),
            }
            return;
        }
    }
    let _ = ctrl_c.await;
    tracing::info!("SIGINT: draining");
}
