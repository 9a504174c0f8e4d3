//! The reader on orders said as idioms, swaps and texts given later, in words other than
//! any paraphrase set's.

use super::test_support::{list, list_with, steps};

#[test]
fn idioms_swaps_and_later_texts_read_as_orders() {
    let obs = list(&[
        ("order 12 chairs", false),
        ("hire the sound system", true),
        ("book a caterer", false),
        ("draft the seating plan", false),
    ]);
    let cases: &[(&str, &[&str])] = &[
        (
            "The caterer confirmed by phone, so that's one down.",
            &["check \"book a caterer\""],
        ),
        (
            "The speakers came with the venue, so lose the sound system line.",
            &["tap \"Delete\" in the row of \"hire the sound system\""],
        ),
        (
            "The sound system has a fault, so it isn't done any more either.",
            &["uncheck \"hire the sound system\""],
        ),
        (
            "More guests than planned: change 12 to 16.",
            &[
                "double tap \"order 12 chairs\"",
                "type \"order 16 chairs\" into \"order 12 chairs\"",
                "press Enter",
            ],
        ),
        (
            "Someone misheard: the plan is for dinner, not seating. Fix the title.",
            &[
                "double tap \"draft the seating plan\"",
                "type \"draft the dinner plan\" into \"draft the seating plan\"",
                "press Enter",
            ],
        ),
        (
            "Add 'print name cards' and it can go in as done.",
            &[
                "type \"print name cards\" into \"New item\"",
                "press Enter",
                "check \"print name cards\"",
            ],
        ),
        (
            "Mia took over the seating plan, so it's off my plate.",
            &["tap \"Delete\" in the row of \"draft the seating plan\""],
        ),
        (
            "Add one for the flowers. I nearly wrote roses, but call it 'buy tulips'.",
            &["type \"buy tulips\" into \"New item\"", "press Enter"],
        ),
    ];
    for (t, want) in cases {
        assert_eq!(steps(t, &obs).unwrap(), *want, "{t}");
    }
    assert_eq!(
        steps(
            "Could you tidy up the party list? (a) mark the caterer entry and the seating entry as done; (b) remove the sound system one.",
            &obs
        )
        .unwrap(),
        [
            "check \"book a caterer\"",
            "check \"draft the seating plan\"",
            "tap \"Delete\" in the row of \"hire the sound system\""
        ]
    );
}

#[test]
fn chinese_counts_as_done_and_later_texts_read() {
    let obs = list(&[("买饮料", false), ("订场地", false), ("发通知", false)]);
    assert_eq!(
        steps("饮料买好了，场地也订下了，这两条都算办完了。", &obs).unwrap(),
        ["check \"买饮料\"", "check \"订场地\""]
    );
    let moved = list(&[("搬去三楼", false), ("订车", false)]);
    assert_eq!(
        steps("物业把我们从三楼调到了五楼，名字改成“搬去五楼”。", &moved).unwrap(),
        [
            "double tap \"搬去三楼\"",
            "type \"搬去五楼\" into \"搬去三楼\"",
            "press Enter"
        ],
        "what happened is the rename's reason"
    );
    assert_eq!(
        steps("场地换成学校礼堂了，这条用不着了，删掉。", &obs).unwrap(),
        ["tap \"Delete\" in the row of \"订场地\""],
        "a pointing reason before a bare delete"
    );
    assert_eq!(
        steps("再补一条买气球的：先写成“买十个气球”。", &obs).unwrap(),
        ["type \"买十个气球\" into \"New item\"", "press Enter"]
    );
}

#[test]
fn swaps_later_texts_and_reasons_do_not_misread_other_orders() {
    let obs = list(&[
        ("buy bread", false),
        ("pay rent", true),
        ("fix tap", false),
        ("dentist appointment Tuesday", false),
        ("file the tax return", false),
    ]);
    let rename = |old: &str, new: &str| {
        vec![
            format!("double tap \"{old}\""),
            format!("type \"{new}\" into \"{old}\""),
            "press Enter".to_string(),
        ]
    };
    // An unquoted rename whose old and new titles share words swaps the word that differs.
    assert_eq!(
        steps("Rename buy bread to buy rolls.", &obs).unwrap(),
        rename("buy bread", "buy rolls")
    );
    assert_eq!(
        steps("Make it say buy rolls instead of buy bread.", &obs).unwrap(),
        rename("buy bread", "buy rolls")
    );
    // Several words to one: no word of the title is the one swapped.
    let day = steps("Change the dentist appointment to Friday.", &obs);
    assert!(
        !day.iter().flatten().any(|s| s.contains("dentist Friday")),
        "{day:?}"
    );
    // The quoted text of a later rename is not the text of an add said before it.
    let later = steps(
        "Add one for the plumber, then rename 'fix tap' and make it 'fix the kitchen tap'.",
        &obs,
    );
    assert!(
        !later
            .iter()
            .flatten()
            .any(|s| s.contains("\"fix the kitchen tap\" into \"New item\"")),
        "{later:?}"
    );
    // An unread order before an order on another (quoted) item is no reason of it.
    for (t, free) in [
        (
            "Drag the tax return to the top. Then add 'call accountant' to the list.",
            "Drag the tax return to the top",
        ),
        (
            "Drag the tax return to the top. Then tick 'buy bread'.",
            "Drag the tax return to the top",
        ),
    ] {
        let got = steps(t, &obs).unwrap();
        assert!(got.iter().any(|s| s == free), "{t}: {got:?}");
    }
}

