//! `toolgate explain RULE`: what a lint rule reports, why, and how to fix it.

use clap::Args;

use super::{EXIT_ERROR, print_stdout};
use toolgate_lint::rules::Rule;

/// Arguments of `toolgate explain`.
#[derive(Args, Debug)]
#[command(
    after_help = "Without RULE, lists every rule with one line about it. `toolgate explain host-limits` prints the hosts' limits that `toolgate check` applies, each with its source."
)]
pub struct ExplainArgs {
    /// A rule name, such as `unknown-field`, or `host-limits`.
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
            print_stdout(&s)
        }
        Some(name) if name == "host-limits" => print_stdout(&toolgate_schema::hosts::explain()),
        Some(name) => match Rule::from_name(name) {
            Some(r) => print_stdout(r.explanation()),
            None => {
                eprintln!(
                    "error: unknown rule `{name}`{}; rules: {}",
                    toolgate_schema::suggest::did_you_mean(name, Rule::ALL.map(Rule::name)),
                    Rule::ALL.map(Rule::name).join(", ")
                );
                EXIT_ERROR
            }
        },
    }
}
