//! The invariant "imports run downwards" (issue 45): no import cycle between the top-level
//! modules of a crate, nor between the sibling files (and subfolders) of any one folder.
//!
//! Read from the source text, not from the compiler: every `crate::...`, `super::...` and
//! `self::...` path of every `.rs` file under a `src` root (grouped `use crate::{a::X, b::Y}`
//! included; comments, string literals and `#[cfg(test)]` items left out: tests sit above
//! everything and may reach anywhere). A path names a module (the longest prefix that is a file's
//! module) and an item (the next segment). Between two files the edge belongs to the folder that
//! holds both: in the folder, it ties the child (file or subfolder) holding the first to the child
//! holding the second. A folder's own face (`mod.rs`, or `x.rs` beside `x/`) is its parent, not a
//! sibling: children may use their parent's items and the parent declares and re-exports its
//! children. A cycle is a strongly connected set of two or more children of one folder.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One cycle: the folder it is in (`""` for the crate root), the children tied, and each tie
/// as "from -> to: names (file:line, ...)".
#[derive(Debug, Clone, PartialEq)]
pub struct Cycle {
    pub folder: String,
    pub members: Vec<String>,
    pub ties: Vec<String>,
}

impl std::fmt::Display for Cycle {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let folder = if self.folder.is_empty() {
            "the crate root".to_string()
        } else {
            format!("folder {}/", self.folder)
        };
        writeln!(f, "cycle in {folder}: {}", self.members.join(", "))?;
        for t in &self.ties {
            writeln!(f, "  {t}")?;
        }
        Ok(())
    }
}

/// Every `.rs` file under `root` as (path relative to `root`, with `/`, text).
pub fn read_tree(root: &Path) -> Vec<(String, String)> {
    fn walk(dir: &Path, rel: &str, out: &mut Vec<(String, String)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("directory entry").path())
            .collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            let r = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            if p.is_dir() {
                walk(&p, &r, out);
            } else if name.ends_with(".rs") {
                let text =
                    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                out.push((r, text));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, "", &mut out);
    assert!(!out.is_empty(), "{}: no .rs files", root.display());
    out
}

/// The cycles under a `src` root on disk.
pub fn cycles_in(root: &Path) -> Vec<Cycle> {
    cycles(&read_tree(root))
}

/// The module path of a file: `lib.rs`/`main.rs` -> [], `a/mod.rs` -> [a], `a/b.rs` -> [a, b].
fn module_of(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path.split('/').map(str::to_string).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !(stem == "mod" || (parts.is_empty() && (stem == "lib" || stem == "main"))) {
        parts.push(stem.to_string());
    }
    parts
}

