//! The library's modules in layers (docs/architecture.md): no module imports one of a higher layer,
//! and the modules' imports form no circle. Read from the source: every `crate::...` and `super::...`
//! path of the code outside tests (`#[cfg(test)]` items and `tests.rs` files) and outside doc-only
//! items (`#[cfg(doc)]`), comments and string literals left out. The command line (`src/cli/`,
//! `src/main.rs`) sits above every layer and is not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, bottom up, and the modules of each: `name` is a top-level module of `src/lib.rs`, or
/// `name::sub` for a submodule that sits in another layer than the rest of its module; `lib` is the
/// crate root (the facade). The same table is drawn in docs/architecture.md.
const LAYERS: &[(&str, &[&str])] = &[
    ("facts", &["error", "limits", "game", "targets", "hooks", "graph", "kernels", "machine", "cost", "oracles"]),
    ("plan", &["plan"]),
    ("engines", &["engines", "crt::garner", "crt::primes", "crt::shards"]),
    ("guard", &["budget"]),
    ("records", &["report", "checkpoint"]),
    ("run", &["options", "run", "dist", "moves", "crt"]),
    ("api", &["claims", "estimate", "draw", "bench", "ladder", "lib"]),
];

/// Imports that break the rule today, each with the reason it stays: `(file, module imported)`.
const KNOWN: &[(&str, &str)] = &[];

/// An import of `to` (a module of the table) by the module `from`, in `file`, as written.
struct Import {
    file: String,
    from: String,
    to: String,
    path: String,
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, modules)| modules.contains(&module))
}

/// The table's module for an absolute path of the crate (its segments from the root): `lib` for an
/// item of the root itself (a re-export or a function of `src/lib.rs`), else the most specific entry.
fn entry(segments: &[String], top_modules: &BTreeSet<String>) -> String {
    let Some(first) = segments.first() else { return "lib".into() };
    if !top_modules.contains(first) {
        return "lib".into();
    }
    if let Some(second) = segments.get(1) {
        let sub = format!("{first}::{second}");
        if layer_of(&sub).is_some() {
            return sub;
        }
    }
    first.clone()
}

