//! Scenarios as the app loads them: the file format (`crate::scenario_file`, re-exported here),
//! parsed and validated against the registered models (`Scenario::parse`, `Scenario::from_raw`),
//! and the built-in scenarios ([`builtin`]).
//!
//! Why two modules: a model is built from a [`Scenario`], so the type and its parser sit below
//! the models, and the registry above them. The parser takes the model table as an argument
//! (`Scenario::parse_in`); this module, above the registry, hands it every registered model.
//! Imports run downwards (ARCHITECTURE.md, "Invariants").
//!
//! The TOML reader (`Scenario::parse`, [`parse_override`]: toml's text parser and the typed
//! reading of a file) is, in the web app's split release build, the part `reader` of the wasm,
//! fetched the first time a text is read (issue 44; the app's default scenario is read ahead of
//! time, `Scenario::from_tables`): while it is not loaded they answer an error and the reader
//! is wanted ([`take_reader_wanted`]), as a model's part is (`registry::take_wanted`).

pub mod builtin;

use crate::limits::Limits;
use crate::registry;
pub use crate::scenario_file::*;

impl Scenario {
    /// Parse and validate TOML text. `file` names the source in errors.
    pub fn parse(file: &str, text: &str, limits: &Limits) -> Result<Scenario, ScenarioError> {
        reader::parse(file, text, limits)
    }

    /// The scenario as TOML text (the model's section included): what an export writes, what a
    /// sweep's digest hashes. In the web app's split release build the writer (toml's
    /// serializers) is in the part `session_write` with the session writer, fetched the first
    /// time either writes: while it is not loaded this answers an error naming the part and the
    /// writer is wanted ([`take_writer_wanted`], `session::take_encoder_wanted`).
    pub fn to_toml(&self, raw: &ScenarioFile) -> Result<String, String> {
        writer::to_toml(self, raw)
    }

    /// Validate a parsed file.
    pub fn from_raw(
        file: &str,
        raw: ScenarioFile,
        limits: &Limits,
    ) -> Result<Scenario, ScenarioError> {
        Scenario::from_raw_in(&registry::vocabs(), file, raw, limits)
    }

    /// A file read ahead of time into TOML's value tree (`Scenario::read_tables`), typed and
    /// validated: no text parser (the web app's default scenario).
    pub fn from_tables(
        file: &str,
        rest: toml::Table,
        section: Option<toml::Table>,
        limits: &Limits,
    ) -> Result<Scenario, ScenarioError> {
        Scenario::from_tables_in(&registry::vocabs(), file, rest, section, limits)
    }
}

/// Parse a `--set key=value` override: the value as TOML if it parses, else as a string
/// (`scenario_file::parse_override`). In the web app's split release build an error while the
/// reader is not loaded (see the module's doc).
pub fn parse_override(s: &str) -> Result<(String, toml::Value), String> {
    reader::value(s)
}

/// Whether the reader was needed since the last call and its part was not loaded (only in the
/// web app's split release build).
pub fn take_reader_wanted() -> bool {
    crate::lazy::take_reader_wanted()
}

/// Whether [`Scenario::to_toml`] was needed since the last call and its part (`session_write`)
/// was not loaded (only in the web app's split release build; `session::take_encoder_wanted`
/// takes it too).
pub fn take_writer_wanted() -> bool {
    WRITER_WANTED.with(|w| w.replace(false))
}

/// Whether it is wanted now, the flag left as it is.
pub fn writer_wanted() -> bool {
    WRITER_WANTED.with(|w| w.get())
}

/// Whether [`Scenario::to_toml`] runs now: always but in the web app's split release build,
/// where it is whether the part `session_write` is loaded (nothing is wanted by asking).
pub fn writer_loaded() -> bool {
    writer::loaded()
}

thread_local! {
    /// The scenario writer was, likewise.
    static WRITER_WANTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The scenario writer called directly: every build but the web app's split release build.
#[cfg(not(cs_split))]
mod writer {
    use super::*;

    pub fn to_toml(s: &Scenario, raw: &ScenarioFile) -> Result<String, String> {
        s.to_toml_now(raw)
    }

    pub fn loaded() -> bool {
        true
    }
}

/// The scenario writer behind a split point of the part `session_write` (its second point, the
/// session writer's being `session::coder::write`): toml's serializers, ~13 KB of the gzipped
/// main module, which a first visit that changes nothing never runs. A `lazy::split_fn!`, as
/// every split point is.
#[cfg(cs_split)]
mod writer {
    use super::*;

    /// What the app says while the part is not loaded.
    pub const NOT_LOADED: &str =
        "the scenario writer is not loaded yet (a part of the app, split/session_write)";

    // `Some` (the call's answer, `None` for no call) when the part is loaded.
    crate::lazy::split_fn!(session_write, write_toml,
        fn run(Option<(&Scenario, &ScenarioFile)>) -> Option<Result<String, String>> =
            |c: Option<(&Scenario, &ScenarioFile)>| c.map(|(s, raw)| s.to_toml_now(raw)));

    pub fn to_toml(s: &Scenario, raw: &ScenarioFile) -> Result<String, String> {
        match run(Some((s, raw))) {
            Some(Some(r)) => r,
            _ => {
                WRITER_WANTED.with(|w| w.set(true));
                Err(NOT_LOADED.to_string())
            }
        }
    }

    pub fn loaded() -> bool {
        run(None).is_some()
    }
}

/// The reader called directly: every build but the web app's split release build.
#[cfg(not(cs_split))]
mod reader {
    use super::*;

    pub fn parse(file: &str, text: &str, limits: &Limits) -> Result<Scenario, ScenarioError> {
        Scenario::parse_in(&registry::vocabs(), file, text, limits)
    }

    pub fn value(s: &str) -> Result<(String, toml::Value), String> {
        crate::scenario_file::parse_override(s)
    }
}

/// The reader behind the split point of the part `reader` (one point, both calls: code two
/// points of a part share is copied into each of their modules), a `lazy::split_fn!`.
#[cfg(cs_split)]
mod reader {
    use super::*;

    use crate::lazy::READER_NOT_LOADED as NOT_LOADED;

    enum Call<'a> {
        Parse(&'a str, &'a str, &'a Limits),
        Value(&'a str),
    }

    enum Out {
        Parse(Box<Result<Scenario, ScenarioError>>),
        Value(Result<(String, toml::Value), String>),
    }

    crate::lazy::split_fn!(reader, read, fn read_in_part(Call<'_>) -> Out = |c: Call| match c {
        Call::Parse(file, text, limits) => Out::Parse(Box::new(Scenario::parse_in(
            &registry::vocabs(),
            file,
            text,
            limits,
        ))),
        Call::Value(s) => Out::Value(crate::scenario_file::parse_override(s)),
    });

    fn run(c: Call) -> Option<Out> {
        let out = read_in_part(c);
        if out.is_none() {
            crate::lazy::want_reader();
        }
        out
    }

    pub fn parse(file: &str, text: &str, limits: &Limits) -> Result<Scenario, ScenarioError> {
        match run(Call::Parse(file, text, limits)) {
            Some(Out::Parse(r)) => *r,
            _ => Err(ScenarioError {
                file: file.to_string(),
                msg: NOT_LOADED.to_string(),
            }),
        }
    }

    pub fn value(s: &str) -> Result<(String, toml::Value), String> {
        match run(Call::Value(s)) {
            Some(Out::Value(r)) => r,
            _ => Err(NOT_LOADED.to_string()),
        }
    }
}
