-- Issue 25 (with 10,000 devices, dispatch at >= 80% of the rate with 1,000): where each class
-- of slots was last claimed, so the next claim looks there first (next fit).
--
-- The claim (coordinator/sql/claim.sql) locked a class's first free slots by walking the
-- class in id order from its first slot, stepping over every busy one. With 10,000 slots
-- nearly all busy (a saturated farm: in dispatch-bench ~9,900 busy while runs waited for
-- their events to be applied), each claim stepped over ~9,900 slots to find the ~130 freed
-- since the last one: 1,500 buffers and 8-10 ms of a claim, against ~1 ms with 1,000
-- slots. Slots free up in about the order they were claimed, so the ones just after the
-- last claimed slot are the likeliest to be free again: the claim now looks at a window of
-- slots after the hand first, and walks from the class's first slot only when none in the
-- window is free or for the rest when the window reached the class's last slot.
--
-- A hint, never the truth: a missing or stale row only costs a walk from the first slot.
-- Unlogged (no WAL for a row rewritten by every claim; emptied by a crash, which costs one
-- walk per class). Keyed like devices_class: platform, md5 of the labels, whether the class
-- serves every team, the one team it serves ('' for none).
create unlogged table claim_hands (
    platform text not null,
    labels_md5 uuid not null,
    serves_all boolean not null,
    team text not null,
    after_id text not null,
    primary key (platform, labels_md5, serves_all, team)
);
