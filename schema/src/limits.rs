//! What the matrix says a release must hold to: the context budgets of its profiles
//! (`budgets`), the hosts it is served to (`hosts`) and the server name those hosts show
//! (`server_name`). Read and checked here, with located errors, when a catalog loads;
//! measured against in [`crate::cost`].

use crate::diag::{Ctxt, SourceText};
use crate::files::{Budget, MatrixFile};
use crate::locate::Pointer;
use crate::suggest::did_you_mean;

/// The matrix's budgets, hosts and server name, checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Profile (or combination, `a,b`) and its budget, in the matrix's order.
    pub budgets: Vec<(String, Budget)>,
    /// Host ids, in the matrix's order, each a row of [`crate::hosts::HOSTS`].
    pub hosts: Vec<String>,
    /// The server name hosts show, when the matrix sets one.
    pub server_name: Option<String>,
}

/// Reads the limits of matrix `m` (source `msrc`), recording an error for a budget of an
/// unknown profile, a budget without a limit, an unknown host or an empty server name.
pub fn read(msrc: &SourceText, m: &MatrixFile, cx: &mut Ctxt) -> Limits {
    let root = Pointer::root();
    let mut limits = Limits::default();
    for (key, budget) in m.budgets.iter() {
        let at = root.key("budgets").key(key);
        if budget.max_tools.is_none() && budget.max_tokens.is_none() {
            cx.at(
                msrc,
                &at,
                format!("the budget of `{key}` sets neither `max_tools` nor `max_tokens`"),
            );
        }
        if budget_profiles(msrc, m, key, &at, cx) {
            limits.budgets.push((key.to_string(), *budget));
        }
    }
    for (i, id) in m.hosts.iter().enumerate() {
        let at = root.key("hosts").index(i);
        if crate::hosts::host(id).is_none() {
            cx.at(
                msrc,
                &at,
                format!(
                    "no host `{id}`{}; hosts: {} (toolgate explain host-limits)",
                    did_you_mean(id, crate::hosts::ids()),
                    crate::hosts::ids().join(", ")
                ),
            );
        } else if limits.hosts.contains(id) {
            cx.at(msrc, &at, format!("host `{id}` is listed twice"));
        } else {
            limits.hosts.push(id.clone());
        }
    }
    if let Some(name) = &m.server_name {
        if name.trim().is_empty() {
            cx.at(msrc, &root.key("server_name"), "the server name is empty");
        }
        limits.server_name = Some(name.clone());
    }
    limits
}

/// Whether every profile `key` names (several, joined by `,`, only when profiles combine)
/// is declared; records an error for each that is not.
fn budget_profiles(
    msrc: &SourceText,
    m: &MatrixFile,
    key: &str,
    at: &Pointer,
    cx: &mut Ctxt,
) -> bool {
    let names: Vec<&str> = key.split(',').map(str::trim).collect();
    if names.len() > 1 && !m.selector.combine {
        cx.at(
            msrc,
            at,
            format!("`{key}` names several profiles, but the selector does not combine them"),
        );
        return false;
    }
    let mut ok = true;
    for name in names {
        if !m.profiles.contains_key(name) {
            ok = false;
            cx.at(
                msrc,
                at,
                format!(
                    "a budget for `{name}`, which is not a declared profile{}",
                    did_you_mean(name, m.profiles.keys())
                ),
            );
        }
    }
    ok
}
