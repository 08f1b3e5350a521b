//! The crate's top-level modules import each other without a circle, and so do the files
//! inside each folder (docs/DESIGN.md, "Layers"): read every `crate::`, `super::` and
//! `self::` path in src/, follow a `pub use` to the file that defines what it re-exports,
//! and look for a module or a file that reaches itself.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The top-level module a file under src/ belongs to: src/plan.rs is `plan`, src/engine/… is `engine`.
fn module_of(rel: &Path) -> Option<String> {
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (!matches!(name, "lib" | "main")).then(|| name.to_string())
}

/// The code of a file without comments and without its unit-test module, which may reach
/// up to build fixtures.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t == "#[cfg(test)]" && lines.peek().is_some_and(|l| l.trim_start().starts_with("mod tests")) {
            break;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push_str(line.split(" //").next().unwrap_or(line));
        out.push('\n');
    }
    out
}

/// Every top-level module named by a `crate::` path in `code`, grouped imports included.
fn imports(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            for item in inner.split(',') {
                let name: String = item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !name.is_empty() && name != "self" {
                    found.insert(name);
                }
            }
        } else {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            found.insert(name);
        }
    }
    found
}

fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            walk(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// The module graph: each top-level module and the others it imports.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let Some(module) = module_of(f.strip_prefix(&src).unwrap()) else { continue };
        let text = std::fs::read_to_string(&f).expect("a source file");
        let deps = graph.entry(module.clone()).or_default();
        deps.extend(imports(&code(&text)).into_iter().filter(|m| *m != module));
    }
    let known: BTreeSet<String> = graph.keys().cloned().collect();
    for deps in graph.values_mut() {
        deps.retain(|d| known.contains(d));
    }
    graph
}

/// The modules `from` reaches through imports.
fn reach(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![from.to_string()];
    while let Some(m) = todo.pop() {
        for d in graph.get(&m).into_iter().flatten() {
            if seen.insert(d.clone()) {
                todo.push(d.clone());
            }
        }
    }
    seen
}

#[test]
fn top_level_modules_import_without_a_circle() {
    let g = graph();
    assert!(g.len() > 20 && g["commands"].contains("plan"), "the graph was read: {g:?}");
    let circles: Vec<String> = g
        .keys()
        .filter(|m| reach(&g, m).contains(*m))
        .map(|m| {
            let back: Vec<&String> = g[m].iter().filter(|d| reach(&g, d).contains(m)).collect();
            format!("{m} -> {back:?} -> … -> {m}")
        })
        .collect();
    assert!(circles.is_empty(), "modules that import themselves through others:\n{}", circles.join("\n"));
}

