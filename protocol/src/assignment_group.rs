//! One assignment message's bytes: a lone [`Assignment`] (a JSON object), or a JSON array of
//! them — the runs one claim handed to one worker's devices, published as one JetStream
//! message so that the stream stores, acknowledges and delivers one message for them, not
//! one a run (issue 25: dispatch throughput; the same as a worker's grouped run events).
//!
//! A group's `Nats-Msg-Id` is [`group_msg_id`] of its first assignment's attempt id: an
//! attempt id belongs to one claim, so to one group, and a republish of the same group is
//! deduplicated as a lone assignment's (id = its attempt id) is.
//!
//! Only a worker that says so in its heartbeat (`Heartbeat::reads_assignment_groups`) is sent
//! groups; an older one gets one assignment a message. A worker that reads these messages
//! acks the message, then starts each assignment it can read; an element it cannot read
//! (say, from a newer coordinator) costs only itself, and its run comes back to the queue
//! when its lease expires, as a lost assignment's does. A group is sent again only as the
//! same bytes with the same id (after an unacknowledged publish), never regrouped, so the
//! stream's duplicate window stores it once.

use crate::assignment::Assignment;

/// Most bytes of assignments put in one group message (JSON, the array's brackets and
/// commas aside): a quarter of NATS's default `max_payload` (1 MiB). The coordinator caps a
/// group at half the server's own `max_payload` when that is less. An assignment larger on
/// its own goes alone, as every assignment did before groups.
pub const GROUP_MAX_BYTES: usize = 256 * 1024;

/// The `Nats-Msg-Id` of a group whose first assignment has attempt id `first_attempt`:
/// `group:<attempt id>` (a lone assignment's is its bare attempt id).
pub fn group_msg_id(first_attempt: uuid::Uuid) -> String {
    format!("group:{first_attempt}")
}

/// One assignment already encoded: `(its index in the caller's batch, its JSON bytes)`.
pub type Encoded = (usize, Vec<u8>);

/// Splits one worker's assignments, already encoded ([`Encoded`], in order), into
/// message payloads of at most `max_bytes` of assignments each (one larger assignment
/// alone; the coordinator passes [`GROUP_MAX_BYTES`] or less):
/// returns, per message, the indexes it carries and its payload — a lone object for one
/// assignment, an array for several.
pub fn pack(encoded: Vec<Encoded>, max_bytes: usize) -> Vec<(Vec<usize>, Vec<u8>)> {
    let mut out: Vec<(Vec<usize>, Vec<Vec<u8>>, usize)> = Vec::new();
    for (i, bytes) in encoded {
        match out.last_mut() {
            Some((idx, parts, size)) if *size + bytes.len() <= max_bytes => {
                *size += bytes.len();
                idx.push(i);
                parts.push(bytes);
            }
            _ => {
                let size = bytes.len();
                out.push((vec![i], vec![bytes], size));
            }
        }
    }
    out.into_iter()
        .map(|(idx, mut parts, size)| {
            if parts.len() == 1 {
                return (idx, parts.pop().unwrap_or_default());
            }
            let mut payload = Vec::with_capacity(size + parts.len() + 1);
            payload.push(b'[');
            for (k, p) in parts.iter().enumerate() {
                if k > 0 {
                    payload.push(b',');
                }
                payload.extend_from_slice(p);
            }
            payload.push(b']');
            (idx, payload)
        })
        .collect()
}

