//! Expectations a person adds to a session (the web app's expectation editor, issue 41): a form
//! of text fields read into an [`ExpectSpec`] with errors naming the field and the fix, and the
//! scenario with the person's rows appended to its `[[expect]]` (validated as a file's rows are,
//! then checked by the same `Run::run` as the scenario's own expectations: no second evaluator).
//! The rows travel in the permalink (`Session::expects`) and in an export, as `[[expect]]` rows
//! that an import takes back as the person's ([`split_user_expects`]).

use crate::limits::Limits;
use crate::model::ViewValue;
use crate::registry::ModelEntry;
use crate::scenario::{generic_view_needs, ExpectSpec, Scenario, TimeRef, GENERIC_VIEWS};
use crate::scenario_file::toml_text;
use crate::time::{fmt_duration, parse_duration, Micros};

/// Most expectations a person adds to one session.
pub const MAX_USER_EXPECTS: usize = 32;
/// Longest name of one, in characters.
pub const MAX_USER_EXPECT_NAME: usize = 120;

/// The checks the editor offers (`ExpectSpec`'s).
pub const PREDICATES: &[&str] = &[
    "equals",
    "one_of",
    "not_equals",
    "at_least",
    "at_most",
    "increases",
];

/// The editor's fields, as typed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExpectForm {
    /// Empty: a name made from the rest.
    pub name: String,
    pub view: String,
    pub observer: String,
    pub peer: String,
    pub key: String,
    /// One of [`PREDICATES`].
    pub predicate: String,
    /// The value compared with (`one_of`: comma-separated); unused by `increases`.
    pub value: String,
    /// `false`: checked at `at`; `true`: throughout `from`..`to` (`during`).
    pub window: bool,
    pub at: String,
    pub from: String,
    pub to: String,
}

/// A refused form: the field (the form's name for it) and what to do.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    pub field: &'static str,
    pub msg: String,
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.msg)
    }
}

fn bad(field: &'static str, msg: impl Into<String>) -> FieldError {
    FieldError {
        field,
        msg: msg.into(),
    }
}

/// The views an expectation of `model` can name, with their description (the generic ones
/// first), without `log` (it counts lines containing a text, which the editor does not ask for).
pub fn views_of(model: &ModelEntry) -> Vec<&'static str> {
    GENERIC_VIEWS
        .iter()
        .copied()
        .filter(|v| *v != "log")
        .chain(model.views.iter().copied())
        .collect()
}

/// What `view` needs and answers for `model`.
pub fn needs_of(model: &ModelEntry, view: &str) -> crate::model::ViewNeeds {
    if GENERIC_VIEWS.contains(&view) {
        generic_view_needs(view)
    } else {
        (model.view_needs)(view)
    }
}

fn time_field(field: &'static str, text: &str, end: Micros) -> Result<TimeRef, FieldError> {
    let t = text.trim();
    if t == "end" {
        return Ok(TimeRef::End);
    }
    let us = parse_duration(t).map_err(|e| bad(field, format!("{e}; or \"end\"")))?;
    if us > end {
        return Err(bad(
            field,
            format!(
                "{} is after the end of the run ({}); use a time up to {} or \"end\"",
                fmt_duration(us),
                fmt_duration(end),
                fmt_duration(end)
            ),
        ));
    }
    Ok(TimeRef::At(us))
}

/// One value to compare with, typed as the view answers: a number for a numeric view, text for a
/// textual one, either for a view that answers a number or a word.
fn value_of(text: &str, value: ViewValue) -> Result<toml::Value, String> {
    let t = text.trim().trim_matches('"');
    if t.is_empty() {
        return Err(format!("empty; the view answers {}", value.describe()));
    }
    let num = t.parse::<f64>().ok().filter(|f| f.is_finite());
    let as_num = |f: f64| {
        if f.fract() == 0.0 && f.abs() < 9e15 {
            toml::Value::Integer(f as i64)
        } else {
            toml::Value::Float(f)
        }
    };
    match value {
        ViewValue::Num => num.map(as_num).ok_or_else(|| {
            format!(
                "\"{}\" is not a number; the view answers a number: write e.g. 3 or 0.5",
                crate::text::clip(t, 40)
            )
        }),
        ViewValue::NumOr(_) | ViewValue::Undeclared => {
            Ok(num.map_or_else(|| toml::Value::String(t.to_string()), as_num))
        }
        _ => Ok(toml::Value::String(t.to_string())),
    }
}

