//! The code reads at once: no function in src/ is longer than a screen (80 lines), no
//! file of src/report/ is longer than 400 lines, and no OS is named outside src/platform/
//! (docs/DESIGN.md).

use std::path::{Path, PathBuf};

/// The longest function, in lines from its `fn` to its closing brace.
const MAX_FUNCTION_LINES: usize = 80;
/// The longest file of a folder that renders (src/report/).
const MAX_REPORT_FILE_LINES: usize = 400;

fn sources(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Whether a trimmed line opens a function item.
fn opens_function(line: &str) -> bool {
    let mut rest = line;
    for prefix in ["pub(crate) ", "pub(super) ", "pub ", "const ", "async ", "unsafe ", "extern \"C\" "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    rest.starts_with("fn ")
}

/// Each function of `text` with a body: (its first line's number, its length in lines).
/// A body ends at the first line that is its `fn` line's indentation and `}` (rustfmt's
/// layout); a declaration without a body (a trait's) ends at its `;`.
fn functions(text: &str) -> Vec<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !opens_function(line.trim_start()) {
            continue;
        }
        let indent = &line[..line.len() - line.trim_start().len()];
        let close = format!("{indent}}}");
        let body = lines[i..].iter().position(|l| l.ends_with('{') || l.ends_with(';') || l.ends_with('}'));
        if body.is_some_and(|b| lines[i + b].ends_with(';')) || line.trim_end().ends_with('}') {
            continue;
        }
        if let Some(end) = lines[i + 1..].iter().position(|l| *l == close) {
            found.push((i + 1, end + 2));
        }
    }
    found
}

#[test]
fn no_function_is_longer_than_a_screen() {
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let mut long = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("a source file");
        for (at, len) in functions(&text) {
            if len > MAX_FUNCTION_LINES {
                long.push(format!("{}:{at} ({len} lines)", f.strip_prefix(src()).unwrap().display()));
            }
        }
    }
    assert!(long.is_empty(), "functions over {MAX_FUNCTION_LINES} lines; split them into named steps: {long:?}");
}

#[test]
fn no_report_file_is_longer_than_its_limit() {
    let mut files = Vec::new();
    sources(&src().join("report"), &mut files);
    let long: Vec<String> = files
        .iter()
        .map(|f| (f, std::fs::read_to_string(f).expect("a source file").lines().count()))
        .filter(|(_, n)| *n > MAX_REPORT_FILE_LINES)
        .map(|(f, n)| format!("{} ({n} lines)", f.display()))
        .collect();
    assert!(long.is_empty(), "report files over {MAX_REPORT_FILE_LINES} lines; split them by job: {long:?}");
}

/// Whether a line names an OS in a `cfg`: `cfg(unix)`, `cfg(windows)`, `target_os = …`.
fn names_an_os(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or_default();
    code.contains("cfg(") && ["unix", "windows", "target_os", "target_family"].iter().any(|w| code.contains(w))
}

#[test]
fn no_os_is_named_outside_the_platform_layer() {
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let platform = src().join("platform");
    let mut named = Vec::new();
    for f in files.iter().filter(|f| !f.starts_with(&platform)) {
        let text = std::fs::read_to_string(f).expect("a source file");
        for (i, line) in text.lines().enumerate().filter(|(_, l)| names_an_os(l)) {
            named.push(format!("{}:{}: {}", f.strip_prefix(src()).unwrap().display(), i + 1, line.trim()));
        }
    }
    assert!(named.is_empty(), "an OS named outside src/platform/; ask the platform layer instead: {named:?}");
    assert!(names_an_os("#[cfg(target_os = \"linux\")]") && names_an_os("#[cfg(not(unix))]"));
    assert!(!names_an_os("#[cfg(test)]") && !names_an_os("// cfg(unix) in a comment"));
}

#[test]
fn the_scanner_finds_a_function_and_its_length() {
    let text = "fn a() {\n    1;\n}\n\ntrait T {\n    fn b(&self);\n    fn c(&self) {\n        2;\n    }\n}\nfn d() -> u8 { 3 }\n";
    assert_eq!(functions(text), vec![(1, 3), (7, 3)]);
}
