//! The layers inside each crate (docs/architecture.md). Between the crates Cargo keeps them:
//! fibtree-util under everything, fibtree-oracles and fibtree-core on it, fibtree on fibtree-core,
//! the command line (fibtree-cli, the workspace's root package) on fibtree (a crate cannot import
//! one that does not depend on it, and crates form no circle). What Cargo cannot say, this test
//! reads: inside fibtree-core, fibtree and the command line, no module imports a module of a higher
//! layer, no command of the command line imports another, and no file's imports form a circle with
//! another file's, in a folder as across folders (a folder's `mod.rs`, which declares and
//! re-exports its files, and the files that take its items are not a circle).
//!
//! Read with `syn`: every path of the code that starts at `crate`, `super` or `self` (in `use`
//! declarations and in expressions, types and patterns), test items (`#[cfg(test)]`, `tests.rs`)
//! and doc-only items (`#[cfg(doc)]`) left out; paths inside macro calls are not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// A crate: its source folder and its layers, bottom up, each the top-level modules in it (`lib`:
/// the crate root, its facade), and the layers whose modules stand apart, none importing another.
struct Crate {
    src: &'static str,
    layers: &'static [(&'static str, &'static [&'static str])],
    apart: &'static [&'static str],
}

/// The engines' crate. The same table is drawn in docs/architecture.md.
const CORE: Crate = Crate {
    src: "crates/core/src",
    layers: &[
        ("facts", &["error", "limit", "game", "targets", "hooks", "graph", "machine", "kernels", "cost"]),
        ("plan", &["plan"]),
        ("engines", &["engines", "crt"]),
        ("guard", &["guard"]),
        ("door", &["request", "counts", "estimate", "lib"]),
    ],
    apart: &[],
};

/// The library a user holds. The same table is drawn in docs/architecture.md.
const FIBTREE: Crate = Crate {
    src: "crates/fibtree/src",
    layers: &[
        ("facts", &["error"]),
        ("records", &["options", "report", "checkpoint", "machine"]),
        ("run", &["run", "exact", "crt", "dist", "moves", "timing"]),
        ("api", &["claims", "lib"]),
    ],
    apart: &[],
};

/// The command line (the package fibtree-cli): what talks to the system at the bottom, the session
/// every command runs in above it, then one module a command, none importing another, and the root,
/// which parses the arguments and dispatches. The same table is drawn in docs/architecture.md.
const CLI: Crate = Crate {
    src: "src",
    layers: &[
        ("facts", &["error"]),
        ("system", &["os", "messages", "input", "output", "progress", "runner"]),
        (
            "session",
            &["args", "clap_error", "terms", "machine", "session", "json", "plot", "checked", "shard_file", "hooks"],
        ),
        (
            "commands",
            &[
                "count", "verify", "dist", "table", "moves", "draw", "shard", "combine", "estimate", "stress", "bench",
                "selftest", "tools",
            ],
        ),
        ("dispatch", &["lib", "main"]),
    ],
    apart: &["commands"],
};

/// An import, as written in a file: from the module of the file (its path from the crate root,
/// inline modules included) to the absolute path it names.
struct Import {
    file: String,
    from: Vec<String>,
    to: Vec<String>,
}

/// Whether the attributes leave the item out of the library's code: `#[cfg(test)]`, `#[cfg(doc)]`.
fn left_out(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>().is_ok_and(|m| m.path().is_ident("test") || m.path().is_ident("doc"))
    })
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item::*;
    match item {
        Const(i) => &i.attrs,
        Enum(i) => &i.attrs,
        Fn(i) => &i.attrs,
        Impl(i) => &i.attrs,
        Macro(i) => &i.attrs,
        Mod(i) => &i.attrs,
        Static(i) => &i.attrs,
        Struct(i) => &i.attrs,
        Trait(i) => &i.attrs,
        Type(i) => &i.attrs,
        Union(i) => &i.attrs,
        Use(i) => &i.attrs,
        _ => &[],
    }
}

/// The paths of one file's code, made absolute.
struct Reader {
    /// The module of the file, then the inline modules the reader is in.
    module: Vec<String>,
    found: Vec<Vec<String>>,
}