/// A number for `at_least` / `at_most`.
fn bound_of(field: &'static str, text: &str) -> Result<f64, FieldError> {
    let t = text.trim();
    t.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .ok_or_else(|| {
            bad(
                field,
                format!(
                    "\"{}\" is not a number; {field} compares numbers: write e.g. 3 or 0.5",
                    crate::text::clip(t, 40)
                ),
            )
        })
}

impl ExpectForm {
    /// The form as an expectation of `scenario` (its model, nodes and duration). Only the
    /// form's own reading is here; [`with_user_expects`] then checks the row as a file's.
    pub fn to_spec(&self, scenario: &Scenario) -> Result<ExpectSpec, FieldError> {
        let model = crate::registry::find(&scenario.raw.protocol)
            .ok_or_else(|| bad("View", "this scenario's protocol is not modelled"))?;
        let view = self.view.trim();
        if view.is_empty() {
            return Err(bad("View", "pick the view to check"));
        }
        if !views_of(model).contains(&view) {
            return Err(bad(
                "View",
                format!(
                    "\"{}\" is not a view of {}; pick one from the list",
                    crate::text::clip(view, 40),
                    model.name
                ),
            ));
        }
        let needs = needs_of(model, view);
        let topo = &scenario.topo;
        let node = |field: &'static str, text: &str, needed: bool| {
            let t = text.trim();
            if t.is_empty() {
                return if needed {
                    Err(bad(
                        field,
                        format!("view `{view}` needs a node here; pick one of the cluster's"),
                    ))
                } else {
                    Ok(None)
                };
            }
            topo.resolve(t)
                .map(|_| Some(t.to_string()))
                .map_err(|m| bad(field, m))
        };
        let observer = node("Node", &self.observer, needs.node)?;
        let peer = node("Peer", &self.peer, needs.peer)?;
        let key = match self.key.trim() {
            "" if needs.key => {
                return Err(bad(
                    "Key",
                    format!("view `{view}` needs a key; {}", key_hint(&needs.key_form)),
                ))
            }
            "" => None,
            k => Some(k.to_string()),
        };
        let end = scenario.duration();
        let (at, during) = if self.window {
            let a = time_field("From", &self.from, end)?;
            let b = time_field("To", &self.to, end)?;
            if a.resolve(end) > b.resolve(end) {
                return Err(bad(
                    "To",
                    "the window ends before it starts; put the later time in To",
                ));
            }
            (None, Some([a, b]))
        } else {
            (Some(time_field("At", &self.at, end)?), None)
        };
        let mut e = ExpectSpec {
            view: view.to_string(),
            observer,
            peer,
            key,
            at,
            during,
            ..ExpectSpec::default()
        };
        let value = |t: &str| value_of(t, needs.value).map_err(|m| bad("Value", m));
        let numeric = |field: &'static str| {
            if needs.value.is_text() {
                Err(bad(
                    "Check",
                    format!(
                        "{field} compares numbers, but view `{view}` answers {}; use equals",
                        needs.value.describe()
                    ),
                ))
            } else {
                Ok(())
            }
        };
        match self.predicate.as_str() {
            "equals" => e.equals = Some(value(&self.value)?),
            "not_equals" => e.not_equals = Some(value(&self.value)?),
            "one_of" => {
                let list = self
                    .value
                    .split(',')
                    .filter(|s| !s.trim().is_empty())
                    .map(value)
                    .collect::<Result<Vec<_>, _>>()?;
                if list.is_empty() {
                    return Err(bad(
                        "Value",
                        "list the values it may take, separated by commas",
                    ));
                }
                e.one_of = Some(list);
            }
            "at_least" => {
                numeric("at_least")?;
                e.at_least = Some(bound_of("Value", &self.value)?);
            }
            "at_most" => {
                numeric("at_most")?;
                e.at_most = Some(bound_of("Value", &self.value)?);
            }
            "increases" => {
                numeric("increases")?;
                if !self.window {
                    return Err(bad(
                        "When",
                        "increases compares the start and the end of a window: choose \"during\"",
                    ));
                }
                e.increases = Some(true);
            }
            other => {
                return Err(bad(
                    "Check",
                    format!(
                        "\"{}\" is not a check; use one of {}",
                        crate::text::clip(other, 20),
                        PREDICATES.join(", ")
                    ),
                ))
            }
        }
        let name = self.name.trim();
        e.name = if name.is_empty() {
            auto_name(&e, end)
        } else {
            name.chars().take(MAX_USER_EXPECT_NAME).collect()
        };
        Ok(e)
    }
}

