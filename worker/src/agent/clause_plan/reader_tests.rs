//! The reader on whole instructions: orders, states, checks, conditions and the clauses
//! left to the model.

use super::test_support::{list, steps};
use super::*;

/// Three chores, the car and the parcel done.
fn chores() -> Observation {
    list(&[
        ("wash the car", true),
        ("water the ferns", false),
        ("post the parcel", true),
    ])
}

/// Two chores in Chinese, both open.
fn chores_zh() -> Observation {
    list(&[("洗车", false), ("浇花", false)])
}

#[test]
fn a_check_joined_to_a_reason_gives_its_state_and_worded_renames() {
    let obs = chores();
    // A check clause joined to a reason gives its state; "worded 'x'" renames the item
    // the clauses before speak of.
    assert_eq!(
        steps(
            "Somebody ticked the parcel too early, so it should be open again and worded 'post the big parcel'.",
            &obs
        )
        .unwrap(),
        vec![
            "uncheck \"post the parcel\"",
            "double tap \"post the parcel\"",
            "type \"post the big parcel\" into \"post the parcel\"",
            "press Enter",
        ]
    );
    let r = read(
        "Somebody ticked the parcel too early, so it should be open again and worded 'post the big parcel'.",
        &obs,
    )
    .unwrap();
    assert_eq!(
        r.checks,
        vec![(
            "it should be open again".to_string(),
            "assert \"post the big parcel\" is not checked".to_string()
        )]
    );
}

#[test]
fn undo_that_takes_back_the_state_said_before() {
    let obs = chores();
    // "undo that" takes back the state the clause before says.
    assert_eq!(
        steps("The car is marked done by mistake; undo that.", &obs).unwrap(),
        vec!["uncheck \"wash the car\""]
    );
}

#[test]
fn orders_taken_back_give_nothing_and_placements_add_or_delete() {
    let obs = chores();
    // Said, then taken back: nothing; "throw … on" adds, "… can go completely" deletes.
    assert_eq!(
        steps(
            "I was going to add 'buy a hose', never mind. Throw 'buy soap' on there. The ferns one can go completely.",
            &obs
        )
        .unwrap(),
        vec![
            "type \"buy soap\" into \"New item\"",
            "press Enter",
            "tap \"Delete\" in the row of \"water the ferns\"",
        ]
    );
    let zh = chores_zh();
    assert_eq!(
        steps(
            "本来想把洗车那条勾掉，算了。浇花那条的名字换成“给花浇水”。",
            &zh
        )
        .unwrap(),
        vec![
            "double tap \"浇花\"",
            "type \"给花浇水\" into \"浇花\"",
            "press Enter",
        ]
    );
}

#[test]
fn new_items_under_a_heading_are_added() {
    let obs = chores();
    // New items under a heading.
    assert_eq!(
        steps(
            "A couple of new entries: 'oil the hinge' and 'sweep the yard'.",
            &obs
        )
        .unwrap(),
        vec![
            "type \"oil the hinge\" into \"New item\"",
            "press Enter",
            "type \"sweep the yard\" into \"New item\"",
            "press Enter",
        ]
    );
}

#[test]
fn a_report_and_no_longer_done_on_an_open_item_leave_nothing_to_do() {
    let zh = chores_zh();
    // A report of what happened; no longer counted done.
    assert_eq!(
        steps(
            "洗车的事推迟了。浇花那条又加了一盆，所以它现在不算完成。",
            &zh
        )
        .map(|s| s.len()),
        None,
        "浇花 is open already: nothing to do"
    );
}

#[test]
fn a_change_told_of_an_item_the_plan_leaves_alone_is_unsure() {
    let obs = chores();
    // A description that tells of a change to an item the plan leaves alone: unsure.
    let r = read(
        "The parcel got returned to sender last week. Untick the car.",
        &obs,
    )
    .unwrap();
    assert_eq!(
        r.unsure,
        vec![(
            "The parcel got returned to sender last week".to_string(),
            "post the parcel".to_string()
        )]
    );
    let r = read("The parcel stays as it is. Untick the car.", &obs).unwrap();
    assert!(r.unsure.is_empty(), "{r:?}");
}