#[test]
fn a_title_that_starts_with_a_verb_is_the_subject_not_the_order() {
    let obs = list(&[("lose 2 kg", false), ("pay rent", true)]);
    for t in ["Lose 2 kg is finally done.", "Lose 2 kg: done."] {
        assert_eq!(steps(t, &obs).unwrap(), ["check \"lose 2 kg\""], "{t}");
    }
    let got = steps("Lose 2 kg, that's one down.", &obs);
    assert!(
        !got.iter().flatten().any(|s| s.contains("Delete")),
        "{got:?}"
    );
    assert_eq!(
        steps("Lose the 2 kg one, it's unrealistic.", &obs).unwrap(),
        ["tap \"Delete\" in the row of \"lose 2 kg\""]
    );
    // A title alone before an order on another item is still read as said.
    assert_eq!(
        steps("Lose 2 kg, then untick 'pay rent'.", &obs).unwrap(),
        [
            "tap \"Delete\" in the row of \"lose 2 kg\"",
            "uncheck \"pay rent\""
        ]
    );
}

#[test]
fn chinese_unread_order_before_an_add_stays_an_order() {
    let obs = list(&[("买饮料", false), ("订场地", true), ("发通知", false)]);
    let got = steps("把发通知挪到最上面。再加一条“买水”。", &obs).unwrap();
    assert!(got.iter().any(|s| s.contains("挪到最上面")), "{got:?}");
}

#[test]
fn counts_as_done_only_when_said_so_and_later_texts_not_another_items() {
    let obs = list(&[("买饮料", false), ("订场地", true), ("发通知", false)]);
    // A condition (才算) or a question (怎么能…？) ticks nothing.
    for t in [
        "发通知要等回复才算办完。",
        "等老王回复了，发通知才算办完。",
        "发通知怎么能算办完？",
    ] {
        let got = steps(t, &obs);
        assert!(
            !got.iter().flatten().any(|s| s.starts_with("check")),
            "{t}: {got:?}"
        );
    }
    // The quoted text of a clause about another listed item is that item's, not the add's.
    let got = steps("再补一条买冰块的。发通知那条就叫“发群通知”。", &obs);
    assert!(
        !got.iter()
            .flatten()
            .any(|s| s.contains("\"发群通知\" into \"New item\"")),
        "{got:?}"
    );
}

#[test]
fn a_swap_about_something_else_renames_nothing() {
    let obs = list(&[
        ("limit TV time", false),
        ("buy bread", false),
        ("pay rent", true),
    ]);
    // "have the kids read …" is no "have it read …": the kids are no title.
    let got = steps("Have the kids read a book instead of TV.", &obs);
    assert!(
        !got.iter().flatten().any(|s| s.starts_with("type")),
        "{got:?}"
    );
    // A choice between two quoted items is no word swapped in a title.
    let got = steps(
        "Tick 'buy bread', not 'pay rent'. And fix the spelling.",
        &obs,
    );
    assert!(
        !got.iter().flatten().any(|s| s.contains("bread rent")),
        "{got:?}"
    );
}

#[test]
fn an_unread_order_is_no_reason_for_the_next_one() {
    let obs = list(&[("file the tax return", false), ("buy bread", false)]);
    let got = steps("Drag the tax return to the top, then tick it.", &obs).unwrap();
    assert!(
        got.iter().any(|s| s == "Drag the tax return to the top"),
        "{got:?}"
    );
    let zh = list(&[("买饮料", false), ("订场地", true), ("发通知", false)]);
    let got = steps("把发通知挪到最上面，然后把它勾上。", &zh).unwrap();
    assert!(got.iter().any(|s| s.contains("挪到最上面")), "{got:?}");
    // What happened (a past form, 了) is still the reason.
    assert_eq!(
        steps(
            "Sam moved the tax return to May, so rename it to 'file taxes in May'.",
            &obs
        )
        .unwrap(),
        [
            "double tap \"file the tax return\"",
            "type \"file taxes in May\" into \"file the tax return\"",
            "press Enter"
        ]
    );
}

#[test]
fn ticks_taken_edits_opened_and_states_said_negated_read_as_orders() {
    let obs = list(&[
        ("renew the bike lock", true),
        ("pump the tyres", false),
        ("oil the chain of the bike", true),
        ("fit new brake pads", false),
    ]);
    let cases: &[(&str, &[&str])] = &[
        // A tick taken off by its noun presses no `Clear …` button.
        (
            "The lock key snapped, so that isn't finished: clear its tick.",
            &["uncheck \"renew the bike lock\""],
        ),
        (
            "Next, un-complete the row about oiling the chain.",
            &["uncheck \"oil the chain of the bike\""],
        ),
        // The list as a whole, named with a particle after it, orders nothing.
        (
            "Race day tomorrow, so let's get my bike list sorted. The tyres are pumped, tick them.",
            &["check \"pump the tyres\""],
        ),
        (
            "Could you tidy the cycling list up for me? Tick the tyres.",
            &["check \"pump the tyres\""],
        ),
        // A double click that opens the editor belongs to the rename after it, and the
        // Enter said after it is the rename's own.
        (
            "Double-click 'fit new brake pads', change the title to 'fit new disc pads', hit Enter.",
            &[
                "double tap \"fit new brake pads\"",
                "type \"fit new disc pads\" into \"fit new brake pads\"",
                "press Enter",
            ],
        ),
        // A negated state joined to a reason puts the other state.
        (
            "The chain squeaks again, so that one shouldn't be marked as done.",
            &["uncheck \"oil the chain of the bike\""],
        ),
    ];
    for (said, want) in cases {
        assert_eq!(steps(said, &obs).unwrap_or_default(), *want, "{said}");
    }
    let zh = list(&[("寄婚礼邀请函", false), ("订酒店", true), ("试礼服", false)]);
    let cases: &[(&str, &[&str])] = &[
        // 请 inside 邀请函 asks nothing: the clause reports, the next one orders.
        ("邀请函上周都发出去了，勾上。", &["check \"寄婚礼邀请函\""]),
        // 顺便 before 改成 names no item: the one just spoken of is renamed.
        (
            "酒店那条其实还没订好，把勾去掉，顺便改成“订海边的酒店”。",
            &[
                "uncheck \"订酒店\"",
                "double tap \"订酒店\"",
                "type \"订海边的酒店\" into \"订酒店\"",
                "press Enter",
            ],
        ),
    ];
    for (said, want) in cases {
        assert_eq!(steps(said, &zh).unwrap_or_default(), *want, "{said}");
    }
}

