//! Stability attributes, DTrace's way of saying how far a program may
//! rely on what it names: each identifier, type and probe description
//! has a stability for its name, one for its data semantics, and a
//! dependency class. An expression's attributes are the lowest of what
//! it uses, a clause's the lowest of its statements' and its
//! predicate's; `dtrace -v` reports them and the `amin` option refuses a
//! program that relies on anything below a minimum.

use std::fmt;

use crate::pdesc::ProbeDesc;

/// How stable a name or its meaning is, lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stability {
    Internal,
    Private,
    Obsolete,
    External,
    Unstable,
    Evolving,
    Stable,
    Standard,
}

/// What a program depends on when it uses something, narrowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DepClass {
    Unknown,
    Cpu,
    Platform,
    Group,
    Isa,
    Common,
}

/// The stability names, in order (as `dtrace -v` prints them).
pub const STABILITY_NAMES: [&str; 8] = [
    "Internal", "Private", "Obsolete", "External", "Unstable", "Evolving", "Stable", "Standard",
];
/// The dependency class names, in order.
pub const CLASS_NAMES: [&str; 6] = ["Unknown", "CPU", "Platform", "Group", "ISA", "Common"];

const STABILITIES: [Stability; 8] = [
    Stability::Internal,
    Stability::Private,
    Stability::Obsolete,
    Stability::External,
    Stability::Unstable,
    Stability::Evolving,
    Stability::Stable,
    Stability::Standard,
];
const CLASSES: [DepClass; 6] = [
    DepClass::Unknown,
    DepClass::Cpu,
    DepClass::Platform,
    DepClass::Group,
    DepClass::Isa,
    DepClass::Common,
];

impl Stability {
    pub fn name(self) -> &'static str {
        STABILITY_NAMES[self as usize]
    }

    pub fn from_name(s: &str) -> Option<Stability> {
        STABILITY_NAMES
            .iter()
            .position(|n| *n == s)
            .map(|i| STABILITIES[i])
    }
}

impl DepClass {
    pub fn name(self) -> &'static str {
        CLASS_NAMES[self as usize]
    }

    pub fn from_name(s: &str) -> Option<DepClass> {
        CLASS_NAMES.iter().position(|n| *n == s).map(|i| CLASSES[i])
    }
}

/// Identifier-name stability, data stability and dependency class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Attr {
    pub name: Stability,
    pub data: Stability,
    pub class: DepClass,
}

impl Attr {
    pub const fn new(name: Stability, data: Stability, class: DepClass) -> Attr {
        Attr { name, data, class }
    }

    /// Stable/Stable/Common: constants, D's own types and variables, and
    /// most of D's built-in identifiers.
    pub const STABLE: Attr = Attr::new(Stability::Stable, Stability::Stable, DepClass::Common);
    /// Evolving/Evolving/Common.
    pub const EVOLVING: Attr =
        Attr::new(Stability::Evolving, Stability::Evolving, DepClass::Common);
    /// Private/Private/Unknown: kernel symbols and types, and a part of a
    /// provider definition that says nothing of itself.
    pub const PRIVATE: Attr = Attr::new(Stability::Private, Stability::Private, DepClass::Unknown);
    /// Unstable/Unstable/Common: a probe description whose provider is
    /// missing or a pattern, or that matches nothing.
    pub const UNSTABLE: Attr =
        Attr::new(Stability::Unstable, Stability::Unstable, DepClass::Common);
    /// The highest: the start of a minimum.
    pub const MAX: Attr = Attr::new(Stability::Standard, Stability::Standard, DepClass::Common);

    /// `Name/Data/Class` (`Evolving/Evolving/Common`), the words in any
    /// case, as `dtrace_str2attr` reads them: parts left out (or an
    /// empty part and what follows it) keep the highest value.
    ///
    /// ```
    /// use dtrace_lang::attr::{Attr, Stability};
    /// let a = Attr::parse("Evolving/Evolving/Common").unwrap();
    /// assert_eq!(a, Attr::EVOLVING);
    /// assert_eq!(a.to_string(), "Evolving/Evolving/Common");
    /// assert_eq!(Attr::parse("private").unwrap().name, Stability::Private);
    /// assert!(Attr::parse("Solid/Stable/Common").is_none());
    /// ```
    pub fn parse(s: &str) -> Option<Attr> {
        let mut a = Attr::MAX;
        let mut rest = Some(s);
        let mut next = || {
            let r = rest.take().filter(|r| !r.is_empty())?;
            let (w, tail) = r.split_once('/').unwrap_or((r, ""));
            rest = Some(tail);
            Some(w)
        };
        let find = |w: &str, names: &[&str]| names.iter().position(|n| n.eq_ignore_ascii_case(w));
        let Some(w) = next() else { return Some(a) };
        a.name = STABILITIES[find(w, &STABILITY_NAMES)?];
        let Some(w) = next() else { return Some(a) };
        a.data = STABILITIES[find(w, &STABILITY_NAMES)?];
        let Some(w) = next() else { return Some(a) };
        a.class = CLASSES[find(w, &CLASS_NAMES)?];
        next().is_none().then_some(a)
    }

