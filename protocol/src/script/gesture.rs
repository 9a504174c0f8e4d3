//! The gesture grammar: tap, double tap, long press, swipe, `scroll until`, `go back`.

use super::{err, expect_end, parse_duration, parse_target, quoted, strip_cjk, strip_kw};
use super::{LineResult, Step};
use crate::action::{
    Action, Direction, DEFAULT_LONG_PRESS_MS, DEFAULT_SCROLL_SWIPES, LONG_PRESS_RANGE_MS,
    MAX_SCROLL_SWIPES,
};

/// A pointer gesture aimed at a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gesture {
    Tap,
    DoubleTap,
    LongPress,
}

/// The gesture grammar: leading words (English, then Chinese) → gesture. Longer phrases
/// first, so `double tap` is never read as `tap`.
const GESTURE_WORDS: &[(&str, Gesture)] = &[
    ("double tap on", Gesture::DoubleTap),
    ("double-tap on", Gesture::DoubleTap),
    ("double click on", Gesture::DoubleTap),
    ("double-click on", Gesture::DoubleTap),
    ("double tap", Gesture::DoubleTap),
    ("double-tap", Gesture::DoubleTap),
    ("double click", Gesture::DoubleTap),
    ("double-click", Gesture::DoubleTap),
    ("doubleclick", Gesture::DoubleTap),
    ("long press on", Gesture::LongPress),
    ("long-press on", Gesture::LongPress),
    ("long press", Gesture::LongPress),
    ("long-press", Gesture::LongPress),
    ("press and hold", Gesture::LongPress),
    ("tap on", Gesture::Tap),
    ("click on", Gesture::Tap),
    ("tap", Gesture::Tap),
    ("click", Gesture::Tap),
    ("双击", Gesture::DoubleTap),
    ("长按", Gesture::LongPress),
    ("点击", Gesture::Tap),
    ("单击", Gesture::Tap),
];

/// `go back` / `back` / `返回`.
fn parse_back(line: &str) -> LineResult<Option<Step>> {
    let l = line.trim();
    let back = ["go back", "back", "navigate back", "返回", "后退"]
        .iter()
        .any(|w| l.eq_ignore_ascii_case(w));
    Ok(back.then_some(Step::Act(Action::Back)))
}

/// `scroll until "X" is visible [up to 20 swipes]`, `scroll up until "X" appears`,
/// `滑动直到 "X" 出现`, `向下滑动直到 "X" 出现`: swipes (finger up, i.e. scrolling down, unless a
/// direction is given) until the text is on screen.
fn parse_scroll_until(line: &str) -> LineResult<Option<Step>> {
    let (rest, direction) = if let Some(r) = strip_kw(line, "scroll") {
        let w = r.split_whitespace().next().unwrap_or("");
        match Direction::parse(w) {
            // `scroll down until` = the finger goes up.
            Some(d) => (r[w.len()..].trim_start(), invert(d)),
            None => (r, Direction::Up),
        }
    } else if let Some(r) = strip_kw(line, "swipe") {
        let w = r.split_whitespace().next().unwrap_or("");
        match Direction::parse(w) {
            Some(d) => (r[w.len()..].trim_start(), d),
            None => return Ok(None),
        }
    } else if let Some(r) = strip_cjk(line, "滑动直到") {
        return scroll_until_tail(&format!("until {r}"), Direction::Up);
    } else if let Some((r, d)) = zh_swipe_until(line) {
        return scroll_until_tail(&format!("until {r}"), d);
    } else {
        return Ok(None);
    };
    scroll_until_tail(rest, direction)
}

/// `上滑直到 "X" 出现` / `向下滑动直到 "X" 出现`: the text after `直到` and the finger's
/// direction; `None` when the line is not one.
fn zh_swipe_until(line: &str) -> Option<(&str, Direction)> {
    let t = line.trim_start();
    let t = t.strip_prefix('向').unwrap_or(t);
    let d = t.chars().next()?;
    let direction = match d {
        '上' => Direction::Up,
        '下' => Direction::Down,
        '左' => Direction::Left,
        '右' => Direction::Right,
        _ => return None,
    };
    let t = &t[d.len_utf8()..];
    let t = t.strip_prefix("滑动").or_else(|| t.strip_prefix('滑'))?;
    Some((t.strip_prefix("直到")?, direction))
}

