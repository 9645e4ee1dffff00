//! The scenario format's claims: `chance` expectations, captions' `holds`, and scheduled faults
//! that cannot apply. What `run`, a sweep's summary and the claims check make of each.

use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::{Chance, Scenario};
use clusterscope_core::sweep::{self, Partial, Plan, Summary};

const BASE: &str = r#"name = "claims"
title = "claims"
protocol = "gossip"
duration = "20s"

[cluster]
nodes = [{ name = "A" }, { name = "B" }, { name = "C" }]

[[variants]]
name = "v"
"#;

fn parse(extra: &str) -> Result<Scenario, String> {
    Scenario::parse("c.toml", &format!("{BASE}{extra}"), &Limits::default())
        .map_err(|e| e.to_string())
}

fn run(extra: &str, seed: u64) -> clusterscope_core::runner::Report {
    let s = parse(extra).unwrap();
    let mut r = Run::new(
        s,
        "v",
        Some(seed),
        &toml::Table::new(),
        &RunOptions::default(),
    )
    .unwrap();
    r.run(None).unwrap()
}

fn sweep(extra: &str, seeds: u64) -> Summary {
    let s = parse(extra).unwrap();
    let plan = Plan::new(&s, "v", 1, seeds, &toml::Table::new(), Vec::new(), None).unwrap();
    let outs = (0..plan.jobs())
        .map(|j| sweep::run_job(&s, &plan, j, &Limits::default()))
        .collect();
    let mut part = Partial::new(plan, sweep::expectation_names(&s, "v").unwrap(), outs);
    part.chances = sweep::expectation_chances(&s, "v").unwrap();
    sweep::summarize(&part)
}

/// Everyone sees everyone UP at 15 s: true on every seed.
const TRUE: &str = r#"view = "liveness"
observer = "A"
peer = "B"
at = "15s"
equals = "UP"
"#;
/// Never true.
const FALSE: &str = r#"view = "liveness"
observer = "A"
peer = "B"
at = "15s"
equals = "DOWN"
"#;

fn exp(check: &str, extra: &str) -> String {
    format!("[[expect]]\nname = \"e\"\n{check}{extra}")
}

#[test]
fn chance_parses_ranges_and_refuses_nonsense() {
    let c = Chance::parse("40%..70%").unwrap();
    assert_eq!((c.lo_pct, c.hi_pct), (40.0, 70.0));
    assert_eq!(Chance::parse(" 5 .. 10% ").unwrap().hi_pct, 10.0);
    assert_eq!(Chance::parse("50%").unwrap().lo_pct, 50.0);
    assert_eq!(c.text(), "40%..70%");
    assert_eq!(c.short(), "40-70%");
    for bad in ["70%..40%", "abc", "120%", "-5%", "40%..", ""] {
        let e = Chance::parse(bad).unwrap_err();
        assert!(e.contains("40%..70%"), "{bad}: {e}");
    }
    // Interval overlap: [0.3, 0.5] meets 40-70%, [0.75, 0.9] does not.
    assert!(c.admits(0.3, 0.5));
    assert!(!c.admits(0.75, 0.9));
    assert!(!Chance::ALWAYS.admits(0.7, 0.97));
    assert!(Chance::ALWAYS.admits(0.76, 0.991));
}

#[test]
fn chance_needs_a_source_and_a_real_range() {
    let e = parse(&exp(TRUE, "chance = \"40%..70%\"\n")).unwrap_err();
    assert!(
        e.contains("expect \"e\"") && e.contains("needs `source"),
        "{e}"
    );
    let e = parse(&exp(TRUE, "source = \"the ticket\"\n")).unwrap_err();
    assert!(e.contains("give `chance"), "{e}");
    let e = parse(&exp(TRUE, "chance = \"99%..100%\"\nsource = \"x\"\n")).unwrap_err();
    assert!(e.contains("needs no `chance`"), "{e}");
    let e = parse(&exp(TRUE, "chance = \"high\"\nsource = \"x\"\n")).unwrap_err();
    assert!(e.contains("chance \"high\""), "{e}");
}

#[test]
fn a_chance_that_did_not_happen_is_not_a_failure_of_the_run() {
    let r = run(&exp(FALSE, "chance = \"0%..50%\"\nsource = \"test\"\n"), 1);
    assert!(r.passed, "{:?}", r.expectations);
    let e = &r.expectations[0];
    assert!(!e.passed);
    assert!(!e.fails_run());
    assert_eq!(
        e.verdict(),
        "did not happen this time (expected in 0-50% of seeds)"
    );
    // Without a chance the same expectation fails the run.
    let r = run(&exp(FALSE, ""), 1);
    assert!(!r.passed);
    assert_eq!(r.expectations[0].verdict(), "FAILED");
}

