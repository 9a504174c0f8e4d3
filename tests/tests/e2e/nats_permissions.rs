//! Pins `deploy/nats/permissions.conf` as shipped, on a private nats-server: the worker user
//! `worker-web-1` (inbox prefix `_INBOX_web-1`) can find the assignment stream, create and
//! pull its own consumer, ack, and publish run events — and cannot create a consumer on
//! another worker's subject, subscribe to another worker's assignments, or publish an
//! assignment (the stream's message for web-2 is unchanged, read back by the coordinator).
//! The live screen: it hears its own runs' watch leases and its frames reach the
//! coordinator; it hears no other worker's leases and cannot publish on another worker's
//! frame subject.

use std::time::Duration;

use argus_infra::NatsAuth;
use argus_protocol::subjects::Subjects;
use async_nats::jetstream::{self, consumer::pull};
use futures::StreamExt;
use tokio::process::Command;

const PERMISSIONS: &str = include_str!("../../../deploy/nats/permissions.conf");

fn auth(user: &str, password: &str, inbox: Option<&str>) -> NatsAuth {
    NatsAuth {
        nats_user: Some(user.into()),
        nats_password: Some(password.into()),
        nats_inbox_prefix: inbox.map(str::to_string),
        ..Default::default()
    }
}

async fn connect(url: &str, a: &NatsAuth) -> async_nats::Client {
    for _ in 0..100 {
        if let Ok(Ok(c)) = tokio::time::timeout(Duration::from_secs(2), a.connect(url, "t")).await {
            return c;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("cannot connect to the private nats-server at {url}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_user_reaches_only_its_own_assignments() {
    let dir = std::env::temp_dir().join(format!("argus-natsperm-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("permissions.conf"), PERMISSIONS).expect("permissions");
    let port = argus_tests::procs::free_port();
    std::fs::write(
        dir.join("nats.conf"),
        format!(
            "listen: 127.0.0.1:{port}\njetstream {{ store_dir: \"{}\" }}\ninclude permissions.conf\n",
            dir.join("js").display()
        ),
    )
    .expect("config");
    let bin = std::env::var("ARGUS_NATS_SERVER").unwrap_or("nats-server".into());
    let _server = Command::new(bin)
        .arg("-c")
        .arg(dir.join("nats.conf"))
        .env("ARGUS_NATS_PASSWORD", "coord-pw")
        .env("ARGUS_NATS_WORKER_WEB_1_PASSWORD", "w1-pw")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("nats-server");
    let url = format!("nats://127.0.0.1:{port}");

    // The coordinator: streams and one assignment for each of two workers.
    let coord_client = connect(&url, &auth("argus", "coord-pw", None)).await;
    let coord = jetstream::new(coord_client.clone());
    let subjects = Subjects::new("argus").expect("subjects");
    argus_coordinator::bus::ensure_streams(&coord, &subjects, 1)
        .await
        .expect("streams");
    for w in ["web-1", "web-2"] {
        coord
            .publish(subjects.assign(w), format!("for {w}").into())
            .await
            .expect("publish")
            .await
            .expect("stored");
    }

    // The worker: its own consumer, its own assignment, its events.
    let wc = connect(&url, &auth("worker-web-1", "w1-pw", Some("_INBOX_web-1"))).await;
    let js = jetstream::new(wc.clone());
    let stream = js
        .get_stream(subjects.assign_stream())
        .await
        .expect("stream info");
    let own = |name: &str, filter: String| pull::Config {
        durable_name: Some(name.to_string()),
        filter_subject: filter,
        ack_policy: jetstream::consumer::AckPolicy::Explicit,
        ..Default::default()
    };
    let consumer: jetstream::consumer::PullConsumer = stream
        .get_or_create_consumer(
            &subjects.worker_consumer("web-1"),
            own(&subjects.worker_consumer("web-1"), subjects.assign("web-1")),
        )
        .await
        .expect("own consumer");
    let mut batch = consumer
        .fetch()
        .max_messages(1)
        .expires(Duration::from_secs(3))
        .messages()
        .await
        .expect("fetch");
    let msg = batch.next().await.expect("a message").expect("message");
    assert_eq!(&msg.payload[..], b"for web-1");
    msg.ack().await.expect("ack");
    js.publish(subjects.events(&uuid::Uuid::new_v4()), "{}".into())
        .await
        .expect("event publish")
        .await
        .expect("event stored");

    // Another worker's consumer: refused (or never answered).
    let other = tokio::time::timeout(
        Duration::from_secs(8),
        stream.get_or_create_consumer(
            &subjects.worker_consumer("web-2"),
            own(&subjects.worker_consumer("web-2"), subjects.assign("web-2")),
        ),
    )
    .await;
    assert!(
        !matches!(other, Ok(Ok(_))),
        "worker-web-1 created web-2's consumer"
    );
    // Another worker's subject, directly: nothing arrives.
    let mut sub = wc
        .subscribe(subjects.assign("web-2"))
        .await
        .expect("subscribe call");
    coord_client
        .publish(subjects.assign("web-2"), "probe".into())
        .await
        .expect("core publish");
    let got = tokio::time::timeout(Duration::from_secs(2), sub.next()).await;
    assert!(
        !matches!(got, Ok(Some(_))),
        "worker-web-1 read web-2's assignment subject"
    );
    // Publishing an assignment: refused; web-2's newest message is still the coordinator's.
    let forged = tokio::time::timeout(
        Duration::from_secs(8),
        js.publish(subjects.assign("web-2"), "forged".into()),
    )
    .await;
    if let Ok(Ok(ack)) = forged {
        let _ = tokio::time::timeout(Duration::from_secs(5), ack).await;
    }
    let last = coord
        .get_stream(subjects.assign_stream())
        .await
        .expect("stream")
        .get_last_raw_message_by_subject(&subjects.assign("web-2"))
        .await
        .expect("web-2's last message");
    assert_eq!(
        &last.payload[..],
        b"probe",
        "a worker published an assignment"
    );
    live_screen_subjects(&subjects, &coord_client, &wc).await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// `msg`, published by `from` on `subject` every 250 ms, reaches a subscriber `to` of it
/// within `window` (`false`: it did not). Publishing again rather than once keeps a busy CI
/// machine (a late SUB, a slow flush) from reading as a denied subject; a denied one never
/// arrives however often it is sent.
async fn reaches(
    from: &async_nats::Client,
    to: &async_nats::Client,
    subject: String,
    msg: &'static str,
    window: Duration,
) -> bool {
    let mut sub = to.subscribe(subject.clone()).await.expect("subscribe call");
    to.flush().await.expect("flush");
    let deadline = tokio::time::Instant::now() + window;
    while tokio::time::Instant::now() < deadline {
        let _ = from.publish(subject.clone(), msg.into()).await;
        let _ = from.flush().await;
        let got = tokio::time::timeout(Duration::from_millis(250), sub.next()).await;
        if matches!(got, Ok(Some(m)) if &m.payload[..] == msg.as_bytes()) {
            return true;
        }
    }
    false
}

/// How long an allowed live-screen message may take to arrive (a loaded CI machine took over 2 s).
const HEARD: Duration = Duration::from_secs(15);
/// How long a denied one is sent and waited for before the subject counts as closed.
const DENIED: Duration = Duration::from_secs(3);

async fn live_screen_subjects(
    subjects: &Subjects,
    coord: &async_nats::Client,
    worker: &async_nats::Client,
) {
    let run = uuid::Uuid::new_v4();
    assert!(
        reaches(
            coord,
            worker,
            subjects.live_watch("web-1", &run),
            "watch",
            HEARD
        )
        .await,
        "worker-web-1 does not hear its own watch lease"
    );
    assert!(
        reaches(
            worker,
            coord,
            subjects.live_frame("web-1", &run),
            "frame",
            HEARD
        )
        .await,
        "worker-web-1's frame does not reach the coordinator"
    );
    assert!(
        !reaches(
            coord,
            worker,
            subjects.live_watch("web-2", &run),
            "watch",
            DENIED
        )
        .await,
        "worker-web-1 hears web-2's watch leases"
    );
    assert!(
        !reaches(
            worker,
            coord,
            subjects.live_frame("web-2", &run),
            "forged",
            DENIED
        )
        .await,
        "worker-web-1 published frames as web-2"
    );
}
