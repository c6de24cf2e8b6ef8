//! A server author's crate: the catalog in `catalog/` expanded twice, once naming the run
//! time by its default path and once through a re-export (`crate = path`).

/// The catalog, generated code naming `::toolgate_runtime`.
pub mod library {
    toolgate_macros::catalog!("catalog");
}

/// The run time as an SDK crate would re-export it.
pub mod sdk {
    pub use toolgate_runtime::*;
}

/// The same catalog, generated code naming the run time through [`sdk`].
pub mod via_sdk {
    toolgate_macros::catalog!("catalog", crate = crate::sdk);
}

/// A handler of every tool, answering with what it was given.
pub struct Desk;

impl library::AlwaysOnHandler for Desk {
    type Output = String;
    fn book_find(&self, arguments: library::book_find::Args) -> String {
        format!("find {} (at most {})", arguments.title, arguments.limit)
    }
}

impl library::ReaderHandler for Desk {
    fn hold_place(&self, arguments: library::hold_place::Args) -> String {
        format!("hold {} for {}", arguments.book, arguments.reader)
    }
    fn loan_write(&self, arguments: library::loan_write::ReaderArgs) -> String {
        format!("{} {}", arguments.action, arguments.book)
    }
}

impl library::LibrarianHandler for Desk {
    fn hold_place(&self, arguments: library::hold_place::Args) -> String {
        format!(
            "hold {} for {} (at the desk)",
            arguments.book, arguments.reader
        )
    }
    fn loan_write(&self, arguments: library::loan_write::Args) -> String {
        format!("{} {} (at the desk)", arguments.action, arguments.book)
    }
}