#[test]
fn every_tick_taken_a_negated_done_word_another_item_and_a_form_field_are_not_misread() {
    let obs = list(&[
        ("return the library books", true),
        ("renew the passport", true),
        ("book a haircut", false),
    ]);
    // Every tick taken off unticks every item; no `Clear …` button deletes the done ones.
    for said in [
        "Take all the ticks off.",
        "Clear every checkmark on the list, please.",
    ] {
        assert_eq!(
            steps(said, &obs).unwrap_or_default(),
            ["uncheck every item"],
            "{said}"
        );
    }
    // "un-ticked" is the other state of "ticked": these are no done items to clear.
    assert!(!steps("Un-ticked entries may be removed.", &obs)
        .unwrap_or_default()
        .iter()
        .any(|s| s.contains("Clear")));
    // "the other one" / "另外那条" is never the item just spoken of.
    let other = steps(
        "The passport is renewed; rename the other one to 'book a beard trim'.",
        &obs,
    )
    .unwrap_or_default();
    assert!(!other.iter().any(|s| s.contains("type")), "{other:?}");
    let zh = list(&[("取快递", false), ("交电费", false)]);
    assert_eq!(
        steps("快递那条打勾，另外那条改成“交燃气费”。", &zh).unwrap_or_default(),
        ["check \"取快递\"", "另外那条改成“交燃气费”"]
    );
}

#[test]
fn possessives_take_backs_and_renames_that_keep_the_old_title_read() {
    let obs = list(&[
        ("ask Omar to bring the projector", false),
        ("book the hall", true),
        ("print the tickets", false),
    ]);
    let cases: &[(&str, &[&str])] = &[
        // "his" / "hers": the item of the person just named.
        (
            "Omar says he can bring it, so mark his as done.",
            &["check \"ask Omar to bring the projector\""],
        ),
        // A take-back led by "actually" / "oh wait" cancels the order before it.
        (
            "Add 'buy cups'... oh wait, never mind, the hall has cups. Add 'buy napkins' instead.",
            &["type \"buy napkins\" into \"New item\"", "press Enter"],
        ),
    ];
    for (said, want) in cases {
        assert_eq!(steps(said, &obs).unwrap_or_default(), *want, "{said}");
    }
    // A new title that keeps one item whole renames that item, though the nearest clause
    // shares a word with another.
    let zh = list(&[("背单词", false), ("整理书桌", false), ("交学费", true)]);
    assert_eq!(
        steps(
            "单词光背不行，我还要顺便整理例句，把那条改成“背单词并整理例句”。",
            &zh
        )
        .unwrap_or_default(),
        [
            "double tap \"背单词\"",
            "type \"背单词并整理例句\" into \"背单词\"",
            "press Enter"
        ]
    );
    // "先删了": an adverb and a particle are the item just spoken of.
    assert_eq!(
        steps("学费那条现在交还太早，等通知再说，先删了。", &zh).unwrap_or_default(),
        ["tap \"Delete\" in the row of \"交学费\""]
    );
}

#[test]
fn notes_with_arrows_relatives_of_done_items_and_gerunds_of_what_was_done_read() {
    let obs = list(&[
        ("hang the bunting", false),
        ("dog-proof the garden", false),
        ("order the cake", true),
        ("hire a bouncy castle", true),
    ]);
    let cases: &[(&str, &[&str])] = &[
        // A note's arrow gives the item's new state, or what becomes of it.
        (
            "Party prep:\n- bunting hung → done\n- bouncy castle -> remove",
            &[
                "check \"hang the bunting\"",
                "tap \"Delete\" in the row of \"hire a bouncy castle\"",
            ],
        ),
        // A hyphenated verb said as done ticks its item; a gerund joined by "and" to a
        // clause that tells what was done orders nothing.
        (
            "I spent the morning fixing the fence and adding a gate latch, so the garden is dog-proofed now.",
            &["check \"dog-proof the garden\""],
        ),
        // The pronoun after a free relative of the done items is those items.
        (
            "Untick the cake. Whatever is still ticked after that, clear it.",
            &["uncheck \"order the cake\"", "tap \"Clear done\""],
        ),
    ];
    for (said, want) in cases {
        assert_eq!(steps(said, &obs).unwrap_or_default(), *want, "{said}");
    }
}

