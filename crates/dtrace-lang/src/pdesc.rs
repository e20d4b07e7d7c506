//! Probe descriptions: `provider:module:function:name`, fields filled from
//! the right, empty fields matching anything, and DTrace's glob patterns
//! (`*`, `?`, `[...]`, `[!...]`, `\` escapes).

use std::fmt;

/// A field's text: kept in place up to 23 bytes (most probe names), so
/// that a table of a hundred thousand probes is not 400,000 allocations.
pub use smol_str::SmolStr;

/// A probe description (`dtrace_probedesc_t`): four fields, each a name
/// or a pattern, empty for any.
///
/// ```
/// # use dtrace_lang::pdesc::ProbeDesc;
/// let d = ProbeDesc::parse("read:entry").unwrap();
/// assert_eq!((d.function.as_str(), d.name.as_str()), ("read", "entry"));
/// assert_eq!(d.to_string(), "::read:entry");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ProbeDesc {
    /// The provider (`syscall`, `pid123`).
    pub provider: SmolStr,
    /// The module (`vmlinux`, `libc.so.6`).
    pub module: SmolStr,
    /// The function.
    pub function: SmolStr,
    /// The probe's name (`entry`, `return`, `BEGIN`).
    pub name: SmolStr,
}

/// Why a probe description does not parse.
///
/// ```
/// # use dtrace_lang::pdesc::{PdescError, ProbeDesc};
/// assert_eq!(ProbeDesc::parse("a:b:c:d:e"), Err(PdescError::Overspecified));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PdescError {
    /// More than four fields.
    Overspecified,
    /// A field with an unterminated `[`.
    BadGlob,
}

impl ProbeDesc {
    /// Parses a description. Fewer than four fields fill from the right:
    /// `read:entry` is function `read`, name `entry`.
    ///
    /// ```
    /// # use dtrace_lang::pdesc::ProbeDesc;
    /// let d = ProbeDesc::parse("syscall::read*:entry").unwrap();
    /// assert_eq!(d.provider, "syscall");
    /// assert_eq!(d.function, "read*");
    /// ```
    pub fn parse(text: &str) -> Result<ProbeDesc, PdescError> {
        let parts = split_fields(text);
        if parts.len() > 4 {
            return Err(PdescError::Overspecified);
        }
        let mut f = [String::new(), String::new(), String::new(), String::new()];
        let start = 4 - parts.len();
        for (i, p) in parts.into_iter().enumerate() {
            f[start + i] = p;
        }
        let [provider, module, function, name] = f.map(SmolStr::from);
        let d = ProbeDesc {
            provider,
            module,
            function,
            name,
        };
        for field in [&d.provider, &d.module, &d.function, &d.name] {
            if !glob_is_valid(field) {
                return Err(PdescError::BadGlob);
            }
        }
        Ok(d)
    }

    pub fn new(provider: &str, module: &str, function: &str, name: &str) -> ProbeDesc {
        ProbeDesc {
            provider: SmolStr::new(provider),
            module: SmolStr::new(module),
            function: SmolStr::new(function),
            name: SmolStr::new(name),
        }
    }

    /// True if this description (a pattern) matches the concrete probe.
    pub fn matches(&self, probe: &ProbeDesc) -> bool {
        field_matches(&self.provider, &probe.provider)
            && field_matches(&self.module, &probe.module)
            && field_matches(&self.function, &probe.function)
            && field_matches(&self.name, &probe.name)
    }

    /// True if no field uses glob characters (the description can name at
    /// most one probe, and providers may create it on demand).
    pub fn is_exact(&self) -> bool {
        [&self.provider, &self.module, &self.function, &self.name]
            .iter()
            .all(|f| !has_glob(f))
    }
}

impl fmt::Display for ProbeDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}:{}",
            self.provider, self.module, self.function, self.name
        )
    }
}

/// Splits on `:` except where escaped with a backslash or inside `[...]`.
fn split_fields(text: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut in_class = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.last_mut().expect("non-empty").push(c);
                if let Some(n) = chars.next() {
                    out.last_mut().expect("non-empty").push(n);
                }
            }
            '[' => {
                in_class = true;
                out.last_mut().expect("non-empty").push(c);
            }
            ']' => {
                in_class = false;
                out.last_mut().expect("non-empty").push(c);
            }
            ':' if !in_class => out.push(String::new()),
            _ => out.last_mut().expect("non-empty").push(c),
        }
    }
    out
}

pub fn has_glob(s: &str) -> bool {
    s.contains(['*', '?', '[', '\\'])
}

