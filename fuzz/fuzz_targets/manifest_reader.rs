//! The manifest reader (toolgate and tatara formats) on arbitrary bytes; a manifest that
//! reads must write back and read again to the same surface, and diff as empty against itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolgate_schema::Surface;
use toolgate_schema::diff::{Bump, diff};

fuzz_target!(|data: &[u8]| {
    let Ok(surface) = Surface::from_manifest("fuzz.json".as_ref(), data) else {
        return;
    };
    assert_eq!(diff(&surface, &surface).bump, Bump::None);
    if surface.origin == toolgate_schema::Origin::Full {
        let text = toolgate_schema::json::to_pretty(&surface.manifest_json());
        let again = Surface::from_manifest("again.json".as_ref(), text.as_bytes())
            .expect("a written manifest reads back");
        assert_eq!(again, surface);
    }
});
