//! The code stays readable at once: no non-test function over 120 lines and at most 15 over
//! 80, and no module circle inside a crate. Measured with `syn` on every workspace crate's
//! sources, so that later changes keep the shape the code was cut into (issue 23).
//!
//! A function is measured from its `fn` keyword to its closing brace (attributes and doc
//! comments excluded). Test code is left out: files under `tests/`, `benches/`, `fuzz/` and
//! `examples/`, files named `tests.rs`, `#[cfg(test)]` items and `#[test]` functions.
//!
//! A module circle is a cycle of imports between files of one crate: every path a file's
//! non-test code names (`use` items and paths in code, `crate::`, `super::`, `self::` or a
//! child module's name first) is an arrow to the file module it reaches. A loop among the
//! modules inside one of them that only a child's arrow up to its parent closes (`use
//! super::Item`) is how Rust nests modules; any other loop through a parent and its child is
//! a circle, as one that leaves the parent's house (`rules` -> `rules::a` -> `check` ->
//! `rules`).
//!
//! `cargo test --test code_shape -- --nocapture` prints the figures.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::spanned::Spanned;
use syn::visit::Visit;

/// The longest a non-test function may be.
const MAX_LINES: usize = 120;
/// Functions may be longer than this ...
const LONG: usize = 80;
/// ... but only this many of them in the whole workspace.
const MAX_LONG: usize = 15;

/// The workspace root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `src` folder of every crate of the workspace (the root package and its members).
fn crate_sources() -> Vec<(String, PathBuf)> {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let members = manifest
        .lines()
        .find(|l| l.trim_start().starts_with("members"))
        .expect("a members list");
    let mut crates = vec![("toolgate".to_string(), root().join("src"))];
    for m in members.split('"').skip(1).step_by(2) {
        crates.push((m.to_string(), root().join(m).join("src")));
    }
    crates
}

/// Every `.rs` file under `dir` that is not test code, sorted.
fn source_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                if !["tests", "benches", "fuzz", "examples"].contains(&name.as_str()) {
                    stack.push(p);
                }
            } else if name.ends_with(".rs") && name != "tests.rs" {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Whether the attributes mark test-only code (`#[test]`, `#[cfg(test)]`).
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let path = a.path();
        if path.is_ident("test") || path.segments.last().is_some_and(|s| s.ident == "test") {
            return true;
        }
        path.is_ident("cfg")
            && a.meta.require_list().is_ok_and(|l| {
                l.tokens
                    .to_string()
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .any(|w| w == "test")
            })
    })
}

/// One measured function.
struct Function {
    file: PathBuf,
    name: String,
    line: usize,
    lines: usize,
}

/// Collects the functions of one file, and the paths of its non-test code that may name a
/// module of the crate.
struct FileVisitor<'a> {
    file: &'a Path,
    functions: Vec<Function>,
    /// Each path with the inline modules it is written in (`mod a { ... }`).
    uses: Vec<(Vec<String>, Vec<String>)>,
    /// The modules the file declares with `mod name;` (its children).
    children: Vec<String>,
    /// The inline modules the visitor is in.
    inline: Vec<String>,
}

impl FileVisitor<'_> {
    fn measure(&mut self, name: &syn::Ident, sig: &syn::Signature, block: &syn::Block) {
        let start = sig.fn_token.span().start().line;
        let end = block.brace_token.span.close().end().line;
        self.functions.push(Function {
            file: self.file.to_path_buf(),
            name: name.to_string(),
            line: start,
            lines: end + 1 - start,
        });
    }
}

/// The paths a use tree names, each as its segments (`crate::a::{b, c}` is two).
fn use_paths(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_paths(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let mut p = prefix.clone();
            p.push(n.ident.to_string());
            out.push(p);
        }
        syn::UseTree::Rename(r) => {
            let mut p = prefix.clone();
            p.push(r.ident.to_string());
            out.push(p);
        }
        syn::UseTree::Glob(_) => out.push(prefix.clone()),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_paths(t, prefix, out);
            }
        }
    }
}

