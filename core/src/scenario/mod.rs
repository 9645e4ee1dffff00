//! Scenarios as the app loads them: the file format (`crate::scenario_file`, re-exported here),
//! parsed and validated against the registered models (`Scenario::parse`, `Scenario::from_raw`),
//! and the built-in scenarios ([`builtin`]).
//!
//! Why two modules: a model is built from a [`Scenario`], so the type and its parser sit below
//! the models, and the registry above them. The parser takes the model table as an argument
//! (`Scenario::parse_in`); this module, above the registry, hands it every registered model.
//! Imports run downwards (ARCHITECTURE.md, "Invariants").

pub mod builtin;

use crate::limits::Limits;
use crate::registry;
pub use crate::scenario_file::*;

impl Scenario {
    /// Parse and validate TOML text. `file` names the source in errors.
    pub fn parse(file: &str, text: &str, limits: &Limits) -> Result<Scenario, ScenarioError> {
        Scenario::parse_in(&registry::vocabs(), file, text, limits)
    }

    /// Validate a parsed file.
    pub fn from_raw(
        file: &str,
        raw: ScenarioFile,
        limits: &Limits,
    ) -> Result<Scenario, ScenarioError> {
        Scenario::from_raw_in(&registry::vocabs(), file, raw, limits)
    }
}
