//! `$defs` (and draft-07 `definitions`) as named types.
//!
//! The model resolves every `$ref` (so it validates without a document); the generator
//! follows the authored schema beside it, and where a schema is a `$ref` to a definition of
//! its tool file (`#/$defs/NAME`, `#/definitions/NAME`) its type is the definition's: one
//! type per definition, named after its key as typify names it (`UpperCamelCase` of the key:
//! `#/$defs/tree_node` is `TreeNode`), generated at its first use and reused by every other.
//! Its doc comment is the definition's `title` and `description`; the types nested in it are
//! named after it (`TreeNodeKind`).
//!
//! The name is the key's, never suffixed: a definition whose name another type of the tool's
//! module already has (an inline type, another definition, a definition of another variant
//! of the tool that says something else) is an error naming both. A use is the definition's
//! type only when nothing beside the `$ref` changes what it accepts (`title`, `description`,
//! `default` and annotations may be there); otherwise, and where a restricted cell narrows a
//! field, the schema gets a type of its own, named after its place as any inline schema is.
//! A definition that is a `$ref` itself is the type of what it names; one whose type is not a
//! generated type (a string, an array, ...) is that Rust type.
//!
//! A definition that refers to itself, directly or through others, is boxed where the
//! reference closes the cycle (`children: Vec<Box<Node>>`). Whether such a type has the
//! lifetime `'a` must be known before it is generated, since it names itself: a tool with a
//! recursive schema is generated a first time (its errors discarded) to learn which of its
//! definitions hold strings, until that no longer changes, then for good.

use super::super::Loc;
use super::super::naming::camel_ident_text;
use super::{Module, Ty};
use toolgate_schema::json::{Map, Value};
use toolgate_schema::locate::{Pointer, Seg};
use toolgate_schema::model::{Schema, walk};

/// A definition's type in its tool's module.
pub(super) struct DefType {
    /// The file of the variant whose schema holds the definition.
    file: String,
    /// The `$ref` that names it (`#/$defs/Node`).
    reference: String,
    /// Its Rust name.
    name: String,
    /// Its schema, as a `$ref` to it resolves.
    schema: Schema,
    /// Its type; `None` while it is being generated (a reference to it then closes a cycle).
    ty: Option<Ty>,
    /// Whether it has the lifetime `'a`, as known before generating it: what a reference
    /// that closes a cycle names.
    borrows: bool,
    /// Whether a reference closed a cycle through it (and was boxed).
    cyclic: bool,
}

/// A definition, by its variant's file and its `$ref`.
pub(crate) type DefKey = (String, String);

/// The container and key of a `$ref` to a definition (`#/$defs/Node`: `$defs`, `Node`).
fn definition_key(reference: &str) -> Option<(&'static str, String)> {
    let pointer = Pointer::parse_fragment(reference)?;
    match pointer.0.as_slice() {
        [Seg::Key(container), Seg::Key(key)] => {
            let container = match container.as_str() {
                "$defs" => "$defs",
                "definitions" => "definitions",
                _ => return None,
            };
            Some((container, key.clone()))
        }
        _ => None,
    }
}