#[test]
fn a_new_name_on_its_own_renames_and_a_report_beside_it_is_its_reason() {
    let zh = chores_zh();
    // A new name on its own after "改个名字"; a report beside a rename is its reason.
    assert_eq!(
        steps(
            "浇花那条改个名字，叫“给花浇水”——花早就浇完了，只是名字不对。",
            &zh
        )
        .unwrap(),
        vec![
            "double tap \"浇花\"",
            "type \"给花浇水\" into \"浇花\"",
            "press Enter",
        ]
    );
}

#[test]
fn a_check_on_its_own_never_makes_its_own_state() {
    let obs = chores();
    // A check on its own never makes its own state.
    assert_eq!(
        steps("Untick the car. The ferns one should be ticked.", &obs).unwrap(),
        vec!["uncheck \"wash the car\""]
    );
}

#[test]
fn positions_exceptions_and_conditions_read() {
    let obs = list(&[
        ("oil the gate", false),
        ("renew the insurance", true),
        ("ring grandma", false),
        ("pay the rent", false),
    ]);
    // Rows by position; "after that" is no subordinate clause.
    assert_eq!(
        steps(
            "the second one isn't done yet. after that rename the bottom entry to 'pay rent early'",
            &obs
        )
        .unwrap(),
        vec![
            "uncheck \"renew the insurance\"",
            "double tap \"pay the rent\"",
            "type \"pay rent early\" into \"pay the rent\"",
            "press Enter"
        ]
    );
    // An all with an exception ticks the others, one by one ("but" splits nothing).
    assert_eq!(
        steps("Tick everything but the grandma one.", &obs).unwrap(),
        vec!["check \"oil the gate\"", "check \"pay the rent\""]
    );
    // A condition on a known state gates its order; "leave it alone" orders nothing.
    let r = read(
        "if the insurance is still open, tick it; if it's already done, leave it alone. If the gate one isn't ticked yet, delete it.",
        &obs,
    )
    .unwrap();
    assert_eq!(
        r.steps,
        vec!["tap \"Delete\" in the row of \"oil the gate\""]
    );
    assert_eq!(r.already, 1);
    // A condition Argus cannot test goes to the model with its order.
    assert_eq!(
        steps(
            "Tick 'oil the gate'. if the page is slow, remove 'ring grandma'",
            &obs
        )
        .unwrap(),
        vec![
            "check \"oil the gate\"",
            "if the page is slow, remove 'ring grandma'"
        ]
    );
    let zh = list(&[("交房租", false), ("买牛奶", true), ("修自行车", false)]);
    assert_eq!(
        steps("第二条删掉，最后一条打勾。", &zh).unwrap(),
        vec![
            "tap \"Delete\" in the row of \"买牛奶\"",
            "check \"修自行车\""
        ]
    );
    assert_eq!(
        steps("除了交房租，其他都勾上。", &zh).unwrap(),
        vec!["check \"修自行车\""]
    );
    // A condition and its order in one Chinese clause, split at 就; 的话 marks one too.
    assert_eq!(
        steps(
            "最下面那条：要是已经打勾了就删掉，没勾的话就给它勾上。第一条改名叫“交下月房租”。",
            &zh
        )
        .unwrap(),
        vec![
            "check \"修自行车\"",
            "double tap \"交房租\"",
            "type \"交下月房租\" into \"交房租\"",
            "press Enter"
        ]
    );
}

#[test]
fn what_argus_cannot_read_is_a_free_step_in_its_place() {
    let obs = list(&[("pay the rent", false), ("call mum", false)]);
    // A verb outside the lexicon stays a free step, and a subordinate clause orders
    // nothing.
    assert_eq!(
        steps(
            "Rent's paid, so tick that one off and then sort the list by name. Once that's done, add 'buy eggs'.",
            &obs
        )
        .unwrap(),
        vec![
            "check \"pay the rent\"",
            "sort the list by name",
            "type \"buy eggs\" into \"New item\"",
            "press Enter"
        ]
    );
    // A clearing verb with no button of its own names the `Clear …` one; at a free
    // step's turn, the button then shown.
    assert_eq!(
        steps("Purge the finished items.", &obs).unwrap(),
        vec!["tap \"Clear done\""]
    );
    assert_eq!(
        verb_button("clear the finished items", &obs).as_deref(),
        Some("tap \"Clear done\"")
    );
    assert_eq!(verb_button("clear 'pay the rent'", &obs), None);
    assert_eq!(verb_button("Clearly sort the list", &obs), None);
    assert_eq!(
        verb_button("Start by wiping out whatever is done", &obs).as_deref(),
        Some("tap \"Clear done\"")
    );
    let zh = list(&[("修水管", true), ("订机票", true), ("写报告", false)]);
    assert_eq!(
        steps("机票其实还没订好，把它的勾去掉。", &zh).unwrap(),
        vec!["uncheck \"订机票\""]
    );
}

