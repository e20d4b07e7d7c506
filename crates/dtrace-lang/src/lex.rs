//! The D lexer. D is lexed in two modes: at the outer level of a program a
//! run of probe-description characters (`syscall::read:entry`, `tick-1s`,
//! `pid$target:::entry`) is one token, while inside predicates and clause
//! bodies the ordinary C tokens apply. The parser says which mode it wants.
//!
//! The text is bytes, as in DTrace: a string constant keeps any byte, and
//! a message quotes one that is not UTF-8 as `\ooo` ([`quote_bytes`]). A
//! backquote is part of an identifier (`` vmlinux`max_pfn `` is one
//! token); a line marker (cpp's `# N "file"`, or `#line N`) renumbers the
//! lines after it, so errors name the script's lines under `-C`.

use crate::error::{CompileError, Tag};

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(String),
    /// An integer constant with its C suffix flags.
    Int {
        value: u64,
        unsigned: bool,
        long: bool,
        /// Written in octal or hex (such constants may be unsigned in C).
        radix_not_decimal: bool,
    },
    /// A character constant such as 'a'.
    Char(i64),
    Str(Vec<u8>),
    /// `$1`, `$target`; `$$1` sets `quoted`.
    Macro {
        name: String,
        quoted: bool,
    },
    /// `@name`, or `@` alone (empty name).
    Agg(String),
    /// A probe description, outer mode only.
    PSpec(String),
    Punct(&'static str),
    Eof,
}

impl Tok {
    /// How DTrace quotes a token in "syntax error near" messages.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) | Tok::PSpec(s) => s.clone(),
            Tok::Int { value, .. } => value.to_string(),
            Tok::Char(c) => {
                // The constant's bytes, first most significant, as written.
                let b = c.to_be_bytes();
                let first = b.iter().position(|&x| x != 0).unwrap_or(b.len() - 1);
                format!("'{}'", quote_bytes(&b[first..]))
            }
            Tok::Str(s) => format!("\"{}\"", quote_bytes(s)),
            Tok::Macro { name, quoted } => format!("{}{}", if *quoted { "$$" } else { "$" }, name),
            Tok::Agg(n) => format!("@{}", n),
            Tok::Punct(p) => p.to_string(),
            Tok::Eof => String::new(),
        }
    }
}

/// Bytes as message text: UTF-8 as it is, each byte that is not UTF-8 as
/// an octal escape (`\351`), so a message shows what was written.
pub fn quote_bytes(b: &[u8]) -> String {
    let mut out = String::new();
    for chunk in b.utf8_chunks() {
        out.push_str(chunk.valid());
        for x in chunk.invalid() {
            out.push_str(&format!("\\{:03o}", x));
        }
    }
    out
}

#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub line: u32,
    /// Byte offset of the token's first character.
    pub pos: usize,
}

/// Operators and punctuation, longest first so that greedy matching works.
const PUNCTS: &[&str] = &[
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "^^",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "+", "-", "*", "/", "%", "<", ">", "=", "!",
    "~", "&", "|", "^", "?", ":", ";", ",", ".", "(", ")", "[", "]", "{", "}",
];

fn is_pspec_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || b"-$:_.?*\\[]!".contains(&c)
}

fn is_pspec_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-$:_.?*\\[]!`".contains(&c)
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'`'
}

/// Characters of an identifier after the first. A backquote is part of
/// the identifier, as in DTrace: `` vmlinux`max_pfn `` and `` `max_pfn ``
/// are single tokens (the parser splits the scope off).
fn is_ident_cont(c: u8) -> bool {
    is_ident_char(c) || c == b'`'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

pub struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    line: u32,
}

impl<'a> Lexer<'a> {
    /// A lexer over D text. The text is bytes: string literals keep any
    /// byte that is not UTF-8 exactly as written.
    /// The source from byte `pos` to the end of its line.
    pub fn rest_of_line(&self, pos: usize) -> String {
        let rest = self.src.get(pos..).unwrap_or(&[]);
        let end = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
        String::from_utf8_lossy(&rest[..end]).into_owned()
    }