fn key_hint(k: &crate::model::KeyForm) -> String {
    match k {
        crate::model::KeyForm::Number(what) => format!("write {what} (a whole number)"),
        _ => "write the key the view's description names".into(),
    }
}

/// A name saying what the row checks: `leader of n1 equals "n2" at 12s`.
pub fn auto_name(e: &ExpectSpec, end: Micros) -> String {
    let mut s = e.view.clone();
    if let Some(o) = &e.observer {
        s.push_str(&format!(" of {o}"));
    }
    if let Some(p) = &e.peer {
        s.push_str(&format!(" about {p}"));
    }
    if let Some(k) = &e.key {
        s.push_str(&format!(" [{k}]"));
    }
    // `toml_text`, not toml's `Display` (its serde writer, in the first download otherwise).
    let check = if let Some(v) = &e.equals {
        format!("= {}", toml_text(v))
    } else if let Some(v) = &e.not_equals {
        format!("≠ {}", toml_text(v))
    } else if let Some(l) = &e.one_of {
        let l: Vec<String> = l.iter().map(toml_text).collect();
        format!("in {}", l.join(", "))
    } else if let Some(v) = e.at_least {
        format!("≥ {v}")
    } else if let Some(v) = e.at_most {
        format!("≤ {v}")
    } else {
        "increases".into()
    };
    let t = |r: &TimeRef| match r {
        TimeRef::End => "the end".to_string(),
        TimeRef::At(x) if *x == end => "the end".to_string(),
        TimeRef::At(x) => fmt_duration(*x),
    };
    let when = match (&e.at, &e.during) {
        (_, Some([a, b])) => format!("during {}–{}", t(a), t(b)),
        (Some(a), None) => format!("at {}", t(a)),
        (None, None) => "at the end".into(),
    };
    crate::text::clip(&format!("{s} {check} {when}"), MAX_USER_EXPECT_NAME)
}