#[test]
fn needs_gerunds_new_item_headings_dashed_notes_and_exceptions_to_all_read() {
    let obs = list(&[
        ("book the minibus", false),
        ("pay the deposit", false),
        ("print the maps", true),
        ("pack the first aid kit", false),
    ]);
    let cases: &[(&str, &[&str])] = &[
        // The gerund after "needs" is the order.
        (
            "The maps were the wrong edition, so that one needs unticking.",
            &["uncheck \"print the maps\""],
        ),
        // A heading that announces one new item, then its unquoted title.
        (
            "trip notes\n- new todo: ring the museum\n",
            &["type \"ring the museum\" into \"New item\"", "press Enter"],
        ),
        // A note's spaced dash before a state or a done verb.
        (
            "trip: minibus - booked. deposit - paid.",
            &["check \"book the minibus\"", "check \"pay the deposit\""],
        ),
        // "after all" says nothing of every item; "finish on All" ticks nothing.
        (
            "The maps aren't printed after all -> untick. Finish on All.",
            &["uncheck \"print the maps\""],
        ),
        // An exception after ticking every item puts its item back.
        (
            "Tick everything. The first aid kit isn't packed yet, so don't tick that one.",
            &["check every item", "uncheck \"pack the first aid kit\""],
        ),
    ];
    for (said, want) in cases {
        assert_eq!(steps(said, &obs).unwrap_or_default(), *want, "{said}");
    }
    // A pronoun's context: a Chinese title's head noun said alone, the list's own name
    // skipped.
    let zh = list(&[("办会员卡", true), ("买登山鞋", true), ("订营地", false)]);
    assert_eq!(
        steps("徒步那个单子：鞋不合脚退掉了，勾取消。", &zh).unwrap_or_default(),
        ["uncheck \"买登山鞋\""]
    );
}

#[test]
fn chinese_exceptions_after_the_order_and_work_done_for_me_read() {
    let zh = list(&[
        ("订机票", true),
        ("换外币", false),
        ("买电话卡", false),
        ("收拾行李", false),
    ]);
    // "…全勾上，X那条除外": every other item.
    assert_eq!(
        steps("剩下的全勾上，电话卡那条除外。", &zh).unwrap_or_default(),
        ["check \"换外币\"", "check \"收拾行李\""]
    );
    // "同事已经帮我换好外币了" is a report of what someone did, the reason for the order after.
    assert_eq!(
        steps("同事已经帮我把外币换了，标成完成。", &zh).unwrap_or_default(),
        ["check \"换外币\""]
    );
}

#[test]
fn corrections_of_the_item_renames_said_as_the_text_it_reads_and_measure_words_read() {
    let en = list(&[
        ("sand the fence", false),
        ("oil the hedge trimmer", false),
        ("ring Omar about the skip", false),
        ("paint the shed red", false),
    ]);
    // "tick X, sorry, no, I meant Y": Y.
    assert_eq!(
        steps("Tick the fence, sorry, no, I meant the hedge trimmer.", &en).unwrap_or_default(),
        ["check \"oil the hedge trimmer\""]
    );
    // "… so that one should read 'X'" after a change: a rename of it.
    assert_eq!(
        steps(
            "We went with green in the end, so the shed one should read 'paint the shed green'.",
            &en
        )
        .unwrap_or_default(),
        [
            "double tap \"paint the shed red\"",
            "type \"paint the shed green\" into \"paint the shed red\"",
            "press Enter"
        ]
    );
    // "swap the name in that one so it reads 'X'".
    assert_eq!(
        steps(
            "Omar is away, Lucy has the keys, so swap the name in that one so it reads 'ring Lucy about the skip'.",
            &en
        )
        .unwrap_or_default(),
        [
            "double tap \"ring Omar about the skip\"",
            "type \"ring Lucy about the skip\" into \"ring Omar about the skip\"",
            "press Enter"
        ]
    );
    // One slipped letter in an adverb.
    assert_eq!(
        steps("The fence is someone else's now, drop it entirley.", &en).unwrap_or_default(),
        ["tap \"Delete\" in the row of \"sand the fence\""]
    );
    let zh = list(&[("买灯泡", false), ("修门锁", false)]);
    // "再添个“X”": a measure word after the verb.
    assert_eq!(
        steps("再添个“取快递”。", &zh).unwrap_or_default(),
        ["type \"取快递\" into \"New item\"", "press Enter"]
    );
    // "那个柜子买了一个，第二个放不下": 第二个 counts the things described, not the rows.
    assert_eq!(
        steps("门锁的零件买了一个，第二个还没到，那条打勾。", &zh).unwrap_or_default(),
        ["check \"修门锁\""]
    );
    // "第一条写清楚点，写成“X”": a new name alone for the row named before.
    assert_eq!(
        steps("第二条写具体点，写成“修卧室门锁”。", &zh).unwrap_or_default(),
        [
            "double tap \"修门锁\"",
            "type \"修卧室门锁\" into \"修门锁\"",
            "press Enter"
        ]
    );
}

#[test]
fn narrowed_corrections_labels_ordinals_and_questions_about_a_name() {
    let en = list(&[
        ("wash the van", false),
        ("return the library books", false),
        ("book the dentist for March", false),
    ]);
    // A take-back word then the item meant: the order goes to that item.
    assert_eq!(
        steps("Tick the van, no wait, I meant the library books.", &en).unwrap_or_default(),
        ["check \"return the library books\""]
    );
    // "I mean X too" says more than the item: the order keeps its own.
    assert_eq!(
        steps(
            "Delete the van, I mean the library books are overdue anyway.",
            &en
        )
        .unwrap_or_default(),
        ["tap \"Delete\" in the row of \"wash the van\""]
    );
    // A label the item should show is checked, never typed in as its name.
    assert_eq!(
        steps("Tick the van and it should say 'Done'.", &en).unwrap_or_default(),
        ["check \"wash the van\""]
    );
    // A text that mends the old name is still a rename.
    assert_eq!(
        steps(
            "The dentist moved me, so the dentist one should read 'book the dentist for April'.",
            &en
        )
        .unwrap_or_default(),
        [
            "double tap \"book the dentist for March\"",
            "type \"book the dentist for April\" into \"book the dentist for March\"",
            "press Enter"
        ]
    );
    let zh = list(&[("洗车", false), ("还书", false), ("约牙医", false)]);
    assert_eq!(
        steps("把洗车勾上，不对，我是说还书那条。", &zh).unwrap_or_default(),
        ["check \"还书\""]
    );
    // 第N个 alone, or said of the list, counts rows.
    assert_eq!(
        steps("第三个，把它删了。", &zh).unwrap_or_default(),
        ["tap \"Delete\" in the row of \"约牙医\""]
    );
    assert_eq!(
        steps("清单里的第三个早就约好了，它可以打勾。", &zh).unwrap_or_default(),
        ["check \"约牙医\""]
    );
    // A question about the name is no rename.
    assert_eq!(
        steps("第三条，写成“约牙医复查”了吗？", &zh).unwrap_or_default(),
        Vec::<String>::new()
    );
    assert_eq!(
        steps("第三条改一下，写成“约牙医复查”吧。", &zh).unwrap_or_default(),
        [
            "double tap \"约牙医\"",
            "type \"约牙医复查\" into \"约牙医\"",
            "press Enter"
        ]
    );
}

