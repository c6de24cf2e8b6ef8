//! The registry package a server's launch names, and the same launch pinned to another
//! version: `npx -y @scope/server@1.2` is npm's `@scope/server`, run as `npx -y
//! @scope/server@0.9`; `uvx mcp-server-git` is PyPI's `mcp-server-git`, run as `uvx
//! mcp-server-git==0.4`. Pure: nothing is run here.

/// A registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Registry {
    /// npm (npx, bunx, pnpm dlx, yarn dlx, npm exec).
    Npm,
    /// PyPI (uvx, uv tool run, pipx run).
    Pypi,
}

impl Registry {
    /// `npm` or `pypi`.
    pub fn name(self) -> &'static str {
        match self {
            Registry::Npm => "npm",
            Registry::Pypi => "pypi",
        }
    }
}

/// The package a launch runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launched {
    /// Its registry.
    pub registry: Registry,
    /// Its name, without version or extras.
    pub name: String,
    /// The index of the argument that names it (the one [`Launched::pinned`] rewrites).
    pub arg: usize,
    /// The version the launch pins, if any.
    pub version: Option<String>,
}

/// Options of the launchers that take a value (so the word after them is no package).
const VALUED: &[&str] = &[
    "-p",
    "--package",
    "--registry",
    "--cache",
    "--userconfig",
    "--python",
    "-p3",
    "--index",
    "--index-url",
    "--extra-index-url",
    "--with",
    "--spec",
    "--pip-args",
    "-c",
    "--call",
];

/// The package `program args` runs, when the program is a launcher toolgate knows.
pub fn launched(program: &str, args: &[String]) -> Option<Launched> {
    let base = program
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(program)
        .trim_end_matches(".cmd")
        .trim_end_matches(".exe");
    let first = args.first().map(String::as_str);
    let (registry, skip) = match (base, first) {
        ("npx" | "bunx", _) => (Registry::Npm, 0),
        ("pnpm" | "yarn", Some("dlx")) | ("npm", Some("exec" | "x")) => (Registry::Npm, 1),
        ("bun", Some("x")) => (Registry::Npm, 1),
        ("uvx", _) => (Registry::Pypi, 0),
        ("uv", Some("tool")) if args.get(1).is_some_and(|a| a == "run") => (Registry::Pypi, 2),
        ("pipx", Some("run")) => (Registry::Pypi, 1),
        _ => return None,
    };
    let mut i = skip;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--" {
            i += 1;
            continue;
        }
        if let Some(from) = a
            .strip_prefix("--from=")
            .or_else(|| a.strip_prefix("--package="))
        {
            return spec(registry, from, i);
        }
        if (a == "--from" || a == "--package") && i + 1 < args.len() {
            return spec(registry, &args[i + 1], i + 1);
        }
        if a.starts_with('-') {
            i += if VALUED.contains(&a) { 2 } else { 1 };
            continue;
        }
        return spec(registry, a, i);
    }
    None
}

/// A package spec read: `@scope/name@1.2`, `name@1.2`, `name==1.2`, `name[extra]`.
fn spec(registry: Registry, s: &str, arg: usize) -> Option<Launched> {
    let (name, version) = match registry {
        Registry::Npm => match s.rfind('@') {
            Some(at) if at > 0 => (&s[..at], Some(&s[at + 1..])),
            _ => (s, None),
        },
        Registry::Pypi => match s.split_once("==").or_else(|| s.split_once('@')) {
            Some((n, v)) => (n, Some(v)),
            None => (s, None),
        },
    };
    let name = name.split('[').next().unwrap_or(name).trim();
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '@');
    if name.is_empty() || !name.chars().all(plain) || name.contains("://") {
        return None;
    }
    Some(Launched {
        registry,
        name: name.to_string(),
        arg,
        version: version.filter(|v| !v.is_empty()).map(str::to_string),
    })
}

impl Launched {
    /// `args` with the package pinned to `version`.
    pub fn pinned(&self, args: &[String], version: &str) -> Vec<String> {
        let mut out = args.to_vec();
        let extras = args[self.arg]
            .find('[')
            .map(|i| {
                let rest = &args[self.arg][i..];
                rest[..rest.find(']').map_or(rest.len(), |j| j + 1)].to_string()
            })
            .unwrap_or_default();
        let pinned = match self.registry {
            Registry::Npm => format!("{}@{version}", self.name),
            Registry::Pypi => format!("{}{extras}=={version}", self.name),
        };
        let prefix = ["--from=", "--package="]
            .into_iter()
            .find(|p| args[self.arg].starts_with(p))
            .unwrap_or("");
        out[self.arg] = format!("{prefix}{pinned}");
        out
    }
}

/// Whether a version is a prerelease: npm's `-tag` suffix, PyPI's `a`, `b`, `rc` and `dev`.
pub fn is_prerelease(version: &str) -> bool {
    if version.contains('-') {
        return true;
    }
    let lower = version.to_ascii_lowercase();
    lower.contains("dev")
        || lower.split('.').any(|part| {
            part.trim_start_matches(|c: char| c.is_ascii_digit())
                .starts_with(['a', 'b', 'r'])
        })
}