#[test]
fn what_does_not_read_is_left_to_the_model() {
    let obs = list(&[("fix the fence", false), ("email the landlord", false)]);
    // Nothing read: a verb outside the lexicon, an item nobody has, an ambiguous
    // pronoun, a form.
    assert_eq!(steps("Sort the list by name.", &obs), None);
    assert_eq!(steps("Tick off the groceries.", &obs), None);
    assert_eq!(
        steps("Tick both of them off.", &list(&[("a", false)])),
        None
    );
    assert_eq!(steps("Log in as 'ann' and press Submit.", &obs), None);
    // One clause read, the other a free step.
    assert_eq!(
        steps("Sort the list by name, then tick off the fence.", &obs).unwrap(),
        vec!["Sort the list by name", "check \"fix the fence\""]
    );
    // Only checks and descriptions: nothing to plan.
    assert_eq!(
        steps("The fence looks fine. Make sure 2 items are left.", &obs),
        None
    );
    // A description that says the item's own verb is done ticks it.
    assert_eq!(
        steps("The fence is fixed. Make sure 2 items are left.", &obs).unwrap(),
        vec!["check \"fix the fence\""]
    );
}

#[test]
fn quoted_brackets_corrected_adds_subject_nouns_and_joined_context_read() {
    let obs = list(&[
        ("order the cake", true),
        ("fix the leaking pipe", false),
        ("hire the bouncy castle", false),
    ]);
    // A bracket inside a quote is the new title's, not a clause of its own.
    assert_eq!(
        steps(
            "Untick the cake and rename it to 'order the cake (gluten free)'.",
            &obs
        )
        .unwrap(),
        vec![
            "uncheck \"order the cake\"",
            "double tap \"order the cake\"",
            "type \"order the cake (gluten free)\" into \"order the cake\"",
            "press Enter",
        ]
    );
    // An added text corrected in the next clauses: the correction is typed, once.
    assert_eq!(
        steps(
            "Add 'collect the balloons from the shop'. Oh, lose the 'the', make it 'collect balloons from the shop'.",
            &obs
        )
        .unwrap(),
        vec![
            "type \"collect balloons from the shop\" into \"New item\"",
            "press Enter",
        ]
    );
    // "pipe got fixed": a noun before a verb of state, even where it could be a verb.
    let taps = list(&[("fix the dripping tap", false), ("sweep the porch", false)]);
    assert_eq!(
        steps("tap got sorted by the landlord, tick that.", &taps).unwrap(),
        vec!["check \"fix the dripping tap\""]
    );
    // A plural's items joined in the clause before.
    let zh = list(&[("买牛奶", false), ("买面包", false), ("交水费", false)]);
    assert_eq!(
        steps("牛奶和面包刚才顺路买好了，这两条都勾上。", &zh).unwrap(),
        vec!["check \"买牛奶\"", "check \"买面包\""]
    );
}

#[test]
fn where_the_run_ends_and_counts_of_what_shows_read() {
    use argus_perception::Role;
    let obs = crate::agent::test_screen(&[
        (Role::Textfield, "New item"),
        (Role::Checkbox, "sweep the porch"),
        (Role::Checkbox, "wash the van"),
        (Role::Link, "All"),
        (Role::Link, "Active"),
        (Role::Link, "Completed"),
    ]);
    assert_eq!(
        steps(
            "Tick the porch one and leave it on the Completed filter at the end.",
            &obs
        )
        .unwrap(),
        vec!["check \"sweep the porch\"", "tap \"Completed\""]
    );
    let zh = crate::agent::test_screen(&[
        (Role::Checkbox, "洗车"),
        (Role::Checkbox, "扫院子"),
        (Role::Link, "Active"),
        (Role::Link, "Completed"),
    ]);
    assert_eq!(
        steps("洗车那条勾上，做完停在 Completed 那页就好。", &zh).unwrap(),
        vec!["check \"洗车\"", "tap \"Completed\""]
    );
    let c = crate::agent::clauses::checkable("then confirm the list shows two items");
    assert_eq!(c[0].checks, vec!["assert 2 items are listed"]);
    let c = crate::agent::clauses::checkable("最后确认一下，底部应该显示还剩 2 项没做");
    assert_eq!(c[0].checks, vec!["assert 2 items are not checked"]);
}

