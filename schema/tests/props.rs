//! Property tests of profile resolution: for any selector string, over random catalogs and
//! both bundled ones, a session's tools are catalog tools, every session sees the fail-closed
//! set, and a session that fails closed (an empty selector, an unknown name) sees exactly
//! that set and nothing more. For random catalogs, the tools served equal what the matrix
//! says, computed here the obvious way.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use proptest::prelude::*;
use toolgate_schema::{SourceFile, Surface, load_dir, load_sources};

/// A random matrix: which group each tool is in, which tools are always on, which rows
/// grant what.
#[derive(Clone, Debug)]
struct Matrix {
    profiles: usize,
    combine: bool,
    /// Group of each tool.
    tool_group: Vec<usize>,
    /// Tools every session sees.
    always_on: BTreeSet<usize>,
    /// A row per group: the profiles it grants (`None`: `"*"`).
    group_grants: Vec<Option<BTreeSet<usize>>>,
    /// Rows of single tools, which win over their group's row.
    tool_grants: BTreeMap<usize, Option<BTreeSet<usize>>>,
}

fn profile_set(profiles: usize) -> impl Strategy<Value = Option<BTreeSet<usize>>> {
    prop_oneof![
        1 => Just(None),
        4 => proptest::collection::btree_set(0..profiles, 1..=profiles).prop_map(Some),
    ]
}

fn matrix() -> impl Strategy<Value = Matrix> {
    (1usize..5, 1usize..4, 1usize..9, any::<bool>()).prop_flat_map(
        |(profiles, groups, tools, combine)| {
            (
                proptest::collection::vec(0..groups, tools),
                proptest::collection::btree_set(0..tools, 0..=tools.min(3)),
                proptest::collection::vec(profile_set(profiles), groups),
                proptest::collection::btree_map(0..tools, profile_set(profiles), 0..=2),
            )
                .prop_map(move |(tool_group, always_on, group_grants, tool_grants)| {
                    Matrix {
                        profiles,
                        combine,
                        tool_group,
                        always_on,
                        group_grants,
                        tool_grants,
                    }
                })
        },
    )
}

fn names(set: &Option<BTreeSet<usize>>) -> String {
    match set {
        None => r#"["*"]"#.to_string(),
        Some(s) => {
            let v: Vec<String> = s.iter().map(|p| format!("\"p{p}\"")).collect();
            format!("[{}]", v.join(", "))
        }
    }
}

impl Matrix {
    fn sources(&self) -> Vec<SourceFile> {
        let profiles: Vec<String> = (0..self.profiles)
            .map(|p| format!("\"p{p}\": \"Profile {p}.\""))
            .collect();
        let groups: Vec<String> = (0..self.group_grants.len())
            .map(|g| format!("\"g{g}\": {{\"description\": \"Group {g}.\"}}"))
            .collect();
        let always: Vec<String> = self.always_on.iter().map(|t| format!("\"t{t}\"")).collect();
        let mut grants: Vec<String> = self
            .group_grants
            .iter()
            .enumerate()
            .map(|(g, set)| format!("\"g{g}\": {}", names(set)))
            .collect();
        grants.extend(
            self.tool_grants
                .iter()
                .filter(|(t, _)| !self.always_on.contains(t))
                .map(|(t, set)| format!("\"t{t}\": {}", names(set))),
        );
        let matrix = format!(
            r#"{{"catalog": "random", "description": "A random matrix.",
  "selector": {{"env": "RANDOM_PROFILE", "combine": {}}},
  "profiles": {{{}}}, "groups": {{{}}}, "always_on": [{}], "grants": {{{}}}}}"#,
            self.combine,
            profiles.join(", "),
            groups.join(", "),
            always.join(", "),
            grants.join(", ")
        );
        let mut files = vec![SourceFile {
            rel: "profiles.json".into(),
            bytes: matrix.into_bytes(),
        }];
        for (t, g) in self.tool_group.iter().enumerate() {
            let tool = format!(
                r#"{{"name": "t{t}", "group": "g{g}", "description": "Tool {t}.",
  "inputSchema": {{"type": "object", "properties": {{"x": {{"type": "string"}}}}}}}}"#
            );
            files.push(SourceFile {
                rel: format!("tools/t{t}.json"),
                bytes: tool.into_bytes(),
            });
        }
        files
    }

    /// The tools profile `p` sees, by the matrix's rules.
    fn visible(&self, p: usize) -> BTreeSet<String> {
        (0..self.tool_group.len())
            .filter(|t| {
                let row = self
                    .tool_grants
                    .get(t)
                    .filter(|_| !self.always_on.contains(t))
                    .unwrap_or(&self.group_grants[self.tool_group[*t]]);
                self.always_on.contains(t) || row.as_ref().is_none_or(|s| s.contains(&p))
            })
            .map(|t| format!("t{t}"))
            .collect()
    }

    fn fail_closed(&self) -> BTreeSet<String> {
        self.always_on.iter().map(|t| format!("t{t}")).collect()
    }
}

