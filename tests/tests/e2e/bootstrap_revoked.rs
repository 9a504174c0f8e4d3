//! Pins that revoking the bootstrap admin token sticks (issue 24, item 7): a real
//! `argus coordinator` process creates `ARGUS_BOOTSTRAP_TOKEN` at its first start; the
//! real `argus token revoke` CLI deletes it; the coordinator restarted with the same
//! environment does not bring it back — the token is refused (401) and no token row holds
//! its digest. A token value revoked once can never be minted again.

use argus_coordinator::auth::tokens;
use argus_coordinator::store::TeamScope;
use argus_tests::procs::{argus_bin, ProcFarm, ProcFarmOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_bootstrap_token_stays_revoked_across_a_restart() {
    let mut farm = ProcFarm::start(ProcFarmOptions::default()).await;
    farm.start_coordinator().await;
    let runs = format!("{}/api/v1/runs", farm.coordinator_url(0));
    let ok = farm.http.get(&runs).send().await.expect("GET runs");
    assert_eq!(
        ok.status().as_u16(),
        200,
        "the bootstrap token works at first"
    );

    let rows = tokens::list(&farm.pool, &TeamScope::system())
        .await
        .expect("list");
    let boot: Vec<_> = rows.iter().filter(|r| r.name == "bootstrap").collect();
    assert_eq!(boot.len(), 1, "{rows:?}");
    assert_eq!(boot[0].role, argus_coordinator::auth::Role::Admin);
    let out = tokio::process::Command::new(argus_bin())
        .args(["token", "revoke", &boot[0].id.to_string()])
        .env("ARGUS_DATABASE_URL", &farm.db_url)
        .output()
        .await
        .expect("argus token revoke");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let gone = farm.http.get(&runs).send().await.expect("GET runs");
    assert_eq!(gone.status().as_u16(), 401, "revoked at once");

    // Same environment, same ARGUS_BOOTSTRAP_TOKEN: the restart must not re-create it.
    farm.kill_coordinator(0);
    farm.restart_coordinator(0).await;
    let after = farm.http.get(&runs).send().await.expect("GET runs");
    assert_eq!(
        after.status().as_u16(),
        401,
        "the coordinator re-created a revoked bootstrap token at restart"
    );
    let n: (i64,) = sqlx::query_as("select count(*) from api_tokens where token_sha256 = $1")
        .bind(tokens::digest(&farm.admin_token))
        .fetch_one(&farm.pool)
        .await
        .expect("count");
    assert_eq!(
        n.0, 0,
        "a token row holds the revoked bootstrap token's digest"
    );
    // Minting that value again by hand is refused the same way.
    argus_coordinator::auth::create_token(
        &farm.pool,
        "default",
        argus_coordinator::auth::Role::Admin,
        "again",
        &farm.admin_token,
    )
    .await
    .expect("create_token answers");
    let n: (i64,) = sqlx::query_as("select count(*) from api_tokens where token_sha256 = $1")
        .bind(tokens::digest(&farm.admin_token))
        .fetch_one(&farm.pool)
        .await
        .expect("count");
    assert_eq!(n.0, 0, "a revoked token value was minted again");
}