#[test]
fn a_sweep_checks_each_claim_against_the_observed_interval() {
    // Held on 0 of 8 seeds: consistent with 0-50%, not with 60-90% nor with "always".
    let s = sweep(&exp(FALSE, "chance = \"0%..50%\"\nsource = \"t\"\n"), 8);
    assert!(s.contradictions().is_empty());
    assert_eq!(
        s.cells[0].all_passed.count, 8,
        "a chance expectation does not fail a seed"
    );
    let s = sweep(&exp(FALSE, "chance = \"60%..90%\"\nsource = \"t\"\n"), 8);
    assert_eq!(s.contradictions().len(), 1);
    let s = sweep(&exp(FALSE, ""), 8);
    assert_eq!(s.contradictions().len(), 1, "no chance claims always");
    // Held on 8 of 8: contradicts a claim of 10-30%, and "always" is as claimed.
    let s = sweep(&exp(TRUE, "chance = \"10%..30%\"\nsource = \"t\"\n"), 8);
    assert_eq!(s.contradictions().len(), 1);
    assert!(s.contradictions()[0].1.chance.is_some());
    assert!(sweep(&exp(TRUE, ""), 8).contradictions().is_empty());
}

const CAPTION: &str = r#"[[captions]]
at = "15s"
text = "A sees B UP."
[[captions.holds]]
view = "liveness"
observer = "A"
peer = "B"
"#;

#[test]
fn a_caption_checks_what_it_says_when_it_shows() {
    let r = run(&format!("{CAPTION}equals = \"UP\"\n"), 1);
    assert!(r.passed);
    let c = r
        .expectations
        .iter()
        .find(|e| e.caption == Some(0))
        .expect("caption check");
    assert_eq!(c.name, "caption at 15s: liveness A->B = UP");
    assert_eq!(c.window_us, [15_000_000, 15_000_000]);
    let r = run(&format!("{CAPTION}equals = \"DOWN\"\n"), 1);
    assert!(!r.passed, "a caption that is not true fails the run");
    assert!(
        r.expectations[0].detail.contains("at 15"),
        "{:?}",
        r.expectations
    );
    // A caption of another variant checks nothing here.
    let s = parse(&format!(
        "{CAPTION}equals = \"DOWN\"\nvariants = [\"w\"]\n[[variants]]\nname = \"w\"\n"
    ));
    // `variants` after `[[captions.holds]]` belongs to the hold: refused as unknown.
    assert!(s.unwrap_err().contains("unknown field `variants`"));
    let s = parse(
        "[[captions]]\nat = \"15s\"\ntext = \"t\"\nvariants = [\"w\"]\n[[captions.holds]]\nview = \"down_pairs\"\nequals = 9\n[[variants]]\nname = \"w\"\n",
    )
    .unwrap();
    assert!(sweep::expectation_names(&s, "v").unwrap().is_empty());
    assert_eq!(
        sweep::expectation_names(&s, "w").unwrap(),
        vec!["caption at 15s: down_pairs = 9"]
    );
}

#[test]
fn a_caption_check_is_validated_like_an_expectation() {
    let e = parse("[[captions]]\nat = \"5s\"\ntext = \"t\"\n[[captions.holds]]\nview = \"nope\"\nequals = 1\n")
        .unwrap_err();
    assert!(
        e.contains("captions[0].holds[0]") && e.contains("unknown view `nope`"),
        "{e}"
    );
    let e = parse("[[captions]]\nat = \"5s\"\ntext = \"t\"\n[[captions.holds]]\nview = \"log\"\ncontains = \"UP\"\nsince = \"6s\"\nat_least = 1\n")
        .unwrap_err();
    assert!(
        e.contains("captions[0].holds[0].since") && e.contains("after the caption"),
        "{e}"
    );
    let e = parse("[[captions]]\nat = \"5s\"\ntext = \"t\"\n[[captions.holds]]\nview = \"liveness\"\nobserver = \"A\"\npeer = \"B\"\n")
        .unwrap_err();
    assert!(
        e.contains("captions[0].holds[0]") && e.contains("exactly one check"),
        "{e}"
    );
}

#[test]
fn a_scheduled_fault_that_cannot_apply_fails_the_run_and_errors_a_sweep_seed() {
    // Gossip is running at 2 s: `enablegossip` is refused then.
    let f =
        "[[faults]]\nat = \"2s\"\naction = \"command\"\nnode = \"A\"\ncommand = \"enablegossip\"\n";
    let r = run(&format!("{}{f}", exp(TRUE, "")), 1);
    assert!(!r.passed);
    assert_eq!(r.skipped.len(), 1, "{:?}", r.skipped);
    assert!(
        r.skipped[0].contains("the fault at 2s") && r.skipped[0].contains("already running"),
        "{:?}",
        r.skipped
    );
    let s = sweep(&format!("{}{f}", exp(TRUE, "")), 3);
    assert_eq!(s.errored(), 3);
    assert!(
        s.cells[0].errors[0].contains("was skipped"),
        "{:?}",
        s.cells[0].errors
    );
}