#[test]
fn notes_dropped_subjects_people_and_corrections_with_their_own_order_read() {
    let en = list(&[
        ("ask Priya to run the raffle", true),
        ("order the bunting", false),
        ("hang the bunting", false),
        ("bake the scones", false),
        ("renew the hall booking", false),
        ("collect the urn from the church", false),
    ]);
    let s = |said: &str| steps(said, &en).unwrap_or_default();
    // A person's pronoun: the item naming them.
    assert_eq!(
        s("Priya is off sick, so untick her."),
        ["uncheck \"ask Priya to run the raffle\""]
    );
    // A past form with the speaker unsaid, and a silent e come back ("baked").
    assert_eq!(
        s("Baked the scones last night. Add 'buy jam'."),
        [
            "check \"bake the scones\"",
            "type \"buy jam\" into \"New item\"",
            "press Enter"
        ]
    );
    // Someone named did the item's own action; a note's topic before a colon.
    assert_eq!(
        s("Tom hung the bunting on Friday. Add 'buy jam'.")[0],
        "check \"hang the bunting\""
    );
    assert_eq!(
        s("Urn: got it. Add 'buy jam'.")[0],
        "check \"collect the urn from the church\""
    );
    // A bare "done" after a clause naming one item; not after a negated one.
    assert_eq!(
        s("Scones are cooling on the rack, done. Add 'buy jam'.")[0],
        "check \"bake the scones\""
    );
    assert_eq!(s("Scones aren't out yet, done. Add 'buy jam'.").len(), 2);
    // A correction with an order of its own replaces the order before it; "no wait" alone
    // takes it back.
    assert_eq!(
        s("The hall booking lapsed, untick it, no actually just delete it."),
        ["tap \"Delete\" in the row of \"renew the hall booking\""]
    );
    assert_eq!(
        s("Tick the scones, no wait, they burnt. Add 'buy jam'.")[0],
        "type \"buy jam\" into \"New item\""
    );
    // "rather than" gives the other way, not an item; "Order form is ready" is no order.
    assert_eq!(
        s("The hall is free anyway, delete it rather than ticking it."),
        ["tap \"Delete\" in the row of \"renew the hall booking\""]
    );
    assert_eq!(s("Order form is ready. Add 'buy jam'.").len(), 2);
    let zh = list(&[("买灯泡", true), ("修门锁", false), ("交电费", false)]);
    // A clause trailing off into a take-back says nothing; 一起勾 ticks.
    assert_eq!(
        steps("门锁改成“换门锁”……哦不，干脆删了吧。", &zh).unwrap_or_default(),
        ["tap \"Delete\" in the row of \"修门锁\""]
    );
    assert_eq!(
        steps("电费也交了，一起勾。", &zh).unwrap_or_default(),
        ["check \"交电费\""]
    );
}

#[test]
fn hedged_or_asked_past_forms_and_bare_no_corrections_tick_nothing_wrong() {
    let shed = list(&[
        ("mend the gutter", false),
        ("print the flyers", false),
        ("fit the smoke alarm", false),
        ("oil the gate", true),
    ]);
    let s = |said: &str| steps(said, &shed).unwrap_or_default();
    let add = ["type \"get nails\" into \"New item\"", "press Enter"];
    // A hedge or a question leaves the past form undone; a plain report still ticks.
    assert_eq!(s("Nearly mended the gutter. Add 'get nails'."), add);
    assert_eq!(
        s("Probably Ana fitted the smoke alarm. Add 'get nails'."),
        add
    );
    assert_eq!(s("Has Ana fitted the smoke alarm? Add 'get nails'."), add);
    assert_eq!(s("Mended the gutter yet? Add 'get nails'."), add);
    assert_eq!(
        s("Ana fitted the smoke alarm. Add 'get nails'.")[0],
        "check \"fit the smoke alarm\""
    );
    // A past form used as an adjective, the clause's verb coming later.
    assert_eq!(
        s("Printed flyers are cheaper at the library. Add 'get nails'."),
        add
    );
    assert_eq!(
        s("Printed the flyers that were left. Add 'get nails'.")[0],
        "check \"print the flyers\""
    );
    // A "no"-led correction replaces the order before, whatever item it names; a bare "no"
    // takes it back.
    assert_eq!(
        s("Tick the gutter, no actually untick the gate."),
        ["uncheck \"oil the gate\""]
    );
    assert_eq!(s("Tick the gutter... no"), Vec::<String>::new());
    // Without the "no" it adds to the order before.
    assert_eq!(
        s("Tick the gutter, actually untick the gate."),
        ["check \"mend the gutter\"", "uncheck \"oil the gate\""]
    );
}