/// The source with comments, string and character literals blanked out (spaces, newlines kept),
/// so that neither braces nor paths in them are read.
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !is_ident(chars.get(i.wrapping_sub(1))) {
            // a raw string: r"...", r#"..."#
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                match chars.get(j) {
                    None => break,
                    Some('"') if (1..=hashes).all(|h| chars.get(j + h) == Some(&'#')) => {
                        j += 1 + hashes;
                        break;
                    }
                    _ => j += 1,
                }
            }
            chars[i..j.min(chars.len())].iter().for_each(|&c| out.push(blank(c)));
            i = j;
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(chars.len());
            chars[i..end].iter().for_each(|&c| out.push(blank(c)));
            i = end;
        } else if c == '\'' {
            // a character literal ('x', '\n', '\u{..}'), else a lifetime
            let end = match (next, chars.get(i + 2)) {
                (Some('\\'), _) => (i + 2..chars.len()).find(|&j| chars[j] == '\'').map(|j| j + 1),
                (Some(_), Some('\'')) => Some(i + 3),
                _ => None,
            };
            match end {
                Some(end) => {
                    chars[i..end].iter().for_each(|&c| out.push(blank(c)));
                    i = end;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

/// The code with the items under `#[cfg(test)]` or `#[cfg(doc)]` blanked out: the attribute and the
/// item after it, to its `;` or its matching `}`.
fn without_test_items(code: &str) -> String {
    let mut out: Vec<char> = code.chars().collect();
    for attr in ["#[cfg(test)]", "#[cfg(doc)]"] {
        let text: String = out.iter().collect();
        let starts: Vec<usize> = text.match_indices(attr).map(|(at, _)| text[..at].chars().count()).collect();
        for start in starts {
            let mut i = start + attr.chars().count();
            let mut depth = 0;
            while i < out.len() {
                match out[i] {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    ';' if depth == 0 => {
                        i += 1;
                        break;
                    }
                    _ => {}
                }
                i += 1;
            }
            let end = i.min(out.len());
            for c in &mut out[start..end] {
                if *c != '\n' {
                    *c = ' ';
                }
            }
        }
    }
    out.into_iter().collect()
}

/// The module path of a file of `src/` (`["crt", "residues"]` for src/crt/residues.rs, `[]` for
/// src/lib.rs).
fn module_of(relative: &Path) -> Vec<String> {
    let mut segments: Vec<String> = relative.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    let last = segments.pop().expect("a file");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        segments.push(stem.to_string());
    }
    segments
}

fn identifier_at(chars: &[char], mut i: usize) -> Option<(String, usize)> {
    while chars.get(i) == Some(&' ') {
        i += 1;
    }
    let start = i;
    while is_ident(chars.get(i)) {
        i += 1;
    }
    (i > start).then(|| (chars[start..i].iter().collect(), i))
}

/// The paths `crate::a::b...` and `super::...::a::b...` of `code` as absolute segments (at most two:
/// all the table tells apart), the groups of `use crate::{a, b::c}` each on its own, with the text
/// written.
fn paths(code: &str, module: &[String]) -> Vec<(Vec<String>, String)> {
    let chars: Vec<char> = code.chars().collect();
    let mut found = Vec::new();
    // the inline modules open at each point: (name, brace depth inside it)
    let mut inline: Vec<(String, i32)> = Vec::new();
    let mut depth = 0i32;
    let mut pending_mod: Option<String> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let boundary = !is_ident(chars.get(i.wrapping_sub(1)));
        if c == '{' {
            depth += 1;
            if let Some(name) = pending_mod.take() {
                inline.push((name, depth));
            }
        } else if c == '}' {
            if inline.last().is_some_and(|(_, d)| *d == depth) {
                inline.pop();
            }
            depth -= 1;
        } else if c == ';' {
            pending_mod = None;
        } else if boundary && chars[i..].starts_with(&['m', 'o', 'd', ' ']) {
            pending_mod = identifier_at(&chars, i + 4).map(|(name, _)| name);
        } else if boundary && (chars[i..].starts_with(&"crate::".chars().collect::<Vec<_>>()[..])) {
            let rest = i + "crate::".len();
            for (segments, from, end) in segments_at(&chars, rest) {
                let written: String = chars[from..end].iter().collect();
                found.push((segments, format!("crate::{}", written.trim())));
            }
            i = rest;
            continue;
        } else if boundary && chars[i..].starts_with(&"super::".chars().collect::<Vec<_>>()[..]) {
            let start = i;
            let mut base: Vec<String> = module.to_vec();
            base.extend(inline.iter().map(|(name, _)| name.clone()));
            let mut j = i;
            while chars[j..].starts_with(&"super::".chars().collect::<Vec<_>>()[..]) {
                base.pop();
                j += "super::".len();
            }
            for (segments, from, end) in segments_at(&chars, j) {
                let mut absolute = base.clone();
                absolute.extend(segments);
                let written: String = chars[from..end].iter().collect();
                found.push((absolute, format!("{}{}", chars[start..j].iter().collect::<String>(), written.trim())));
            }
            i = j;
            continue;
        }
        i += 1;
    }
    found
}

/// The segments that follow a `crate::` or `super::` at `i`: one list, or one for each entry of a
/// `{...}` group, with where each starts and ends in the text.
fn segments_at(chars: &[char], i: usize) -> Vec<(Vec<String>, usize, usize)> {
    if chars.get(i) == Some(&'{') {
        let mut entries = Vec::new();
        let mut j = i + 1;
        let mut depth = 1;
        let mut at_entry = true;
        while j < chars.len() && depth > 0 {
            match chars[j] {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 1 => at_entry = true,
                c if at_entry && depth == 1 && is_ident(Some(&c)) => {
                    let (segments, from, end) = segments_at(chars, j).remove(0);
                    entries.push((segments, from, end));
                    at_entry = false;
                    j = end;
                    continue;
                }
                _ => {}
            }
            j += 1;
        }
        return entries;
    }
    let mut segments = Vec::new();
    let mut j = i;
    while let Some((name, end)) = identifier_at(chars, j) {
        segments.push(name);
        j = end;
        if segments.len() == 2 || !chars[j..].starts_with(&[':', ':']) {
            break;
        }
        j += 2;
    }
    vec![(segments, i, j)]
}

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).expect("src/ reads").map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

