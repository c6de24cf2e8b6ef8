//! The lint on an arbitrary skill file, against the bundled tatara surface: it must never
//! panic, and every finding must point inside the file, on character boundaries, at a line
//! and column that match its byte span.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use toolgate_lint::{Linter, Settings};
use toolgate_schema::Surface;

fn surface() -> &'static Surface {
    static SURFACE: OnceLock<Surface> = OnceLock::new();
    SURFACE.get_or_init(|| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../schema/tatara");
        let catalog = toolgate_schema::load_dir(dir.as_ref()).expect("the bundled catalog loads");
        Surface::from_catalog(&catalog)
    })
}

/// Line and column (1-based, code points) of byte `at`, computed the slow, obvious way (a
/// byte order mark is not a column).
fn position(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let line_start = before.rfind('\n').map_or(bom.min(at), |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let linter = Linter::new(surface(), Settings::default());
    let result = linter.lint_text("fuzz.md", &text, None);
    for f in &result.findings {
        assert!(
            f.span.start <= f.span.end && f.span.end <= text.len(),
            "{f:?}"
        );
        assert!(text.is_char_boundary(f.span.start) && text.is_char_boundary(f.span.end));
        assert!(f.call.end <= text.len());
        let (line, column) = position(&text, f.span.start);
        assert_eq!((f.start.line, f.start.column), (line, column), "{f:?}");
        let (line, column) = position(&text, f.span.end);
        assert_eq!((f.end.line, f.end.column), (line, column), "{f:?}");
        if let Some(edit) = &f.fix {
            assert!(text.get(edit.span.range()).is_some(), "{f:?}");
        }
    }
    // Fixing never touches a byte outside the edits' spans.
    let fixed = toolgate_lint::fix::apply(&text, &result.findings);
    if fixed.applied.is_empty() {
        assert_eq!(fixed.text, text);
    }
});
