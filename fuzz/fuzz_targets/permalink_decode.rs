//! Arbitrary bytes as a permalink: `Session::decode` must answer Ok or an error (bounded in time
//! and memory: zip bombs are refused by size), and a decoded session must encode and decode back
//! to itself.
#![no_main]

use clusterscope_core::limits::Limits;
use clusterscope_core::session::Session;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let limits = Limits::default();
    match Session::decode(&text, &limits) {
        Err(e) => assert!(!e.is_empty(), "an empty error message"),
        Ok(s) => {
            let again = Session::decode(&s.encode(), &limits)
                .unwrap_or_else(|e| panic!("a decoded session does not round-trip: {e}"));
            assert_eq!(again, s, "round trip changed the session");
        }
    }
});