/// Every import between two modules of the table in the library's code outside tests.
fn imports() -> Vec<Import> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("src/lib.rs reads");
    let lib_code = without_test_items(&code_only(&lib));
    let top_modules: BTreeSet<String> = lib_code
        .lines()
        .filter_map(|l| {
            let l = l.trim().trim_start_matches("pub ").trim_start_matches("pub(crate) ");
            l.strip_prefix("mod ").map(|m| m.trim_end_matches(';').trim().to_string())
        })
        .collect();
    let missing: Vec<&String> = top_modules.iter().filter(|m| *m != "cli" && layer_of(m).is_none()).collect();
    assert!(
        missing.is_empty(),
        "modules of src/lib.rs in no layer (add them to LAYERS and docs/architecture.md): {missing:?}"
    );
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut found = Vec::new();
    for path in files {
        let relative = path.strip_prefix(&src).unwrap();
        let module = module_of(relative);
        let is_test = relative.file_name().is_some_and(|f| f == "tests.rs");
        if module.first().is_some_and(|m| m == "cli") || relative == Path::new("main.rs") || is_test {
            continue;
        }
        let from = entry(&module, &top_modules);
        let source = std::fs::read_to_string(&path).unwrap();
        let code = without_test_items(&code_only(&source));
        let file = format!("src/{}", relative.display());
        for (segments, written) in paths(&code, &module) {
            let to = entry(&segments, &top_modules);
            if to != from {
                found.push(Import { file: file.clone(), from: from.clone(), to, path: written });
            }
        }
    }
    found
}

/// No module imports one of a higher layer.
#[test]
fn no_module_imports_a_higher_layer() {
    let mut wrong = Vec::new();
    for import in imports() {
        if KNOWN.contains(&(import.file.as_str(), import.to.as_str())) {
            continue;
        }
        let from = layer_of(&import.from).unwrap_or_else(|| panic!("{} is in no layer", import.from));
        let to = layer_of(&import.to).unwrap_or_else(|| panic!("{} is in no layer", import.to));
        if to > from {
            wrong.push(format!(
                "{}: `{}` imports `{}` (layer {}) from `{}` (layer {})",
                import.file, import.path, import.to, LAYERS[to].0, import.from, LAYERS[from].0
            ));
        }
    }
    assert!(wrong.is_empty(), "imports of a higher layer:\n{}", wrong.join("\n"));
}

/// The modules' imports form no circle (within a layer as across them).
#[test]
fn the_imports_form_no_circle() {
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for import in imports() {
        if KNOWN.contains(&(import.file.as_str(), import.to.as_str())) {
            continue;
        }
        graph.entry(import.from).or_default().entry(import.to).or_insert(format!("{}: `{}`", import.file, import.path));
    }
    // depth-first, each module once; a module met again on the current path closes a circle
    fn visit(
        module: &str,
        graph: &BTreeMap<String, BTreeMap<String, String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|m| m == module) {
            let mut circle = path[at..].to_vec();
            circle.push(module.to_string());
            return Some(circle);
        }
        if !done.insert(module.to_string()) {
            return None;
        }
        path.push(module.to_string());
        for next in graph.get(module).into_iter().flat_map(|m| m.keys()) {
            if let Some(circle) = visit(next, graph, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    for module in graph.keys() {
        if let Some(circle) = visit(module, &graph, &mut Vec::new(), &mut done) {
            let steps: Vec<String> = circle.windows(2).map(|w| graph[&w[0]][&w[1]].clone()).collect();
            panic!("a circle of imports: {}\n{}", circle.join(" -> "), steps.join("\n"));
        }
    }
}

/// The reader of the source finds what it must: a path in a group, through `super::` from an inline
/// module, and nothing in comments, strings or tests.
#[test]
fn the_reader_finds_the_paths_of_the_code() {
    let source = r#"
        use crate::{error::Result, plan::{self, Plan}};
        // use crate::commented;
        const TEXT: &str = "crate::quoted";
        mod inner {
            use super::super::sibling::Item;
        }
        fn f<'a>(x: &'a str) -> char { let _ = crate::engines::modular::count; '{' }
        #[cfg(test)]
        mod tests {
            use crate::oracles;
        }
    "#;
    let code = without_test_items(&code_only(source));
    let module = vec!["crt".to_string(), "residues".to_string()];
    let found: Vec<Vec<String>> = paths(&code, &module).into_iter().map(|(s, _)| s).collect();
    let want: Vec<Vec<String>> =
        [vec!["error", "Result"], vec!["plan"], vec!["crt", "sibling", "Item"], vec!["engines", "modular"]]
            .iter()
            .map(|s| s.iter().map(|x| x.to_string()).collect())
            .collect();
    assert_eq!(found, want);
}