/// Decodes one assignment message: a lone [`Assignment`] or an array of them, in order.
/// Each element of an array is decoded on its own.
///
/// Errors: the payload is not JSON, or neither an assignment nor an array (the whole
/// message); an element that is not an [`Assignment`] (that element).
pub fn decode(
    payload: &[u8],
) -> Result<Vec<Result<Assignment, serde_json::Error>>, serde_json::Error> {
    let first = payload.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'[') {
        return Ok(vec![Ok(serde_json::from_slice(payload)?)]);
    }
    if let Ok(all) = serde_json::from_slice::<Vec<Assignment>>(payload) {
        return Ok(all.into_iter().map(Ok).collect());
    }
    let items: Vec<serde_json::Value> = serde_json::from_slice(payload)?;
    Ok(items.into_iter().map(serde_json::from_value).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::JobSpec;

    fn assignment(n: u128, instruction: &str) -> Assignment {
        Assignment {
            run_id: uuid::Uuid::from_u128(n),
            attempt_id: uuid::Uuid::from_u128(1000 + n),
            job_id: uuid::Uuid::from_u128(2000 + n),
            team: "qa".into(),
            device_id: format!("w1/d{n}"),
            spec: serde_json::from_value::<JobSpec>(serde_json::json!({
                "instruction": instruction, "platform": "web"
            }))
            .expect("spec"),
            lease_expires_at: chrono::DateTime::UNIX_EPOCH,
            replay: None,
        }
    }

    fn encoded(items: &[Assignment]) -> Vec<Encoded> {
        items
            .iter()
            .enumerate()
            .map(|(i, a)| (i, serde_json::to_vec(a).expect("json")))
            .collect()
    }

    #[test]
    fn one_assignment_goes_as_it_always_did_and_several_as_an_array() {
        let a = assignment(1, "open example.com");
        let packed = pack(encoded(std::slice::from_ref(&a)), GROUP_MAX_BYTES);
        assert_eq!(packed.len(), 1);
        assert_eq!(packed[0].0, vec![0]);
        assert_eq!(packed[0].1, serde_json::to_vec(&a).expect("json"));
        let lone: Assignment = serde_json::from_slice(&packed[0].1).expect("an object");
        assert_eq!(lone, a);

        let three = [
            a.clone(),
            assignment(2, "tap Next"),
            assignment(3, "wait 1s"),
        ];
        let packed = pack(encoded(&three), GROUP_MAX_BYTES);
        assert_eq!(packed.len(), 1);
        assert_eq!(packed[0].0, vec![0, 1, 2]);
        let back: Vec<Assignment> = decode(&packed[0].1)
            .expect("a group")
            .into_iter()
            .map(|r| r.expect("each element"))
            .collect();
        assert_eq!(back, three);
    }

    #[test]
    fn groups_stay_under_the_byte_cap_and_a_large_one_goes_alone() {
        let big = "x".repeat(GROUP_MAX_BYTES);
        let mid = "y".repeat(GROUP_MAX_BYTES / 3);
        let items = [
            assignment(1, &mid),
            assignment(2, &mid),
            assignment(3, &big),
            assignment(4, &mid),
            assignment(5, &mid),
            assignment(6, &mid),
        ];
        let packed = pack(encoded(&items), GROUP_MAX_BYTES);
        let groups: Vec<Vec<usize>> = packed.iter().map(|p| p.0.clone()).collect();
        assert_eq!(groups, vec![vec![0, 1], vec![2], vec![3, 4], vec![5]]);
        for (idx, payload) in &packed {
            assert!(idx.len() == 1 || payload.len() <= GROUP_MAX_BYTES + idx.len() + 1);
            let back = decode(payload).expect("decodes");
            assert_eq!(back.len(), idx.len());
            for (k, r) in idx.iter().zip(back) {
                assert_eq!(r.expect("element"), items[*k]);
            }
        }
    }

    #[test]
    fn an_unreadable_element_costs_only_itself() {
        let a = assignment(1, "open example.com");
        let mut payload = b"[".to_vec();
        payload.extend(serde_json::to_vec(&a).expect("json"));
        payload.extend(br#",{"run_id":"not a uuid"}]"#);
        let back = decode(&payload).expect("an array");
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].as_ref().expect("first element"), &a);
        assert!(back[1].is_err());
        assert!(decode(b"{\"run_id\": 1}").is_err());
        assert!(decode(b"not json").is_err());
    }

    #[test]
    fn a_group_id_is_not_any_lone_assignments_id() {
        let id = uuid::Uuid::from_u128(7);
        assert_eq!(group_msg_id(id), format!("group:{id}"));
        assert_ne!(group_msg_id(id), id.to_string());
    }
}
