//! Variables in host configurations, expanded as the host that reads the file does: Claude
//! Code's `${VAR}` and `${VAR:-default}` (and `${CLAUDE_PLUGIN_ROOT}`,
//! `${CLAUDE_PROJECT_DIR}`), VS Code's and Cursor's `${env:VAR}`, `${input:ID}`,
//! `${workspaceFolder}`, `${workspaceFolderBasename}`, `${userHome}`, `${pathSeparator}` and
//! `${/}`, Gemini CLI's `$VAR` and `${VAR}`, opencode's `{env:VAR}`.
//!
//! An expansion says whether anything in it came from the environment, an input or a value
//! given on the command line, so that callers never write or print it.

use std::collections::BTreeMap;
use std::path::Path;

use super::Syntax;

/// What variables expand to.
pub struct Context<'a> {
    /// The environment (`std::env::var` in the CLI; a map in tests).
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// `--env NAME=VALUE`: environment variables and VS Code input ids, which win over the
    /// environment.
    pub given: &'a BTreeMap<String, String>,
    /// The project root (`${workspaceFolder}`, `${CLAUDE_PROJECT_DIR}`).
    pub root: &'a Path,
    /// The plugin's folder, for a plugin's server (`${CLAUDE_PLUGIN_ROOT}`).
    pub plugin_root: Option<&'a Path>,
}

/// An expanded value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expanded {
    /// The text.
    pub value: String,
    /// Whether any part came from the environment, an input or `--env`: such a value is a
    /// possible secret, never written to the lock nor printed.
    pub secret: bool,
}

/// A variable that has no value and no default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unset {
    /// The variable as written (`GITHUB_TOKEN`, `input:token`).
    pub variable: String,
}

impl Context<'_> {
    fn lookup(&self, name: &str) -> Option<(String, bool)> {
        if let Some(v) = self.given.get(name) {
            return Some((v.clone(), true));
        }
        let root = || self.root.display().to_string();
        let predefined = match name {
            "CLAUDE_PROJECT_DIR" | "workspaceFolder" | "workspaceRoot" => Some(root()),
            "CLAUDE_PLUGIN_ROOT" => self.plugin_root.map(|p| p.display().to_string()),
            "workspaceFolderBasename" => self
                .root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned()),
            "pathSeparator" | "/" => Some(std::path::MAIN_SEPARATOR.to_string()),
            "userHome" => (self.env)("HOME"),
            _ => None,
        };
        if let Some(p) = predefined {
            return Some((p, false));
        }
        (self.env)(name).map(|v| (v, true))
    }
}

/// Expands every variable of `text` written in `syntax`.
pub fn expand(text: &str, syntax: Syntax, cx: &Context<'_>) -> Result<Expanded, Unset> {
    let mut out = String::new();
    let mut secret = false;
    let mut rest = text;
    while let Some(at) = next_variable(rest, syntax) {
        out.push_str(&rest[..at]);
        let var = &rest[at..];
        let (len, name, default) = parse_variable(var, syntax);
        if len == 0 {
            out.push_str(&var[..1]);
            rest = &var[1..];
            continue;
        }
        let key = name
            .strip_prefix("env:")
            .or_else(|| name.strip_prefix("input:"))
            .unwrap_or(name);
        match (cx.lookup(key), default) {
            (Some((v, s)), _) if !(v.is_empty() && default.is_some()) => {
                out.push_str(&v);
                secret |= s;
            }
            (_, Some(d)) => {
                let inner = expand(d, syntax, cx)?;
                out.push_str(&inner.value);
                secret |= inner.secret;
            }
            (Some((v, s)), None) => {
                out.push_str(&v);
                secret |= s;
            }
            (None, None) => {
                return Err(Unset {
                    variable: name.to_string(),
                });
            }
        }
        rest = &var[len..];
    }
    out.push_str(rest);
    Ok(Expanded { value: out, secret })
}

/// The names of every variable `text` uses (`${input:ID}` as `input:ID`).
pub fn variables(text: &str, syntax: Syntax) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = next_variable(rest, syntax) {
        let var = &rest[at..];
        let (len, name, _) = parse_variable(var, syntax);
        if len == 0 {
            rest = &var[1..];
            continue;
        }
        out.push(name.to_string());
        rest = &var[len..];
    }
    out
}

