//! The Expectations card's rows (`ui::checks`) of a finished check against the replay's cursor:
//! held, failed at a time (with the reason, one click to go there), or failing later in this run.
//! Drawn by the `actions` part (`ui::actions::Target::Checks`, issue 44); below both `actions`
//! and `checks`, which draws the card's summary and state.

use crate::kit::{t, Handle};
use crate::model::Msg;
use crate::sweep::check_wire::Checked;
use clusterscope_core::runner::ExpectResult;
use clusterscope_core::time::Micros;
use yew::prelude::*;

/// A `within` expectation's time taken (or window), in seconds with its milliseconds: "1.713 s".
fn took(us: Micros) -> String {
    format!("{:.3} s", us as f64 / 1e6)
}

/// The rows of a finished check against the cursor `now` (the card's summary and state stay in
/// `ui::checks`, in the main module).
pub fn rows(s: &Handle, c: &Checked, now: Micros) -> Html {
    let yours = s.model.borrow().run.engine.user_actions().len();
    // The person's own expectations (`ui::expect_editor`) are marked as theirs.
    let mine: Vec<String> = s
        .model
        .borrow()
        .user_expects
        .iter()
        .map(|e| e.name.clone())
        .collect();
    let failed = c.expectations.iter().filter(|e| e.fails_run()).count() + c.skipped.len();
    let row = |e: &ExpectResult| {
        let (status, icon, when) = match e.failed_at_us {
            // Declared to happen on some seeds only: not a failure of this run.
            Some(at) if e.chance.is_some() && at <= now => ("not-this-time", "–", Some(at)),
            Some(at) if e.chance.is_some() => ("not-this-time-later", "–", Some(at)),
            Some(at) if at <= now => ("failed", "✗", Some(at)),
            Some(at) => ("fails-later", "✗", Some(at)),
            // `within`: held from the moment its check first held.
            None if e.passed && e.met_at_us.is_some_and(|m| m <= now) => ("held", "✓", e.met_at_us),
            None if e.passed && e.window_us[1] <= now => ("held", "✓", None),
            None if e.passed => ("holds", "✓", None),
            // Not reached (the run stopped before it was due).
            None => ("failed", "✗", None),
        };
        let go = when.or(Some(e.window_us[0])).map(|at| {
            let s = s.clone();
            let label = match (status, e.window_us) {
                ("held", _) if e.met_at_us.is_some() => {
                    format!("held after {}", took(at - e.window_us[0]))
                }
                ("failed" | "not-this-time", _) => format!("at {}", t(at)),
                ("fails-later", _) => format!("fails at {}", t(at)),
                ("not-this-time-later", _) => format!("checked at {}", t(at)),
                (_, [a, b]) if a == b => format!("at {}", t(a)),
                (_, [a, b]) => format!("{} – {}", t(a), t(b)),
            };
            html! {
                <button class="check-go" title="Move the cursor there"
                    onclick={Callback::from(move |_| s.dispatch(Msg::ScrubTo(at)))}>{ label }</button>
            }
        });
        let detail = match status {
            "fails-later" => format!("ahead of the cursor, {}", e.detail),
            "holds" => match (e.within_us, e.met_at_us) {
                (Some(w), Some(m)) => format!(
                    "holds in this run: within {} of {}, after {} (at {})",
                    took(w),
                    t(e.window_us[0]),
                    took(m - e.window_us[0]),
                    t(m)
                ),
                _ => format!("holds in this run (checked to {})", t(e.window_us[1])),
            },
            "not-this-time" | "not-this-time-later" => {
                format!("{}: {}", e.verdict(), e.detail)
            }
            _ => e.detail.clone(),
        };
        let chance = e.chance.map(|ch| {
            html! { <span class="check-chance" title="This scenario says how often this happens across seeds; a sweep (How often?) checks it">{ format!("in {} of seeds", ch.short()) }</span> }
        });
        // "Find a run where this fails" (`ui::hunt`), for what must always hold.
        let hunt = e.chance.is_none().then(|| {
            let n = e.name.clone();
            html! {
                <button class="check-hunt" data-name={e.name.clone()}
                    title="Find a run where this fails: search seeds and fault schedules, then shrink what fails"
                    onclick={Callback::from(move |_| super::hunt::request(n.clone()))}>{ "find a failing run" }</button>
            }
        });
        html! {
            <li class={classes!("check-row", status)} data-name={e.name.clone()} data-status={status}
                data-mine={if mine.contains(&e.name) { "1" } else { "0" }}
                data-failed-at-us={e.failed_at_us.map(|a| a.to_string()).unwrap_or_default()}
                data-met-at-us={e.met_at_us.map(|a| a.to_string()).unwrap_or_default()}>
                <span class="check-icon" aria-hidden="true">{ icon }</span>
                <span class="check-name">{ e.name.clone() }</span>
                { crate::kit::slot(mine.contains(&e.name).then(|| html! { <span class="check-chance" title="An expectation you added (your expectations)">{ "yours" }</span> })) }
                { crate::kit::slot(chance) }
                <>{ for go }</>
                <span class="check-detail">{ detail }{ crate::kit::slot(hunt) }</span>
            </li>
        }
    };
    let rows = c
        .expectations
        .iter()
        .filter(|e| e.caption.is_none())
        .map(row);
    let caps = c.expectations.iter().any(|e| e.caption.is_some()).then(|| {
        html! {
            <li class="check-group">{ "What the captions say, checked when each shows:" }</li>
        }
    });
    let cap_rows = c
        .expectations
        .iter()
        .filter(|e| e.caption.is_some())
        .map(row);
    let skipped = c.skipped.iter().map(|f| {
        html! {
            <li class={classes!("check-row", "failed")} data-status="failed" data-skipped="1">
                <span class="check-icon" aria-hidden="true">{ "✗" }</span>
                <span class="check-name">{ "A scheduled fault did not apply" }</span>
                <span class="check-detail">{ f.clone() }</span>
            </li>
        }
    });
    // Red after the person's actions: the expectations are the script's (issue 40).
    let theirs = (failed > 0 && yours > 0).then(|| html! {
        <li class="check-group script-note" id="checks-script-note">
            { format!("These are the script's expectations: they describe its run, and your {yours} action{} changed this one.", if yours == 1 { "" } else { "s" }) }
        </li>
    });
    html! { <ul class="checks-list">{ crate::kit::slot(theirs) }{ for rows }<>{ for skipped }</>{ crate::kit::slot(caps) }<>{ for cap_rows }</></ul> }
}
