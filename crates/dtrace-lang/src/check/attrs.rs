//! Stability attributes of what a program uses (see `crate::attr`).
//!
//! As DTrace computes them, an expression's attributes are the lowest
//! of its parts': constants, D's own types and variables and most
//! built-in identifiers are Stable/Stable/Common, so only what is less
//! stable lowers them: `curthread` (its data is Private), the
//! Evolving subroutines, kernel symbols and types (Private/Private/
//! Unknown), `args[]` and `probeprov`..`probename` (their provider's
//! attributes), inlines (their value's, or what a `#pragma D attributes`
//! says) and translations (their translator's members'). The checker
//! collects the lowest of a clause's statements and predicate as it
//! checks them; with the `amin` option set, each use below the minimum
//! is DTrace's D_ATTR_MIN error.

use super::{err, Checker};
use crate::attr::{Attr, DepClass, DescAttr, ProviderAttr, Stability};
use crate::error::{CompileError, Tag};
use crate::types::{Origin, Type};

/// The subroutines DTrace calls Evolving/Evolving/Common; every other
/// built-in function is Stable/Stable/Common.
const EVOLVING_FUNCS: &[&str] = &[
    "d_path",
    "ddi_pathname",
    "getmajor",
    "getminor",
    "htonl",
    "htonll",
    "htons",
    "mutex_owned",
    "mutex_owner",
    "mutex_type_adaptive",
    "mutex_type_spin",
    "ntohl",
    "ntohll",
    "ntohs",
    "rw_iswriter",
    "rw_read_held",
    "rw_write_held",
];

/// `curthread`: a stable name whose data is the kernel's own.
const CURTHREAD: Attr = Attr::new(Stability::Stable, Stability::Private, DepClass::Common);

/// A built-in function's attributes.
pub(super) fn func_attr(name: &str) -> Attr {
    if EVOLVING_FUNCS.contains(&name) {
        Attr::EVOLVING
    } else {
        Attr::STABLE
    }
}

/// The lowest of each part of two providers' attributes.
fn parts_min(a: ProviderAttr, b: ProviderAttr) -> ProviderAttr {
    ProviderAttr {
        provider: a.provider.min(b.provider),
        module: a.module.min(b.module),
        function: a.function.min(b.function),
        name: a.name.min(b.name),
        args: a.args.min(b.args),
    }
}

impl Checker<'_> {
    /// Uses something of attributes `a` (`what` names it as DTrace's
    /// messages do: `scalar curthread`, `function ntohl( )`): the
    /// attributes being collected take it, and under `amin` it must not
    /// be below the minimum.
    pub(super) fn use_attr(
        &mut self,
        a: Attr,
        what: impl FnOnce() -> String,
        line: u32,
    ) -> Result<(), CompileError> {
        if self.attr_quiet > 0 {
            return Ok(());
        }
        self.attr = self.attr.min(a);
        let floor = if self.clause_attrs.is_some() {
            self.amin_clauses
        } else {
            self.amin_here
        };
        match floor {
            Some(floor) if a.below(floor) => Err(below_minimum(&what(), a, line)),
            _ => Ok(()),
        }
    }

    /// Runs `f` collecting attributes afresh: its result and the lowest
    /// attributes of what it used (an inline's value, a translator's
    /// members).
    pub(super) fn attr_scope<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> (T, Attr) {
        let saved = std::mem::replace(&mut self.attr, Attr::STABLE);
        let out = f(self);
        (out, std::mem::replace(&mut self.attr, saved))
    }

    /// Runs `f` without collecting: a translator's member or an inline's
    /// value checked again where it is used counts as the translator or
    /// the inline, whose attributes were taken when it was defined.
    pub(super) fn attr_quietly<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.attr_quiet += 1;
        let out = f(self);
        self.attr_quiet -= 1;
        out
    }

    /// A type named in an expression (a cast, `sizeof`, `offsetof`,
    /// `xlate`): a kernel type's attributes are Private/Private/Unknown.
    pub(super) fn use_type(&mut self, t: &Type, line: u32) -> Result<(), CompileError> {
        if self.is_kernel_type(t) {
            return self.use_attr(Attr::PRIVATE, || format!("type {}", t), line);
        }
        Ok(())
    }

    fn is_kernel_type(&self, t: &Type) -> bool {
        match t {
            Type::Ptr(t) | Type::Array(t, _) | Type::Named(_, t) => self.is_kernel_type(t),
            Type::Record(r) => matches!(
                self.syms.types.record(r).origin,
                Origin::External(_) | Origin::Imported(_)
            ),
            Type::Enum(r, _) => matches!(
                self.syms.types.enum_def(r).origin,
                Origin::External(_) | Origin::Imported(_)
            ),
            _ => false,
        }
    }

    /// The attributes of an identifier the checker resolves by name, if
    /// they are not D's default (Stable/Stable/Common): `curthread`,
    /// `probeprov`..`probename` (their provider's parts), inlines and
    /// variables a `#pragma D attributes` names.
    pub(super) fn ident_attr(&self, name: &str) -> Option<Attr> {
        let parts = self.clause_attrs.map(|c| c.parts);
        match name {
            "curthread" => Some(CURTHREAD),
            "probeprov" => parts.map(|p| p.provider),
            "probemod" => parts.map(|p| p.module),
            "probefunc" => parts.map(|p| p.function),
            "probename" => parts.map(|p| p.name),
            _ => self
                .pragma_attrs
                .iter()
                .chain(&self.syms.inline_attrs)
                .find(|(n, _)| n == name)
                .map(|(_, a)| *a),
        }
    }

    /// Keeps an inline's attributes: its value's `attr`, or what a
    /// `#pragma D attributes` of the program defining it says.
    pub(super) fn keep_inline_attr(&mut self, name: &str, attr: Attr) {
        let attr = self
            .pragma_attrs
            .iter()
            .find(|(n, _)| n == name)
            .map_or(attr, |(_, a)| *a);
        self.syms.inline_attrs.retain(|(n, _)| n != name);
        self.syms.inline_attrs.push((name.to_string(), attr));
    }

    /// `args[]`: its provider's argument attributes.
    pub(super) fn args_attr(&self) -> Attr {
        self.clause_attrs.map_or(Attr::UNSTABLE, |c| c.parts.args)
    }

    /// Enters a clause: asks what its descriptions' attributes are and,
    /// under `amin`, refuses one below the minimum (DTrace checks the
    /// clause before anything in it, at its end); returns the lowest.
    pub(super) fn enter_clause_attrs(
        &mut self,
        descs: &[crate::pdesc::ProbeDesc],
        end_line: u32,
    ) -> Result<Attr, CompileError> {
        let mut lowest: Option<DescAttr> = None;
        for d in descs {
            let a = self.probes.desc_attributes(d);
            if let Some(floor) = self.amin_clauses {
                if a.desc.below(floor) {
                    return Err(below_minimum("clause", a.desc, end_line));
                }
            }
            lowest = Some(match lowest {
                None => a,
                Some(l) => DescAttr {
                    desc: l.desc.min(a.desc),
                    args: l.args.min(a.args),
                    parts: parts_min(l.parts, a.parts),
                },
            });
        }
        self.clause_attrs = lowest;
        self.attr = Attr::STABLE;
        Ok(lowest.map_or(Attr::UNSTABLE, |l| l.desc))
    }
}

fn below_minimum(what: &str, a: Attr, line: u32) -> CompileError {
    err(
        Tag::D_ATTR_MIN,
        line,
        format!(
            "attributes for {} ({}) are less than predefined minimum",
            what, a
        ),
    )
}