/// The text with comments, string and char literals blanked (lines kept), and the names of the
/// child modules declared `#[cfg(test)] mod x;`, with the `#[cfg(test)]` items blanked too.
fn clean(text: &str) -> (String, Vec<String>) {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied();
        if ch == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if ch == 'r'
            && (next == Some('"') || next == Some('#'))
            && (i == 0 || !(c[i - 1].is_alphanumeric() || c[i - 1] == '_'))
        {
            // A raw string r"..." / r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while c.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if c.get(j) != Some(&'"') {
                out.push(ch);
                i += 1;
                continue;
            }
            j += 1;
            while j < c.len() {
                if c[j] == '"' && (0..hashes).all(|k| c.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                blank(&mut out, c[j]);
                j += 1;
            }
            i = j;
        } else if ch == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    i += 1;
                }
                if i < c.len() {
                    blank(&mut out, c[i]);
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if ch == '\'' {
            // A char literal ('x', '\n', '\u{..}', '"') or a lifetime ('a).
            if next == Some('\\') {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push_str("' '");
            } else {
                out.push(ch);
                i += 1;
            }
        } else {
            out.push(ch);
            i += 1;
        }
    }
    // Blank `#[cfg(test)]` items: from the attribute to the first `;` at depth 0 or the end of
    // the first braced block.
    let mut test_mods = Vec::new();
    let b: Vec<char> = out.chars().collect();
    let mut res: Vec<char> = b.clone();
    let pat: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut i = 0;
    while i + pat.len() <= b.len() {
        if b[i..i + pat.len()] != pat[..] {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i + pat.len();
        let mut depth = 0i32;
        while j < b.len() {
            match b[j] {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        j += 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    j += 1;
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        let item: String = b[start + pat.len()..j.min(b.len())].iter().collect();
        let words: Vec<&str> = item
            .split(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == ';'))
            .filter(|w| !w.is_empty())
            .collect();
        if let Some(p) = words.iter().position(|w| *w == "mod") {
            if let Some(name) = words.get(p + 1) {
                if let Some(n) = name.strip_suffix(';') {
                    test_mods.push(n.to_string());
                }
            }
        }
        for ch in &mut res[start..j.min(b.len())] {
            if *ch != '\n' {
                *ch = ' ';
            }
        }
        i = j;
    }
    (res.into_iter().collect(), test_mods)
}

/// The paths starting with `crate`, `super` or `self` in cleaned text, expanded over `{...}`
/// groups, each with its line.
fn paths(text: &str) -> Vec<(Vec<String>, usize)> {
    // Tokens: identifiers, `::`, `{`, `}`, `,`, `*`; anything else ends a path.
    #[derive(Clone, PartialEq, Debug)]
    enum T {
        Id(String),
        Sep,
        Open,
        Close,
        Comma,
        Star,
        Other,
    }
    let mut toks: Vec<(T, usize)> = Vec::new();
    let c: Vec<char> = text.chars().collect();
    let mut line = 1;
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch.is_alphanumeric() || ch == '_' {
            let s = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            toks.push((T::Id(c[s..i].iter().collect()), line));
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            toks.push((T::Sep, line));
            i += 2;
        } else {
            toks.push((
                match ch {
                    '{' => T::Open,
                    '}' => T::Close,
                    ',' => T::Comma,
                    '*' => T::Star,
                    _ => T::Other,
                },
                line,
            ));
            i += 1;
        }
    }
    // Parse a path tree at `k` with prefix `pre`; push complete paths; return the index after it.
    fn tree(
        toks: &[(T, usize)],
        mut k: usize,
        pre: Vec<String>,
        out: &mut Vec<(Vec<String>, usize)>,
    ) -> usize {
        let mut p = pre;
        let line = toks.get(k).map_or(0, |t| t.1);
        loop {
            match toks.get(k).map(|t| &t.0) {
                Some(T::Id(s)) if s != "as" => {
                    p.push(s.clone());
                    k += 1;
                    if toks.get(k).map(|t| &t.0) == Some(&T::Sep) {
                        k += 1;
                        continue;
                    }
                    out.push((p, line));
                    return k;
                }
                Some(T::Open) => {
                    k += 1;
                    loop {
                        match toks.get(k).map(|t| &t.0) {
                            Some(T::Close) => return k + 1,
                            Some(T::Comma) => k += 1,
                            None => return k,
                            _ => {
                                let before = k;
                                k = tree(toks, k, p.clone(), out);
                                // Skip `as name` and anything unexpected up to `,` or `}`.
                                while let Some(t) = toks.get(k) {
                                    if matches!(t.0, T::Comma | T::Close) {
                                        break;
                                    }
                                    k += 1;
                                }
                                if k == before {
                                    k += 1;
                                }
                            }
                        }
                    }
                }
                Some(T::Star) => {
                    out.push((p, line));
                    return k + 1;
                }
                _ => {
                    if !p.is_empty() {
                        out.push((p, line));
                    }
                    return k;
                }
            }
        }
    }
    let mut out = Vec::new();
    let mut k = 0;
    while k < toks.len() {
        let starts = matches!(&toks[k].0, T::Id(s) if s == "crate" || s == "super" || s == "self")
            && toks.get(k + 1).map(|t| &t.0) == Some(&T::Sep)
            && !(k > 0 && toks[k - 1].0 == T::Sep);
        if starts {
            k = tree(&toks, k, Vec::new(), &mut out).max(k + 1);
        } else {
            k += 1;
        }
    }
    out
}

