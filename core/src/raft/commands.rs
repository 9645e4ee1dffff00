//! Node commands' static check (`Protocol::check_command`), before any run: the command is
//! one the node takes (Raft's `timeout` and the state machine's client requests on a server of
//! the Raft group; the state machine's own commands on its kind of node), with as many
//! arguments as its usage form has, and arguments the state machine can parse. `on_command`
//! runs the same check first, so a user's command gets the same answer.

use super::sm::StateMachine;
use super::Raft;
use crate::engine::NodeId;

/// A usage form's command and how many arguments it takes: (name, required, optional).
fn arity(form: &str) -> (&str, usize, usize) {
    let mut w = form.split_whitespace();
    let name = w.next().unwrap_or("");
    let (mut req, mut opt) = (0, 0);
    for a in w {
        if a.starts_with('[') {
            opt += 1;
        } else {
            req += 1;
        }
    }
    (name, req, opt)
}

fn count(n: usize) -> String {
    match n {
        0 => "no arguments".into(),
        1 => "1 argument".into(),
        n => format!("{n} arguments"),
    }
}

impl<S: StateMachine> Raft<S> {
    /// The usage forms node `id` takes: on a server of the Raft group `timeout` and the client
    /// requests, then the state machine's commands for its kind of node.
    pub fn command_forms(&self, id: NodeId) -> Vec<&'static str> {
        let outside = self.outside(id);
        let mut v = Vec::new();
        if !outside {
            v.push("timeout");
            v.extend_from_slice(self.sm.request_forms());
            v.push("election-timer DURATION");
            v.push("hold-elections DURATION");
            v.extend_from_slice(CRAFTED);
        }
        v.extend_from_slice(self.sm.command_forms(outside));
        v
    }

    fn node_name(&self, id: NodeId) -> &str {
        self.names.get(id as usize).map_or("?", |s| s.as_str())
    }

    /// The servers of the Raft group, by name.
    fn group(&self) -> String {
        self.names[..self.n as usize].join(", ")
    }

    /// Every view of Raft and of its state machine that takes a node describes a server of the
    /// Raft group (Ozone's views of SCM take none): on a node outside it, such a view would
    /// answer a default (a "follower" that never was one) or fail at its time.
    pub(crate) fn check_view_node_text(&self, view: &str, id: NodeId) -> Result<(), String> {
        if !self.outside(id) {
            return Ok(());
        }
        Err(format!(
            "view `{view}` describes a server of the Raft group, and {} is outside it \
             (params.group_size = {}: {} form it); name one of those",
            self.node_name(id),
            self.n,
            self.group()
        ))
    }

    /// What node `id` takes, for an error: "n1 takes: timeout | client-put KEY VALUE".
    fn takes(&self, id: NodeId) -> String {
        let forms = self.command_forms(id);
        let name = self.node_name(id);
        if forms.is_empty() {
            format!("{name} takes no commands")
        } else {
            format!("{name} takes: {}", forms.join(" | "))
        }
    }

    /// `Protocol::check_command`: what is wrong with `cmd` on node `id` whatever its state.
    pub(crate) fn check_command_text(&self, id: NodeId, cmd: &str) -> Result<(), String> {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        let name = self.node_name(id);
        let shown = crate::text::clip(cmd, 60);
        let Some(&verb) = words.first() else {
            return Err(format!("an empty command on {name}; {}", self.takes(id)));
        };
        let find = |forms: &[&'static str]| forms.iter().copied().find(|f| arity(f).0 == verb);
        let Some(form) = find(&self.command_forms(id)) else {
            let outside = self.outside(id);
            let why = if !outside && find(self.sm.command_forms(true)).is_some() {
                format!(
                    "{verb} is a command of the nodes outside the Raft group ({}), and {name} is a server of the group",
                    self.names[self.n as usize..].join(", ")
                )
            } else if outside
                && (verb == "timeout"
                    || find(self.sm.request_forms()).is_some()
                    || find(self.sm.command_forms(false)).is_some())
            {
                format!(
                    "{name} is outside the Raft group (params.group_size = {}: {} form it): it \
                     runs no election and hosts no Raft client, so it cannot take {verb}",
                    self.n,
                    self.group()
                )
            } else {
                "unknown command".into()
            };
            return Err(format!("\"{shown}\" on {name}: {why}; {}", self.takes(id)));
        };
        let (_, req, opt) = arity(form);
        let got = words.len() - 1;
        if got < req || got > req + opt {
            let want = if opt == 0 {
                count(req)
            } else {
                format!("{} to {}", req, count(req + opt))
            };
            return Err(format!(
                "\"{shown}\" on {name}: {verb} takes {want} ({form}), not {got}; {}",
                self.takes(id)
            ));
        }
        let checked = if verb == "timeout" {
            Ok(())
        } else if verb == "election-timer" || verb == "hold-elections" {
            election_timer(words[1]).map(|_| ())
        } else if is_crafted(verb) {
            self.crafted(id, &words).map(|_| ())
        } else if self.sm.is_command(&words) {
            self.sm.check_command(&words)
        } else {
            match self.sm.parse_request(&words) {
                Some(r) => r.map(|_| ()),
                None => Ok(()),
            }
        };
        checked.map_err(|e| {
            format!(
                "\"{shown}\" on {name}: {e} (the form: {form}); {}",
                self.takes(id)
            )
        })
    }
}