/// Orders versions as registries mean them: the numbers of the release (`2025.8.4` before
/// `2026.1.14`, `0.0.9` before `0.0.10`), a prerelease before its release. Publication
/// dates do not order them: a registry mirror may republish old versions.
pub fn version_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn key(v: &str) -> (Vec<u64>, bool, String) {
        let v = v.trim_start_matches(['v', 'V']);
        let cut = v
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(v.len());
        let nums = v[..cut]
            .split('.')
            .filter(|p| !p.is_empty())
            .map(|p| p.parse().unwrap_or(u64::MAX))
            .collect();
        (nums, cut == v.len(), v[cut..].to_string())
    }
    let (ka, kb) = (key(a), key(b));
    let len = ka.0.len().max(kb.0.len());
    let pad = |n: &[u64]| {
        (0..len)
            .map(|i| n.get(i).copied().unwrap_or(0))
            .collect::<Vec<_>>()
    };
    pad(&ka.0)
        .cmp(&pad(&kb.0))
        .then(ka.1.cmp(&kb.1))
        .then_with(|| ka.2.cmp(&kb.2))
}

/// The option a launch's output says the server refused (`unknown option '--caps'`,
/// `unrecognized arguments: --port 3`, `Unknown argument: caps`), when it says one.
pub fn refused_option(stderr: &str, args: &[String]) -> Option<usize> {
    let lower = stderr.to_ascii_lowercase();
    let markers = [
        "unknown option",
        "unrecognized arguments:",
        "unknown argument",
        "unexpected argument",
        "no such option",
        "unrecognized option",
    ];
    let line = lower
        .lines()
        .find(|l| markers.iter().any(|m| l.contains(m)))?;
    args.iter().enumerate().rev().find_map(|(i, a)| {
        let flag = a.split('=').next().unwrap_or(a).to_ascii_lowercase();
        let bare = flag.trim_start_matches('-');
        (a.starts_with('-') && !bare.is_empty() && line.contains(bare)).then_some(i)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn npm_launchers_name_their_package() {
        let l = launched(
            "npx",
            &s(&["-y", "@modelcontextprotocol/server-memory@2026.8.31"]),
        )
        .unwrap();
        assert_eq!(
            (l.registry, l.name.as_str(), l.arg),
            (Registry::Npm, "@modelcontextprotocol/server-memory", 1)
        );
        assert_eq!(l.version.as_deref(), Some("2026.8.31"));
        assert_eq!(
            l.pinned(
                &s(&["-y", "@modelcontextprotocol/server-memory@2026.8.31"]),
                "0.6.2"
            )[1],
            "@modelcontextprotocol/server-memory@0.6.2"
        );
        assert_eq!(
            launched("pnpm", &s(&["dlx", "@playwright/mcp", "--headless"]))
                .unwrap()
                .name,
            "@playwright/mcp"
        );
        assert_eq!(
            launched("npm", &s(&["exec", "--yes", "--", "srv"]))
                .unwrap()
                .name,
            "srv"
        );
        assert_eq!(
            launched("/usr/bin/npx", &s(&["--package=foo", "foo-cli"]))
                .unwrap()
                .name,
            "foo"
        );
        assert!(launched("node", &s(&["server.js"])).is_none());
        assert!(launched("npx", &s(&["-y"])).is_none());
    }

    #[test]
    fn pypi_launchers_name_their_package() {
        let l = launched(
            "uvx",
            &s(&["mcp-server-git==2026.1.14", "--repository", "."]),
        )
        .unwrap();
        assert_eq!(
            (l.registry, l.name.as_str(), l.arg),
            (Registry::Pypi, "mcp-server-git", 0)
        );
        assert_eq!(
            l.pinned(&s(&["mcp-server-git==2026.1.14"]), "0.6.2"),
            ["mcp-server-git==0.6.2"]
        );
        let l = launched(
            "uvx",
            &s(&["--from", "mcp-server-fetch[x]", "mcp-server-fetch"]),
        )
        .unwrap();
        assert_eq!((l.name.as_str(), l.arg), ("mcp-server-fetch", 1));
        assert_eq!(
            l.pinned(
                &s(&["--from", "mcp-server-fetch[x]", "mcp-server-fetch"]),
                "1"
            )[1],
            "mcp-server-fetch[x]==1"
        );
        assert_eq!(
            launched("uv", &s(&["tool", "run", "srv"])).unwrap().name,
            "srv"
        );
        assert_eq!(launched("pipx", &s(&["run", "srv"])).unwrap().name, "srv");
        assert!(launched("uvx", &s(&["git+https://example.org/x"])).is_none());
    }

    #[test]
    fn versions_order_by_their_numbers() {
        let mut v = vec![
            "2026.1.14",
            "0.6.2",
            "2025.12.18",
            "0.0.10",
            "0.0.9",
            "1.0.0",
            "1.0.0-beta.2",
        ];
        v.sort_by(|a, b| version_cmp(a, b));
        assert_eq!(
            v,
            [
                "0.0.9",
                "0.0.10",
                "0.6.2",
                "1.0.0-beta.2",
                "1.0.0",
                "2025.12.18",
                "2026.1.14"
            ]
        );
    }

    #[test]
    fn prereleases_and_refused_options() {
        assert!(
            is_prerelease("1.0.0-beta.1") && is_prerelease("1.0rc1") && is_prerelease("2.0.dev3")
        );
        assert!(!is_prerelease("2026.8.31") && !is_prerelease("0.0.83"));
        let args = s(&["-y", "@playwright/mcp@0.0.1", "--caps=vision", "--headless"]);
        assert_eq!(
            refused_option("error: unknown option '--caps=vision'", &args),
            Some(2)
        );
        assert_eq!(refused_option("all good", &args), None);
    }
}