/// A file's module path: src/engine/postgres/client.rs is `engine::postgres::client`,
/// src/runner/mod.rs is `runner`.
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.iter().map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
    if parts.last().is_some_and(|l| matches!(l.as_str(), "mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// The names a path names after `at` (`a::b::c`, or each first name of a `{a::b, c}` group).
fn path_tails(code: &str, at: usize) -> Vec<Vec<String>> {
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    let mut head = Vec::new();
    let mut rest = &code[at..];
    while let Some(r) = rest.strip_prefix("::") {
        if let Some(group) = r.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            return inner
                .split(',')
                .map(|item| {
                    let mut p = head.clone();
                    p.extend(item.trim().split("::").map(ident).take_while(|n| !n.is_empty()));
                    p
                })
                .collect();
        }
        let name = ident(r);
        if name.is_empty() {
            break;
        }
        rest = &r[name.len()..];
        head.push(name);
    }
    vec![head]
}

/// The module path, relative to the re-exporting module, of `item` where `text` re-exports
/// it with a `pub use` of a child module (`pub use volume::Volume;`, `pub use a::{B, C as D}`).
fn reexported(text: &str, item: &str) -> Option<Vec<String>> {
    for stmt in text.split("pub use ").skip(1) {
        let stmt = &stmt[..stmt.find(';')?];
        let (prefix, names) = match stmt.split_once("::{") {
            Some((p, g)) => (p, g.trim_end_matches('}').split(',').map(str::trim).collect::<Vec<_>>()),
            None => {
                let (p, last) = stmt.rsplit_once("::")?;
                (p, vec![last.trim()])
            }
        };
        let names_it = |n: &&str| {
            let (orig, alias) = n.split_once(" as ").unwrap_or((n, n));
            alias.trim() == item || (orig.trim() == item && !n.contains(" as "))
        };
        if names.iter().any(names_it) && !prefix.starts_with("crate") && !prefix.starts_with("super") {
            let prefix = prefix.trim_start_matches("self::");
            return Some(prefix.split("::").map(|p| p.trim().to_string()).collect());
        }
    }
    None
}

/// The file graph: each file under src/ and the files its paths lead to.
fn file_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    let modules: BTreeMap<Vec<String>, String> = files
        .iter()
        .map(|f| (module_path(f.strip_prefix(&src).unwrap()), f.strip_prefix(&src).unwrap().display().to_string()))
        .collect();
    let texts: BTreeMap<&String, String> =
        modules.values().map(|f| (f, code(&std::fs::read_to_string(src.join(f)).expect("a source file")))).collect();
    let by_file: BTreeMap<&String, &Vec<String>> = modules.iter().map(|(m, f)| (f, m)).collect();
    // A path that ends at a module's item goes on to the file that item is re-exported
    // from (`pub use volume::Volume;` in docker/mod.rs sends `docker::Volume` to volume.rs).
    let resolve = |path: &[String]| {
        let n = (1..=path.len()).rev().find(|n| modules.contains_key(&path[..*n]))?;
        let file = &modules[&path[..n]];
        let from = path.get(n).and_then(|item| reexported(&texts[file], item)).and_then(|tail| {
            let full: Vec<String> = by_file[file].iter().chain(&tail).cloned().collect();
            (1..=full.len()).rev().find_map(|k| modules.get(&full[..k]).cloned())
        });
        Some(from.unwrap_or_else(|| file.clone()))
    };
    let mut graph = BTreeMap::new();
    for (here, file) in &modules {
        let text = &texts[file];
        let mut deps = BTreeSet::new();
        for head in ["crate", "super", "self"] {
            for (at, _) in text.match_indices(head) {
                let before = text[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                let base = match head {
                    "crate" => Vec::new(),
                    "super" => here[..here.len().saturating_sub(1)].to_vec(),
                    _ => here.clone(),
                };
                for tail in path_tails(text, at + head.len()) {
                    let (mut base, mut tail) = (base.clone(), tail.as_slice());
                    while tail.first().is_some_and(|t| t == "super") {
                        base.pop();
                        tail = &tail[1..];
                    }
                    let path: Vec<String> = base.iter().chain(tail).cloned().collect();
                    deps.extend(resolve(&path).filter(|f| f != file));
                }
            }
        }
        graph.insert(file.clone(), deps);
    }
    graph
}

#[test]
fn files_import_without_a_circle() {
    let g = file_graph();
    assert!(g["runner/matrix.rs"].contains("runner/budget.rs"), "the file graph was read");
    assert!(g["engine/postgres/tls.rs"].contains("engine/postgres/conninfo.rs"), "super:: paths were read");
    let circles: BTreeSet<Vec<String>> = g
        .keys()
        .filter(|f| reach(&g, f).contains(*f))
        .map(|f| g.keys().filter(|o| reach(&g, o).contains(f) && reach(&g, f).contains(*o)).cloned().collect())
        .collect();
    let lines: Vec<String> = circles.iter().map(|c| c.join(" <-> ")).collect();
    assert!(lines.is_empty(), "files that import themselves through others:\n{}", lines.join("\n"));
}

#[test]
fn grouped_and_plain_paths_are_both_read() {
    let found = imports("use crate::{engine, profile::Profile, self};\nlet x = crate::stats::estimate(v);");
    assert_eq!(found.into_iter().collect::<Vec<_>>(), ["engine", "profile", "stats"]);
    assert!(code("// crate::cli\nfn f() {}\n#[cfg(test)]\nmod tests { use crate::cli; }").find("cli").is_none());
}

#[test]
fn a_reexport_leads_to_the_file_that_defines_the_item() {
    let text = "pub use volume::Volume;\npub use described::{Contract, Native as NativeServer};\npub use crate::x::Y;";
    assert_eq!(reexported(text, "Volume"), Some(vec!["volume".to_string()]));
    assert_eq!(reexported(text, "NativeServer"), Some(vec!["described".to_string()]));
    assert_eq!(reexported(text, "Native"), None, "renamed on the way out");
    assert_eq!(reexported(text, "Y"), None, "not a child's");
    let g = file_graph();
    assert!(g["launcher/container.rs"].contains("launcher/docker/volume.rs"), "{:?}", g["launcher/container.rs"]);
}