/// A selector value: known names, unknown ones, separators and white space.
fn selector(known: Vec<String>) -> impl Strategy<Value = String> {
    let word = prop_oneof![
        4 => proptest::sample::select(known),
        1 => "[a-z_]{0,8}",
        1 => Just("*".to_string()),
    ];
    let sep = proptest::sample::select(vec![",", ", ", " ,", ",,", " ", ""]);
    proptest::collection::vec((word, sep), 0..4).prop_map(|parts| {
        parts
            .into_iter()
            .map(|(w, s)| format!("{w}{s}"))
            .collect::<String>()
    })
}

/// The invariants of one resolution, and what it was.
fn check_session(surface: &Surface, requested: &str) -> (BTreeSet<String>, bool) {
    let all: BTreeSet<&str> = surface.tools.iter().map(|t| t.name.as_str()).collect();
    let session = surface.resolve(requested);
    let served: Vec<String> = surface
        .served(&session)
        .iter()
        .map(|s| s.tool.name.clone())
        .collect();
    let set: BTreeSet<String> = served.iter().cloned().collect();
    assert_eq!(set.len(), served.len(), "a tool served twice: {served:?}");
    assert!(
        set.iter().all(|t| all.contains(t.as_str())),
        "{requested:?} serves a tool the catalog does not have: {served:?}"
    );
    let fail_closed: BTreeSet<String> = surface.fail_closed.iter().cloned().collect();
    assert!(
        fail_closed.is_subset(&set),
        "{requested:?} lost an always-on tool"
    );
    assert_eq!(session.fail_closed, session.profiles.is_empty());
    assert_eq!(session.fail_closed, session.warning.is_some());
    if session.fail_closed {
        assert_eq!(set, fail_closed, "{requested:?} failed closed and grew");
    }
    // One unknown name, or none at all, fails closed.
    let known: Vec<&str> = surface.profiles.iter().map(|p| p.name.as_str()).collect();
    let wanted: Vec<&str> = if surface.selector.as_ref().is_some_and(|s| s.combine) {
        requested
            .split(',')
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .collect()
    } else {
        Some(requested.trim())
            .filter(|w| !w.is_empty())
            .into_iter()
            .collect()
    };
    if wanted.is_empty() || wanted.iter().any(|w| !known.contains(w)) {
        assert!(session.fail_closed, "{requested:?} did not fail closed");
    } else {
        assert!(!session.fail_closed, "{requested:?} failed closed");
    }
    (set, session.fail_closed)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 128,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_catalogs_resolve_as_their_matrix_says(
        (m, requested) in matrix().prop_flat_map(|m| {
            let known = (0..m.profiles).map(|p| format!("p{p}")).collect();
            (Just(m), selector(known))
        })
    ) {
        let catalog = load_sources(Path::new("random"), m.sources())
            .unwrap_or_else(|e| panic!("the random catalog does not load: {e:?}"));
        let surface = Surface::from_catalog(&catalog);
        prop_assert_eq!(
            surface.fail_closed.iter().cloned().collect::<BTreeSet<_>>(),
            m.fail_closed()
        );
        let (served, failed) = check_session(&surface, &requested);
        if !failed {
            let session = surface.resolve(&requested);
            let mut expected = BTreeSet::new();
            for p in &session.profiles {
                let index: usize = p[1..].parse().unwrap();
                expected.extend(m.visible(index));
            }
            prop_assert_eq!(served, expected);
        }
    }

    #[test]
    fn bundled_catalogs_never_serve_more_than_the_matrix(
        (catalog, requested) in proptest::sample::select(vec!["tatara", "maetra"])
            .prop_flat_map(|name| {
                let known = bundled(name).profiles.iter().map(|p| p.name.clone()).collect();
                (Just(name), selector(known))
            })
    ) {
        let surface = bundled(catalog);
        let (served, _) = check_session(surface, &requested);
        // A session sees no more than the union of every profile's tools.
        let mut union = BTreeSet::new();
        for p in &surface.profiles {
            union.extend(check_session(surface, &p.name).0);
        }
        prop_assert!(served.is_subset(&union));
    }
}

fn bundled(name: &str) -> &'static Surface {
    static SURFACES: std::sync::OnceLock<[Surface; 2]> = std::sync::OnceLock::new();
    let [tatara, maetra] = SURFACES.get_or_init(|| {
        let load = |n: &str| {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(n);
            Surface::from_catalog(&load_dir(&dir).expect("the bundled catalog loads"))
        };
        [load("tatara"), load("maetra")]
    });
    if name == "tatara" { tatara } else { maetra }
}
