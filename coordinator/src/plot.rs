//! Pass-rate charts drawn on the server as inline SVG (the `plot.html` template): one line
//! per group over UTC days, 0–100 % up the side, a dot per day with the counts in its
//! tooltip, and an HTML legend under it (names of any length wrap). No script and nothing
//! fetched: the dashboard works offline and without JS.

use chrono::{DateTime, Duration, Utc};

use crate::store::insights::DayRate;

/// Chart size in CSS px (the SVG scales to its container's width).
pub const WIDTH: f64 = 400.0;
pub const HEIGHT: f64 = 180.0;
const LEFT: f64 = 40.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 26.0;
/// Most lines drawn; the groups with the most runs win.
pub const MAX_SERIES: usize = 8;
const COLORS: [&str; MAX_SERIES] = [
    "#1a73e8", "#d93025", "#188038", "#e8710a", "#9334e6", "#12b5cb", "#b06000", "#5b6270",
];

/// One day's dot.
#[derive(Debug, Clone, PartialEq)]
pub struct Dot {
    pub x: f64,
    pub y: f64,
    /// `2026-11-30: 3/4 passed (75%)`.
    pub title: String,
}

/// One group's line.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub name: String,
    pub color: &'static str,
    /// SVG `points`: `x,y x,y …`.
    pub points: String,
    pub dots: Vec<Dot>,
    /// `12/14 · 86%` over the whole window.
    pub total: String,
}

/// One chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// `pass rate by platform`.
    pub title: String,
    /// Element id: `plot-platform`.
    pub id: String,
    pub lines: Vec<Line>,
    /// `(x, label)` under the axis.
    pub x_ticks: Vec<(f64, String)>,
    /// `(y, label)`: 0 %, 50 %, 100 %.
    pub y_ticks: Vec<(f64, String)>,
    /// Groups left out beyond [`MAX_SERIES`].
    pub hidden: usize,
    pub w: f64,
    pub h: f64,
    /// x of the plot area's left and right edges (the grid lines' ends).
    pub left: f64,
    pub right: f64,
}

/// Builds the chart of `rates` (one group's days in any order) over the `days` UTC days
/// ending today (`now`'s day).
pub fn chart(id: &str, title: &str, rates: &[DayRate], days: u32, now: DateTime<Utc>) -> Chart {
    let days = days.max(1) as i64;
    let today = now.date_naive();
    let first = today - Duration::days(days - 1);
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let x_of = |day: chrono::NaiveDate| {
        let i = (day - first).num_days() as f64;
        LEFT + if days > 1 {
            i / (days - 1) as f64 * plot_w
        } else {
            plot_w / 2.0
        }
    };
    let y_of = |rate: f64| TOP + (1.0 - rate) * plot_h;
    // Groups by run count, most first.
    let mut groups: Vec<(String, i64, i64)> = Vec::new();
    for r in rates {
        match groups.iter_mut().find(|g| g.0 == r.grp) {
            Some(g) => {
                g.1 += r.passed;
                g.2 += r.total;
            }
            None => groups.push((r.grp.clone(), r.passed, r.total)),
        }
    }
    groups.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
    let hidden = groups.len().saturating_sub(MAX_SERIES);
    let lines = groups
        .iter()
        .take(MAX_SERIES)
        .enumerate()
        .map(|(k, (name, passed, total))| {
            let mut mine: Vec<&DayRate> = rates
                .iter()
                .filter(|r| &r.grp == name && r.total > 0 && r.day.date_naive() >= first)
                .collect();
            mine.sort_by_key(|r| r.day);
            let dots: Vec<Dot> = mine
                .iter()
                .map(|r| {
                    let rate = r.passed as f64 / r.total as f64;
                    Dot {
                        x: round1(x_of(r.day.date_naive())),
                        y: round1(y_of(rate)),
                        title: format!(
                            "{name} · {}: {}/{} passed ({:.0}%)",
                            r.day.format("%Y-%m-%d"),
                            r.passed,
                            r.total,
                            rate * 100.0
                        ),
                    }
                })
                .collect();
            Line {
                name: name.clone(),
                color: COLORS[k % COLORS.len()],
                points: dots
                    .iter()
                    .map(|d| format!("{},{}", d.x, d.y))
                    .collect::<Vec<_>>()
                    .join(" "),
                dots,
                total: format!(
                    "{passed}/{total} · {:.0}%",
                    *passed as f64 / (*total).max(1) as f64 * 100.0
                ),
            }
        })
        .collect();
    // About six date labels whatever the window.
    let step = (days as f64 / 6.0).ceil().max(1.0) as i64;
    let x_ticks = (0..days)
        .filter(|i| i % step == 0 || *i == days - 1)
        .map(|i| {
            let d = first + Duration::days(i);
            (round1(x_of(d)), d.format("%m-%d").to_string())
        })
        .collect();
    let y_ticks = [0.0, 0.5, 1.0]
        .iter()
        .map(|r| (round1(y_of(*r)), format!("{:.0}%", r * 100.0)))
        .collect();
    Chart {
        title: title.to_string(),
        id: id.to_string(),
        lines,
        x_ticks,
        y_ticks,
        hidden,
        w: WIDTH,
        h: HEIGHT,
        left: LEFT,
        right: WIDTH - RIGHT,
    }
}

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn day(d: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, d, 0, 0, 0).unwrap()
    }

    fn rate(g: &str, d: u32, passed: i64, total: i64) -> DayRate {
        DayRate {
            grp: g.into(),
            day: day(d),
            passed,
            total,
        }
    }

    #[test]
    fn one_line_per_group_scaled_by_day_and_rate() {
        let rates = vec![
            rate("web", 28, 1, 2),
            rate("android", 29, 3, 3),
            rate("web", 30, 4, 4),
        ];
        let now = day(30) + Duration::hours(5);
        let c = chart("plot-platform", "by platform", &rates, 3, now);
        assert_eq!(c.lines.len(), 2);
        // Most runs first: web has 6, android 3.
        let web = &c.lines[0];
        assert_eq!(web.name, "web");
        assert_eq!(web.total, "5/6 · 83%");
        let plot_w = WIDTH - LEFT - RIGHT;
        let plot_h = HEIGHT - TOP - BOTTOM;
        // The first day at the left edge at 50 %, the last at the right edge at 100 %.
        assert_eq!(
            (web.dots[0].x, web.dots[0].y),
            (LEFT, round1(TOP + plot_h / 2.0))
        );
        assert_eq!((web.dots[1].x, web.dots[1].y), (round1(LEFT + plot_w), TOP));
        assert!(web.dots[0].title.contains("2026-11-28: 1/2 passed (50%)"));
        let android = &c.lines[1];
        assert_eq!(android.dots[0].x, round1(LEFT + plot_w / 2.0));
        assert_eq!(c.x_ticks.first().map(|t| t.1.as_str()), Some("11-28"));
        assert_eq!(c.x_ticks.last().map(|t| t.1.as_str()), Some("11-30"));
        // Days before the window are not drawn.
        let c = chart("p", "t", &rates, 1, now);
        assert_eq!(c.lines[0].dots.len(), 1);
    }
}