impl Reader {
    /// `segments` made absolute from the module the reader is in, where they start at `crate`,
    /// `super` or `self`.
    fn absolute(&self, segments: &[String]) -> Option<Vec<String>> {
        let mut base = match segments.first()?.as_str() {
            "crate" => return Some(segments[1..].to_vec()),
            "super" | "self" => self.module.clone(),
            _ => return None,
        };
        let mut rest = segments;
        while let Some((first, tail)) = rest.split_first() {
            match first.as_str() {
                "super" => {
                    base.pop();
                }
                "self" => {}
                _ => break,
            }
            rest = tail;
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.add(prefix, Some(n.ident.to_string())),
            syn::UseTree::Rename(r) => self.add(prefix, Some(r.ident.to_string())),
            syn::UseTree::Glob(_) => self.add(prefix, None),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.use_tree(prefix, t)),
        }
    }

    fn add(&mut self, prefix: &[String], last: Option<String>) {
        let mut segments = prefix.to_vec();
        // `use crate::plan::{self, Plan}`: `self` is the module itself
        segments.extend(last.filter(|l| l != "self"));
        if let Some(path) = self.absolute(&segments) {
            self.found.push(path);
        }
    }
}

impl<'ast> Visit<'ast> for Reader {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !left_out(item_attrs(item)) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !left_out(&f.attrs) {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.content.is_some() {
            self.module.push(m.ident.to_string());
            syn::visit::visit_item_mod(self, m);
            self.module.pop();
        }
    }

    // `pub(crate)`, `pub(super)`: a visibility, not an import
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if let Some(path) = self.absolute(&segments) {
            self.found.push(path);
        }
        syn::visit::visit_path(self, path);
    }
}

/// The absolute paths `source` names, read as the code of `module`.
fn paths_of(source: &str, module: &[String]) -> Vec<Vec<String>> {
    let file = syn::parse_file(source).unwrap_or_else(|e| panic!("{}: {e}", module.join("::")));
    let mut reader = Reader { module: module.to_vec(), found: Vec::new() };
    reader.visit_file(&file);
    reader.found
}

/// The module of a file from its path below the source folder: `engines/both_ends/early.rs` is
/// `engines::both_ends::early`, `engines/mod.rs` is `engines`, `lib.rs` the root.
fn module_of(relative: &Path) -> Vec<String> {
    let mut segments: Vec<String> = relative.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    let last = segments.pop().expect("a file");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        segments.push(stem.to_string());
    }
    segments
}

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir).expect("a source folder").map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

impl Crate {
    /// The library's files: `(relative path, module)`, tests left out.
    fn files(&self) -> Vec<(PathBuf, Vec<String>)> {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(self.src);
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        files
            .into_iter()
            .map(|path| path.strip_prefix(&src).unwrap().to_path_buf())
            .filter(|relative| {
                relative.file_name().is_none_or(|f| f != "tests.rs") && relative.iter().all(|s| s != "tests")
            })
            .map(|relative| {
                let module = module_of(&relative);
                (relative, module)
            })
            .collect()
    }

    fn imports(&self) -> Vec<Import> {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(self.src);
        let mut imports = Vec::new();
        for (relative, module) in self.files() {
            let source = std::fs::read_to_string(src.join(&relative)).unwrap();
            let file = format!("{}/{}", self.src, relative.display());
            for to in paths_of(&source, &module) {
                imports.push(Import { file: file.clone(), from: module.clone(), to });
            }
        }
        imports
    }

    /// The layer of a path's top-level module (the root's own items: `lib`).
    fn layer_of(&self, path: &[String], modules: &BTreeSet<String>) -> Option<usize> {
        let top = path.first().filter(|m| modules.contains(*m)).map_or("lib", |m| m.as_str());
        self.layers.iter().position(|(_, ms)| ms.contains(&top))
    }

    /// The top-level modules: the first segment of every file's module.
    fn modules(&self) -> BTreeSet<String> {
        self.files().into_iter().filter_map(|(_, m)| m.first().cloned()).collect()
    }

    fn no_module_imports_a_higher_layer(&self) {
        let modules = self.modules();
        let missing: Vec<&String> =
            modules.iter().filter(|m| self.layer_of(&[m.to_string()], &modules).is_none()).collect();
        assert!(missing.is_empty(), "modules of {} in no layer (add them to the table): {missing:?}", self.src);
        let mut wrong = Vec::new();
        for import in self.imports() {
            let from = self.layer_of(&import.from, &modules).unwrap();
            let to = self.layer_of(&import.to, &modules).unwrap();
            let (from_top, to_top) = (import.from.first(), import.to.first().filter(|m| modules.contains(*m)));
            if to == from && self.apart.contains(&self.layers[from].0) && to_top.is_some() && from_top != to_top {
                wrong.push(format!(
                    "{}: `{}` imports `{}`, a module of its layer ({}), whose modules stand apart",
                    import.file,
                    import.from.join("::"),
                    import.to.join("::"),
                    self.layers[from].0
                ));
            }
            if to > from {
                wrong.push(format!(
                    "{}: `{}` (layer {}) imports `{}` (layer {})",
                    import.file,
                    import.from.join("::"),
                    self.layers[from].0,
                    import.to.join("::"),
                    self.layers[to].0
                ));
            }
        }
        assert!(wrong.is_empty(), "imports of a higher layer:\n{}", wrong.join("\n"));
    }

