//! Completion: tool names (after a configured prefix, or where a call starts), a call's
//! fields not yet written (required ones first), a field's `enum`/`const` values inside its
//! quotes, and profile names in the front matter's `profiles:`; only what the file's
//! profiles are served.

use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionParams, CompletionResponse, Documentation,
    MarkupContent, MarkupKind,
};

use super::at::{self, Place};
use crate::state::State;

/// `textDocument/completion`.
pub fn completion(state: &mut State, p: &CompletionParams) -> Option<CompletionResponse> {
    let pos = &p.text_document_position;
    let place = at::place(state, &pos.text_document.uri, pos.position)?;
    let items = if let Some(items) = profiles(&place) {
        items
    } else if let Some(call) = at::enclosing_call(&place.text, place.offset) {
        inside_call(&place, &call).unwrap_or_default()
    } else {
        tools(&place)
    };
    Some(CompletionResponse::Array(items))
}

fn markdown(value: String) -> Documentation {
    Documentation::MarkupContent(MarkupContent {
        kind: MarkupKind::Markdown,
        value,
    })
}

/// Profile names, on the front matter's `profiles:` line (or a list item under it).
fn profiles(place: &Place) -> Option<Vec<CompletionItem>> {
    let (body_start, yaml) = at::front_matter(&place.text)?;
    if place.offset < yaml.start || place.offset >= body_start {
        return None;
    }
    let line_start = place.text[..place.offset].rfind('\n').map_or(0, |i| i + 1);
    let line = &place.text[line_start..place.offset];
    let on_key =
        line.trim_start().starts_with("profiles:") || line.trim_start().starts_with("profile:");
    let in_list = line.trim_start().starts_with("- ") && {
        let above = &place.text[yaml.start..line_start];
        above
            .lines()
            .rev()
            .find(|l| !l.trim_start().starts_with("- "))
            .is_some_and(|l| l.trim_start().starts_with("profiles:"))
    };
    if !on_key && !in_list {
        return None;
    }
    let written = place.profiles.clone().unwrap_or_default();
    let surface = &place.env.servers[0].surface;
    Some(
        surface
            .profiles
            .iter()
            .filter(|p| !written.contains(&p.name))
            .map(|p| CompletionItem {
                label: p.name.clone(),
                kind: Some(CompletionItemKind::ENUM_MEMBER),
                detail: Some(format!("profile of {}", surface.catalog)),
                documentation: Some(markdown(p.description.clone())),
                ..CompletionItem::default()
            })
            .collect(),
    )
}

/// Tool names: after a prefix, that server's tools; at the start of a name, the first
/// server's (and, where the typed text starts a prefix, the prefixed names too).
fn tools(place: &Place) -> Vec<CompletionItem> {
    let (start, _) = at::word_at(&place.text, place.offset);
    let typed = &place.text[start..place.offset];
    let mut out = Vec::new();
    let env = &place.env;
    let prefixed = at::server_of(env, typed).filter(|&(_, len)| len > 0);
    for (si, server) in env.servers.iter().enumerate() {
        // After a prefix, only its server; with none written, the first server bare.
        let prefix_text = match prefixed {
            Some((s, len)) if s == si => Some(typed[..len].to_string()),
            Some(_) => continue,
            None if si == 0 => Some(String::new()),
            None => None,
        };
        let Some(prefix_text) = prefix_text else {
            continue;
        };
        if prefixed.is_none() && typed.is_empty() && !at_call_start(&place.text, start) {
            continue;
        }
        for t in &server.surface.tools {
            let Some(entry) = at::entry_for(t, place.profiles.as_deref()) else {
                continue;
            };
            let label = format!("{prefix_text}{}", t.name);
            if !label.starts_with(typed) {
                continue;
            }
            out.push(CompletionItem {
                label,
                kind: Some(CompletionItemKind::FUNCTION),
                detail: entry
                    .title
                    .clone()
                    .or(Some(format!("{} tool", server.name))),
                documentation: Some(markdown(entry.description.clone())),
                ..CompletionItem::default()
            });
        }
    }
    out
}

/// Whether a name may start a call at `start`: the start of a line (after a list bullet),
/// after a backtick, or after a space.
fn at_call_start(text: &str, start: usize) -> bool {
    let before = text[..start].trim_end_matches(' ');
    before.is_empty()
        || before.ends_with(['\n', '`', '-', '*', '>', ':', '('])
        || start > before.len()
}

/// Inside a call's parentheses or braces: the values of the field whose quotes hold the
/// cursor, else the fields not yet written.
fn inside_call(place: &Place, call: &at::Call) -> Option<Vec<CompletionItem>> {
    let name = &place.text[call.name.0..call.name.1];
    let r = at::tool_ref(&place.env, name)?;
    let entry = at::entry_for(r.tool, place.profiles.as_deref())?;
    let (props, required) = at::properties(&entry.input_schema);
    if let Some(field) = at::field_of_value(&place.text, call, place.offset) {
        let schema = props.iter().find(|(n, _)| *n == field).map(|(_, s)| s)?;
        return Some(
            at::allowed_values(schema)
                .into_iter()
                .map(|v| CompletionItem {
                    label: v,
                    kind: Some(CompletionItemKind::ENUM_MEMBER),
                    detail: Some(format!("`{field}` of {}", r.tool.name)),
                    ..CompletionItem::default()
                })
                .collect(),
        );
    }
    let end = call.close.unwrap_or(place.text.len()).max(call.open + 1);
    let written = at::written_fields(&place.text[call.open + 1..end]);
    let (typed_start, _) = at::word_at(&place.text, place.offset);
    let typed = &place.text[typed_start..place.offset];
    let mut items: Vec<CompletionItem> = props
        .iter()
        .filter(|(n, _)| !written.iter().any(|w| w == n && w != typed))
        .map(|(n, s)| {
            let req = required.contains(n);
            CompletionItem {
                label: n.clone(),
                kind: Some(CompletionItemKind::FIELD),
                detail: Some(if req {
                    "required".to_string()
                } else {
                    "optional".to_string()
                }),
                documentation: s.description.clone().map(markdown),
                sort_text: Some(format!("{}{n}", if req { 0 } else { 1 })),
                ..CompletionItem::default()
            }
        })
        .collect();
    items.sort_by(|a, b| a.sort_text.cmp(&b.sort_text));
    Some(items)
}
