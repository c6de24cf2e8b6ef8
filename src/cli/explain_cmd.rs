//! `toolgate explain RULE`: what a lint rule or an audit rule reports, why, and how to fix it.

use clap::Args;

use super::{EXIT_ERROR, print_stdout};
use toolgate_lint::rules::Rule;
use toolgate_schema::audit;

/// `toolgate explain audit-allow`: how to allow an audit finding.
const AUDIT_ALLOW: &str = "audit-allow

An audit finding that is not a danger (a status tool that posts to its own server, a
security scanner that names what it detects) is allowed in toolgate.toml, for one rule on
one tool, with a reason; an allow without a reason is an error:

  [[audit.allow]]
  rule = \"exfiltration-target\"
  tool = \"report_status\"
  server = \"status\"        # optional: only that server's tool (a toolgate.lock key)
  reason = \"posts to our own status page, by design\"

`toolgate audit` reads the toolgate.toml found upward from the current folder, or
--config FILE. An allowed finding is not printed and does not count toward the exit code.
";

/// Arguments of `toolgate explain`.
#[derive(Args, Debug)]
#[command(
    after_help = "Without RULE, lists every rule with one line about it. `toolgate explain host-limits` prints the hosts' limits that `toolgate check` applies, each with its source."
)]
pub struct ExplainArgs {
    /// A rule name, such as `unknown-field` or `secrecy-directive`, or `host-limits`.
    rule: Option<String>,
}

/// `toolgate explain`
pub fn explain(args: &ExplainArgs) -> u8 {
    match &args.rule {
        None => {
            let mut s = String::new();
            for r in Rule::ALL {
                s.push_str(&format!("{:<22}{}\n", r.name(), r.summary()));
            }
            s.push_str(&format!(
                "{:<22}{}\n",
                "host-limits", "the hosts' limits `toolgate check` holds each profile to"
            ));
            s.push_str("\nAudit rules (`toolgate audit`):\n");
            for r in audit::RULES {
                s.push_str(&format!(
                    "{:<26}{:<8} {}\n",
                    r.name,
                    r.severity.as_str(),
                    r.summary
                ));
            }
            s.push_str(&format!(
                "{:<26}how to allow an audit finding\n",
                "audit-allow"
            ));
            print_stdout(&s)
        }
        Some(name) if name == "host-limits" => print_stdout(&toolgate_schema::hosts::explain()),
        Some(name) if name == "audit-allow" => print_stdout(AUDIT_ALLOW),
        Some(name) if audit::rule(name).is_some() => print_stdout(&format!(
            "{}\n",
            audit::rule(name).map_or("", |r| r.explain)
        )),
        Some(name) => match Rule::from_name(name) {
            Some(r) => print_stdout(r.explanation()),
            None => {
                eprintln!(
                    "error: unknown rule `{name}`{}; rules: {}",
                    toolgate_schema::suggest::did_you_mean(
                        name,
                        Rule::ALL
                            .map(Rule::name)
                            .into_iter()
                            .chain(audit::RULES.iter().map(|r| r.name))
                    ),
                    Rule::ALL
                        .map(Rule::name)
                        .into_iter()
                        .chain(audit::RULES.iter().map(|r| r.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                EXIT_ERROR
            }
        },
    }
}
