//! The argument parser on an arbitrary argument list (the input follows an opening `(`): bounded, never panics, and every span
//! it reports lies inside the text on character boundaries.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolgate_lint::args::parse_standalone;

fuzz_target!(|data: &[u8]| {
    // What the scanner hands the parser: the text from a `(` on.
    let text = format!("({}", String::from_utf8_lossy(data));
    let args = parse_standalone(&text);
    let ok = |s: toolgate_lint::Span| {
        s.start <= s.end
            && s.end <= text.len()
            && text.is_char_boundary(s.start)
            && text.is_char_boundary(s.end)
    };
    for item in &args.items {
        assert!(ok(item.span), "{item:?}");
    }
    for (name, value) in args.pairs() {
        assert!(ok(name) && ok(value.span), "{name:?} {value:?}");
        let _ = value.string(&text);
    }
    if let Some(close) = args.close {
        assert!(close < text.len());
    }
});
