//! The scenario reader (issue 44): TOML text to a validated `Scenario` (toml's parser,
//! toml_parser and the typed reading of a file: `Scenario::parse`, and `--set`-style values,
//! `scenario::parse_override`). In the split release build it is the part `reader` (core's split
//! point, `clusterscope_core::scenario`), fetched the first time a text is read: another built-in
//! opened, a link or a saved session naming one, an imported file, a sweep or a hunt that reads
//! one. The default scenario needs none of it: its file is read ahead of time (`crate::compact`).
//! The session reader ([`SESSION_PART`]) is a part of its own, fetched the same way.
//!
//! [`parse`] answers an error while the part is not loaded and the reader is wanted: the page's
//! store ([`take_wanted`]) keeps the message, has the app load the part and applies the message
//! again (`model::store`); the sweep card loads it and starts again (`ui::sweep`); a worker's
//! job names it (`wanted_model`, main.rs) and the worker loads it and runs the job again
//! (`static/sweep-worker.js`).

use clusterscope_core::limits::Limits;
use clusterscope_core::scenario::Scenario;

/// The part's name (`platform::load_part`).
pub const PART: &str = "reader";

/// The scenario in `text` (`file` names it in errors), read and validated against `limits`:
/// `Scenario::parse`, its error as text (while the reader's part is not loaded: an error saying
/// so, and the part is wanted).
pub fn parse(file: &str, text: &str, limits: &Limits) -> Result<Scenario, String> {
    Scenario::parse(file, text, limits).map_err(|e| e.to_string())
}

/// Whether the reader was needed since the last call and its part was not loaded.
pub fn take_wanted() -> bool {
    clusterscope_core::scenario::take_reader_wanted()
}

/// The session reader's part (`Session::decode`: a link, the saved session, an export's session
/// line; core's split point, `clusterscope_core::session`): fetched the first time a session is
/// read, as the scenario reader's is. A first visit without a link needs neither.
pub const SESSION_PART: &str = "session";

/// Whether the session reader was needed since the last call and its part was not loaded.
pub fn take_session_wanted() -> bool {
    clusterscope_core::session::take_decoder_wanted()
}

/// The session writer's part (`Session::try_encode`: the autosave, the link, an export's session
/// line; core's split point, `clusterscope_core::session`): fetched the first time a session is
/// written. A first visit that changes nothing writes none (`ui::app`'s autosave).
pub const WRITER_PART: &str = "session_write";

/// What the app says when the session writer's part did not load.
pub const WRITER_FAILED: &str = "the session writer's code did not load (a part of the app, \
                                 split/session_write; check the connection)";

/// Whether the session writer (or the scenario writer, `Scenario::to_toml`, in the same part)
/// was needed since the last call and its part was not loaded.
pub fn take_writer_wanted() -> bool {
    clusterscope_core::session::take_encoder_wanted()
}

/// Whether the writers' part is loaded (always, but in the split release build before its
/// fetch): a check whose scenario could not be written waits for it (`ui::checks`,
/// `ui::branches`) instead of failing.
pub fn writer_loaded() -> bool {
    clusterscope_core::scenario::writer_loaded()
}

/// Whether it is wanted now (the flag kept for [`take_session_wanted`]).
pub fn session_wanted() -> bool {
    clusterscope_core::session::decoder_wanted()
}
