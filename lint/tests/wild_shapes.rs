//! Names shaped like a configured server's tools, on the real surfaces of
//! `../shared/anchors/wild/`: which servers' tool names share a pattern, and what the lint
//! reports for an unprefixed name of that pattern the server does not have. Skipped, with
//! a message, when `../shared` is not checked out.

use std::path::{Path, PathBuf};

use toolgate_lint::servers::{tool_shape, tools_list_surface};
use toolgate_lint::{Linter, Rule, Settings};

fn wild() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/anchors/wild");
    let ok = root.join("playwright-mcp.tools.json").is_file();
    if !ok {
        eprintln!("skipped: ../shared/anchors/wild is not here");
    }
    ok.then_some(root)
}

fn surface(root: &Path, file: &str) -> toolgate_schema::Surface {
    let path = root.join(file);
    tools_list_surface(&path, &std::fs::read(&path).unwrap()).unwrap()
}

#[test]
fn the_ten_surfaces_and_their_shapes() {
    let Some(root) = wild() else { return };
    let expected = [
        ("mcp-server-fetch.tools.json", None),
        ("mcp-server-git.tools.json", Some("git_")),
        ("mcp-server-time.tools.json", None),
        ("playwright-mcp-allcaps.tools.json", Some("browser_")),
        ("playwright-mcp.tools.json", Some("browser_")),
        ("server-everything-clientcaps.tools.json", None),
        ("server-everything.tools.json", None),
        ("server-filesystem.tools.json", None),
        ("server-memory.tools.json", None),
        ("server-sequential-thinking.tools.json", None),
        ("github-mcp-server/tools.json", None),
    ];
    for (file, shape) in expected {
        let s = surface(&root, file);
        let got = tool_shape(s.tools.iter().map(|t| t.name.as_str()));
        assert_eq!(got.as_deref(), shape, "{file}");
    }
}

#[test]
fn unprefixed_names_of_playwrights_shape() {
    let Some(root) = wild() else { return };
    let s = surface(&root, "playwright-mcp.tools.json");
    let linter = Linter::new(
        &s,
        Settings {
            server: Some("playwright".to_string()),
            ..Settings::default()
        },
    );
    // A chat mode, in the words of this test: stale names in its tool list, a JSON payload
    // and two calls; current ones beside them, a prose mention, a host tool and a pattern.
    let text = "---\ndescription: drive the browser\ntools: ['browser_navigate', 'browser_tab_new', 'runCommands']\n---\n\
Open the page with `browser_navigate(url: \"https://example.org\")`, then\n\
`browser_screenshot({ path: \"page.png\" })` and `browser_fill({ selector: \"#q\" })`.\n\n\
```json\n{\"tool_name\": \"browser_install\", \"arguments\": {}}\n```\n\n\
The old browser_pdf_save tool is gone; any browser_* tool may be used.\n\
`browser_take_screenshot(filename: \"a.png\", scale: \"css\")`\n";
    let lint = linter.lint_text(".github/chatmodes/web.chatmode.md", text, None);
    let unknown: Vec<&str> = lint
        .findings
        .iter()
        .filter(|f| f.rule == Rule::UnknownTool)
        .map(|f| f.tool.as_deref().unwrap())
        .collect();
    assert_eq!(
        unknown,
        [
            "browser_tab_new",
            "browser_screenshot",
            "browser_fill",
            "browser_install"
        ],
        "{:#?}",
        lint.findings
    );
    let shot = lint
        .findings
        .iter()
        .find(|f| f.tool.as_deref() == Some("browser_screenshot"))
        .unwrap();
    assert_eq!(shot.suggestion.as_deref(), Some("browser_take_screenshot"));
    // No current tool is called unknown.
    for f in &lint.findings {
        let t = f.tool.as_deref().unwrap_or("");
        assert!(f.rule != Rule::UnknownTool || s.tool(t).is_none(), "{f:?}");
    }
}