#[test]
fn a_refusal_is_a_reason_and_a_bare_check_lead_after_when_asks_nothing() {
    let zh = list(&[("订停车位", false), ("买门票", true), ("借相机", false)]);
    // 不让 tells what someone refused; the next clause's order acts on it.
    assert_eq!(
        steps("停车场那边不让预订，那条直接删掉。", &zh).unwrap(),
        vec!["tap \"Delete\" in the row of \"订停车位\""]
    );
    // "改完帮我确认一下，…": a check lead, its content in the next clause.
    let r = read(
        "相机借到了，打勾。弄完帮我核对一下，是不是只剩一条没勾。",
        &zh,
    )
    .unwrap();
    assert_eq!(r.without_asks().steps, vec!["check \"借相机\""]);
    let c = crate::agent::clauses::checkable("弄完帮我核对一下，是不是只剩一条没勾。");
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].checks, vec!["assert 1 item is not checked"]);
    // The list's own name, sharing characters with an item, leaves nothing unsure.
    let trip = list(&[("买相机电池", false), ("订酒店", false)]);
    let r = read("出发前再看一遍相机那张单子。酒店订好了，打勾。", &trip).unwrap();
    assert!(r.unsure.is_empty(), "{:?}", r.unsure);
}

#[test]
fn a_second_items_text_and_an_item_named_by_a_view_word_read_as_said() {
    let obs = list(&[("buy milk", false), ("replace the water filter", true)]);
    // "make it 'y'" after "one for the roofer": a second item, not a correction of the first.
    let s = steps(
        "Add 'call the electrician'. Then one for the roofer, make it 'call the roofer'.",
        &obs,
    )
    .unwrap();
    assert_eq!(
        s[..2],
        [
            "type \"call the electrician\" into \"New item\"",
            "press Enter"
        ]
    );
    // "keep … filter … unticked" names an item, not a view to end on.
    assert_eq!(
        steps("Keep the water filter one unticked.", &obs).unwrap(),
        vec!["uncheck \"replace the water filter\""]
    );
}

#[test]
fn an_item_said_as_well_after_a_state_gets_that_state() {
    let obs = list(&[
        ("pay the caterer", false),
        ("confirm the venue", false),
        ("print the menus", false),
    ]);
    // "Registration as well" of *register*: the noun of an item's verb.
    assert_eq!(
        steps("The caterer is paid now. Venue confirmation as well.", &obs).unwrap(),
        vec!["check \"pay the caterer\"", "check \"confirm the venue\""]
    );
    // No state before it: nothing to copy.
    assert_eq!(steps("The menus too.", &obs), None);
    let c = crate::agent::clauses::checkable("最后核对一下，底部显示还剩 2 项");
    assert_eq!(c[0].checks, vec!["assert 2 items are not checked"]);
}

#[test]
fn take_backs_after_a_reason_deleted_pronouns_states_returned_to_and_views_by_meaning() {
    let obs = list(&[
        ("book the minibus", true),
        ("order the trophies", false),
        ("buy more cones", true),
    ]);
    // A take-back led by "no actually" after a reason: the untick is not given.
    assert_eq!(
        steps(
            "Tick the trophies. Untick the cones, we lost a few... no actually leave it, the club lent us more.",
            &obs
        )
        .unwrap(),
        vec!["check \"order the trophies\""]
    );
    // "delete it" of the item the clauses before already deleted: once.
    assert_eq!(
        steps(
            "The trophies we were going to order, scrap that, the league sends them, so delete it.",
            &obs
        )
        .unwrap(),
        vec!["tap \"Delete\" in the row of \"order the trophies\""]
    );
    // "that's back to not done": the item just named, unticked.
    assert_eq!(
        steps(
            "The minibus fell through, so that's back to not done.",
            &obs
        )
        .unwrap(),
        vec!["uncheck \"book the minibus\""]
    );
    use argus_perception::Role;
    let zh = crate::agent::test_screen(&[
        (Role::Checkbox, "洗车"),
        (Role::Link, "All"),
        (Role::Link, "Active"),
        (Role::Link, "Completed"),
    ]);
    assert_eq!(
        steps("洗车勾上，改完切到“已完成”那个筛选就行。", &zh).unwrap(),
        vec!["check \"洗车\"", "tap \"Completed\""]
    );
    let c = crate::agent::clauses::checkable("then make sure the counter says 2 left");
    assert_eq!(c[0].checks, vec!["assert 2 items are not checked"]);
}

