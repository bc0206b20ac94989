//! Inline SVG charts for the HTML reports: a radar of per-group accuracy, horizontal bars
//! (who decided, label distributions) and a dot-and-whisker chart (ratings with intervals).
//! Pure functions from numbers to markup, so they can be tested without a browser; labels
//! are escaped here. No JavaScript and no external resources: the charts print and work
//! offline. Not for layout of the page around them (see `html.rs`).

use super::escape::escape;
use std::f64::consts::PI;
use std::fmt::Write as _;

/// Series colours, readable in print and for common colour-vision deficiencies
/// (Okabe–Ito).
pub const COLOURS: [&str; 6] = [
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
];

fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.1}")
    } else {
        "0".to_string()
    }
}

/// A radar ("spider") chart of values in 0..=1, one axis per label, with rings at 25% steps.
/// Needs three axes to enclose an area; with fewer, the bars of [`bars`] are drawn instead.
pub fn radar(title: &str, axes: &[(String, f64)]) -> String {
    if axes.len() < 3 {
        let rows: Vec<(String, f64, String)> = axes
            .iter()
            .map(|(l, v)| (l.clone(), *v, format!("{:.1}%", 100.0 * v)))
            .collect();
        return bars(title, &rows, 1.0);
    }
    let (cx, cy, r) = (300.0, 200.0, 150.0);
    let n = axes.len() as f64;
    let at = |i: usize, v: f64| {
        let a = -PI / 2.0 + 2.0 * PI * i as f64 / n;
        (cx + r * v * a.cos(), cy + r * v * a.sin())
    };
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart radar" role="img" viewBox="0 0 600 400" width="500" height="333"><title>{}</title>"#,
        escape(title)
    );
    for ring in [0.25, 0.5, 0.75, 1.0] {
        let pts: Vec<String> = (0..axes.len())
            .map(|i| {
                let (x, y) = at(i, ring);
                format!("{},{}", num(x), num(y))
            })
            .collect();
        let _ = write!(
            s,
            r##"<polygon points="{}" fill="none" stroke="#ccc"/><text x="{}" y="{}" font-size="10" fill="#888">{}%</text>"##,
            pts.join(" "),
            num(cx + 3.0),
            num(cy - r * ring - 2.0),
            (ring * 100.0) as u32
        );
    }
    for (i, (label, _)) in axes.iter().enumerate() {
        let (x, y) = at(i, 1.0);
        let (lx, ly) = at(i, 1.12);
        let anchor = if (lx - cx).abs() < 1.0 {
            "middle"
        } else if lx > cx {
            "start"
        } else {
            "end"
        };
        let _ = write!(
            s,
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#ddd"/><text class="axis" x="{}" y="{}" font-size="15" text-anchor="{anchor}" dominant-baseline="middle">{}</text>"##,
            num(cx),
            num(cy),
            num(x),
            num(y),
            num(lx),
            num(ly),
            escape(label)
        );
    }
    let pts: Vec<String> = axes
        .iter()
        .enumerate()
        .map(|(i, (_, v))| {
            let (x, y) = at(i, v.clamp(0.0, 1.0));
            format!("{},{}", num(x), num(y))
        })
        .collect();
    let _ = write!(
        s,
        r#"<polygon class="area" points="{}" fill="{}" fill-opacity="0.25" stroke="{}" stroke-width="2"/>"#,
        pts.join(" "),
        COLOURS[0],
        COLOURS[0]
    );
    for (i, (label, v)) in axes.iter().enumerate() {
        let (x, y) = at(i, v.clamp(0.0, 1.0));
        let _ = write!(
            s,
            r#"<circle cx="{}" cy="{}" r="3.5" fill="{}"><title>{}: {:.1}%</title></circle>"#,
            num(x),
            num(y),
            COLOURS[0],
            escape(label),
            100.0 * v
        );
    }
    s.push_str("</svg>");
    s
}

/// Horizontal bars: one row per `(label, value, shown text)`, scaled so `max` fills the
/// width (the largest value when `max` is 0).
pub fn bars(title: &str, rows: &[(String, f64, String)], max: f64) -> String {
    let series: Vec<(String, Vec<f64>, String)> = rows
        .iter()
        .map(|(l, v, t)| (l.clone(), vec![*v], t.clone()))
        .collect();
    grouped_bars(title, &[], &series, max)
}

