//! The constants the macro compiled in are byte for byte what `toolgate-schema` writes at
//! run time from the catalog folder, and the generated sessions resolve as the run-time
//! `Surface::resolve` does, warnings included.

use std::path::Path;

use toolgate_generated::{maetra, tatara};
use toolgate_schema::json::to_pretty;
use toolgate_schema::runtime::CatalogProfile;
use toolgate_schema::{Surface, load_dir};

fn surface(name: &str) -> Surface {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schema")
        .join(name);
    match load_dir(&dir) {
        Ok(c) => Surface::from_catalog(&c),
        Err(e) => panic!("{e}"),
    }
}

/// Every selector value worth trying: each profile, each combination, and fail-closed ones.
fn selector_values<P: CatalogProfile>() -> Vec<String> {
    let names: Vec<&str> = P::ALL.iter().map(|p| p.name()).collect();
    let mut out: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    for mask in 1u32..(1 << names.len()) {
        let chosen: Vec<&str> = names
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, n)| *n)
            .collect();
        out.push(chosen.join(","));
        out.push(chosen.iter().rev().copied().collect::<Vec<_>>().join(" , "));
    }
    out.extend(
        ["", "  ", "nope", "nope,other"]
            .iter()
            .map(|s| s.to_string()),
    );
    if let Some(first) = names.first() {
        out.push(format!("{first},nope"));
    }
    out
}

fn check<P: CatalogProfile>(name: &str, manifest: &str, tatara_manifest: &str) {
    let s = surface(name);
    assert_eq!(manifest, to_pretty(&s.manifest_json()), "{name} manifest");
    assert_eq!(
        tatara_manifest,
        to_pretty(&s.tatara_manifest_json()),
        "{name} tatara-format manifest"
    );
    for requested in selector_values::<P>() {
        let runtime = s.resolve(&requested);
        let compiled = toolgate_schema::runtime::Session::<P>::resolve(&requested);
        assert_eq!(
            compiled.warning(),
            runtime.warning.as_deref(),
            "{name} {requested:?}"
        );
        let names: Vec<&str> = compiled.profiles().iter().map(|p| p.name()).collect();
        assert_eq!(names, runtime.profiles, "{name} {requested:?}");
        assert_eq!(
            compiled.tools_list_json(),
            to_pretty(&s.tools_list_json(&runtime)),
            "{name} tools/list for {requested:?}"
        );
    }
}

#[test]
fn tatara_constants_equal_the_run_time_output() {
    check::<tatara::Profile>(
        "tatara",
        tatara::MANIFEST_JSON,
        tatara::TATARA_FORMAT_MANIFEST_JSON,
    );
    let s = surface("tatara");
    for p in tatara::Profile::ALL {
        let session = s.resolve(p.name());
        assert_eq!(p.tools_list_json(), to_pretty(&s.tools_list_json(&session)));
        let served: Vec<String> = s
            .served(&session)
            .iter()
            .map(|x| x.tool.name.clone())
            .collect();
        assert_eq!(p.tool_names(), served.as_slice());
    }
    assert_eq!(
        tatara::FAIL_CLOSED_TOOLS_LIST_JSON,
        to_pretty(&s.tools_list_json(&s.resolve("")))
    );
    assert_eq!(tatara::ALWAYS_ON, s.fail_closed.as_slice());
}

#[test]
fn maetra_constants_equal_the_run_time_output() {
    check::<maetra::Profile>(
        "maetra",
        maetra::MANIFEST_JSON,
        maetra::TATARA_FORMAT_MANIFEST_JSON,
    );
    // Every combination of maetra's three capabilities is compiled in.
    for mask in 0..8 {
        assert!(
            maetra::Profile::tools_list_for_mask(mask).is_some(),
            "{mask}"
        );
    }
}

#[test]
fn sessions_resolve_from_the_environment_variable_name() {
    assert_eq!(tatara::SELECTOR_ENV, "TATARA_TOOL_PROFILE");
    assert_eq!(maetra::SELECTOR_ENV, "MAETRA_CAPABILITIES");
    let s = maetra::Session::resolve("govern, task_guard");
    assert_eq!(
        s.profiles(),
        [maetra::Profile::TaskGuard, maetra::Profile::Govern]
    );
    let s = tatara::Session::resolve("implement,review");
    assert!(s.is_fail_closed());
    assert_eq!(s.tools_list_json(), tatara::FAIL_CLOSED_TOOLS_LIST_JSON);
}

/// A profile type without compiled-in lists: sessions compose theirs from the served
/// entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct NoLists(maetra::Profile);

const NO_LISTS_ALL: [NoLists; 3] = [
    NoLists(maetra::Profile::TaskGuard),
    NoLists(maetra::Profile::Secure),
    NoLists(maetra::Profile::Govern),
];

impl CatalogProfile for NoLists {
    const ALL: &'static [NoLists] = &NO_LISTS_ALL;
    const SELECTOR_ENV: &'static str = maetra::SELECTOR_ENV;
    const COMBINE: bool = true;
    const ALWAYS_ON: &'static [&'static str] = maetra::ALWAYS_ON;
    const SERVED: &'static [toolgate_runtime::ServedEntry] =
        <maetra::Profile as CatalogProfile>::SERVED;
    fn name(self) -> &'static str {
        self.0.name()
    }
    fn index(self) -> usize {
        <maetra::Profile as CatalogProfile>::index(self.0)
    }
    fn tools_list_for_mask(_: u64) -> Option<&'static str> {
        None
    }
}

#[test]
fn sessions_without_a_constant_compose_the_same_list() {
    for requested in selector_values::<maetra::Profile>() {
        let with = maetra::Session::resolve(&requested);
        let without = toolgate_schema::runtime::Session::<NoLists>::resolve(&requested);
        assert_eq!(
            with.tools_list_json(),
            without.tools_list_json(),
            "{requested:?}"
        );
    }
}