impl<'ast> Visit<'ast> for FileVisitor<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if is_test(&f.attrs) {
            return;
        }
        self.measure(&f.sig.ident, &f.sig, &f.block);
        syn::visit::visit_item_fn(self, f);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if is_test(&f.attrs) {
            return;
        }
        self.measure(&f.sig.ident, &f.sig, &f.block);
        syn::visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if is_test(&f.attrs) {
            return;
        }
        if let Some(block) = &f.default {
            self.measure(&f.sig.ident, &f.sig, block);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if is_test(&m.attrs) {
            return;
        }
        if m.content.is_none() {
            if self.inline.is_empty() {
                self.children.push(m.ident.to_string());
            }
            return;
        }
        self.inline.push(m.ident.to_string());
        syn::visit::visit_item_mod(self, m);
        self.inline.pop();
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none() && p.segments.len() > 1 {
            let segments = p.segments.iter().map(|s| s.ident.to_string()).collect();
            self.uses.push((self.inline.clone(), segments));
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if !is_test(&i.attrs) {
            syn::visit::visit_item_impl(self, i);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if is_test(&u.attrs) {
            return;
        }
        let mut paths = Vec::new();
        use_paths(&u.tree, &mut Vec::new(), &mut paths);
        let inline = self.inline.clone();
        self.uses
            .extend(paths.into_iter().map(|p| (inline.clone(), p)));
    }
}

/// A parsed file: its functions and the paths it names.
fn visit(file: &Path) -> FileVisitor<'_> {
    let text = std::fs::read_to_string(file).expect("a readable source file");
    let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut v = FileVisitor {
        file,
        functions: Vec::new(),
        uses: Vec::new(),
        children: Vec::new(),
        inline: Vec::new(),
    };
    v.visit_file(&ast);
    v
}

/// The module path of a file inside its crate's `src` (`lib.rs` and `main.rs` are the root,
/// `a/mod.rs` and `a.rs` are `a`, `a/b.rs` is `a::b`).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("a file of the crate");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if !["lib", "main", "mod"].contains(&stem) {
        parts.push(stem.to_string());
    }
    parts
}