/// Horizontal bars with several series per row (e.g. predicted and gold counts per label);
/// `names` labels the series in a legend (none when empty).
pub fn grouped_bars(
    title: &str,
    names: &[&str],
    rows: &[(String, Vec<f64>, String)],
    max: f64,
) -> String {
    let k = rows.iter().map(|r| r.1.len()).max().unwrap_or(1).max(1);
    let bar_h = 16.0;
    let row_h = bar_h * k as f64 + 8.0;
    let (label_w, plot_w) = (190.0, 330.0);
    let legend_h = if names.is_empty() { 0.0 } else { 22.0 };
    let height = legend_h + row_h * rows.len() as f64 + 8.0;
    let max = if max > 0.0 {
        max
    } else {
        rows.iter()
            .flat_map(|r| r.1.iter().copied())
            .fold(0.0, f64::max)
    };
    let scale = |v: f64| {
        if max > 0.0 {
            plot_w * (v / max).clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart bars" role="img" viewBox="0 0 640 {h}" width="640" height="{h}"><title>{}</title>"#,
        escape(title),
        h = num(height)
    );
    for (j, name) in names.iter().enumerate() {
        let x = label_w + 110.0 * j as f64;
        let _ = write!(
            s,
            r#"<rect x="{}" y="4" width="12" height="12" fill="{}"/><text x="{}" y="14" font-size="12">{}</text>"#,
            num(x),
            COLOURS[j % COLOURS.len()],
            num(x + 16.0),
            escape(name)
        );
    }
    for (i, (label, values, text)) in rows.iter().enumerate() {
        let y0 = legend_h + row_h * i as f64 + 4.0;
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" font-size="12" text-anchor="end" dominant-baseline="middle">{}</text>"#,
            num(label_w - 8.0),
            num(y0 + bar_h * k as f64 / 2.0),
            escape(label)
        );
        for (j, v) in values.iter().enumerate() {
            let y = y0 + bar_h * j as f64;
            let _ = write!(
                s,
                r#"<rect class="bar" x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{}: {}</title></rect>"#,
                num(label_w),
                num(y),
                num(scale(*v)),
                num(bar_h - 2.0),
                COLOURS[j % COLOURS.len()],
                escape(label),
                v
            );
        }
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" font-size="12" dominant-baseline="middle">{}</text>"#,
            num(label_w + 8.0 + values.iter().map(|v| scale(*v)).fold(0.0, f64::max)),
            num(y0 + bar_h * k as f64 / 2.0),
            escape(text)
        );
    }
    s.push_str("</svg>");
    s
}

