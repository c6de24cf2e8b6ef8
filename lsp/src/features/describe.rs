//! Hover (a tool's or a field's description, parameters, the profiles that see it, former
//! names) and go to definition (a tool reference to its tool file).

use lsp_types::{
    GotoDefinitionParams, GotoDefinitionResponse, Hover, HoverContents, HoverParams, Location,
    MarkupContent, MarkupKind, Position, Range,
};

use super::at::{self, Place};
use crate::state::State;

/// `textDocument/hover`.
pub fn hover(state: &mut State, p: &HoverParams) -> Option<Hover> {
    let pos = &p.text_document_position_params;
    let place = at::place(state, &pos.text_document.uri, pos.position)?;
    let doc = state.docs.get(&pos.text_document.uri)?;
    let (start, end) = at::word_at(&place.text, place.offset);
    if start == end {
        return None;
    }
    let word = &place.text[start..end];
    let value = match at::tool_ref(&place.env, word) {
        Some(r) => tool_text(&place, &r),
        None => field_text(&place, word)?,
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(doc.lines.range(&doc.text, start, end, state.enc)),
    })
}

fn tool_text(place: &Place, r: &at::ToolRef<'_>) -> String {
    let t = r.tool;
    let server = &place.env.servers[r.server];
    let entry = at::entry_for(t, place.profiles.as_deref()).or(t.entries.first());
    let mut out = format!("**{}** ({} tool)", t.name, server.name);
    if let Some(e) = entry {
        if let Some(title) = &e.title {
            out.push_str(&format!(": {title}"));
        }
        out.push_str(&format!("\n\n{}\n", e.description));
        let (props, required) = at::properties(&e.input_schema);
        if !props.is_empty() {
            out.push_str("\nParameters:\n");
            for (n, s) in props {
                let req = if required.contains(n) {
                    " (required)"
                } else {
                    ""
                };
                let values = at::allowed_values(s);
                let values = if values.is_empty() {
                    String::new()
                } else {
                    format!(": one of {}", quoted(&values))
                };
                let desc = s
                    .description
                    .as_deref()
                    .map(|d| format!(" — {d}"))
                    .unwrap_or_default();
                out.push_str(&format!("- `{n}`{req}{values}{desc}\n"));
            }
        }
    }
    if at::knows_profiles(&server.surface) {
        let mut seen: Vec<&str> = t
            .entries
            .iter()
            .flat_map(|e| e.profiles.iter().map(String::as_str))
            .collect();
        if t.always_on {
            out.push_str("\nProfiles: every session (always on)\n");
        } else {
            seen.dedup();
            out.push_str(&format!(
                "\nProfiles: {}\n",
                if seen.is_empty() {
                    "none".to_string()
                } else {
                    quoted(&seen)
                }
            ));
        }
    }
    if !t.formerly.is_empty() {
        out.push_str(&format!("\nFormerly: {}\n", quoted(&t.formerly)));
    }
    out
}

fn quoted<S: AsRef<str>>(names: &[S]) -> String {
    names
        .iter()
        .map(|n| format!("`{}`", n.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A field of the call around the cursor.
fn field_text(place: &Place, word: &str) -> Option<String> {
    let call = at::enclosing_call(&place.text, place.offset)?;
    let r = at::tool_ref(&place.env, &place.text[call.name.0..call.name.1])?;
    let entry = at::entry_for(r.tool, place.profiles.as_deref()).or(r.tool.entries.first())?;
    let (props, required) = at::properties(&entry.input_schema);
    let (name, schema) = props.iter().find(|(n, _)| n == word)?;
    let mut out = format!(
        "**{name}** of `{}`{}",
        r.tool.name,
        if required.contains(name) {
            " (required)"
        } else {
            ""
        }
    );
    if let Some(d) = &schema.description {
        out.push_str(&format!("\n\n{d}\n"));
    }
    let values = at::allowed_values(schema);
    if !values.is_empty() {
        out.push_str(&format!("\nValues: {}\n", quoted(&values)));
    }
    let former: Vec<&str> = entry
        .formerly_fields
        .iter()
        .filter(|(field, _)| field == name)
        .flat_map(|(_, old)| old.iter().map(String::as_str))
        .collect();
    if !former.is_empty() {
        out.push_str(&format!("\nFormerly: {}\n", quoted(&former)));
    }
    Some(out)
}

/// `textDocument/definition`: the tool file of the tool under the cursor.
pub fn definition(state: &mut State, p: &GotoDefinitionParams) -> Option<GotoDefinitionResponse> {
    let pos = &p.text_document_position_params;
    let place = at::place(state, &pos.text_document.uri, pos.position)?;
    let (start, end) = at::word_at(&place.text, place.offset);
    let r = at::tool_ref(&place.env, place.text.get(start..end)?)?;
    let file = place.env.servers[r.server].tool_files.get(&r.tool.name)?;
    let uri = crate::uri::from_path(file)?;
    // The tool's `"name"` line when the file is readable; its start otherwise.
    let range = std::fs::read_to_string(file)
        .ok()
        .and_then(|text| {
            let needle = format!("\"{}\"", r.tool.name);
            let at = text.find(&needle)?;
            let line = text[..at].matches('\n').count() as u32;
            Some(Range::new(Position::new(line, 0), Position::new(line, 0)))
        })
        .unwrap_or_default();
    Some(GotoDefinitionResponse::Scalar(Location::new(uri, range)))
}
