//! Every caption of every built-in scenario says what holds when it shows (issue 38, part 3):
//! each carries `[[captions.holds]]`, the checks of the state its words describe, which every
//! run evaluates at the caption's moment (`Scenario::expectations`: `caption at Xs: ...`) and
//! `tests/tests/claims.rs` sweeps over 20 seeds of each variant. A caption without checks could
//! say anything; this test names the ones that have none.

use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::builtin;

#[test]
fn every_builtin_caption_has_checks() {
    let mut missing = Vec::new();
    let mut captions = 0;
    for s in builtin::all() {
        for v in &s.raw.variants {
            for (i, c) in s.captions_indexed(&v.name) {
                captions += 1;
                if c.holds.is_empty() {
                    missing.push(format!(
                        "{} [{}] captions[{i}] at {}: {}",
                        s.raw.name,
                        v.name,
                        clusterscope_core::time::fmt_duration(c.at.0),
                        c.text
                    ));
                }
            }
        }
    }
    assert!(captions > 100, "only {captions} captions found");
    assert!(
        missing.is_empty(),
        "captions without `[[captions.holds]]` ({} of {captions}):\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// A caption's checks are due at the caption's own moment, and a run reports each one with it.
#[test]
fn caption_checks_are_due_when_the_caption_shows() {
    let s = builtin::get("raft-figure-8").unwrap();
    let v = Run::default_variant(&s);
    let mut run = Run::new(
        s.clone(),
        &v,
        None,
        &toml::Table::new(),
        &RunOptions::default(),
    )
    .unwrap();
    let rep = run.run(None).unwrap();
    let caps = s.captions_indexed(&v);
    let mut seen = 0;
    for e in rep.expectations.iter().filter(|e| e.caption.is_some()) {
        let idx = e.caption.unwrap() as usize;
        let (_, c) = caps
            .iter()
            .find(|(i, _)| *i == idx)
            .expect("the caption of a caption check");
        let at = c.at.0.min(s.duration());
        assert_eq!(e.window_us[1], at, "{}", e.name);
        seen += 1;
    }
    assert!(
        seen >= caps.len(),
        "{seen} caption checks for {} captions",
        caps.len()
    );
}