/// A dot with a whisker per row: `(label, value, low, high)` on a shared axis (ratings with
/// bootstrap intervals, accuracies with Wilson intervals).
pub fn intervals(title: &str, rows: &[(String, f64, f64, f64)]) -> String {
    let (label_w, plot_w, row_h) = (190.0, 360.0, 26.0);
    let lo = rows
        .iter()
        .map(|r| r.2.min(r.1))
        .fold(f64::INFINITY, f64::min);
    let hi = rows
        .iter()
        .map(|r| r.3.max(r.1))
        .fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() && hi.is_finite() && hi > lo {
        let pad = (hi - lo) * 0.05;
        (lo - pad, hi + pad)
    } else {
        (lo.min(0.0) - 1.0, lo.max(0.0) + 1.0)
    };
    let x = |v: f64| label_w + plot_w * (v - lo) / (hi - lo);
    let height = row_h * rows.len() as f64 + 34.0;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart intervals" role="img" viewBox="0 0 640 {h}" width="640" height="{h}"><title>{}</title>"#,
        escape(title),
        h = num(height)
    );
    let axis_y = row_h * rows.len() as f64 + 8.0;
    let _ = write!(
        s,
        r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#888"/>"##,
        num(label_w),
        num(axis_y),
        num(label_w + plot_w),
        num(axis_y)
    );
    for t in 0..=4 {
        let v = lo + (hi - lo) * f64::from(t) / 4.0;
        let _ = write!(
            s,
            r##"<line x1="{x}" y1="0" x2="{x}" y2="{}" stroke="#eee"/><text x="{x}" y="{}" font-size="11" text-anchor="middle">{}</text>"##,
            num(axis_y),
            num(axis_y + 16.0),
            if hi - lo > 20.0 {
                format!("{v:.0}")
            } else {
                format!("{v:.2}")
            },
            x = num(x(v))
        );
    }
    for (i, (label, v, l, h)) in rows.iter().enumerate() {
        let y = row_h * i as f64 + row_h / 2.0;
        let c = COLOURS[i % COLOURS.len()];
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" font-size="12" text-anchor="end" dominant-baseline="middle">{}</text><line class="whisker" x1="{}" y1="{y}" x2="{}" y2="{y}" stroke="{c}" stroke-width="2"/><circle class="dot" cx="{}" cy="{y}" r="5" fill="{c}"><title>{}: {:.1} ({:.1}–{:.1})</title></circle>"#,
            num(label_w - 8.0),
            num(y),
            escape(label),
            num(x(*l)),
            num(x(*h)),
            num(x(*v)),
            escape(label),
            v,
            l,
            h,
            y = num(y)
        );
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(hay: &str, needle: &str) -> usize {
        hay.matches(needle).count()
    }

    #[test]
    fn radar_has_one_axis_and_point_per_group_and_escapes_labels() {
        let axes = vec![
            ("공공".to_string(), 0.6),
            ("<국방>".to_string(), 0.4),
            ("금융 & 보험".to_string(), 1.0),
        ];
        let s = radar("domain", &axes);
        assert!(s.starts_with("<svg") && s.ends_with("</svg>"));
        assert_eq!(count(&s, r#"class="axis""#), 3);
        assert_eq!(count(&s, "<circle"), 3);
        assert_eq!(count(&s, r#"class="area""#), 1);
        assert!(s.contains("&lt;국방&gt;") && s.contains("금융 &amp; 보험"));
        assert!(!s.contains("<국방>"));
        // The full-accuracy point sits on the outer ring of the third axis: radius 150 at
        // angle -90° + 240° around the centre (300, 200).
        let a = -PI / 2.0 + 4.0 * PI / 3.0;
        let want = format!(
            r#"cx="{}" cy="{}""#,
            num(300.0 + 150.0 * a.cos()),
            num(200.0 + 150.0 * a.sin())
        );
        assert!(s.contains(&want), "{want} not in {s}");
    }

    #[test]
    fn radar_with_two_groups_falls_back_to_bars() {
        let s = radar("x", &[("a".into(), 0.5), ("b".into(), 0.25)]);
        assert!(s.contains(r#"class="chart bars""#));
        assert_eq!(count(&s, r#"class="bar""#), 2);
        assert!(s.contains("50.0%"));
    }

    #[test]
    fn bars_scale_to_the_largest_value() {
        let s = bars(
            "stages",
            &[
                ("verifier".into(), 50.0, "50".into()),
                ("judge".into(), 25.0, "25".into()),
            ],
            0.0,
        );
        assert!(
            s.contains(r#"width="330.0""#) && s.contains(r#"width="165.0""#),
            "{s}"
        );
        let s = grouped_bars(
            "labels",
            &["predicted", "gold"],
            &[("①".into(), vec![3.0, 1.0], String::new())],
            0.0,
        );
        assert_eq!(count(&s, r#"class="bar""#), 2);
        assert!(s.contains(">predicted<") && s.contains(">gold<"));
    }

    #[test]
    fn intervals_draw_a_dot_and_whisker_per_row() {
        let s = intervals(
            "ratings",
            &[
                ("a".into(), 1100.0, 1050.0, 1150.0),
                ("b".into(), 900.0, 850.0, 950.0),
            ],
        );
        assert_eq!(count(&s, r#"class="dot""#), 2);
        assert_eq!(count(&s, r#"class="whisker""#), 2);
        assert!(!s.contains("NaN") && !s.contains("inf"));
        // A single row with an empty interval still gets a usable axis.
        let s = intervals("one", &[("a".into(), 1000.0, 1000.0, 1000.0)]);
        assert!(!s.contains("NaN"));
    }
}