#[test]
fn an_and_no_answers_a_possessive_one_speaks_of_a_person_and_sort_deals_with_the_list() {
    let obs = list(&[
        ("renew the car insurance", false),
        ("ask Priya to feed the cat", false),
        ("defrost the freezer", true),
    ]);
    let s = |t: &str| steps(t, &obs).unwrap_or_default();
    // "and no, it isn't X yet" says the renamed item's state; the rename stands.
    assert_eq!(
        s("Insurance went up, change that one to 'renew the car insurance with Admiral', and no, it isn't renewed yet."),
        [
            "double tap \"renew the car insurance\"",
            "type \"renew the car insurance with Admiral\" into \"renew the car insurance\"",
            "press Enter",
        ]
    );
    // A bare "no" after an order still takes it back.
    assert_eq!(s("Untick the freezer... no"), Vec::<String>::new());
    // "her one": the item of the person named before.
    assert_eq!(
        s("Priya is away next week, so change her one to 'ask Dev to feed the cat'."),
        [
            "double tap \"ask Priya to feed the cat\"",
            "type \"ask Dev to feed the cat\" into \"ask Priya to feed the cat\"",
            "press Enter",
        ]
    );
    // "let's sort the list" with nothing on the screen that sorts only announces the rest.
    assert_eq!(
        s("Holiday next week, so let's sort the list. The freezer's defrosted."),
        Vec::<String>::new()
    );
}

#[test]
fn an_and_no_before_a_take_back_takes_the_order_back_and_sort_wordings_on_screen_count() {
    let obs = list(&[
        ("buy milk", false),
        ("call the plumber", false),
        ("defrost the freezer", true),
    ]);
    let s = |t: &str| steps(t, &obs).unwrap_or_default();
    // "and no" followed by a take-back, a correction or a ban is a "no" to the order
    // before: nothing is ticked, deleted or unticked.
    for t in [
        "Tick off the milk, and no, leave it.",
        "Delete the plumber one, and no, actually keep it.",
        "Tick off the milk and no, forget it.",
        "Untick the freezer and no, don't.",
        "Tick off the milk, and no, not the milk, the plumber.",
        "Tick off the milk, and no.",
        "Delete the milk and no, we still need it.",
    ] {
        assert!(
            !s(t).iter().any(|l| l.starts_with("check")
                || l.starts_with("uncheck")
                || l.contains("Delete")),
            "{t}: {:?}",
            s(t)
        );
    }
    // A statement after it answers: the order stands.
    let renamed = [
        "double tap \"buy milk\"",
        "type \"buy oat milk\" into \"buy milk\"",
        "press Enter",
    ];
    assert_eq!(
        s("Rename the milk one to 'buy oat milk', and no, it's not bought yet."),
        renamed
    );
    assert_eq!(
        s("Rename the milk one to 'buy oat milk', and no, I haven't got it yet."),
        renamed
    );
    // A screen that orders its list under another word than "sort" still sorts: "let's sort
    // the list" may then be an order of its own, as with a Sort button.
    for button in ["Order by name", "A–Z"] {
        let obs = list_with(
            &[("buy milk", false), ("call the plumber", false)],
            &[button],
        );
        assert_eq!(
            steps("Let's sort the list. Tick off the milk.", &obs).unwrap(),
            ["sort the list", "check \"buy milk\""],
            "{button}"
        );
    }
}

#[test]
fn scratch_that_after_an_order_takes_it_back_and_deletes_nothing() {
    let obs = list(&[("buy milk", false), ("call the plumber", false)]);
    let s = |t: &str| steps(t, &obs).unwrap_or_default();
    // "scratch that" is a take-back whole, not "scratch" (delete) said of "that".
    for t in [
        "Tick the milk. Scratch that.",
        "Rename the milk one to 'buy oat milk', and no, scratch that.",
        "Tick the milk, oh wait, scratch that.",
    ] {
        assert_eq!(s(t), Vec::<String>::new(), "{t}");
    }
    assert_eq!(
        s("Tick off the milk, scratch that, tick the plumber."),
        ["check \"call the plumber\""]
    );
}

#[test]
fn topics_hearsay_purposes_results_and_time_leads_read() {
    let zh = list(&[
        ("订周六的蛋糕", true),
        ("订餐厅包间", false),
        ("买蜡烛和彩带", false),
        ("跟公司请周五的假", false),
        ("办港澳通行证", false),
    ]);
    let s = |t: &str| steps(t, &zh).unwrap_or_default();
    // A clause that only names its topic beats what is said about it since.
    assert_eq!(
        s("包间那条——蛋糕店说可以送到餐厅，不用另外订了，删了吧。"),
        ["tap \"Delete\" in the row of \"订餐厅包间\""]
    );
    // What someone said may be is no order; the rename after it reads.
    assert_eq!(
        s("餐厅那边说可以改到七点，把那条改成“订七点的餐厅包间”。"),
        [
            "double tap \"订餐厅包间\"",
            "type \"订七点的餐厅包间\" into \"订餐厅包间\"",
            "press Enter",
        ]
    );
    // Letting me see is why, not what; a verb with its result says done. Neither what
    // someone said nor why is left to the model.
    assert_eq!(
        s("蜡烛彩带买回来了，让我看看还剩什么。"),
        ["check \"买蜡烛和彩带\""]
    );
    for t in [
        "蜡烛彩带买回来了，让我看看还剩什么。",
        "餐厅那边说可以改到七点，把那条改成“订七点的餐厅包间”。",
        "请假那条改成“跟公司请周四的假”，还没请呢。",
        "生日这几条帮我动一下。通行证办下来了。",
    ] {
        assert_eq!(super::read(t, &zh).unwrap().free, vec![], "{t}");
    }
    assert_eq!(s("通行证办下来了。"), ["check \"办港澳通行证\""]);
    // 还没请 says the leave is not asked for yet: no order to the model.
    assert_eq!(
        s("请假那条改成“跟公司请周四的假”，还没请呢。"),
        [
            "double tap \"跟公司请周五的假\"",
            "type \"跟公司请周四的假\" into \"跟公司请周五的假\"",
            "press Enter",
        ]
    );
    // A whole-list verb announces the rest.
    assert_eq!(
        s("生日这几条帮我动一下。通行证办下来了。"),
        ["check \"办港澳通行证\""]
    );
    let en = list(&[
        ("buy firelighters", false),
        ("sweep the patio", true),
        ("print the menus", false),
    ]);
    let s = |t: &str| steps(t, &en).unwrap_or_default();
    // "that's bought" after the clause naming the thing bought.
    assert_eq!(
        s("The firelighters are in the shed, so that's bought."),
        ["check \"buy firelighters\""]
    );
    // A lead saying when the order comes is no part of it; "when that's all done" alone
    // orders nothing.
    assert_eq!(
        s("Clear the done ones, and once they're gone add 'hang the lanterns'."),
        [
            "tap \"Clear done\"",
            "type \"hang the lanterns\" into \"New item\"",
            "press Enter",
        ]
    );
    let read = s("Tick off the menus. When that's all done, make sure 1 item is left.");
    assert_eq!(read[0], "check \"print the menus\"");
    assert!(!read
        .iter()
        .any(|l| l.contains("firelighters") || l.contains("patio")));
}