/// Crafted messages (issue 42): the node sends one message a protocol run would not, with the
/// fields given (etcd's raft_paper_test.go builds such messages by hand).
pub const CRAFTED: &[&str] = &[
    "send-vote TO TERM LAST_INDEX LAST_TERM",
    "send-prevote TO TERM LAST_INDEX LAST_TERM",
    "send-heartbeat TO TERM PREV_INDEX PREV_TERM COMMIT",
    "send-append TO TERM PREV_INDEX PREV_TERM COMMIT TERMS",
];

/// The most entries a crafted AppendEntries carries (`TERMS`, a comma-separated list).
pub const MAX_CRAFTED_ENTRIES: usize = 64;

/// Whether `verb` names a crafted-message command.
pub(crate) fn is_crafted(verb: &str) -> bool {
    CRAFTED.iter().any(|f| arity(f).0 == verb)
}

/// The call id of a crafted AppendEntries: one no appender waits for.
pub const CRAFTED_CALL: u64 = u64::MAX;

/// The largest term or index a crafted message may carry.
pub const MAX_CRAFTED: u64 = 1 << 40;

/// A crafted message's fields: the receiver, the numbers after it and, for `send-append`, the
/// terms of its entries (`TERMS`: "2,3,3" for entries PREV_INDEX+1 to PREV_INDEX+3).
pub(crate) struct Crafted {
    pub to: NodeId,
    pub nums: Vec<u64>,
    pub terms: Vec<u64>,
}

impl<S: StateMachine> Raft<S> {
    /// The receiver (another server of the group) and the numbers of a crafted-message command.
    pub(crate) fn crafted(&self, id: NodeId, words: &[&str]) -> Result<Crafted, String> {
        let to = match self.names[..self.n as usize]
            .iter()
            .position(|n| n == words[1])
        {
            Some(i) => i as NodeId,
            None => {
                return Err(format!(
                    "TO \"{}\" is not a server of the Raft group ({})",
                    crate::text::clip(words[1], 30),
                    self.group()
                ))
            }
        };
        if to == id {
            return Err(format!(
                "TO {} is this node; send to another server of the group",
                words[1]
            ));
        }
        let form = CRAFTED
            .iter()
            .find(|f| arity(f).0 == words[0])
            .expect("a crafted form");
        let names: Vec<&str> = form.split_whitespace().skip(2).collect();
        let mut nums = Vec::new();
        let mut terms = Vec::new();
        for (w, name) in words[2..].iter().zip(names) {
            if name == "TERMS" {
                terms = crafted_terms(w)?;
                continue;
            }
            let v: u64 = w.parse().map_err(|_| {
                format!(
                    "{name} \"{}\" is not a whole number",
                    crate::text::clip(w, 30)
                )
            })?;
            if v > MAX_CRAFTED {
                return Err(format!("{name} {v} is out of range: 0 to {MAX_CRAFTED}"));
            }
            nums.push(v);
        }
        if let ([_, prev, ..], Some(_)) = (nums.as_slice(), terms.first()) {
            if prev + terms.len() as u64 > MAX_CRAFTED {
                return Err(format!(
                    "PREV_INDEX {prev} plus {} entries is out of range: at most {MAX_CRAFTED}",
                    terms.len()
                ));
            }
        }
        Ok(Crafted { to, nums, terms })
    }
}

/// `TERMS` of `send-append`: one to [`MAX_CRAFTED_ENTRIES`] terms, each 1 to [`MAX_CRAFTED`],
/// separated by commas.
fn crafted_terms(w: &str) -> Result<Vec<u64>, String> {
    let shown = crate::text::clip(w, 30);
    let terms = w
        .split(',')
        .map(|t| match t.trim().parse::<u64>() {
            Ok(v) if (1..=MAX_CRAFTED).contains(&v) => Ok(v),
            _ => Err(format!(
                "TERMS \"{shown}\": \"{}\" is not a term (a whole number 1 to {MAX_CRAFTED}); \
                 give the entries' terms separated by commas, e.g. \"2,3,3\"",
                crate::text::clip(t, 20)
            )),
        })
        .collect::<Result<Vec<u64>, String>>()?;
    if terms.len() > MAX_CRAFTED_ENTRIES {
        return Err(format!(
            "TERMS \"{shown}\" has {} entries; a crafted AppendEntries carries at most {MAX_CRAFTED_ENTRIES}",
            terms.len()
        ));
    }
    Ok(terms)
}

/// Longest `election-timer` a command sets.
pub const MAX_ELECTION_TIMER: crate::time::Micros = 3600 * crate::time::US_PER_S;

/// The duration of `election-timer DURATION` (1 ms to 1 h).
pub(crate) fn election_timer(arg: &str) -> Result<crate::time::Micros, String> {
    let d = crate::time::parse_duration(arg)
        .map_err(|e| format!("DURATION \"{}\": {e}", crate::text::clip(arg, 30)))?;
    if !(crate::time::US_PER_MS..=MAX_ELECTION_TIMER).contains(&d) {
        return Err(format!(
            "DURATION {} is out of range; use 1ms to 1h",
            crate::time::fmt_duration(d)
        ));
    }
    Ok(d)
}