    /// The lower of each part (`dt_attr_min`).
    pub fn min(self, o: Attr) -> Attr {
        Attr {
            name: self.name.min(o.name),
            data: self.data.min(o.data),
            class: self.class.min(o.class),
        }
    }

    /// True if any part is below `floor`'s (`dt_attr_cmp(a, floor) < 0`).
    pub fn below(self, floor: Attr) -> bool {
        self.name < floor.name || self.data < floor.data || self.class < floor.class
    }
}

impl fmt::Display for Attr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{}",
            self.name.name(),
            self.data.name(),
            self.class.name()
        )
    }
}

/// A provider's attributes, part by part, as DTrace keeps them
/// (`dtrace_pattr_t`): its name, its probes' modules, functions and
/// names, and their arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProviderAttr {
    pub provider: Attr,
    pub module: Attr,
    pub function: Attr,
    pub name: Attr,
    pub args: Attr,
}

impl ProviderAttr {
    /// What a description gets when its provider is a pattern or it
    /// matches nothing: Unstable in every part.
    pub const UNSTABLE: ProviderAttr = ProviderAttr {
        provider: Attr::UNSTABLE,
        module: Attr::UNSTABLE,
        function: Attr::UNSTABLE,
        name: Attr::UNSTABLE,
        args: Attr::UNSTABLE,
    };

    /// The attributes of description `d` of this provider's probes: the
    /// lowest of the parts `d` names exactly (a part left empty or given
    /// as a pattern does not count), as `dtrace_probe_info` computes them.
    ///
    /// ```
    /// use dtrace_lang::attr::{Attr, ProviderAttr};
    /// use dtrace_lang::pdesc::ProbeDesc;
    /// let p = ProviderAttr {
    ///     provider: Attr::EVOLVING,
    ///     module: Attr::PRIVATE,
    ///     function: Attr::PRIVATE,
    ///     name: Attr::EVOLVING,
    ///     args: Attr::EVOLVING,
    /// };
    /// assert_eq!(p.describe(&ProbeDesc::parse("io:::start").unwrap()), Attr::EVOLVING);
    /// assert_eq!(p.describe(&ProbeDesc::parse("io:vmlinux::start").unwrap()), Attr::PRIVATE);
    /// assert_eq!(p.describe(&ProbeDesc::parse("io*:::start").unwrap()), Attr::UNSTABLE);
    /// ```
    pub fn describe(&self, d: &ProbeDesc) -> Attr {
        let exact = |s: &str| !s.is_empty() && !crate::pdesc::has_glob(s);
        if !exact(&d.provider) {
            return Attr::UNSTABLE;
        }
        let mut a = self.provider;
        for (part, attr) in [
            (&d.module, self.module),
            (&d.function, self.function),
            (&d.name, self.name),
        ] {
            if exact(part) {
                a = a.min(attr);
            }
        }
        a
    }
}

/// What the checker learns of a clause's description: its attributes,
/// its arguments' and its provider's by part (probeprov..probename and
/// args[] have these).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DescAttr {
    pub desc: Attr,
    pub args: Attr,
    pub parts: ProviderAttr,
}

impl DescAttr {
    /// A description that matches nothing, or matches an unstable set.
    pub const UNSTABLE: DescAttr = DescAttr {
        desc: Attr::UNSTABLE,
        args: Attr::UNSTABLE,
        parts: ProviderAttr::UNSTABLE,
    };

    /// The highest in every part: what lowers nothing.
    pub const MAX: DescAttr = DescAttr {
        desc: Attr::MAX,
        args: Attr::MAX,
        parts: ProviderAttr {
            provider: Attr::MAX,
            module: Attr::MAX,
            function: Attr::MAX,
            name: Attr::MAX,
            args: Attr::MAX,
        },
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_min() {
        assert!(Stability::Private < Stability::Unstable);
        assert!(DepClass::Isa < DepClass::Common);
        let a = Attr::new(Stability::Stable, Stability::Private, DepClass::Common);
        assert_eq!(a.min(Attr::EVOLVING).to_string(), "Evolving/Private/Common");
        assert!(a.below(Attr::EVOLVING));
        assert!(!Attr::STABLE.below(Attr::EVOLVING));
        assert!(!Attr::EVOLVING.below(Attr::EVOLVING));
    }

    #[test]
    fn parse_forms() {
        assert_eq!(Attr::parse("Stable").unwrap().data, Stability::Standard);
        assert_eq!(Attr::parse(""), Some(Attr::MAX));
        assert_eq!(
            Attr::parse("stable/EVOLVING").unwrap().data,
            Stability::Evolving
        );
        assert!(Attr::parse("Stab").is_none());
        assert!(Attr::parse("Stable/Stable/Common/x").is_none());
        assert_eq!(
            Attr::parse("Unstable/Unstable/ISA").unwrap().class,
            DepClass::Isa
        );
    }
}