fn glob_is_valid(p: &str) -> bool {
    let b = p.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'[' => match b[i + 1..].iter().position(|&c| c == b']') {
                Some(n) => i += n + 2,
                None => return false,
            },
            _ => i += 1,
        }
    }
    true
}

/// An empty pattern matches everything; otherwise a shell-style glob.
pub fn field_matches(pattern: &str, s: &str) -> bool {
    pattern.is_empty() || glob_match(pattern.as_bytes(), s.as_bytes())
}

/// Shell-style matching of `s` against `p`.
pub fn glob_match(p: &[u8], s: &[u8]) -> bool {
    // Iterative matcher with single-star backtracking: O(len(p) * len(s)).
    let (mut pi, mut si) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() {
            match p[pi] {
                b'*' => {
                    star = Some((pi, si));
                    pi += 1;
                    continue;
                }
                b'?' => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                b'[' => {
                    if let Some((matched, next)) = class_match(p, pi, s[si]) {
                        if matched {
                            pi = next;
                            si += 1;
                            continue;
                        }
                    }
                }
                b'\\' if pi + 1 < p.len() => {
                    if p[pi + 1] == s[si] {
                        pi += 2;
                        si += 1;
                        continue;
                    }
                }
                c => {
                    if c == s[si] {
                        pi += 1;
                        si += 1;
                        continue;
                    }
                }
            }
        }
        match star {
            Some((sp, ss)) => {
                pi = sp + 1;
                si = ss + 1;
                star = Some((sp, ss + 1));
            }
            None => return false,
        }
    }
    while pi < p.len() && p[pi] == b'*' {
        pi += 1;
    }
    pi == p.len()
}

/// Matches `c` against the class starting at `p[start] == '['`; returns
/// whether it matched and the index after the closing `]`.
fn class_match(p: &[u8], start: usize, c: u8) -> Option<(bool, usize)> {
    let mut i = start + 1;
    let negate = i < p.len() && (p[i] == b'!' || p[i] == b'^');
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while i < p.len() && (p[i] != b']' || first) {
        first = false;
        let lo = p[i];
        if i + 2 < p.len() && p[i + 1] == b'-' && p[i + 2] != b']' {
            let hi = p[i + 2];
            if lo <= c && c <= hi {
                matched = true;
            }
            i += 3;
        } else {
            if lo == c {
                matched = true;
            }
            i += 1;
        }
    }
    if i >= p.len() {
        return None;
    }
    Some((matched != negate, i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_fields_from_the_right() {
        let d = ProbeDesc::parse("read:entry").unwrap();
        assert_eq!(d, ProbeDesc::new("", "", "read", "entry"));
        let d = ProbeDesc::parse("BEGIN").unwrap();
        assert_eq!(d.name, "BEGIN");
        let d = ProbeDesc::parse("syscall:::entry").unwrap();
        assert_eq!(d, ProbeDesc::new("syscall", "", "", "entry"));
        assert_eq!(
            ProbeDesc::parse("a:b:c:d:e"),
            Err(PdescError::Overspecified)
        );
        assert_eq!(ProbeDesc::parse("sys[call"), Err(PdescError::BadGlob));
    }

    #[test]
    fn globs_match_like_the_shell() {
        assert!(glob_match(b"*", b""));
        assert!(glob_match(b"read*", b"readv"));
        assert!(glob_match(b"*read", b"pread"));
        assert!(!glob_match(b"read?", b"read"));
        assert!(glob_match(b"[rw]rite", b"write"));
        assert!(glob_match(b"[!w]rite", b"rrite"));
        assert!(!glob_match(b"[!w]rite", b"write"));
        assert!(glob_match(b"sys_[a-c]*", b"sys_bpf"));
        assert!(glob_match(b"a\\*b", b"a*b"));
        assert!(!glob_match(b"a\\*b", b"axb"));
        assert!(glob_match(b"*a*b*c*", b"xxaxxbxxcxx"));
    }

    #[test]
    fn descriptions_match_probes() {
        let probe = ProbeDesc::new("syscall", "vmlinux", "read", "entry");
        assert!(ProbeDesc::parse("syscall::read:entry")
            .unwrap()
            .matches(&probe));
        assert!(ProbeDesc::parse("syscall:::").unwrap().matches(&probe));
        assert!(ProbeDesc::parse("sys*:::entry").unwrap().matches(&probe));
        assert!(!ProbeDesc::parse("syscall::write:").unwrap().matches(&probe));
        assert!(ProbeDesc::parse("entry").unwrap().matches(&probe));
        assert!(ProbeDesc::parse("tick-1s").unwrap().is_exact());
        assert!(!ProbeDesc::parse("tick-*").unwrap().is_exact());
    }
}