#[test]
fn a_topic_gives_way_to_an_item_named_since_and_progress_is_not_done() {
    let en = list(&[
        ("buy bread", false),
        ("pay the rent", false),
        ("call the plumber", false),
    ]);
    let s = |t: &str| steps(t, &en).unwrap_or_default();
    // The topic had its say; the clause since names the plumber.
    assert_eq!(
        s("The bread one: leave it. The plumber's been called, tick it."),
        ["check \"call the plumber\""]
    );
    assert_eq!(
        s("The bread one, the bakery said Friday. The plumber came though, tick him off."),
        ["check \"call the plumber\""]
    );
    // What someone said of the topic still leaves the order to it.
    assert_eq!(
        s("The bread one: the corner shop said they'd deliver, so delete it."),
        ["tap \"Delete\" in the row of \"buy bread\""]
    );
    // An aside on another item ("too") leaves the order to the topic; an order since ends it.
    assert_eq!(
        s("The bread one: the rent's paid as well, but delete it."),
        ["tap \"Delete\" in the row of \"buy bread\""]
    );
    assert_eq!(
        s("The bread one, delete it. The rent's paid too, tick it."),
        [
            "tap \"Delete\" in the row of \"buy bread\"",
            "check \"pay the rent\""
        ]
    );
    // "when it's been paid" waits on the rent: no tick of it, and no bare "paid" left over.
    assert_eq!(
        s("The rent's due Friday. When it's been paid, add 'file the receipt'."),
        ["type \"file the receipt\" into \"New item\"", "press Enter"]
    );
    let zh = list_with(
        &[
            ("买牛奶", false),
            ("写毕业论文", false),
            ("看完纪录片", false),
        ],
        &["全部", "未完成", "已完成"],
    );
    let s = |t: &str| steps(t, &zh).unwrap_or_default();
    assert_eq!(
        s("毕业论文那条——导师说可以延期，牛奶也买了，删了吧。"),
        ["tap \"Delete\" in the row of \"写毕业论文\""]
    );
    // How far a thing has got (到了第…) is not done; a question (…了吗) says nothing.
    assert_eq!(
        s("论文写到了第三章，纪录片看到了第五集，牛奶买回来了。"),
        ["check \"买牛奶\""]
    );
    assert!(steps("牛奶买回来了吗？", &zh).is_none());
    // Asking to see a view of the list is no purpose clause: it stays for the model.
    let read = super::read("牛奶那条勾上，让我看一下已完成的。", &zh).unwrap();
    assert_eq!(read.steps[0], "check \"买牛奶\"");
    assert!(
        read.steps[1..].iter().any(|l| l.contains("已完成")),
        "{read:?}"
    );
}

#[test]
fn pairs_lots_corrected_adds_pronoun_makes_and_topics_after_an_order_read() {
    let obs = list(&[
        ("buy wrapping paper", false),
        ("get sellotape", false),
        ("make mince pies", false),
        ("post the cards", true),
        ("book the panto", false),
        ("order the turkey", false),
    ]);
    let s = |t: &str| steps(t, &obs).unwrap_or_default();
    // "the pair of them": the two items the clauses before name.
    assert_eq!(
        s("Wrapping paper and sellotape, both from the corner shop, so tick the pair of them."),
        ["check \"buy wrapping paper\"", "check \"get sellotape\""]
    );
    // "the whole lot": every item.
    assert_eq!(s("Just tick the whole lot."), ["check every item"]);
    // "no, make that 'y'" corrects the add's text, even beside an item whose verb is "make".
    assert_eq!(
        s("Add 'buy crackers'... no, make that 'buy posh crackers'."),
        [
            "type \"buy posh crackers\" into \"New item\"",
            "press Enter"
        ]
    );
    // "make it 'x'" with no add before renames the item spoken of.
    assert_eq!(
        s("The turkey, the butcher only does geese now, so make it 'order the goose'."),
        [
            "double tap \"order the turkey\"",
            "type \"order the goose\" into \"order the turkey\"",
            "press Enter",
        ]
    );
    // After a delete, "and the X one" with a pronoun order after it is that order's topic.
    assert_eq!(
        s("Delete the mince pies. And the panto one, rename it 'book the panto for Boxing Day'."),
        [
            "tap \"Delete\" in the row of \"make mince pies\"",
            "double tap \"book the panto\"",
            "type \"book the panto for Boxing Day\" into \"book the panto\"",
            "press Enter",
        ]
    );
    // Without a pronoun order after it, "and the X one" is more of the order before.
    assert_eq!(
        s("Delete the mince pies, and the panto one."),
        [
            "tap \"Delete\" in the row of \"make mince pies\"",
            "tap \"Delete\" in the row of \"book the panto\"",
        ]
    );
    // A change someone made for us is a report, not an order.
    let zh = list(&[("订周六的包间", false), ("买蛋糕", false)]);
    let r = super::read(
        "饭店说周六满了，给我们挪到了周日，把那条改成“订周日的包间”。",
        &zh,
    )
    .unwrap();
    assert!(r.free.is_empty(), "{:?}", r.free);
}

