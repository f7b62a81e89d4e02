//! No two texts of a chart overlap, whatever its labels, and a long chart names its
//! lifelines again as it goes: read back from the SVG, each text's box as `width` counts it.

use agentpi_report_html::{Chart, Ending, Note, Row, svg, width};

/// A text of the SVG: its box `[left, right)` on baseline `y`, and what it says.
#[derive(Debug)]
struct Text {
    left: i64,
    right: i64,
    y: i64,
    says: String,
}

fn attr(tag: &str, name: &str) -> Option<String> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(tag[at..].split('"').next()?.to_string())
}

fn texts(svg: &str) -> Vec<Text> {
    let mut out = Vec::new();
    for part in svg.split("<text").skip(1) {
        let (tag, rest) = part.split_once('>').unwrap();
        let says = rest.split("</text>").next().unwrap().replace("&gt;", ">");
        let x: i64 = attr(tag, "x").unwrap().parse().unwrap();
        let y: i64 = attr(tag, "y").unwrap().parse().unwrap();
        let w = i64::from(width::of(&says));
        let left = match attr(tag, "text-anchor").as_deref() {
            Some("end") => x - w,
            Some("middle") => x - w / 2,
            _ => x,
        };
        out.push(Text {
            left,
            right: left + w,
            y,
            says,
        });
    }
    out
}

/// A chart of `n` rows between `lanes` lifelines, labels of every length, some not ASCII.
fn long_chart(n: usize, lanes: usize) -> Chart {
    let words = [
        "call(r#1)",
        "r#12(ok)",
        "tools/call #7 with a longer label",
        "tau",
        "élan → ∞ 名前",
        "x",
    ];
    let rows = (0..n)
        .map(|i| Row {
            number: i + 1,
            from: i % lanes,
            to: (i * 7 + 1) % lanes,
            label: format!("{} {i}", words[i % words.len()]),
            mark: (i % 50 == 49).then(|| format!("C3 MUST: finding at {i}")),
            message: None,
        })
        .collect();
    Chart {
        lifelines: (0..lanes)
            .map(|k| format!("Instance_{k}({})", "n".repeat(k)))
            .collect(),
        rows,
        loop_start: Some(n / 2),
        notes: vec![Note {
            lifeline: 1,
            text: "waits take[1]! or a much longer wait".into(),
        }],
        ending: Some(Ending::Deadlock),
    }
}

#[test]
fn no_two_texts_overlap_in_a_chart_of_hundreds_of_steps() {
    let chart = long_chart(400, 5);
    let svg = svg::element(&chart, "c1");
    let width: i64 = attr(&svg, "width").unwrap().parse().unwrap();
    let texts = texts(&svg);
    assert!(texts.len() > 400 * 2, "{}", texts.len());
    for (i, a) in texts.iter().enumerate() {
        assert!(a.left >= 0 && a.right <= width, "{a:?} outside 0..{width}");
        for b in &texts[i + 1..] {
            // Rows are 24 px apart and the font is 12 px: texts on different baselines of
            // 12 px or more never meet; on one baseline they must not share a pixel.
            let near = (a.y - b.y).abs() < i64::from(width::FONT);
            assert!(
                !near || a.right <= b.left || b.right <= a.left,
                "{a:?} overlaps {b:?}"
            );
        }
    }
    // A label never crosses a lifeline: an arrow's lies between its two, an event's in its
    // column, so labels of different columns cannot meet either.
    let lifelines: Vec<i64> = svg
        .split("<line class=\"life\"")
        .skip(1)
        .map(|l| attr(l, "x1").unwrap().parse().unwrap())
        .collect();
    assert_eq!(lifelines.len(), 5);
    for t in texts
        .iter()
        .filter(|t| !t.says.starts_with("Instance_") && !t.says.contains(':'))
    {
        if t.says.parse::<usize>().is_ok()
            || t.says.starts_with('!')
            || t.says.starts_with('\u{21bb}')
        {
            continue;
        }
        for x in &lifelines {
            assert!(
                !(t.left < *x && *x < t.right),
                "{t:?} crosses the lifeline at {x}"
            );
        }
    }
    // The names again every 40 rows: 10 bands of 5 names.
    assert_eq!(
        texts
            .iter()
            .filter(|t| t.says.starts_with("Instance_"))
            .count(),
        10 * 5
    );
    assert_eq!(svg.matches("class=\"step").count(), 400);
    assert_eq!(svg.matches("class=\"step marked\"").count(), 8);
}

#[test]
fn the_same_chart_gives_the_same_bytes() {
    let chart = long_chart(120, 3);
    assert_eq!(
        svg::element(&chart, "c1"),
        svg::element(&chart.clone(), "c1")
    );
}