/// The cycles among `(path under src, text)` files.
pub fn cycles(files: &[(String, String)]) -> Vec<Cycle> {
    // Modules of the files, and those declared test-only.
    let mut cleaned = Vec::new();
    let mut test_only: BTreeSet<Vec<String>> = BTreeSet::new();
    for (path, text) in files {
        let m = module_of(path);
        let (t, tm) = clean(text);
        for name in tm {
            let mut c = m.clone();
            c.push(name);
            test_only.insert(c);
        }
        cleaned.push((path.clone(), m, t));
    }
    cleaned.retain(|(_, m, _)| !test_only.iter().any(|t| m.starts_with(t)));
    let modules: BTreeMap<Vec<String>, Vec<String>> = {
        let mut m: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
        for (p, md, _) in &cleaned {
            m.entry(md.clone()).or_default().push(p.clone());
        }
        m
    };
    // Ties: (folder, from child, to child) -> name -> places.
    type Ties = BTreeMap<(Vec<String>, String, String), BTreeMap<String, BTreeSet<String>>>;
    let mut ties: Ties = BTreeMap::new();
    for (path, m, text) in &cleaned {
        for (p, line) in paths(text) {
            // Resolve the leading crate/super/self.
            let mut abs: Vec<String> = Vec::new();
            let mut rest = p.as_slice();
            match rest.first().map(String::as_str) {
                Some("crate") => rest = &rest[1..],
                Some("self") => {
                    abs = m.clone();
                    rest = &rest[1..];
                }
                Some("super") => {
                    abs = m.clone();
                    while rest.first().map(String::as_str) == Some("super") {
                        abs.pop();
                        rest = &rest[1..];
                    }
                }
                _ => continue,
            }
            abs.extend(rest.iter().cloned());
            // The longest prefix that is a module; the next segment is the item.
            let Some(n) = (0..=abs.len())
                .rev()
                .find(|&n| modules.contains_key(&abs[..n]))
            else {
                continue;
            };
            let target = &abs[..n];
            let lca = m.iter().zip(target).take_while(|(a, b)| a == b).count();
            if lca >= m.len() || lca >= target.len() {
                continue; // to or from the folder's own face
            }
            // What the path names below the child it reaches: `registry::find` -> "find",
            // `scenario::noderef::NodeRef` -> "noderef::NodeRef".
            let below: Vec<&str> = abs[lca + 1..]
                .iter()
                .map(String::as_str)
                .filter(|s| *s != "self")
                .collect();
            let item = if below.is_empty() {
                "(the module)".to_string()
            } else {
                below.join("::")
            };
            ties.entry((m[..lca].to_vec(), m[lca].clone(), target[lca].clone()))
                .or_default()
                .entry(item)
                .or_default()
                .insert(format!("{path}:{line}"));
        }
    }
    // Per folder: the strongly connected sets of its children.
    let mut by_folder: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (folder, from, to) in ties.keys() {
        by_folder
            .entry(folder.clone())
            .or_default()
            .entry(from.clone())
            .or_default()
            .insert(to.clone());
    }
    let mut found = Vec::new();
    for (folder, graph) in &by_folder {
        for scc in strongly_connected(graph) {
            if scc.len() < 2 {
                continue;
            }
            let show = |child: &str| -> String {
                let mut m = folder.clone();
                m.push(child.to_string());
                let files = modules.get(&m).cloned().unwrap_or_default();
                let is_dir = modules
                    .keys()
                    .any(|k| k.len() > m.len() && k.starts_with(&m));
                match (files.first(), is_dir) {
                    (_, true) => format!("{}/", m.join("/")),
                    (Some(f), false) => f.clone(),
                    (None, false) => m.join("/"),
                }
            };
            let mut t = Vec::new();
            for a in &scc {
                for b in &scc {
                    if let Some(names) = ties.get(&(folder.clone(), a.clone(), b.clone())) {
                        let named: Vec<String> = names
                            .iter()
                            .map(|(n, places)| {
                                let first: Vec<&str> =
                                    places.iter().take(2).map(String::as_str).collect();
                                format!("{n} ({})", first.join(", "))
                            })
                            .collect();
                        t.push(format!("{} -> {}: {}", show(a), show(b), named.join(", ")));
                    }
                }
            }
            found.push(Cycle {
                folder: folder.join("/"),
                members: scc.iter().map(|c| show(c)).collect(),
                ties: t,
            });
        }
    }
    found
}

/// Tarjan's strongly connected components, each sorted, in a stable order.
fn strongly_connected(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut nodes: BTreeSet<&String> = graph.keys().collect();
    for v in graph.values() {
        nodes.extend(v.iter());
    }
    let nodes: Vec<&String> = nodes.into_iter().collect();
    let ix: BTreeMap<&String, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let adj: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            graph
                .get(*n)
                .map_or(Vec::new(), |s| s.iter().map(|t| ix[t]).collect())
        })
        .collect();
    struct St {
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(v: usize, adj: &[Vec<usize>], s: &mut St) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on[v] = true;
        for &w in &adj[v] {
            match s.index[w] {
                None => {
                    visit(w, adj, s);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on[w] => s.low[v] = s.low[v].min(iw),
                _ => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut c = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on[w] = false;
                c.push(w);
                if w == v {
                    break;
                }
            }
            c.sort();
            s.out.push(c);
        }
    }
    let n = nodes.len();
    let mut s = St {
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(v, &adj, &mut s);
        }
    }
    let mut out: Vec<Vec<String>> = s
        .out
        .into_iter()
        .map(|c| c.into_iter().map(|i| nodes[i].clone()).collect())
        .collect();
    out.sort();
    out
}