fn next_variable(text: &str, syntax: Syntax) -> Option<usize> {
    match syntax {
        Syntax::OpenCode => text.find("{env:"),
        _ => text.find('$'),
    }
}

/// The length of the variable at the start of `var`, its name and its default (`0` when
/// the text there is not a variable).
fn parse_variable(var: &str, syntax: Syntax) -> (usize, &str, Option<&str>) {
    if syntax == Syntax::OpenCode {
        return match var.find('}') {
            Some(end) => (end + 1, &var[1..end], None),
            None => (0, "", None),
        };
    }
    if let Some(body) = var.strip_prefix("${") {
        let Some(end) = body.find('}') else {
            return (0, "", None);
        };
        let inner = &body[..end];
        // A default may hold `}` only through a nested variable: take the matching brace.
        if let Some((name, _)) = inner.split_once(":-") {
            let mut depth = 0usize;
            for (k, c) in body.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        let default = &body[name.len() + 2..k];
                        return (k + 3, name, Some(default));
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            return (0, "", None);
        }
        return (end + 3, inner, None);
    }
    if syntax == Syntax::Gemini {
        let name_len = var[1..]
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        if name_len > 0 && !var.as_bytes()[1].is_ascii_digit() {
            return (1 + name_len, &var[1..1 + name_len], None);
        }
    }
    (0, "", None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cx<'a>(
        env: &'a dyn Fn(&str) -> Option<String>,
        given: &'a BTreeMap<String, String>,
    ) -> Context<'a> {
        Context {
            env,
            given,
            root: Path::new("/repo"),
            plugin_root: Some(Path::new("/repo/plugins/p")),
        }
    }

    #[test]
    fn claude_code_forms() {
        let env = |k: &str| (k == "TOKEN").then(|| "s3cret".to_string());
        let given = BTreeMap::new();
        let c = cx(&env, &given);
        let e = expand("Bearer ${TOKEN}", Syntax::Claude, &c).unwrap();
        assert_eq!(e.value, "Bearer s3cret");
        assert!(e.secret);
        let e = expand(
            "${MISSING:-http://localhost:${PORT:-8080}}/mcp",
            Syntax::Claude,
            &c,
        )
        .unwrap();
        assert_eq!(e.value, "http://localhost:8080/mcp");
        assert!(!e.secret);
        let e = expand("${CLAUDE_PLUGIN_ROOT}/server.js", Syntax::Claude, &c).unwrap();
        assert_eq!(e.value, "/repo/plugins/p/server.js");
        assert_eq!(
            expand("${NOPE}", Syntax::Claude, &c).unwrap_err().variable,
            "NOPE"
        );
        // A bare `$VAR` is left as written by Claude Code.
        assert_eq!(
            expand("$TOKEN", Syntax::Claude, &c).unwrap().value,
            "$TOKEN"
        );
    }

    #[test]
    fn vs_code_forms_and_given_inputs() {
        let env = |k: &str| (k == "HOME").then(|| "/home/u".to_string());
        let given = BTreeMap::from([("api-key".to_string(), "k".to_string())]);
        let c = cx(&env, &given);
        let e = expand(
            "${workspaceFolder}/x ${input:api-key} ${userHome}",
            Syntax::Claude,
            &c,
        )
        .unwrap();
        assert_eq!(e.value, "/repo/x k /home/u");
        assert!(e.secret);
        assert_eq!(
            expand("${env:NOPE}", Syntax::Claude, &c)
                .unwrap_err()
                .variable,
            "env:NOPE"
        );
        assert_eq!(
            variables("${input:api-key} ${env:A}", Syntax::Claude),
            ["input:api-key", "env:A"]
        );
    }

    #[test]
    fn gemini_and_opencode_forms() {
        let env = |k: &str| (k == "A").then(|| "1".to_string());
        let given = BTreeMap::new();
        let c = cx(&env, &given);
        assert_eq!(expand("$A-${A}", Syntax::Gemini, &c).unwrap().value, "1-1");
        assert_eq!(
            expand("x{env:A}", Syntax::OpenCode, &c).unwrap().value,
            "x1"
        );
        assert_eq!(expand("$5", Syntax::Gemini, &c).unwrap().value, "$5");
    }
}