fn relative(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

#[test]
fn no_function_is_too_long_to_read_at_once() {
    let mut functions = Vec::new();
    for (_, src) in crate_sources() {
        for file in source_files(&src) {
            functions.extend(visit(&file).functions);
        }
    }
    functions.sort_by(|a, b| b.lines.cmp(&a.lines).then(a.file.cmp(&b.file)));
    let over_max: Vec<&Function> = functions.iter().filter(|f| f.lines > MAX_LINES).collect();
    let long: Vec<&Function> = functions.iter().filter(|f| f.lines > LONG).collect();
    let list = |fs: &[&Function]| {
        fs.iter()
            .map(|f| {
                format!(
                    "  {} {}:{} `{}`",
                    f.lines,
                    relative(&f.file),
                    f.line,
                    f.name
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    println!(
        "{} non-test functions; {} over {MAX_LINES} lines, {} over {LONG}; longest {}\n{}",
        functions.len(),
        over_max.len(),
        long.len(),
        functions.first().map_or(0, |f| f.lines),
        list(&long)
    );
    assert!(
        over_max.is_empty(),
        "functions over {MAX_LINES} lines (cut them into named steps):\n{}",
        list(&over_max)
    );
    assert!(
        long.len() <= MAX_LONG,
        "{} functions over {LONG} lines, at most {MAX_LONG} allowed:\n{}",
        long.len(),
        list(&long)
    );
}

/// The strongly connected components of more than one module (Tarjan's algorithm).
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn connect<'a>(s: &mut State<'a>, v: &'a str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.edges.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                connect(s, w);
                let lw = s.low[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(lw));
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v.as_str()) {
            connect(&mut s, v);
        }
    }
    s.out
}

/// The module a path names from module `from` (written inside its inline modules
/// `inline`), `crate` first: `crate::a::b`, `super::x` and `self::x` as Rust reads them, and
/// a path starting with one of the file's `children` as that child's; `None` for any
/// other path (an external crate, a local type).
fn absolute(
    from: &[String],
    inline: &[String],
    children: &[String],
    path: &[String],
) -> Option<Vec<String>> {
    let mut here: Vec<String> = from.iter().chain(inline).cloned().collect();
    let first = path.first()?;
    let rest = match first.as_str() {
        "crate" => return Some(path.to_vec()),
        "self" => &path[1..],
        "super" => {
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                here.pop()?;
                rest = &rest[1..];
            }
            rest
        }
        name if inline.is_empty() && children.iter().any(|c| c == name) => path,
        _ => return None,
    };
    let mut out = vec!["crate".to_string()];
    out.extend(here);
    out.extend(rest.iter().cloned());
    Some(out)
}

/// The import graph of one crate between its file modules: an arrow from each file to each
/// other file module its paths name (the longest one a path names: `crate::a::b::Item` is
/// `a::b` when that is a file, else `a`).
fn import_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files = source_files(src);
    let modules: Vec<Vec<String>> = files.iter().map(|f| module_of(src, f)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, from) in files.iter().zip(&modules) {
        let name = from.join("::");
        edges.entry(name.clone()).or_default();
        let v = visit(file);
        for (inline, path) in &v.uses {
            let Some(path) = absolute(from, inline, &v.children, path) else {
                continue;
            };
            let target = modules
                .iter()
                .filter(|m| !m.is_empty() && path.len() > m.len() && path[1..=m.len()] == m[..])
                .max_by_key(|m| m.len());
            if let Some(to) = target
                && to != from
            {
                edges.entry(name.clone()).or_default().insert(to.join("::"));
            }
        }
    }
    edges
}

/// Whether module `m` is `p` or inside it (`p::x`).
fn inside(m: &str, p: &str) -> bool {
    m == p || m.strip_prefix(p).is_some_and(|r| r.starts_with("::"))
}

/// The module circles of a crate's import graph `edges`. A loop that only a child's arrow
/// up to its own parent or ancestor closes, among modules all inside one of them, is how
/// Rust nests modules (`hosts` names its children, `hosts::plugins` names
/// `hosts::formats`, which reads `hosts`' types through `super::`). Every other loop is a
/// circle: one that needs no arrow up (two children naming each other), and one that leaves
/// the house of every module on it, whatever arrows close it (`rules` -> `rules::a` ->
/// `check` -> `rules`: `check` is no part of `rules`).
fn module_circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let down: BTreeMap<String, BTreeSet<String>> = edges
        .iter()
        .map(|(from, to)| {
            let to = to.iter().filter(|t| !inside(from, t)).cloned().collect();
            (from.clone(), to)
        })
        .collect();
    let housed = |c: &[String]| c.iter().any(|p| c.iter().all(|m| inside(m, p)));
    let mut out: Vec<Vec<String>> = circles(edges).into_iter().filter(|c| !housed(c)).collect();
    // A loop without an arrow up, inside a tangle not yet told.
    for c in circles(&down) {
        if !out.iter().any(|o| c.iter().all(|m| o.contains(m))) {
            out.push(c);
        }
    }
    out.sort();
    out
}