#[test]
fn every_item_said_in_chinese_with_nothing_else_named() {
    let obs = list(&[("订机票", true), ("换护照", false), ("买转换插头", false)]);
    // "这几条全都" names every item; a later untick takes one back.
    assert_eq!(
        steps(
            "行李差不多收好了，你把这几条全都勾上。插头还没买，这条取消勾。",
            &obs
        )
        .unwrap(),
        vec!["check every item", "uncheck \"买转换插头\""]
    );
    // "插头全都" names one item: no tick of every item.
    let plain = steps("转换插头全都买好了，勾上。", &obs).unwrap();
    assert!(plain.iter().all(|s| !s.contains("every")), "{plain:?}");
}

#[test]
fn a_tick_said_after_a_description_of_it_stays_beside_a_rename() {
    let obs = list(&[("问体检时间", false), ("买牛奶", false)]);
    // The description implies the tick, the bare 勾上 says it again, the rename keeps it.
    assert_eq!(
        steps(
            "体检的事我打电话问过了，这条算问好了，勾上，名字改成“体检预约好了”。",
            &obs
        )
        .unwrap(),
        vec![
            "check \"问体检时间\"",
            "double tap \"问体检时间\"",
            "type \"体检预约好了\" into \"问体检时间\"",
            "press Enter",
        ]
    );
    // Without the bare tick the description was only the rename's reason.
    let plain = steps("体检的事我打电话问过了，名字改成“体检预约好了”。", &obs).unwrap();
    assert!(plain.iter().all(|s| !s.starts_with("check")), "{plain:?}");
}

#[test]
fn a_stop_word_tells_items_tied_by_meaning_apart() {
    let obs = list(&[
        ("sell the old bike", false),
        ("insure the new bike", false),
        ("book a service", true),
    ]);
    // "new" carries no item's meaning, but of two bike items it names one.
    assert_eq!(
        steps(
            "The new bike came with cover from the shop, so that one's sorted.",
            &obs
        )
        .unwrap(),
        vec!["check \"insure the new bike\""]
    );
}

#[test]
fn a_pronoun_subject_clause_and_a_means_clause_read_through() {
    let obs = list(&[
        ("buy a new kettle", false),
        ("clean the kitchen shelf", false),
        ("fix the tap", true),
    ]);
    // "it's on the kitchen shelf" speaks of the kettle: the shelf is where it is.
    assert_eq!(
        steps(
            "The kettle arrived today and it's already on the kitchen shelf, so tick it.",
            &obs
        )
        .unwrap(),
        vec!["check \"buy a new kettle\""]
    );
    // "use X to Y": Y is the order.
    assert_eq!(
        steps(
            "Use the button at the bottom to remove everything that's done.",
            &obs
        )
        .unwrap(),
        vec!["tap \"Clear done\""]
    );
}

#[test]
fn a_one_character_topic_before_na_tiao_names_the_item_holding_it() {
    let obs = list(&[("带雨伞", false), ("订酒店", false), ("买地图", false)]);
    // "伞那条" of 带雨伞, not the item the clause before renamed.
    assert_eq!(
        steps(
            "酒店那条改成“订湖边的民宿”。伞那条删了吧，天气预报说不下雨。",
            &obs
        )
        .unwrap(),
        vec![
            "double tap \"订酒店\"",
            "type \"订湖边的民宿\" into \"订酒店\"",
            "press Enter",
            "tap \"Delete\" in the row of \"带雨伞\"",
        ]
    );
}

#[test]
fn an_adverb_of_when_after_a_pronoun_names_no_item() {
    let obs = list(&[("pay the gas bill", false)]);
    assert_eq!(
        steps(
            "Add 'buy stamps' and tick it straight away, I got some at lunch.",
            &obs
        )
        .unwrap(),
        vec![
            "type \"buy stamps\" into \"New item\"",
            "press Enter",
            "check \"buy stamps\""
        ]
    );
}
