//! `file:` URIs and paths, both ways. Hand-written (percent-decoding a path, encoding the
//! few bytes a path may hold that a URI may not) rather than pulling in the `url` crate and
//! its IDNA tables for what is only ever a local file's name.

use std::path::{Path, PathBuf};

use lsp_types::Uri;

/// The path of a `file:` URI (`None` for another scheme, a remote host, or a name that is
/// not UTF-8 once decoded).
pub fn to_path(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let rest = s.strip_prefix("file://")?;
    // `file:///p` (empty authority) or `file://localhost/p`.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let decoded = percent_decode(rest)?;
    // `file:///C:/x` on Windows.
    #[cfg(windows)]
    let decoded = decoded
        .strip_prefix('/')
        .filter(|d| d.as_bytes().get(1) == Some(&b':'))
        .map(str::to_string)
        .unwrap_or(decoded);
    Some(PathBuf::from(decoded))
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The `file:` URI of an absolute path.
pub fn from_path(path: &Path) -> Option<Uri> {
    let abs = std::path::absolute(path).ok()?;
    let s = abs.to_str()?.replace('\\', "/");
    let mut out = String::from("file://");
    if !s.starts_with('/') {
        out.push('/');
    }
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~:@!$&'()*+,;=".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_round_trip_through_uris() {
        for p in ["/a/b c/SKILL.md", "/x/é/%25.md", "/tmp/a#b?.md"] {
            let uri = from_path(Path::new(p)).expect("uri");
            assert_eq!(
                to_path(&uri).as_deref(),
                Some(Path::new(p)),
                "{}",
                uri.as_str()
            );
        }
        let u: Uri = "untitled:Untitled-1".parse().expect("uri");
        assert_eq!(to_path(&u), None);
        let u: Uri = "file:///a/%FF".parse().expect("uri");
        assert_eq!(to_path(&u), None);
    }
}