    pub fn new(src: &'a (impl AsRef<[u8]> + ?Sized)) -> Lexer<'a> {
        Lexer {
            src: src.as_ref(),
            pos: 0,
            line: 1,
        }
    }

    pub fn line(&self) -> u32 {
        self.line
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Rewinds to a position previously returned by `pos` (with its line).
    pub fn reset(&mut self, pos: usize, line: u32) {
        self.pos = pos;
        self.line = line;
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn peek_at(&self, n: usize) -> Option<u8> {
        self.src.get(self.pos + n).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.pos += 1;
        if c == b'\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn err(&self, tag: Tag, msg: impl Into<String>) -> CompileError {
        CompileError::new(tag, self.line, msg)
    }

    /// The character at byte `at`, for a message: the UTF-8 character
    /// that starts there, or else the byte as an octal escape (`\351`).
    fn char_text(&self, at: usize) -> String {
        let rest = self.src.get(at..).unwrap_or(&[]);
        let len = match rest.utf8_chunks().next() {
            Some(ch) => ch.valid().chars().next().map_or(1, char::len_utf8),
            None => 0,
        };
        quote_bytes(&rest[..len])
    }

    /// Skips white space and comments.
    pub fn skip_space(&mut self) -> Result<(), CompileError> {
        loop {
            match self.peek() {
                Some(c) if c.is_ascii_whitespace() => {
                    self.bump();
                }
                Some(b'#') if self.line_marker_here().is_some() => {
                    let n = self.line_marker_here().unwrap_or(self.line);
                    while self.peek().is_some_and(|c| c != b'\n') {
                        self.pos += 1;
                    }
                    self.next_line_is(n);
                }
                Some(b'/') if self.peek_at(1) == Some(b'*') => {
                    self.pos += 2;
                    loop {
                        match self.bump() {
                            // DTrace's lexer is at the end of the file then.
                            None => {
                                return Err(CompileError::new(
                                    Tag::D_SYNTAX,
                                    self.line,
                                    "end-of-file encountered before matching */",
                                ))
                            }
                            Some(b'*') if self.peek() == Some(b'/') => {
                                self.pos += 1;
                                break;
                            }
                            _ => {}
                        }
                    }
                }
                Some(b'/') if self.peek_at(1) == Some(b'/') => {
                    while let Some(c) = self.peek() {
                        if c == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    /// True if, after white space, the input is at a `#` directive at the
    /// start of a line.
    pub fn at_directive(&mut self) -> Result<bool, CompileError> {
        self.skip_space()?;
        Ok(self.peek() == Some(b'#'))
    }

    /// True if, after white space, the input is at a `#` that begins its
    /// line (only blanks before it): a control line wherever it stands,
    /// as DTrace's lexer reads one, even inside a declaration.
    pub fn at_line_directive(&mut self) -> Result<bool, CompileError> {
        if !self.at_directive()? {
            return Ok(false);
        }
        let before = &self.src[..self.pos];
        let start = before
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        Ok(before[start..].iter().all(|&c| c == b' ' || c == b'\t'))
    }

    /// Reads a `#...` line (the caller checked `at_directive`), returning its
    /// text without the `#` and the line it was on. Backslash-newline
    /// continues the directive.
    pub fn directive_line(&mut self) -> Result<(String, u32), CompileError> {
        let line = self.line;
        self.bump();
        let mut s = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(CompileError::new(
                    Tag::D_SYNTAX,
                    line,
                    "end-of-file encountered before end of control line",
                ));
            };
            if c == b'\\' && self.peek_at(1) == Some(b'\n') {
                self.bump();
                self.bump();
                s.push(b' ');
                continue;
            }
            if c == b'\n' {
                break;
            }
            s.push(c);
            self.bump();
        }
        Ok((String::from_utf8_lossy(&s).into_owned(), line))
    }

    /// At the start of a line holding a line marker (`# N "file" flags`
    /// as cpp writes them, or `#line N ["file"]`), anywhere in a
    /// program: the line number it gives the next line.
    fn line_marker_here(&self) -> Option<u32> {
        if self.pos > 0 && self.src.get(self.pos - 1) != Some(&b'\n') {
            return None;
        }
        let end = self.src[self.pos..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(self.src.len(), |e| self.pos + e);
        let text = std::str::from_utf8(&self.src[self.pos + 1..end]).ok()?;
        let mut words = text.split_whitespace();
        let mut w = words.next()?;
        if w == "line" {
            w = words.next()?;
        }
        let n = w.parse::<u32>().ok()?;
        match words.next() {
            None => Some(n),
            Some(f) if f.starts_with('"') => Some(n),
            Some(_) => None,
        }
    }

    /// After a line marker (`# N "file"`, `#line N`): the line that
    /// follows the directive is line `n`.
    pub fn next_line_is(&mut self, n: u32) {
        if self.peek() == Some(b'\n') {
            self.pos += 1;
        }
        self.line = n;
    }

    /// Reads a probe description token if one starts here (outer mode).
    pub fn pspec(&mut self) -> Result<Option<Token>, CompileError> {
        self.skip_space()?;
        let line = self.line;
        match self.peek() {
            Some(c) if is_pspec_start(c) => {}
            _ => return Ok(None),
        }
        let start = self.pos;
        while let Some(c) = self.peek() {
            if !is_pspec_char(c) {
                break;
            }
            self.bump();
        }
        let text = String::from_utf8_lossy(&self.src[start..self.pos]).into_owned();
        Ok(Some(Token {
            tok: Tok::PSpec(text),
            line,
            pos: start,
        }))
    }

    /// The next ordinary token.
    pub fn next_token(&mut self) -> Result<Token, CompileError> {
        self.skip_space()?;
        let line = self.line;
        let start = self.pos;
        let tok = match self.peek() {
            None => Tok::Eof,
            Some(c) if is_ident_start(c) => {
                let start = self.pos;
                while matches!(self.peek(), Some(c) if is_ident_cont(c)) {
                    self.pos += 1;
                }
                Tok::Ident(String::from_utf8_lossy(&self.src[start..self.pos]).into_owned())
            }
            Some(c) if c.is_ascii_digit() => self.number()?,
            Some(b'.') if self.at_float_constant() => {
                return Err(self.err(Tag::D_SYNTAX, "floating-point constants are not permitted"));
            }
            Some(b'"') => self.string()?,
            Some(b'\'') => self.char_const()?,
            Some(b'$') => {
                self.pos += 1;
                let quoted = if self.peek() == Some(b'$') {
                    self.pos += 1;
                    true
                } else {
                    false
                };
                let start = self.pos;
                while matches!(self.peek(), Some(c) if is_ident_char(c)) {
                    self.pos += 1;
                }
                if start == self.pos {
                    return Err(self.err(Tag::D_SYNTAX, "syntax error near \"$\""));
                }
                Tok::Macro {
                    name: String::from_utf8_lossy(&self.src[start..self.pos]).into_owned(),
                    quoted,
                }
            }
            Some(b'@') => {
                self.pos += 1;
                let start = self.pos;
                while matches!(self.peek(), Some(c) if is_ident_char(c)) {
                    self.pos += 1;
                }
                Tok::Agg(String::from_utf8_lossy(&self.src[start..self.pos]).into_owned())
            }
            Some(_) => {
                let rest = &self.src[self.pos..];
                match PUNCTS.iter().find(|p| rest.starts_with(p.as_bytes())) {
                    Some(p) => {
                        self.pos += p.len();
                        Tok::Punct(p)
                    }
                    None => {
                        return Err(self.err(
                            Tag::D_CHR_BADESC,
                            format!("invalid character '{}'", self.char_text(self.pos)),
                        ));
                    }
                }
            }
        };
        Ok(Token {
            tok,
            line,
            pos: start,
        })
    }

    /// True if a floating-point constant (`1.5`, `1.`, `.5`, `1e5`,
    /// `2.5e-3f`) starts here: D has none, and says so.
    fn at_float_constant(&self) -> bool {
        let s = &self.src[self.pos..];
        let digits = |from: usize| s[from..].iter().take_while(|c| c.is_ascii_digit()).count();
        let int = digits(0);
        let mut i = int;
        let mut frac = 0;
        let point = s.get(i) == Some(&b'.');
        if point {
            i += 1;
            frac = digits(i);
            i += frac;
        }
        if int + frac == 0 {
            return false;
        }
        let exp = matches!(s.get(i), Some(b'e' | b'E')) && {
            let j = i + 1 + usize::from(matches!(s.get(i + 1), Some(b'+' | b'-')));
            digits(j) > 0
        };
        // A hexadecimal constant is an integer whatever follows.
        let hex = s.starts_with(b"0x") || s.starts_with(b"0X");
        !hex && (point || exp)
    }

    fn number(&mut self) -> Result<Tok, CompileError> {
        if self.at_float_constant() {
            return Err(self.err(Tag::D_SYNTAX, "floating-point constants are not permitted"));
        }
        let start = self.pos;
        let (radix, digits_start) =
            if self.peek() == Some(b'0') && matches!(self.peek_at(1), Some(b'x' | b'X')) {
                self.pos += 2;
                (16, self.pos)
            } else if self.peek() == Some(b'0') {
                (8, self.pos)
            } else {
                (10, self.pos)
            };
        // As DTrace's lexer reads a constant: the digits of its base (all
        // ten for octal, which an 8 or 9 then makes invalid), then a
        // suffix of u, U, l and L; a letter after that starts the next
        // token.
        while matches!(self.peek(), Some(c) if if radix == 16 { c.is_ascii_hexdigit() } else { c.is_ascii_digit() })
        {
            self.pos += 1;
        }
        let digits_end = self.pos;
        while matches!(self.peek(), Some(b'u' | b'U' | b'l' | b'L')) {
            self.pos += 1;
        }
        let whole = String::from_utf8_lossy(&self.src[start..self.pos]).into_owned();
        let digits = String::from_utf8_lossy(&self.src[digits_start..digits_end]).into_owned();
        let suffix = String::from_utf8_lossy(&self.src[digits_end..self.pos]).into_owned();
        let invalid = |this: &Self, c: char| {
            this.err(
                Tag::D_INT_DIGIT,
                format!("constant {} contains invalid digit {}", whole, c),
            )
        };
        if let Some(c) = digits.chars().find(|c| !c.is_digit(radix)) {
            return Err(invalid(self, c));
        }
        if radix == 16 && digits.is_empty() {
            return Err(invalid(self, char::from(self.src[start + 1])));
        }
        let mut unsigned = false;
        let mut long = false;
        for c in suffix.chars() {
            match c {
                'u' | 'U' if !unsigned => unsigned = true,
                'l' | 'L' => long = true,
                _ => return Err(invalid(self, c)),
            }
        }
        let value = if digits.is_empty() {
            0
        } else {
            u64::from_str_radix(&digits, radix).map_err(|_| {
                self.err(
                    Tag::D_INT_OFLOW,
                    format!("constant {} results in integer overflow", whole),
                )
            })?
        };
        Ok(Tok::Int {
            value,
            unsigned,
            long,
            radix_not_decimal: radix != 10,
        })
    }

    /// One escape sequence after a backslash, as a byte.
    fn escape(&mut self) -> Result<u8, CompileError> {
        let c = self
            .bump()
            .ok_or_else(|| self.err(Tag::D_STR_NL, "newline encountered in string literal"))?;
        Ok(match c {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'\\' => b'\\',
            b'\'' => b'\'',
            b'"' => b'"',
            b'?' => b'?',
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                for _ in 0..2 {
                    match self.peek() {
                        Some(d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            self.pos += 1;
                        }
                        _ => break,
                    }
                }
                v as u8
            }
            b'x' => {
                let mut v = 0u32;
                while let Some(d) = self.peek() {
                    // As many digits as there are; the byte is the last two.
                    match (d as char).to_digit(16) {
                        Some(x) => {
                            v = (v * 16 + x) & 0xff;
                            self.pos += 1;
                        }
                        _ => break,
                    }
                }
                v as u8
            }
            _ => {
                return Err(self.err(
                    Tag::D_STR_BADESC,
                    format!(
                        "invalid escape sequence in string literal: \\{}",
                        self.char_text(self.pos - 1)
                    ),
                ))
            }
        })
    }

    fn string(&mut self) -> Result<Tok, CompileError> {
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                // Reported on the line after the newline, as DTrace's
                // lexer has read it.
                c @ (None | Some(b'\n')) => {
                    let line = self.line + u32::from(c.is_some());
                    return Err(CompileError::new(
                        Tag::D_STR_NL,
                        line,
                        "newline encountered in string literal",
                    ));
                }
                Some(b'"') => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') => {
                    self.pos += 1;
                    if self.peek() == Some(b'\n') {
                        // Line continuation inside a string.
                        self.bump();
                        continue;
                    }
                    // As DTrace's lexer: C's escapes but `\?` and `\'`;
                    // any other backslash stays, with what follows it.
                    match self.peek() {
                        Some(
                            b'n'
                            | b't'
                            | b'r'
                            | b'a'
                            | b'b'
                            | b'f'
                            | b'v'
                            | b'\\'
                            | b'"'
                            | b'0'..=b'7'
                            | b'x',
                        ) => out.push(self.escape()?),
                        _ => out.push(b'\\'),
                    }
                }
                Some(c) => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
        Ok(Tok::Str(out))
    }

    fn char_const(&mut self) -> Result<Tok, CompileError> {
        self.pos += 1;
        let mut v: i64 = 0;
        let mut n = 0;
        loop {
            match self.peek() {
                c @ (None | Some(b'\n')) => {
                    let line = self.line + u32::from(c.is_some());
                    return Err(CompileError::new(
                        Tag::D_CHR_NL,
                        line,
                        "newline encountered in character constant",
                    ));
                }
                Some(b'\'') => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let b = self.escape()?;
                    v = (v << 8) | i64::from(b);
                    n += 1;
                }
                Some(c) => {
                    v = (v << 8) | i64::from(c);
                    n += 1;
                    self.pos += 1;
                }
            }
        }
        if n == 0 {
            return Err(self.err(Tag::D_CHR_NULL, "empty character constant"));
        }
        if n > 8 {
            return Err(self.err(Tag::D_CHR_OFLOW, "character constant is too long"));
        }
        // As in DTrace, the bytes make an integer constant, the first byte
        // most significant, with no sign extension: '\xff' is 255.
        Ok(Tok::Char(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &(impl AsRef<[u8]> + ?Sized)) -> Vec<Tok> {
        let mut l = Lexer::new(s);
        let mut out = Vec::new();
        loop {
            let t = l.next_token().unwrap();
            if t.tok == Tok::Eof {
                return out;
            }
            out.push(t.tok);
        }
    }

    #[test]
    fn lexes_operators_greedily() {
        assert_eq!(
            toks("a<<=b->c^^d"),
            vec![
                Tok::Ident("a".into()),
                Tok::Punct("<<="),
                Tok::Ident("b".into()),
                Tok::Punct("->"),
                Tok::Ident("c".into()),
                Tok::Punct("^^"),
                Tok::Ident("d".into()),
            ]
        );
    }

    #[test]
    fn lexes_numbers_in_every_radix() {
        let v = |t: &Tok| match t {
            Tok::Int { value, .. } => *value,
            _ => panic!("not an int"),
        };
        let t = toks("10 010 0x1f 0 42ul");
        assert_eq!(t.iter().map(v).collect::<Vec<_>>(), vec![10, 8, 31, 0, 42]);
        assert!(matches!(
            t[4],
            Tok::Int {
                unsigned: true,
                long: true,
                ..
            }
        ));
        assert!(Lexer::new("09").next_token().is_err());
        assert!(Lexer::new("99999999999999999999999").next_token().is_err());
    }

    #[test]
    fn lexes_strings_and_escapes() {
        assert_eq!(
            toks(r#""a\tb\n\101\x41""#),
            vec![Tok::Str(b"a\tb\nAA".to_vec())]
        );
        assert!(Lexer::new("\"abc\n\"").next_token().is_err());
        assert_eq!(toks("'a' '\\n'"), vec![Tok::Char(97), Tok::Char(10)]);
        // Not escapes in a D string: `\?`, `\'` and any other stay as
        // written; `\x` takes every hex digit that follows.
        assert_eq!(
            toks(r#""\?\\\'\"\q\x4D\x0041""#),
            vec![Tok::Str(b"\\?\\\\'\"\\qMA".to_vec())]
        );
    }

    #[test]
    fn strings_are_bytes() {
        // Escapes make single bytes, whatever their value.
        assert_eq!(
            toks(r#""\xff" "\377" "\x80\n" "\0""#),
            vec![
                Tok::Str(vec![0xff]),
                Tok::Str(vec![0xff]),
                Tok::Str(vec![0x80, b'\n']),
                Tok::Str(vec![0]),
            ]
        );
        // Raw bytes that are not UTF-8 (Latin-1 text) stay as written, and
        // so does UTF-8.
        assert_eq!(
            toks(b"\"caf\xe9 \xff\" \"\xc3\xa9\""),
            vec![
                Tok::Str(b"caf\xe9 \xff".to_vec()),
                Tok::Str("é".as_bytes().to_vec())
            ]
        );
        // Each byte of a character constant counts, with no sign extension.
        assert_eq!(
            toks(b"'\\xff' '\xe9' '\xc3\xa9'"),
            vec![Tok::Char(0xff), Tok::Char(0xe9), Tok::Char(0xc3a9)]
        );
    }

    #[test]
    fn messages_quote_characters_that_are_not_ascii() {
        let msg = |src: &[u8]| {
            let mut l = Lexer::new(src);
            loop {
                match l.next_token() {
                    Ok(t) if t.tok == Tok::Eof => panic!("no error"),
                    Ok(_) => {}
                    Err(e) => return e.msg,
                }
            }
        };
        assert_eq!(msg(b"x \xe9 y"), "invalid character '\\351'");
        assert_eq!(msg("x é y".as_bytes()), "invalid character 'é'");
        assert_eq!(msg("x €".as_bytes()), "invalid character '€'");
        assert_eq!(msg(b"x \xe2\x82"), "invalid character '\\342'");
        // (A string keeps a backslash it does not know; a character
        // constant refuses it.)
        assert_eq!(
            msg("'\\é'".as_bytes()),
            "invalid escape sequence in string literal: \\é"
        );
        assert_eq!(
            msg(b"'\\\xff'"),
            "invalid escape sequence in string literal: \\\\377"
        );
        // Probe descriptions stop at the first byte that is not theirs.
        let mut l = Lexer::new(b"BEGIN\xe9{");
        assert_eq!(l.pspec().unwrap().unwrap().tok, Tok::PSpec("BEGIN".into()));
        assert!(l.next_token().is_err());
    }

    #[test]
    fn quotes_bytes_for_messages() {
        assert_eq!(quote_bytes("café".as_bytes()), "café");
        assert_eq!(quote_bytes(b"caf\xe9!\xff"), "caf\\351!\\377");
        assert_eq!(Tok::Str(b"a\xe9".to_vec()).describe(), "\"a\\351\"");
        assert_eq!(Tok::Char(0xc3a9).describe(), "'é'");
        assert_eq!(Tok::Char(0xe9).describe(), "'\\351'");
        assert_eq!(Tok::Char(0x61).describe(), "'a'");
    }

    #[test]
    fn backquotes_belong_to_identifiers() {
        assert_eq!(
            toks("vmlinux`max_pfn + `jiffies ` x"),
            vec![
                Tok::Ident("vmlinux`max_pfn".into()),
                Tok::Punct("+"),
                Tok::Ident("`jiffies".into()),
                Tok::Ident("`".into()),
                Tok::Ident("x".into()),
            ]
        );
    }

    #[test]
    fn lexes_macros_and_aggregations() {
        assert_eq!(
            toks("$1 $$target @foo @"),
            vec![
                Tok::Macro {
                    name: "1".into(),
                    quoted: false
                },
                Tok::Macro {
                    name: "target".into(),
                    quoted: true
                },
                Tok::Agg("foo".into()),
                Tok::Agg(String::new()),
            ]
        );
    }

    #[test]
    fn skips_comments_and_counts_lines() {
        let mut l = Lexer::new("/* a\n b */ x // c\n y");
        assert_eq!(l.next_token().unwrap().line, 2);
        assert_eq!(l.next_token().unwrap().line, 3);
        assert!(Lexer::new("/* never closed").next_token().is_err());
    }

    #[test]
    fn reads_probe_descriptions_in_outer_mode() {
        let mut l = Lexer::new("  syscall::read:entry/pid/");
        let t = l.pspec().unwrap().unwrap();
        assert_eq!(t.tok, Tok::PSpec("syscall::read:entry".into()));
        assert_eq!(l.next_token().unwrap().tok, Tok::Punct("/"));
        let mut l = Lexer::new("pid$target:libc.so.6:malloc:entry,tick-1s{");
        assert_eq!(
            l.pspec().unwrap().unwrap().tok,
            Tok::PSpec("pid$target:libc.so.6:malloc:entry".into())
        );
    }
}