fn scroll_until_tail(rest: &str, direction: Direction) -> LineResult<Option<Step>> {
    let Some(rest) = strip_kw(rest, "until") else {
        return Ok(None);
    };
    let (text, tail) = quoted(rest)?;
    let tail = tail.trim();
    let tail = ["is visible", "appears", "is shown", "出现", "可见"]
        .iter()
        .find_map(|w| tail.strip_prefix(w))
        .unwrap_or(tail)
        .trim();
    let max_swipes = if tail.is_empty() {
        DEFAULT_SCROLL_SWIPES
    } else {
        let t = strip_kw(tail, "up to")
            .or_else(|| strip_kw(tail, "at most"))
            .or_else(|| strip_cjk(tail, "最多"))
            .unwrap_or(tail);
        let n: String = t.chars().take_while(char::is_ascii_digit).collect();
        let unit = t[n.len()..].trim();
        let ok_unit = ["swipes", "swipe", "times", "次"].contains(&unit);
        match n.parse::<u32>() {
            Ok(v) if ok_unit && (1..=MAX_SCROLL_SWIPES).contains(&v) => v,
            _ => {
                return err(
                    format!("expected `up to N swipes` (1 to {MAX_SCROLL_SWIPES}) after the text"),
                    "write scroll until \"Terms\" is visible up to 20 swipes",
                )
            }
        }
    };
    Ok(Some(Step::Act(Action::ScrollUntil {
        text,
        direction,
        max_swipes,
    })))
}

/// The opposite direction (a scroll direction → the finger's direction).
fn invert(d: Direction) -> Direction {
    match d {
        Direction::Up => Direction::Down,
        Direction::Down => Direction::Up,
        Direction::Left => Direction::Right,
        Direction::Right => Direction::Left,
    }
}

/// Swipe words: `swipe up [on "X"]`, `scroll down` (= swipe up), `上滑`, `向上滑动 "列表"`.
fn parse_swipe(line: &str) -> LineResult<Option<Step>> {
    let (dir_word, rest, invert) = if let Some(r) = strip_kw(line, "swipe") {
        let w = r.split_whitespace().next().unwrap_or("");
        (w.to_string(), r[w.len()..].to_string(), false)
    } else if let Some(r) = strip_kw(line, "scroll") {
        let w = r.split_whitespace().next().unwrap_or("");
        (w.to_string(), r[w.len()..].to_string(), true)
    } else {
        let t = line.trim_start();
        let t = t.strip_prefix("向").unwrap_or(t);
        let Some(d) = t.chars().next().filter(|c| "上下左右".contains(*c)) else {
            return Ok(None);
        };
        let t = &t[d.len_utf8()..];
        let Some(r) = t.strip_prefix("滑动").or_else(|| t.strip_prefix("滑")) else {
            return Ok(None);
        };
        (d.to_string(), r.to_string(), false)
    };
    let Some(mut direction) = Direction::parse(&dir_word) else {
        return err(
            format!(
                "unknown direction `{}`",
                dir_word.chars().take(12).collect::<String>()
            ),
            "write swipe up|down|left|right [on \"X\"] (上滑 / 下滑 / 左滑 / 右滑)",
        );
    };
    if invert {
        // `scroll down` moves the content down: the finger goes up.
        direction = self::invert(direction);
    }
    let rest = rest.trim();
    let rest = strip_kw(rest, "on")
        .or_else(|| strip_kw(rest, "in"))
        .or_else(|| strip_kw(rest, "across"))
        .or_else(|| strip_cjk(rest, "在"))
        .unwrap_or(rest);
    if rest.trim().is_empty() {
        return Ok(Some(Step::Act(Action::Swipe {
            direction,
            on: None,
        })));
    }
    let (target, tail) = parse_target(rest)?;
    expect_end(tail)?;
    Ok(Some(Step::Act(Action::Swipe {
        direction,
        on: Some(target.into()),
    })))
}

/// Tap, double tap, long press (`long press "X" [for 2s]`) and swipe lines; `None` when the
/// line is none of them.
pub(super) fn parse_gesture(line: &str) -> LineResult<Option<Step>> {
    if let Some(step) = parse_back(line)? {
        return Ok(Some(step));
    }
    if let Some(step) = parse_scroll_until(line)? {
        return Ok(Some(step));
    }
    if let Some(step) = parse_swipe(line)? {
        return Ok(Some(step));
    }
    let Some((rest, gesture)) = GESTURE_WORDS.iter().find_map(|(kw, g)| {
        let r = if kw.is_ascii() {
            strip_kw(line, kw)
        } else {
            strip_cjk(line, kw)
        };
        r.map(|r| (r, *g))
    }) else {
        return Ok(None);
    };
    let (target, rest) = parse_target(rest)?;
    let target = target.into();
    let action = match gesture {
        Gesture::Tap => {
            expect_end(rest)?;
            Action::Tap { target }
        }
        Gesture::DoubleTap => {
            expect_end(rest)?;
            Action::DoubleTap { target }
        }
        Gesture::LongPress => {
            let rest = rest.trim();
            let duration_ms = if rest.is_empty() {
                DEFAULT_LONG_PRESS_MS
            } else {
                let r = strip_kw(rest, "for").unwrap_or(rest);
                let ms = parse_duration(r)?;
                let (lo, hi) = LONG_PRESS_RANGE_MS;
                if !(lo..=hi).contains(&ms) {
                    return err(
                        format!("a long press of {ms} ms is out of range"),
                        format!("hold between {lo} ms and {} s", hi / 1000),
                    );
                }
                ms
            };
            Action::LongPress {
                target,
                duration_ms,
            }
        }
    };
    Ok(Some(Step::Act(action)))
}