#[test]
fn topics_pairs_lots_and_pronoun_makes_give_way_to_what_else_is_said() {
    let obs = list(&[
        ("rake the lot", false),
        ("buy a pair of boots", false),
        ("print the whole list", false),
        ("wash the car", false),
        ("fix the gate", false),
        ("pay the window cleaner", true),
    ]);
    let s = |t: &str| steps(t, &obs).unwrap_or_default();
    // "And the X one, then … them": more of the order before, not the next order's topic.
    let both = s("Tick the car, and the gate one, then delete both.");
    assert_eq!(
        both[..2],
        ["check \"wash the car\"", "check \"fix the gate\""],
        "{both:?}"
    );
    // A listed item's own "the lot" / "the whole list" is that item, not every item.
    assert_eq!(s("Tick rake the lot."), ["check \"rake the lot\""]);
    assert_eq!(
        s("Printed it at work, so tick the print the whole list one."),
        ["check \"print the whole list\""]
    );
    // "pair" with an item's own words is that item, not two items spoken of before.
    assert_eq!(
        s("Tick the pair of boots one."),
        ["check \"buy a pair of boots\""]
    );
    // "the lot" with an exception leaves the exception out.
    assert_eq!(
        s("Tick the lot apart from the car."),
        [
            "check \"rake the lot\"",
            "check \"buy a pair of boots\"",
            "check \"print the whole list\"",
            "check \"fix the gate\"",
        ]
    );
    assert_eq!(
        s("Tick the lot but the gate."),
        [
            "check \"rake the lot\"",
            "check \"buy a pair of boots\"",
            "check \"print the whole list\"",
            "check \"wash the car\"",
        ]
    );
    // "make it 'x'" beside one more item, or after an add, gives an added item's text: no
    // listed item renamed.
    for t in [
        "Tick the car. For the next one, make it 'book the dentist'.",
        "The gate is fine, and I want one for the dentist, make it 'book the dentist'.",
        "Add 'buy dog food' and tick the car, no, make that 'book the groomer'.",
    ] {
        let read = s(t);
        assert!(
            !read.iter().any(|l| l.starts_with("double tap")),
            "{t}: {read:?}"
        );
    }
}

#[test]
fn a_request_after_a_result_is_not_a_change_made_for_us() {
    let obs = list(&[("取蛋糕", false), ("买蜡烛", false)]);
    // 帮我 after 做成了: asks something of us, left to the model, not dropped as a report.
    assert_eq!(
        steps("把买蜡烛勾上，蛋糕做成了帮我记一笔", &obs).unwrap_or_default(),
        ["check \"买蜡烛\"", "蛋糕做成了帮我记一笔"]
    );
}

#[test]
fn local_hold_backs_views_by_what_is_left_leads_and_her_line_read() {
    let obs = list(&[
        ("water the tomatoes", false),
        ("bake the bread", false),
        ("ask Nina about the shed", false),
    ]);
    // A "don't tick it" about one item holds back only the descriptions around it.
    let r = super::read(
        "Watered the tomatoes this morning. The bread is still proving, so don't tick it. Nina's away, so scratch her line.",
        &obs,
    )
    .unwrap();
    assert_eq!(
        r.without_asks().steps,
        [
            "check \"water the tomatoes\"",
            "tap \"Delete\" in the row of \"ask Nina about the shed\"",
        ]
    );
    let zh = list(&[("修自行车", false), ("找发票", false), ("买车锁", true)]);
    // 不过 is "but", no negation; 算弄完了 counts as done.
    assert_eq!(
        steps("发票翻出来了，不过这条也算弄完了。", &zh).unwrap(),
        ["check \"找发票\""]
    );
    // A lead saying "once all is done" is dropped from the order after it.
    assert_eq!(
        steps("车锁那条删了，弄完以后把修自行车勾上。", &zh).unwrap(),
        [
            "tap \"Delete\" in the row of \"买车锁\"",
            "check \"修自行车\"",
        ]
    );
}

#[test]
fn demonstrative_ticks_undoing_a_tick_and_things_not_done_read() {
    let zh = list(&[
        ("问能不能带猫", false),
        ("订民宿", false),
        ("买猫砂", false),
    ]);
    // "这条也勾": the item the clause before names.
    assert_eq!(
        steps("房东说猫可以带，这条也勾。", &zh).unwrap(),
        ["check \"问能不能带猫\""]
    );
    // A thing not done, said of someone, is no order for the model ("嫌麻烦" asks nothing).
    let r = super::read("民宿订好了，勾上。猫砂他嫌麻烦没买，先放着。", &zh).unwrap();
    assert!(r.free.is_empty(), "{:?}", r.free);
    let en = list(&[("pick a board game", false), ("buy crisps", false)]);
    // "undo that one" after ticking everything unticks the item named before it.
    assert_eq!(
        steps(
            "Tick everything. Except the board game, we can't agree, so undo that one.",
            &en
        )
        .unwrap(),
        ["check every item", "uncheck \"pick a board game\""]
    );
}
