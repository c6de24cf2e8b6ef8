//! `--format full`: rustc-style snippets, rendered by annotate-snippets.

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use crate::finding::Finding;
use crate::rules::Severity;
use crate::text::LineIndex;

/// Renders the findings of one file; `text` is the file's content. With `color`, the
/// snippets carry ANSI colours (as rustc's do in a terminal).
pub fn render(text: &str, findings: &[Finding], color: bool) -> String {
    if findings.is_empty() {
        return String::new();
    }
    let lines = LineIndex::new(text);
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut out = String::new();
    for f in findings {
        let first = lines.line_of(f.span.start);
        let last = lines.line_of(f.span.end.saturating_sub(1).max(f.span.start));
        let start = lines.line_span(text, first).start;
        let end = lines.line_span(text, last).end.max(start);
        let source = &text[start..end];
        let rel = f.span.start.saturating_sub(start).min(source.len())
            ..(f.span.end.saturating_sub(start)).min(source.len());
        let label = match &f.suggestion {
            Some(s) => format!("did you mean `{s}`?"),
            None => String::new(),
        };
        let level = match f.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
        };
        let mut annotation = AnnotationKind::Primary.span(rel);
        if !label.is_empty() {
            annotation = annotation.label(label);
        }
        let mut report = vec![
            level
                .primary_title(f.message.as_str())
                .id(f.rule.name())
                .element(
                    Snippet::source(source)
                        .line_start(first + 1)
                        .path(f.path.as_str())
                        .annotation(annotation),
                ),
        ];
        if let Some(fix) = &f.fix {
            report.push(Group::with_title(Level::HELP.secondary_title(format!(
                "the catalog declares this rename: write `{}`",
                fix.replacement
            ))));
        }
        out.push_str(&renderer.render(&report));
        out.push_str("\n\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use toolgate_schema::Surface;

    use crate::lint::{Linter, Settings};

    fn rendered(text: &str) -> String {
        let catalog = toolgate_generated::load_bundled("tatara")
            .and_then(Result::ok)
            .expect("the bundled tatara catalog");
        let surface = Surface::from_catalog(&catalog);
        let linter = Linter::new(&surface, Settings::default());
        let lint = linter.lint_text("skills/demo/SKILL.md", text, None);
        super::render(text, &lint.findings, false)
    }

    #[test]
    fn snapshot_of_every_kind_of_span() {
        let text = "---\nprofiles: [\"refine\", \"clarfy\"]\n---\n\n| step | call |\n|---|---|\n| open | `mr_write(action=\"open\"\\|\"comment\", number=\"7\")` |\n\n```\nmemory_edges(\n  op=\"create\",\n  from_entity=\"<A>\",\n)\nreview_verdikt(decision=\"approve\")\n```\n";
        insta::assert_snapshot!(rendered(text));
    }
}
