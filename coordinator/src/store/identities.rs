//! Which token owns a worker id or device id (`identity_owners`). The first token to
//! heartbeat an id owns it until that token is revoked; another token naming it is refused.

use sqlx::PgPool;

/// Claims `worker_id` and `device_ids` for `token_id` where unowned; returns the ones
/// another token owns (`worker <id>` / `device <id>`), empty when all are the caller's.
pub async fn claim(
    pool: &PgPool,
    token_id: uuid::Uuid,
    worker_id: &str,
    device_ids: &[&str],
) -> Result<Vec<String>, sqlx::Error> {
    let mut kinds = vec!["worker"];
    let mut names = vec![worker_id];
    kinds.extend(std::iter::repeat_n("device", device_ids.len()));
    names.extend_from_slice(device_ids);
    // Claim what is free, then read back every owner: an insert that lost a race to
    // another token finds that token's row. A refused heartbeat claims nothing.
    let mut tx = pool.begin().await?;
    sqlx::query!(
        "insert into identity_owners (kind, name, token_id)
         select k, n, $3 from unnest($1::text[], $2::text[]) as u(k, n)
         on conflict (kind, name) do nothing",
        &kinds as _,
        &names as _,
        token_id
    )
    .execute(&mut *tx)
    .await?;
    let taken = sqlx::query!(
        "select o.kind, o.name from identity_owners o
           join unnest($1::text[], $2::text[]) as u(k, n) on o.kind = u.k and o.name = u.n
          where o.token_id <> $3
          order by o.kind desc, o.name",
        &kinds as _,
        &names as _,
        token_id
    )
    .fetch_all(&mut *tx)
    .await?;
    if taken.is_empty() {
        tx.commit().await?;
    } else {
        tx.rollback().await?;
    }
    Ok(taken
        .into_iter()
        .map(|o| format!("{} {}", o.kind, o.name))
        .collect())
}