impl Module<'_> {
    /// The authored JSON at `loc`, when it is in the file of the variant being generated.
    fn authored_at(&self, loc: &Loc) -> Option<&Value> {
        let variant = self.tool.variants.get(self.variant)?;
        if loc.file != variant.file {
            return None;
        }
        let (first, rest) = loc.pointer.0.split_first()?;
        let Seg::Key(first) = first else {
            return None;
        };
        walk(variant.authored.get(first)?, &Pointer(rest.to_vec()))
    }

    /// The `$ref` of the authored schema at `loc`, when it is a plain use of a definition:
    /// nothing beside it changes what it accepts (`schema` is the use, resolved: a keyword
    /// beside a `$ref` lands in its `extra`).
    pub(super) fn plain_ref_at(&self, schema: Option<&Schema>, loc: &Loc) -> Option<String> {
        let authored = self.authored_at(loc)?.as_object()?;
        let reference = authored.get("$ref")?.as_str()?;
        definition_key(reference)?;
        let plain = authored.iter().all(|(k, _)| {
            matches!(k, "$ref" | "title" | "description" | "default")
                || schema.is_none_or(|s| !s.extra.iter().any(|(e, _)| e == k))
        });
        plain.then(|| reference.to_string())
    }

    /// The key of the definition the alternative at `loc` plainly is, to name its variant.
    pub(super) fn definition_name_at(&self, loc: &Loc) -> Option<String> {
        let reference = self.plain_ref_at(None, loc)?;
        definition_key(&reference).map(|(_, key)| key)
    }

    /// The type of `schema` at `path` and `loc` when it is a plain use of a definition (and
    /// not a field a restricted cell narrows): the definition's named type.
    pub(super) fn def_use(&mut self, schema: &Schema, path: &str, loc: &Loc) -> Option<Ty> {
        let reference = self.plain_ref_at(Some(schema), loc)?;
        if self.narrowed.iter().any(|f| f == path) {
            return None;
        }
        self.def_type(&reference)
    }

    /// The type of the definition `reference` names in the current variant's schema,
    /// generated on its first use; while it is being generated, a boxed reference to it.
    /// `None` for a reference to anything but a definition.
    pub(super) fn def_type(&mut self, reference: &str) -> Option<Ty> {
        let variant = self.tool.variants.get(self.variant)?;
        let file = variant.file.clone();
        if let Some(t) = self.known_def(&file, reference) {
            return Some(t);
        }
        let (container, key) = definition_key(reference)?;
        variant.authored.get("inputSchema")?;
        let def_loc = Loc::new(
            &file,
            Pointer::root().key("inputSchema").key(container).key(&key),
        );
        // The schema a `$ref` to it resolves to (its own recursive references kept), read in
        // the tool's dialect.
        let mut m = Map::new();
        m.insert("$ref", Value::str(reference));
        let schema = self.parse_sub(&Value::Object(m))?;
        let name = match camel_ident_text(&key) {
            Ok(n) => n,
            Err(why) => {
                self.errs.at(&def_loc, format!("definition name {why}"));
                return None;
            }
        };
        // The same definition in another variant's file: its type, when it says the same.
        let same = self
            .defs
            .iter()
            .find(|d| d.reference == reference && d.name == name && d.schema == schema)
            .and_then(|d| d.ty.clone());
        let borrows = self.hints.iter().any(|(f, r)| *f == file && r == reference);
        let index = self.defs.len();
        self.defs.push(DefType {
            file: file.clone(),
            reference: reference.to_string(),
            name: name.clone(),
            schema: schema.clone(),
            ty: same.clone(),
            borrows,
            cyclic: false,
        });
        if let Some(t) = same {
            return Some(t);
        }
        let ty = match self.plain_ref_at(Some(&schema), &def_loc) {
            // An alias: the type of what it names.
            Some(target) => self.def_type(&target).unwrap_or(Ty::Any),
            None => self.ty(&schema, &name, &format!("#/{container}/{key}"), &def_loc),
        };
        let cyclic = self.defs.get(index).is_some_and(|d| d.cyclic);
        if let Some(d) = self.defs.get_mut(index) {
            d.ty = Some(ty.clone());
        }
        if ty.borrows() {
            self.found.push((file, reference.to_string()));
        }
        if cyclic && !self.cycle_typed(&ty, &name, borrows, reference, &def_loc) {
            return Some(Ty::Any);
        }
        Some(ty)
    }

    /// The type of a definition already met in this file: its type, or, while it is
    /// being generated (a cycle closing), a boxed reference to it.
    fn known_def(&mut self, file: &str, reference: &str) -> Option<Ty> {
        let d = self
            .defs
            .iter_mut()
            .find(|d| d.file == file && d.reference == reference)?;
        Some(match &d.ty {
            Some(t) => t.clone(),
            None => {
                d.cyclic = true;
                Ty::Boxed(Box::new(Ty::Struct(d.name.clone(), d.borrows)))
            }
        })
    }

    /// Whether a definition that refers to itself got a type that can (a named struct or
    /// union); an error at the definition when not, or when whether it holds strings was
    /// not decided (`borrows`, the guess it was generated with, differs).
    fn cycle_typed(
        &mut self,
        ty: &Ty,
        name: &str,
        borrows: bool,
        reference: &str,
        def_loc: &Loc,
    ) -> bool {
        let named = match ty {
            Ty::Struct(n, _) | Ty::Union(n, _) => *n == name,
            _ => false,
        };
        if !named {
            self.errs.at(
                def_loc,
                format!(
                    "catalog! cannot type the definition {reference} of tool `{}`: it refers to itself, and only an object or a union of alternatives (`anyOf`/`oneOf`) can",
                    self.tool.name
                ),
            );
            return false;
        }
        if ty.borrows() != borrows {
            self.errs.at(
                def_loc,
                format!(
                    "catalog! could not decide whether the recursive definition {reference} of tool `{}` holds strings",
                    self.tool.name
                ),
            );
        }
        true
    }
}