    /// The imports between files: from a file's module to the file (its module, the longest that
    /// begins the path) whose item it names, leaving out a module and the modules inside it.
    fn file_graph(&self) -> BTreeMap<String, BTreeMap<String, String>> {
        let files: BTreeSet<Vec<String>> = self.files().into_iter().map(|(_, m)| m).collect();
        let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for import in self.imports() {
            let Some(to) = (0..=import.to.len()).rev().map(|l| import.to[..l].to_vec()).find(|m| files.contains(m))
            else {
                continue;
            };
            // the file's own module, an inline one of it, or its folder's facade or files
            let from = (0..=import.from.len()).rev().map(|l| import.from[..l].to_vec()).find(|m| files.contains(m));
            let from = from.expect("the root at least");
            if to.starts_with(&from) || from.starts_with(&to) {
                continue;
            }
            let why = format!("{}: `{}`", import.file, import.to.join("::"));
            graph.entry(from.join("::")).or_default().entry(to.join("::")).or_insert(why);
        }
        graph
    }

    fn no_circle_of_files(&self) {
        let graph = self.file_graph();
        let mut done = BTreeSet::new();
        for module in graph.keys() {
            if let Some(circle) = circle_from(module, &graph, &mut Vec::new(), &mut done) {
                let steps: Vec<String> = circle.windows(2).map(|w| graph[&w[0]][&w[1]].clone()).collect();
                panic!("a circle of imports in {}: {}\n{}", self.src, circle.join(" -> "), steps.join("\n"));
            }
        }
    }
}

/// A circle through `module` or what it reaches, depth first.
fn circle_from(
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
        if let Some(circle) = circle_from(next, graph, path, done) {
            return Some(circle);
        }
    }
    path.pop();
    None
}

#[test]
fn no_module_of_the_core_imports_a_higher_layer() {
    CORE.no_module_imports_a_higher_layer();
}

#[test]
fn no_module_of_the_library_imports_a_higher_layer() {
    FIBTREE.no_module_imports_a_higher_layer();
}

#[test]
fn no_module_of_the_command_line_imports_a_higher_layer_or_another_command() {
    CLI.no_module_imports_a_higher_layer();
}

#[test]
fn the_command_lines_files_imports_form_no_circle() {
    CLI.no_circle_of_files();
}

#[test]
fn the_core_files_imports_form_no_circle() {
    CORE.no_circle_of_files();
}

#[test]
fn the_library_files_imports_form_no_circle() {
    FIBTREE.no_circle_of_files();
}

#[test]
fn the_reader_finds_the_paths_of_the_code() {
    let source = r#"
        use crate::{error::Result, plan::{self, Plan}};
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
    let module = vec!["crt".to_string(), "residues".to_string()];
    let found = paths_of(source, &module);
    let want: Vec<Vec<String>> = [
        &["error", "Result"][..],
        &["plan"],
        &["plan", "Plan"],
        &["crt", "sibling", "Item"],
        &["engines", "modular", "count"],
    ]
    .iter()
    .map(|s| s.iter().map(|x| x.to_string()).collect())
    .collect();
    assert_eq!(found, want);
}

#[test]
fn a_circle_between_two_files_of_a_folder_is_seen() {
    let graph: BTreeMap<String, BTreeMap<String, String>> =
        [("a::early", "a::halves"), ("a::halves", "a::early"), ("a", "b")].iter().fold(
            BTreeMap::new(),
            |mut g, (from, to)| {
                g.entry(from.to_string()).or_default().insert(to.to_string(), String::new());
                g
            },
        );
    let circle = circle_from("a::early", &graph, &mut Vec::new(), &mut BTreeSet::new());
    assert_eq!(circle.unwrap(), ["a::early", "a::halves", "a::early"]);
    assert!(circle_from("a", &graph, &mut Vec::new(), &mut BTreeSet::new()).is_none());
}