/// `scenario` with `rows` appended to its `[[expect]]`, validated as a file's rows are (the
/// error names the row). A name the scenario's own expectations use, or used twice, is refused.
pub fn with_user_expects(
    scenario: &Scenario,
    rows: &[ExpectSpec],
    limits: &Limits,
) -> Result<Scenario, String> {
    if rows.is_empty() {
        return Ok(scenario.clone());
    }
    if rows.len() > MAX_USER_EXPECTS {
        return Err(format!(
            "{} expectations of yours; the limit is {MAX_USER_EXPECTS}: remove one first",
            rows.len()
        ));
    }
    let theirs: Vec<&str> = scenario
        .raw
        .expect
        .iter()
        .chain(scenario.raw.variants.iter().flat_map(|v| v.expect.iter()))
        .map(|e| e.name.as_str())
        .collect();
    for (i, r) in rows.iter().enumerate() {
        if r.name.trim().is_empty() || r.name.chars().count() > MAX_USER_EXPECT_NAME {
            return Err(format!(
                "your expectation {}: a name of 1 to {MAX_USER_EXPECT_NAME} characters is needed",
                i + 1
            ));
        }
        if theirs.contains(&r.name.as_str()) || rows[..i].iter().any(|x| x.name == r.name) {
            return Err(format!(
                "Name: “{}” is already an expectation of this session; give it another name",
                crate::text::clip(&r.name, 60)
            ));
        }
        if r.caption.is_some() || r.chance.is_some() {
            return Err(format!(
                "your expectation “{}”: it cannot carry `chance` or a caption",
                crate::text::clip(&r.name, 60)
            ));
        }
    }
    let mut raw = scenario.raw.clone();
    raw.expect.extend(rows.iter().cloned());
    let mut s = Scenario::from_raw(&scenario.file, raw, limits).map_err(|e| e.msg)?;
    s.section = scenario.section.clone();
    Ok(s)
}