#[test]
fn no_module_circle_inside_a_crate() {
    let mut found = Vec::new();
    for (krate, src) in crate_sources() {
        for circle in module_circles(&import_graph(&src)) {
            found.push(format!("{krate}: {}", circle.join(" <-> ")));
        }
    }
    println!("module circles: {}", found.len());
    assert!(
        found.is_empty(),
        "modules that import each other in a circle (layer them: the model at the bottom):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_circle_finder_finds_a_circle_and_no_false_one() {
    let graph = |pairs: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    assert_eq!(
        circles(&graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])),
        vec![vec!["a".to_string(), "b".to_string(), "c".to_string()]]
    );
    assert!(circles(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])).is_empty());
    // How paths are read: a child by its name, the parent by `super::`, never a crate.
    assert_eq!(
        absolute(
            &["rules".into()],
            &[],
            &["too_many_tools".into()],
            &["too_many_tools".into(), "NAME".into()]
        ),
        Some(vec![
            "crate".into(),
            "rules".into(),
            "too_many_tools".into(),
            "NAME".into()
        ])
    );
    assert_eq!(
        absolute(
            &["lint".into(), "calls".into()],
            &[],
            &[],
            &["super".into(), "Linter".into()]
        ),
        Some(vec!["crate".into(), "lint".into(), "Linter".into()])
    );
    assert_eq!(
        absolute(
            &["a".into()],
            &[],
            &[],
            &["serde".into(), "Deserialize".into()]
        ),
        None
    );
}

/// Writes a crate's `src` of `files` (path, text) under a fresh folder and returns it.
fn crate_of(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("toolgate-code-shape-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

#[test]
fn a_circle_through_a_parent_and_its_child_is_found() {
    // The shape lint/src had: a rule module reaching back up for a type of `check`, which
    // names the rules, whose parent names the rule module's constants.
    let files = [
        ("lib.rs", "mod check;\nmod rules;\n"),
        (
            "check.rs",
            "use crate::rules::Rule;\npub struct Problem(pub Rule);\n",
        ),
        (
            "rules/mod.rs",
            "pub mod too_many;\npub enum Rule { A }\npub fn name() -> &'static str { too_many::NAME }\n",
        ),
        (
            "rules/too_many.rs",
            "use crate::check::Problem;\nuse super::Rule;\npub const NAME: &str = \"x\";\npub fn f() -> Problem { Problem(Rule::A) }\n",
        ),
    ];
    let dir = crate_of("circle", &files);
    assert_eq!(
        module_circles(&import_graph(&dir)),
        vec![vec![
            "check".to_string(),
            "rules".to_string(),
            "rules::too_many".to_string()
        ]]
    );
    // The type moved down to the rules: the child reads its parent, the parent its child,
    // and that is nesting, no circle.
    let mut cut = files;
    cut[1] = (
        "check.rs",
        "use crate::rules::{Problem, Rule};\npub fn f(_: Problem, _: Rule) {}\n",
    );
    cut[2] = (
        "rules/mod.rs",
        "pub mod too_many;\npub enum Rule { A }\npub struct Problem(pub Rule);\npub fn name() -> &'static str { too_many::NAME }\n",
    );
    cut[3] = (
        "rules/too_many.rs",
        "use super::{Problem, Rule};\npub const NAME: &str = \"x\";\npub fn f() -> Problem { Problem(Rule::A) }\n",
    );
    let dir2 = crate_of("cut", &cut);
    assert!(module_circles(&import_graph(&dir2)).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&dir2);
}

#[test]
fn a_loop_inside_one_module_is_nesting_and_one_through_an_outside_file_is_a_circle() {
    let graph = |pairs: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    // `hosts`: the parent names its children, one child its sibling, and each reads the
    // parent's types.
    let hosts = [
        ("h", "h::p"),
        ("h", "h::f"),
        ("h::p", "h::f"),
        ("h::p", "h"),
        ("h::f", "h"),
    ];
    assert!(module_circles(&graph(&hosts)).is_empty());
    // Two children naming each other.
    let siblings = [("h::p", "h::f"), ("h::f", "h::p")];
    assert_eq!(module_circles(&graph(&siblings)).len(), 1);
    // The parent names a file outside it, which names a child that reads the parent: the
    // loop leaves the house, and it is a circle even though a child's arrow up closes it.
    let through = [("a", "x"), ("x", "a::c"), ("a::c", "a")];
    assert_eq!(
        module_circles(&graph(&through)),
        vec![vec!["a".to_string(), "a::c".to_string(), "x".to_string()]]
    );
}
