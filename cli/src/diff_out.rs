//! `clusterscope diff`'s text: the first behavioural divergence (`core::diff`), what differs
//! there (the views of a state divergence, the words of both records), both records.

use clusterscope_core::diff::{DivKind, Divergence};
use clusterscope_core::time::fmt_time;
use std::fmt::Write;

/// The divergence's lines of the text output.
pub fn diff_text(o: &mut String, d: &Divergence, va: &str, vb: &str) {
    let _ = writeln!(
        o,
        "  first divergence at {} on {}: {} (records {} / {}; before them both behave the same)",
        fmt_time(d.time_us),
        d.node,
        d.what(),
        d.index_a,
        d.index_b
    );
    if d.kind == DivKind::State {
        let more = d.views_differing.saturating_sub(d.views.len());
        let _ = writeln!(
            o,
            "    views that differ just after it{}:",
            if more > 0 {
                format!(" (the first {} listed)", d.views.len())
            } else {
                String::new()
            }
        );
        for v in &d.views {
            let _ = writeln!(o, "      {}: {} vs {}", v.path, v.a, v.b);
        }
        let _ = writeln!(o, "    what each logged then:");
    }
    let [la, lb] = d.lines();
    if let (Some((a, ra)), Some((b, rb))) = (&la, &lb) {
        let _ = writeln!(
            o,
            "    differs: “{}” vs “{}”",
            &a[ra.clone()],
            &b[rb.clone()]
        );
    }
    let show = |v: &Option<serde_json::Value>| {
        v.as_ref()
            .map_or("(no record by then)".to_string(), |v| v.to_string())
    };
    let _ = writeln!(o, "    {va}: {}", show(&d.a));
    let _ = writeln!(o, "    {vb}: {}", show(&d.b));
    if let Some((a, b)) = &d.logged {
        let _ = writeln!(o, "    what each logged then:");
        let line = |v: &Option<serde_json::Value>| {
            v.as_ref()
                .map_or("(no such line)".to_string(), |v| v.to_string())
        };
        let _ = writeln!(o, "    {va}: {}", line(a));
        let _ = writeln!(o, "    {vb}: {}", line(b));
    }
}
