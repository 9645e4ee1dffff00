//! Arbitrary bytes as a scenario file: `Scenario::parse` must answer Ok or an error, never panic
//! or hang. When a file parses, building its first variant's run must not panic either.
#![no_main]

use clusterscope_core::limits::Limits;
use clusterscope_core::runner::{Run, RunOptions};
use clusterscope_core::scenario::Scenario;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let limits = Limits::default();
    match Scenario::parse("fuzz.toml", text, &limits) {
        Err(e) => assert!(!e.msg.is_empty(), "an empty error message"),
        Ok(s) => {
            // Errors name the file; a parsed scenario can be built (or says why not).
            let variant = Run::default_variant(&s);
            let opts = RunOptions {
                checkpointing: false,
                body_budget: 0,
                limits,
            };
            if s.topo.len() <= 16 {
                if let Err(e) = Run::new(s, &variant, None, &toml::Table::new(), &opts) {
                    assert!(!e.is_empty(), "an empty Run::new error");
                }
            }
        }
    }
});
