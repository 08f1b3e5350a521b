//! The crate's top-level modules import each other without a circle (docs/DESIGN.md,
//! "Layers"): read every `crate::` path in src/ and look for a module that reaches itself.

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

#[test]
fn grouped_and_plain_paths_are_both_read() {
    let found = imports("use crate::{engine, profile::Profile, self};\nlet x = crate::stats::estimate(v);");
    assert_eq!(found.into_iter().collect::<Vec<_>>(), ["engine", "profile", "stats"]);
    assert!(code("// crate::cli\nfn f() {}\n#[cfg(test)]\nmod tests { use crate::cli; }").find("cli").is_none());
}
