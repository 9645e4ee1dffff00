//! docs/BAD_INPUT.md written from the rows: the table of every refusal core gives, the
//! hand-written prose kept between its markers, and the test that the file is current.

use super::*;

/// Inline code in a table cell: doubled backticks when the text has one; pipes escaped.
fn code_span(w: &str) -> String {
    let w = w.replace('|', "\\|");
    if w.contains('`') {
        format!("`` {w} ``")
    } else {
        format!("`{w}`")
    }
}

fn fence(text: &str) -> String {
    let ticks = if text.contains("```") { "````" } else { "```" };
    format!("{ticks}text\n{}\n{ticks}\n", text.trim_end())
}

/// docs/BAD_INPUT.md from the rows' actual outputs.
fn markdown() -> String {
    let rows = rows();
    let mut md = String::new();
    md += "# Bad input catalogue\n\n";
    md += "Every bad scenario file, run request, permalink and user action the test suite tries, \
           and the exact error core gives. Generated from `tests/tests/bad_input.rs` and its rows in \
           `tests/tests/bad_input/` (each row is a test asserting that the message contains its key words: the place and the fix); do \
           not edit by hand, except the section marked as written by hand, which the generator \
           keeps. Regenerate with\n\n";
    md += "```text\nCLUSTERSCOPE_BLESS=1 cargo test -p clusterscope-tests --test bad_input bad_input_doc\n```\n\n";
    md += &prose();
    md += "Scenario rows change one thing in this base file (`bad.toml`); a row that parses is \
           run to its end and the outcome says what happened. User-action rows are applied to \
           the base scenario's `fixed` variant at 2 s (the `ozone_` ones to the built-in \
           `sandbox-ozone`, on dn1).\n\n";
    md += &fence(BASE);
    md += "\nThe Raft fault rows (`raft_...`) add to this base instead (variant `ratis`):\n\n";
    md += &fence(RAFT_BASE);
    md += "\nand the Ozone fault rows (`ozone_fault_...`) to this one (variant `ozone`):\n\n";
    md += &fence(OZONE_BASE);
    md += "\nMutation-tracking command rows (`mt_*`) run their command at 1 s on this scenario \
           (node4 is not a replica), which then runs to its end:\n\n";
    md += &fence(MT_BASE);
    md += "\nRows marked \"raft base\" append their expectation or caption to this Raft scenario \
           (rows marked \"mt base\" to the mutation-tracking one above), which is then run to its \
           end:\n\n";
    md += &fence(RAFT_EXPECT_BASE);
    md += "\n| # | Row (test) | Bad input | Key words checked | Status |\n|---|---|---|---|---|\n";
    for (i, r) in rows.iter().enumerate() {
        let keys: Vec<String> = r.want.iter().map(|w| code_span(w)).collect();
        md += &format!(
            "| {} | [`{}`](#{}) | {} | {} | {} |\n",
            i + 1,
            r.id,
            r.id.replace('_', "-"),
            r.what,
            keys.join(", "),
            if r.bug.is_some() {
                "**bug in core** (test ignored)"
            } else {
                "ok"
            }
        );
    }
    md += "\n";
    for (i, r) in rows.iter().enumerate() {
        md += &format!("## {}\n\n{}. {}", r.id.replace('_', "-"), i + 1, r.what);
        let kind = match r.input {
            Input::Scenario(_) => " (`Scenario::parse`)",
            Input::Run { .. } => " (`Run::new`)",
            Input::Permalink(_) => " (`Session::decode`)",
            Input::UserAction(_) => " (`Engine::apply_user_action`)",
            Input::OzoneAction(_) => " (`Engine::apply_user_action` on `sandbox-ozone`)",
            Input::MtCommand { .. } => " (`Engine::apply_user_action`, mutation tracking)",
            Input::Hunt { .. } => " (`clusterscope hunt`'s checks in core: `hunt::Kind::parse_list`, `hunt::Budget::parse`, `hunt::Plan::new`, `Plan::with_max_faults`, on the built-in `sandbox-gossip`)",
        };
        md += kind;
        md += ".\n\nInput:\n\n";
        md += &fence(&r.shown);
        md += "\nError:\n\n";
        md += &fence(&outcome(&r.input));
        if let Some(b) = r.bug {
            md += &format!(
                "\n**Bug:** {b}. Expected an error containing {}.\n",
                r.want
                    .iter()
                    .map(|w| code_span(w))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        md += "\n";
    }
    md
}

/// The hand-written section of docs/BAD_INPUT.md (how bad input is handled, in prose), between
/// these markers: the generator keeps it as it is on disk.
const PROSE_START: &str =
    "<!-- Written by hand: kept as it is when the catalogue is regenerated. -->";
const PROSE_END: &str = "<!-- End of the hand-written section. -->";

fn prose() -> String {
    let on_disk = std::fs::read_to_string(doc_path()).unwrap_or_default();
    match (on_disk.find(PROSE_START), on_disk.find(PROSE_END)) {
        (Some(a), Some(b)) if a < b => format!("{}\n\n", &on_disk[a..b + PROSE_END.len()]),
        _ => String::new(),
    }
}

fn doc_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/BAD_INPUT.md")
}

#[test]
fn bad_input_doc_is_current() {
    let md = markdown();
    if std::env::var_os("CLUSTERSCOPE_BLESS").is_some() {
        std::fs::write(doc_path(), &md).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(doc_path()).unwrap_or_default();
    assert!(
        on_disk == md,
        "docs/BAD_INPUT.md is out of date with the errors core gives; regenerate it with\n  \
         CLUSTERSCOPE_BLESS=1 cargo test -p clusterscope-tests --test bad_input bad_input_doc"
    );
}