/// An imported file's scenario and the person's rows it carries (`rows`, from its session
/// line): each row found among the file's `[[expect]]` is taken out of the file's and kept as
/// the person's; a row the file no longer has (edited or removed there) is dropped, the file's
/// text being the truth. Returns the scenario without them and the rows found.
pub fn split_user_expects(
    scenario: &Scenario,
    rows: &[ExpectSpec],
    limits: &Limits,
) -> Result<(Scenario, Vec<ExpectSpec>), String> {
    let found: Vec<ExpectSpec> = rows
        .iter()
        .filter(|r| scenario.raw.expect.contains(r))
        .cloned()
        .collect();
    if found.is_empty() {
        return Ok((scenario.clone(), found));
    }
    let mut raw = scenario.raw.clone();
    raw.expect.retain(|e| !found.contains(e));
    let mut s = Scenario::from_raw(&scenario.file, raw, limits).map_err(|e| e.msg)?;
    s.section = scenario.section.clone();
    Ok((s, found))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::{Run, RunOptions};
    use crate::scenario::builtin;

    fn raft() -> Scenario {
        builtin::get("sandbox-raft").unwrap()
    }

    fn form(view: &str, node: &str, pred: &str, value: &str, at: &str) -> ExpectForm {
        ExpectForm {
            view: view.into(),
            observer: node.into(),
            predicate: pred.into(),
            value: value.into(),
            at: at.into(),
            ..ExpectForm::default()
        }
    }

    /// Each bad field is refused with the field named and the fix; a good form becomes a row
    /// typed as the view answers.
    #[test]
    fn the_form_names_the_field_and_the_fix() {
        let s = raft();
        let e = form("violations", "", "at_least", "many", "10s")
            .to_spec(&s)
            .unwrap_err();
        assert_eq!(e.field, "Value");
        assert!(e.msg.contains("not a number"), "{e}");
        let e = form("violations", "", "at_most", "0", "99s")
            .to_spec(&s)
            .unwrap_err();
        assert_eq!(e.field, "At");
        assert!(e.msg.contains("after the end of the run (30s)"), "{e}");
        let e = form("status", "", "equals", "running", "10s")
            .to_spec(&s)
            .unwrap_err();
        assert_eq!(e.field, "Node");
        let e = form("status", "n9", "equals", "running", "10s")
            .to_spec(&s)
            .unwrap_err();
        assert_eq!(e.field, "Node");
        let e = form("status", "n1", "at_least", "1", "10s")
            .to_spec(&s)
            .unwrap_err();
        assert_eq!(e.field, "Check");
        let e = form("nosuch", "n1", "equals", "1", "10s")
            .to_spec(&s)
            .unwrap_err();
        assert_eq!(e.field, "View");
        let e = form("violations", "", "increases", "", "10s")
            .to_spec(&s)
            .unwrap_err();
        assert_eq!(e.field, "When");
        let ok = form("violations", "", "at_most", "0", "end")
            .to_spec(&s)
            .unwrap();
        assert_eq!(ok.at_most, Some(0.0));
        assert_eq!(ok.at, Some(TimeRef::End));
        assert_eq!(ok.name, "violations ≤ 0 at the end");
        let ok = form("status", "n1", "one_of", "running, stopped", "5s")
            .to_spec(&s)
            .unwrap();
        assert_eq!(
            ok.one_of,
            Some(vec![
                toml::Value::String("running".into()),
                toml::Value::String("stopped".into())
            ])
        );
        let ok = form("violations", "", "equals", "0", "5s")
            .to_spec(&s)
            .unwrap();
        assert_eq!(ok.equals, Some(toml::Value::Integer(0)));
    }

    /// The rows are checked by the scenario's own run: one that holds, one that fails (with the
    /// observed value); a row the file's validation refuses is refused with its reason; a name
    /// taken is refused; over the limit is refused.
    #[test]
    fn user_rows_run_with_the_scenario() {
        let s = raft();
        let limits = Limits::default();
        let holds = form("violations", "", "equals", "0", "end")
            .to_spec(&s)
            .unwrap();
        let mut fails = form("status", "n1", "equals", "stopped", "10s")
            .to_spec(&s)
            .unwrap();
        fails.name = "n1 stopped".into();
        let with = with_user_expects(&s, &[holds.clone(), fails.clone()], &limits).unwrap();
        let mut run = Run::new(
            with,
            "sandbox",
            None,
            &toml::Table::new(),
            &RunOptions::default(),
        )
        .unwrap();
        let rep = run.run(None).unwrap();
        let r = |n: &str| rep.expectations.iter().find(|e| e.name == n).unwrap();
        assert!(r(&holds.name).passed);
        assert!(!r("n1 stopped").passed);
        assert!(
            r("n1 stopped").detail.contains("status is running"),
            "{:?}",
            r("n1 stopped")
        );
        let mut bad_word = fails.clone();
        bad_word.equals = Some(toml::Value::String("asleep".into()));
        let e = with_user_expects(&s, &[bad_word], &limits).unwrap_err();
        assert!(e.contains("can never hold"), "{e}");
        let mut dup = holds.clone();
        dup.name = s.raw.expect[0].name.clone();
        let e = with_user_expects(&s, &[dup], &limits).unwrap_err();
        assert!(e.starts_with("Name:"), "{e}");
        let many: Vec<ExpectSpec> = (0..=MAX_USER_EXPECTS)
            .map(|i| {
                let mut x = holds.clone();
                x.name = format!("r{i}");
                x
            })
            .collect();
        assert!(with_user_expects(&s, &many, &limits)
            .unwrap_err()
            .contains("the limit is 32"));
    }

    /// An export's `[[expect]]` rows read back: the person's rows split from the file's.
    #[test]
    fn rows_round_trip_through_an_export() {
        let s = raft();
        let limits = Limits::default();
        let mut a = form("status", "n2", "not_equals", "stopped", "3.5s")
            .to_spec(&s)
            .unwrap();
        a.name = "n2 up".into();
        let with = with_user_expects(&s, std::slice::from_ref(&a), &limits).unwrap();
        let text = crate::session::export_scenario(&with, 3, &[]).unwrap();
        assert!(text.contains("n2 up"), "{text}");
        let back = Scenario::parse("x.toml", &text, &limits).unwrap();
        let (base, mine) = split_user_expects(&back, std::slice::from_ref(&a), &limits).unwrap();
        assert_eq!(mine, vec![a.clone()]);
        assert_eq!(base.raw.expect, s.raw.expect);
        // The permalink's JSON carries the row as it is.
        let json = serde_json::to_string(&a).unwrap();
        let b: ExpectSpec = serde_json::from_str(&json).unwrap();
        assert_eq!(a, b);
    }
}
