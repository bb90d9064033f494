//! Static extraction of module specifiers from TypeScript / JavaScript source.
//!
//! The package validator uses this to enforce an import policy on TypeScript
//! tool files without running a real parser. [`scan_imports`] works in a few
//! linear passes (plus one more over the tokens for import elision, below):
//!
//! 1. A small lexer turns the text into tokens. It skips comments, strings,
//!    template text and regular-expression literals, so that `import 'x'`
//!    inside any of those is never reported. The code inside `${ ... }`
//!    substitutions of template literals *is* tokenised (an explicit stack
//!    tracks template/brace nesting, so no recursion is involved). Whether a
//!    `/` starts a regular expression or is a division is decided from the
//!    previous significant token, the classic heuristic used by JS tooling.
//! 2. An analyzer walks the tokens and recognises the import forms: static
//!    `import` / `export ... from` declarations, TypeScript
//!    `import x = require('x')`, dynamic `import(...)` and `require(...)`
//!    calls. Calls whose argument is not a single string literal (or a
//!    template literal without substitutions) are reported separately in
//!    [`ScanResult::non_literal`], because their target cannot be checked
//!    statically.
//!
//! Type-only references are excluded, since they are erased at compile time:
//! `import type ...`, `export type ... from`, `import type x = require(...)`
//! and dynamic `import(...)` in a *type position*. Type positions are found
//! with a deliberately small heuristic: an `import(` directly after `typeof`,
//! directly after a `:` that is a type annotation (not a ternary `? :`, not a
//! `case`/`default` label, not an object-literal property), or anywhere inside
//! a `type Name = ...` alias statement. Everything else is treated as a value
//! (i.e. reported), which errs on the side of reporting too much.
//!
//! # Import elision
//!
//! TypeScript (and Bun/esbuild compiling TS) drops an import declaration
//! whose bindings are never used as values. Without a type checker this is
//! approximated: [`ImportRecord::bindings`] lists the local names a
//! declaration introduces, and [`ImportRecord::elided`] is set when none of
//! them is *referenced*. A reference is any identifier token outside the
//! `import ... from` / `import x = require(...)` / `export ... from`
//! declarations themselves that is not a member name (`o.x`, `o?.x`) and not
//! a property key (`x:` or `x?:` directly after `{` or `,`). Shorthand
//! properties (`{ x }`), `${x}` substitutions, `export { x }` and
//! `export default x` all count; text in strings, comments, regexes and
//! templates does not. Declarations whose braces hold only `type` specifiers
//! (`import { type A } from 'x'`) are always elided; `import 'x'`,
//! `import {} from 'x'` and `export import x = require('x')` never are.
//! Elided records stay in [`ScanResult::imports`]; callers decide.
//!
//! Limits of the elision approximation (it errs towards keeping imports):
//! - Uses in type positions only (`let v: Foo`, `x as Foo`, `typeof Foo` in a
//!   type) count as references, although TypeScript would still elide.
//! - There is no scope analysis: a local variable, parameter, method name
//!   (`{ x() {} }`), class member or JSX text word that merely has the same
//!   name counts as a use.
//! - Compiler options that disable elision (`verbatimModuleSyntax`,
//!   `preserveValueImports`) are not modelled.
//!
//! Known limits of the heuristics (accepted, since the input is trusted to be
//! ordinary TS/JS, not adversarially obfuscated):
//! - `/` after `)` is a division unless the `)` closes an `if`/`while`/`for`/
//!   `with` head, and after `}` it starts a regex; a wrong guess can hide the
//!   code up to the next `/` on the same line. A "regex" that would run into
//!   a line end is re-lexed as a division.
//! - `typeof import('x')` is always treated as a type query, even in value
//!   position; `import(` after a statement label `l:` counts as a type
//!   annotation; `import(` in generic arguments or after `as`/`satisfies`
//!   is reported as a real dynamic import.
//! - Indirect calls (`const r = require; r('x')`, `(require)('x')`,
//!   `require.resolve`) are not seen. JSX text is not understood.
//! - A declaration whose specifier string is unterminated yields nothing; an
//!   unterminated literal argument of `import(`/`require(` is non-literal.
//!
//! The scanner never panics, whatever the input (truncated or invalid code
//! included): every slice goes through `str::get`, and positions only move
//! over whole characters or ASCII delimiters.

use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;
use std::str::Chars;

/// A module reference whose specifier is a plain literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportRecord {
    /// Decoded specifier value (escapes like `\x41` or `\u0041` decoded as JS
    /// would; if decoding fails the raw text between the quotes is kept).
    pub specifier: String,
    /// Byte range in the source of the string/template literal, including its
    /// quotes/backticks.
    pub span: Range<usize>,
    /// Syntactic form of the reference.
    pub kind: ImportKind,
    /// Local names introduced by an [`ImportKind::Import`] declaration (the
    /// default name, the `* as ns` name and the local name of every named
    /// specifier not marked `type`) or by an [`ImportKind::ImportEquals`]
    /// (`x` in `import x = require('y')`), in source order. Empty for
    /// side-effect imports and the other kinds.
    pub bindings: Vec<String>,
    /// The declaration would be dropped by TypeScript-style import elision:
    /// it introduces bindings but none of them is referenced elsewhere in the
    /// file, or its only specifiers are inline `type` ones
    /// (`import { type A } from 'x'`). Never set for `import 'x'`,
    /// `import {} from 'x'`, `export import x = require('x')` or non-import
    /// kinds. See the module documentation for the approximation used.
    pub elided: bool,
}

/// The syntactic form of a module reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportKind {
    /// `import ... from 'x'` and `import 'x'`.
    Import,
    /// `export ... from 'x'`.
    ExportFrom,
    /// TypeScript `import x = require('x')`.
    ImportEquals,
    /// `import('x')`.
    DynamicImport,
    /// `require('x')`.
    Require,
}

/// A dynamic `import(...)` or `require(...)` whose argument is not a literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynamicProblem {
    /// Byte range of the call's argument text (or of the `import`/`require`
    /// keyword if there is no argument).
    pub span: Range<usize>,
    /// [`ImportKind::DynamicImport`] or [`ImportKind::Require`].
    pub kind: ImportKind,
}

/// Everything found by [`scan_imports`], each list in order of appearance.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScanResult {
    /// References with a literal specifier.
    pub imports: Vec<ImportRecord>,
    /// Dynamic imports / requires with a computed specifier.
    pub non_literal: Vec<DynamicProblem>,
}

/// Statically extracts the module specifiers referenced by `source`.
///
/// Runs in linear time and never panics; see the module documentation for
/// the recognised forms and the type-position heuristic.
pub fn scan_imports(source: &str) -> ScanResult {
    let tokens = Lexer::new(source).run();
    let closers = match_brackets(source, &tokens);
    let mut analyzer = Analyzer::new(source, &tokens, &closers);
    analyzer.run();
    analyzer.finish()
}

// ---------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokKind {
    /// Identifier or keyword (keywords are told apart by their text).
    Ident,
    /// `#name` class member; never a keyword.
    PrivateName,
    Number,
    /// `'...'` or `"..."`.
    Str,
    /// Template literal without substitutions: `` `...` ``.
    Template,
    /// `` `...${ ``
    TemplateHead,
    /// `}...${`
    TemplateMiddle,
    /// `` }...` ``
    TemplateTail,
    Regex,
    Punct,
}

#[derive(Debug, Clone, Copy)]
struct Token {
    kind: TokKind,
    start: usize,
    end: usize,
    /// A line terminator occurs between the previous token and this one.
    newline_before: bool,
    /// For strings and templates: the closing delimiter is present.
    terminated: bool,
}

impl Token {
    fn text<'s>(&self, src: &'s str) -> &'s str {
        src.get(self.start..self.end).unwrap_or("")
    }

    fn is_punct(&self, src: &str, p: &str) -> bool {
        self.kind == TokKind::Punct && self.text(src) == p
    }

    fn is_word(&self, src: &str, w: &str) -> bool {
        self.kind == TokKind::Ident && self.text(src) == w
    }

    fn span(&self) -> Range<usize> {
        self.start..self.end
    }
}

/// Keywords after which an expression (and therefore a regex) may start.
const KEYWORDS_BEFORE_EXPRESSION: &[&str] = &[
    "return",
    "typeof",
    "instanceof",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "case",
    "do",
    "else",
    "yield",
    "await",
];

/// Multi-character punctuators, longest first (maximal munch). Lexing them as
/// single tokens matters for `++`/`--` (a `/` after them is a division) and
/// for `?.` (optional member access).
const MULTI_PUNCTUATORS: &[&str] = &[
    ">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=", "=>", "==", "!=",
    "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
    "**", "<<", ">>",
];

/// True if token `i` is the name part of a member access (`a.b`, `a?.b`).
fn is_member_name(src: &str, toks: &[Token], i: usize) -> bool {
    i.checked_sub(1)
        .and_then(|p| toks.get(p))
        .is_some_and(|t| t.kind == TokKind::Punct && matches!(t.text(src), "." | "?."))
}

/// Length in bytes of the line terminator starting at `p` (0 if none).
/// JS line terminators are LF, CR, U+2028 and U+2029.
fn line_terminator_len(bytes: &[u8], p: usize) -> usize {
    match bytes.get(p) {
        Some(b'\n' | b'\r') => 1,
        Some(0xE2)
            if bytes.get(p + 1) == Some(&0x80) && matches!(bytes.get(p + 2), Some(0xA8 | 0xA9)) =>
        {
            3
        }
        _ => 0,
    }
}

/// Length of the UTF-8 sequence introduced by lead byte `b`.
fn utf8_len(b: u8) -> usize {
    match b {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xFF => 4,
        _ => 1,
    }
}

fn is_js_whitespace(c: char) -> bool {
    c.is_whitespace() || c == '\u{FEFF}'
}

// ---------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------

/// Splits source text into tokens.
///
/// Scanning inside strings, comments, templates and regexes is byte-wise but
/// only ever stops at ASCII delimiters (UTF-8 continuation bytes are never
/// ASCII), so every token boundary is a char boundary.
struct Lexer<'s> {
    src: &'s str,
    bytes: &'s [u8],
    pos: usize,
    tokens: Vec<Token>,
    /// One entry per open `{`: `true` if it is the `${` of a template literal,
    /// so that the matching `}` resumes template text.
    braces: Vec<bool>,
    newline_before: bool,
    /// A regex attempted before this offset is known to run into a line end,
    /// so such a `/` is lexed as division right away. This keeps lexing linear
    /// on lines full of `/` that the heuristic wrongly took for regex starts.
    regex_blocked_until: usize,
    /// One entry per open `(`: `true` if it follows `if`/`while`/`for`/`with`.
    parens: Vec<bool>,
    /// Index of the last `)` that closed such a statement head: a `/` right
    /// after it starts a regex (`if (x) /re/.test(s)`), unlike after other `)`.
    control_paren_end: Option<usize>,
}

impl<'s> Lexer<'s> {
    fn new(src: &'s str) -> Self {
        Lexer {
            src,
            bytes: src.as_bytes(),
            pos: 0,
            tokens: Vec::new(),
            braces: Vec::new(),
            newline_before: false,
            regex_blocked_until: 0,
            parens: Vec::new(),
            control_paren_end: None,
        }
    }

    fn run(mut self) -> Vec<Token> {
        self.skip_hashbang();
        loop {
            self.skip_trivia();
            if self.pos >= self.bytes.len() {
                return self.tokens;
            }
            self.lex_token();
        }
    }

    fn push(&mut self, kind: TokKind, start: usize, terminated: bool) {
        self.pos = self.pos.min(self.bytes.len());
        self.tokens.push(Token {
            kind,
            start,
            end: self.pos,
            newline_before: self.newline_before,
            terminated,
        });
        self.newline_before = false;
    }

    fn peek(&self, offset: usize) -> Option<u8> {
        self.bytes.get(self.pos + offset).copied()
    }

    fn char_at(&self, p: usize) -> Option<char> {
        self.src.get(p..).and_then(|s| s.chars().next())
    }

    /// Lexes one token starting at `self.pos` (which is in bounds). Every
    /// branch advances by at least one byte.
    fn lex_token(&mut self) {
        let start = self.pos;
        let Some(b) = self.peek(0) else { return };
        match b {
            b'\'' | b'"' => self.lex_string(b),
            b'`' => {
                self.pos += 1;
                self.lex_template_chunk(start, true);
            }
            b'/' => {
                if !(self.regex_allowed() && self.lex_regex()) {
                    self.lex_punct();
                }
            }
            b'0'..=b'9' => self.lex_number(),
            b'.' if self.peek(1).is_some_and(|c| c.is_ascii_digit()) => self.lex_number(),
            b'#' if self.ident_starts_at(start + 1) => {
                self.pos += 1;
                self.consume_ident_chars();
                self.push(TokKind::PrivateName, start, true);
            }
            b'{' => {
                self.braces.push(false);
                self.lex_punct();
            }
            b'}' => {
                if self.braces.pop() == Some(true) {
                    self.pos += 1;
                    self.lex_template_chunk(start, false);
                } else {
                    self.lex_punct();
                }
            }
            _ if self.ident_starts_at(start) => {
                self.consume_ident_chars();
                self.push(TokKind::Ident, start, true);
            }
            _ => self.lex_punct(),
        }
    }

    /// Skips a `#!` line at the very start (optionally after a BOM).
    fn skip_hashbang(&mut self) {
        let start = if self.bytes.starts_with("\u{FEFF}".as_bytes()) {
            3
        } else {
            0
        };
        if self.bytes.get(start..start + 2) == Some(b"#!") {
            self.pos = start;
            self.skip_line_comment();
        }
    }

    /// Skips whitespace and comments, remembering whether a line ended.
    fn skip_trivia(&mut self) {
        while let Some(b) = self.peek(0) {
            match b {
                b'\n' | b'\r' => {
                    self.newline_before = true;
                    self.pos += 1;
                }
                b' ' | b'\t' | 0x0B | 0x0C => self.pos += 1,
                b'/' if self.peek(1) == Some(b'/') => self.skip_line_comment(),
                b'/' if self.peek(1) == Some(b'*') => self.skip_block_comment(),
                0x80.. => match self.char_at(self.pos) {
                    Some(c) if is_js_whitespace(c) => {
                        if matches!(c, '\u{2028}' | '\u{2029}') {
                            self.newline_before = true;
                        }
                        self.pos += c.len_utf8();
                    }
                    _ => return,
                },
                _ => return,
            }
        }
    }

    /// Skips to the next line terminator. U+2028/U+2029 end the comment too:
    /// code after them is live in JS and must not be hidden.
    fn skip_line_comment(&mut self) {
        while self.pos < self.bytes.len() && line_terminator_len(self.bytes, self.pos) == 0 {
            self.pos += 1;
        }
    }

    /// Skips a `/* */` comment; an unterminated one runs to the end of input.
    fn skip_block_comment(&mut self) {
        let mut p = self.pos + 2;
        loop {
            match self.bytes.get(p) {
                None => {
                    self.pos = self.bytes.len();
                    return;
                }
                Some(b'*') if self.bytes.get(p + 1) == Some(&b'/') => {
                    self.pos = p + 2;
                    return;
                }
                Some(_) => {
                    if line_terminator_len(self.bytes, p) > 0 {
                        self.newline_before = true;
                    }
                    p += 1;
                }
            }
        }
    }

    /// Skips the character after a backslash (a CRLF counts as one).
    fn skip_escaped_char(&mut self) {
        match self.peek(0) {
            Some(b'\r') if self.peek(1) == Some(b'\n') => self.pos += 2,
            Some(b) => self.pos += utf8_len(b),
            None => {}
        }
        self.pos = self.pos.min(self.bytes.len());
    }

    /// `'...'` / `"..."`; an unescaped line break ends an unterminated string.
    fn lex_string(&mut self, quote: u8) {
        let start = self.pos;
        self.pos += 1;
        let mut terminated = false;
        while let Some(b) = self.peek(0) {
            if b == quote {
                self.pos += 1;
                terminated = true;
                break;
            }
            match b {
                b'\\' => {
                    self.pos += 1;
                    self.skip_escaped_char();
                }
                b'\n' | b'\r' => break,
                _ => self.pos += 1,
            }
        }
        self.push(TokKind::Str, start, terminated);
    }

    /// Lexes template text from `self.pos` (just after the opening backtick,
    /// or after the `}` closing a substitution) up to the closing backtick or
    /// the next `${`. Nesting is handled by `self.braces`, not by recursion.
    fn lex_template_chunk(&mut self, start: usize, opening: bool) {
        let (end_kind, subst_kind) = if opening {
            (TokKind::Template, TokKind::TemplateHead)
        } else {
            (TokKind::TemplateTail, TokKind::TemplateMiddle)
        };
        while let Some(b) = self.peek(0) {
            match b {
                b'`' => {
                    self.pos += 1;
                    self.push(end_kind, start, true);
                    return;
                }
                b'\\' => {
                    self.pos += 1;
                    self.skip_escaped_char();
                }
                b'$' if self.peek(1) == Some(b'{') => {
                    self.pos += 2;
                    self.braces.push(true);
                    self.push(subst_kind, start, true);
                    return;
                }
                _ => self.pos += 1,
            }
        }
        self.push(end_kind, start, false);
    }

    /// Decides regex vs. division from the previous significant token.
    fn regex_allowed(&self) -> bool {
        let Some(last) = self.tokens.last() else {
            return true;
        };
        match last.kind {
            TokKind::Ident => {
                KEYWORDS_BEFORE_EXPRESSION.contains(&last.text(self.src))
                    && !is_member_name(self.src, &self.tokens, self.tokens.len() - 1)
            }
            TokKind::TemplateHead | TokKind::TemplateMiddle => true,
            TokKind::Punct => match last.text(self.src) {
                ")" => self.control_paren_end == Some(self.tokens.len() - 1),
                "]" | "++" | "--" => false,
                "!" => !self.is_non_null_assertion(self.tokens.len() - 1),
                _ => true,
            },
            _ => false,
        }
    }

    /// Whether the `!` token at `index` is TypeScript's postfix non-null assertion (`x!`), which
    /// ends an expression (so a following `/` divides), rather than the prefix `!` operator
    /// (`!/re/.test(s)`). It is postfix when it directly follows, without a space, something
    /// that ends an expression.
    fn is_non_null_assertion(&self, index: usize) -> bool {
        let Some(bang) = self.tokens.get(index) else {
            return false;
        };
        let Some(before) = index.checked_sub(1).and_then(|i| self.tokens.get(i)) else {
            return false;
        };
        if before.end != bang.start {
            return false;
        }
        match before.kind {
            TokKind::Ident => !KEYWORDS_BEFORE_EXPRESSION.contains(&before.text(self.src)),
            TokKind::PrivateName
            | TokKind::Number
            | TokKind::Str
            | TokKind::Template
            | TokKind::TemplateTail => true,
            TokKind::Punct => matches!(before.text(self.src), ")" | "]"),
            TokKind::TemplateHead | TokKind::TemplateMiddle | TokKind::Regex => false,
        }
    }

    /// Tries to lex a regex literal at `self.pos`. Returns false (consuming
    /// nothing) if it would run into a line end, in which case the caller
    /// lexes the `/` as a division operator.
    fn lex_regex(&mut self) -> bool {
        let start = self.pos;
        if start < self.regex_blocked_until {
            return false;
        }
        let mut p = start + 1;
        let mut in_class = false;
        loop {
            let Some(&b) = self.bytes.get(p) else {
                self.regex_blocked_until = p;
                return false;
            };
            if line_terminator_len(self.bytes, p) > 0 {
                self.regex_blocked_until = p;
                return false;
            }
            match b {
                b'\\' => {
                    p += 1;
                    if let Some(&next) = self.bytes.get(p) {
                        if line_terminator_len(self.bytes, p) == 0 {
                            p += utf8_len(next);
                        }
                    }
                    continue;
                }
                // Inside a character class `/` does not end the regex.
                b'[' => in_class = true,
                b']' => in_class = false,
                b'/' if !in_class => break,
                _ => {}
            }
            p += 1;
        }
        p += 1;
        // Flags.
        while self
            .bytes
            .get(p)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$')
        {
            p += 1;
        }
        self.pos = p;
        self.push(TokKind::Regex, start, true);
        true
    }

    fn lex_number(&mut self) {
        let start = self.pos;
        let radix_prefixed = self.peek(0) == Some(b'0')
            && matches!(self.peek(1), Some(b'x' | b'X' | b'o' | b'O' | b'b' | b'B'));
        let mut prev = 0u8;
        let mut seen_dot = false;
        while let Some(b) = self.peek(0) {
            let take = b.is_ascii_alphanumeric()
                || b == b'_'
                || (b == b'.' && !seen_dot && !radix_prefixed)
                || (matches!(b, b'+' | b'-') && !radix_prefixed && matches!(prev, b'e' | b'E'));
            if !take {
                break;
            }
            seen_dot |= b == b'.';
            prev = b;
            self.pos += 1;
        }
        self.push(TokKind::Number, start, true);
    }

    fn ident_starts_at(&self, p: usize) -> bool {
        match self.bytes.get(p) {
            Some(&b) if b.is_ascii_alphabetic() || matches!(b, b'_' | b'$' | b'\\') => true,
            // Any non-ASCII character that is not whitespace is accepted as an
            // identifier character; being lenient here is harmless.
            Some(&b) if b >= 0x80 => self.char_at(p).is_some_and(|c| !is_js_whitespace(c)),
            _ => false,
        }
    }

    fn consume_ident_chars(&mut self) {
        while let Some(b) = self.peek(0) {
            if b.is_ascii_alphanumeric() || b == b'_' || b == b'$' {
                self.pos += 1;
            } else if b == b'\\' {
                self.pos += 1;
                self.consume_unicode_escape_tail();
            } else if b >= 0x80 {
                match self.char_at(self.pos) {
                    Some(c) if !is_js_whitespace(c) => self.pos += c.len_utf8(),
                    _ => return,
                }
            } else {
                return;
            }
        }
    }

    /// Consumes the `u{...}` of an identifier escape `\u{...}` (the `uXXXX`
    /// form consists of identifier characters anyway).
    fn consume_unicode_escape_tail(&mut self) {
        if self.peek(0) == Some(b'u') && self.peek(1) == Some(b'{') {
            self.pos += 2;
            while self.peek(0).is_some_and(|b| b.is_ascii_hexdigit()) {
                self.pos += 1;
            }
            if self.peek(0) == Some(b'}') {
                self.pos += 1;
            }
        }
    }

    fn lex_punct(&mut self) {
        let start = self.pos;
        let rest = self.bytes.get(start..).unwrap_or(&[]);
        let len = MULTI_PUNCTUATORS
            .iter()
            .find(|p| {
                // `a?.5:1` is a conditional, not optional chaining.
                rest.starts_with(p.as_bytes())
                    && !(**p == "?." && rest.get(2).is_some_and(|c| c.is_ascii_digit()))
            })
            .map_or_else(|| rest.first().map_or(1, |&b| utf8_len(b)), |p| p.len());
        self.track_parens(len);
        self.pos += len;
        self.push(TokKind::Punct, start, true);
    }

    /// Called before pushing a punctuator of `len` bytes at `self.pos`.
    fn track_parens(&mut self, len: usize) {
        if len != 1 {
            return;
        }
        match self.peek(0) {
            Some(b'(') => {
                let last = self.tokens.len().checked_sub(1);
                let control = last.is_some_and(|l| {
                    matches!(
                        self.tokens[l].text(self.src),
                        "if" | "while" | "for" | "with"
                    ) && self.tokens[l].kind == TokKind::Ident
                        && !is_member_name(self.src, &self.tokens, l)
                });
                self.parens.push(control);
            }
            Some(b')') => {
                let closes_control_head = self.parens.pop() == Some(true);
                if closes_control_head {
                    self.control_paren_end = Some(self.tokens.len());
                }
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------
// Bracket matching
// ---------------------------------------------------------------------------

/// For every `(`, `[`, `{` and template head, the index of its closing token
/// (the template tail for a template), if any. One pass with a stack, so the
/// analyzer can jump over a bracketed group in O(1).
fn match_brackets(src: &str, toks: &[Token]) -> Vec<Option<usize>> {
    let mut closers = vec![None; toks.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (i, tok) in toks.iter().enumerate() {
        match tok.kind {
            TokKind::TemplateHead => stack.push(i),
            TokKind::TemplateMiddle | TokKind::TemplateTail => {
                // Brackets left open inside `${ ... }` cannot close outside it.
                while stack
                    .last()
                    .is_some_and(|&top| toks[top].kind != TokKind::TemplateHead)
                {
                    stack.pop();
                }
                if tok.kind == TokKind::TemplateTail {
                    if let Some(head) = stack.pop() {
                        closers[head] = Some(i);
                    }
                }
            }
            TokKind::Punct => {
                let text = tok.text(src);
                let opener = match text {
                    "(" | "[" | "{" => {
                        stack.push(i);
                        continue;
                    }
                    ")" => "(",
                    "]" => "[",
                    "}" => "{",
                    _ => continue,
                };
                // A mismatched closer is ignored rather than unwinding.
                if let Some(&top) = stack.last() {
                    if toks[top].is_punct(src, opener) {
                        stack.pop();
                        closers[top] = Some(i);
                    }
                }
            }
            _ => {}
        }
    }
    closers
}

// ---------------------------------------------------------------------------
// Colon classification (type annotation or not)
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FrameKind {
    Paren,
    Bracket,
    /// Statement block, class/interface body or type literal: a `:` directly
    /// inside is a type annotation.
    Block,
    /// Object literal or destructuring pattern: `key: value`.
    Object,
    /// `${ ... }` of a template literal.
    Template,
}

#[derive(Debug, Clone, Copy)]
struct Frame {
    kind: FrameKind,
    /// Open ternary `?` waiting for their `:`.
    ternaries: u32,
    /// A `case` waiting for its `:`.
    case_pending: bool,
}

impl Frame {
    fn new(kind: FrameKind) -> Self {
        Frame {
            kind,
            ternaries: 0,
            case_pending: false,
        }
    }
}

/// Follows bracket nesting just enough to tell whether a `:` starts a type
/// annotation. Colons of ternaries, `case`/`default` clauses and object
/// literal properties are not annotations; every other colon is.
struct ColonContext {
    /// Never empty: the root frame is never popped.
    frames: Vec<Frame>,
    /// Classification of the most recently observed `:`.
    last_colon_is_type: bool,
}

/// Keywords after which `{` starts an object literal rather than a block.
const KEYWORDS_BEFORE_OBJECT: &[&str] = &[
    "return",
    "typeof",
    "instanceof",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "case",
    "yield",
    "await",
    "default",
];

impl ColonContext {
    fn new() -> Self {
        ColonContext {
            frames: vec![Frame::new(FrameKind::Block)],
            last_colon_is_type: false,
        }
    }

    fn top(&mut self) -> &mut Frame {
        if self.frames.is_empty() {
            self.frames.push(Frame::new(FrameKind::Block));
        }
        let last = self.frames.len() - 1;
        &mut self.frames[last]
    }

    fn pop_if(&mut self, accept: impl Fn(FrameKind) -> bool) {
        if self.frames.len() > 1 && self.frames.last().is_some_and(|f| accept(f.kind)) {
            self.frames.pop();
        }
    }

    /// Drops frames left open inside a template substitution.
    fn unwind_to_template(&mut self) {
        while self.frames.len() > 1
            && self
                .frames
                .last()
                .is_some_and(|f| f.kind != FrameKind::Template)
        {
            self.frames.pop();
        }
    }

    /// Updates the state with token `i`; must see every token in order.
    fn observe(&mut self, src: &str, toks: &[Token], i: usize) {
        let Some(tok) = toks.get(i) else { return };
        match tok.kind {
            TokKind::TemplateHead => self.frames.push(Frame::new(FrameKind::Template)),
            TokKind::TemplateMiddle => {
                self.unwind_to_template();
                *self.top() = Frame::new(FrameKind::Template);
            }
            TokKind::TemplateTail => {
                self.unwind_to_template();
                self.pop_if(|k| k == FrameKind::Template);
            }
            TokKind::Ident if tok.text(src) == "case" && !is_member_name(src, toks, i) => {
                self.top().case_pending = true;
            }
            TokKind::Punct => self.observe_punct(src, toks, i),
            _ => {}
        }
    }

    fn observe_punct(&mut self, src: &str, toks: &[Token], i: usize) {
        let Some(tok) = toks.get(i) else { return };
        match tok.text(src) {
            "(" => self.frames.push(Frame::new(FrameKind::Paren)),
            "[" => self.frames.push(Frame::new(FrameKind::Bracket)),
            "{" => {
                let kind = self.brace_kind(src, toks, i);
                self.frames.push(Frame::new(kind));
            }
            ")" => self.pop_if(|k| k == FrameKind::Paren),
            "]" => self.pop_if(|k| k == FrameKind::Bracket),
            "}" => self.pop_if(|k| matches!(k, FrameKind::Block | FrameKind::Object)),
            "?" => {
                // `a?: T`, `(a?) =>`, `f(a?, b)`, `[T?]` mark optional
                // members/parameters, not a conditional.
                let optional_marker = toks
                    .get(i + 1)
                    .is_some_and(|t| matches!(t.text(src), ":" | "," | ")" | "]" | "="));
                if !optional_marker {
                    let top = self.top();
                    top.ternaries = top.ternaries.saturating_add(1);
                }
            }
            ":" => self.last_colon_is_type = self.classify_colon(src, toks, i),
            ";" => {
                let top = self.top();
                top.ternaries = 0;
                top.case_pending = false;
            }
            _ => {}
        }
    }

    fn classify_colon(&mut self, src: &str, toks: &[Token], i: usize) -> bool {
        let prev = i.checked_sub(1).and_then(|p| toks.get(p));
        let after_default = prev.is_some_and(|t| t.is_word(src, "default"));
        let after_close_paren = prev.is_some_and(|t| t.is_punct(src, ")"));
        let top = self.top();
        if top.ternaries > 0 {
            top.ternaries -= 1;
            return false;
        }
        if top.case_pending {
            top.case_pending = false;
            return false;
        }
        if after_default {
            return false;
        }
        // In an object literal `key: value` is a property, but `m(): T` is
        // the return type of a method.
        top.kind != FrameKind::Object || after_close_paren
    }

    /// Whether the `{` at `i` opens an object literal: it does when an
    /// expression is expected at that point.
    fn brace_kind(&self, src: &str, toks: &[Token], i: usize) -> FrameKind {
        let Some(prev) = i.checked_sub(1).and_then(|p| toks.get(p)) else {
            return FrameKind::Block;
        };
        let text = prev.text(src);
        match prev.kind {
            TokKind::TemplateHead | TokKind::TemplateMiddle => FrameKind::Object,
            TokKind::Ident
                if KEYWORDS_BEFORE_OBJECT.contains(&text) && !is_member_name(src, toks, i - 1) =>
            {
                FrameKind::Object
            }
            TokKind::Punct => match text {
                ")" | "]" | ";" | "{" | "}" | "=>" | ">" => FrameKind::Block,
                ":" if self.last_colon_is_type => FrameKind::Block,
                _ => FrameKind::Object,
            },
            _ => FrameKind::Block,
        }
    }
}

// ---------------------------------------------------------------------------
// Analyzer
// ---------------------------------------------------------------------------

/// Modifiers that may precede a class member name.
const MEMBER_MODIFIERS: &[&str] = &[
    "static",
    "async",
    "get",
    "set",
    "public",
    "private",
    "protected",
    "readonly",
    "override",
    "abstract",
    "declare",
    "accessor",
];

/// How a recorded declaration takes part in import elision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Elision {
    /// Never elided (side-effect import, `import {}`, exported import-equals,
    /// non-import kinds).
    Keep,
    /// Elided unless one of its bindings is referenced.
    IfUnused,
    /// Only inline `type` specifiers: always elided.
    Always,
}

/// The bindings of one declaration and its elision rule.
#[derive(Debug)]
struct DeclBindings {
    names: Vec<String>,
    elision: Elision,
}

impl DeclBindings {
    fn none() -> Self {
        DeclBindings {
            names: Vec::new(),
            elision: Elision::Keep,
        }
    }
}

/// Recognises import forms on the token stream.
struct Analyzer<'a> {
    src: &'a str,
    toks: &'a [Token],
    closers: &'a [Option<usize>],
    ctx: ColonContext,
    /// Tokens before this index were consumed by a recognised form.
    skip_until: usize,
    /// Tokens before this index belong to a `type X = ...` alias.
    alias_until: usize,
    /// Per token: part of an import / export-from declaration, so never a
    /// reference to an imported binding.
    in_declaration: Vec<bool>,
    /// Elision rule of each record in `out.imports` (same indices).
    elision: Vec<Elision>,
    out: ScanResult,
}

impl<'a> Analyzer<'a> {
    fn new(src: &'a str, toks: &'a [Token], closers: &'a [Option<usize>]) -> Self {
        Analyzer {
            src,
            toks,
            closers,
            ctx: ColonContext::new(),
            skip_until: 0,
            alias_until: 0,
            in_declaration: vec![false; toks.len()],
            elision: Vec::new(),
            out: ScanResult::default(),
        }
    }

    fn run(&mut self) {
        for i in 0..self.toks.len() {
            if i >= self.alias_until && self.is_type_alias_head(i) {
                self.alias_until = self.type_alias_end(i);
            }
            if i >= self.skip_until {
                self.recognize(i);
            }
            self.ctx.observe(self.src, self.toks, i);
        }
    }

    /// Decides elision for every record and returns the result.
    fn finish(mut self) -> ScanResult {
        if self.elision.contains(&Elision::IfUnused) {
            let used = referenced_names(self.src, self.toks, &self.in_declaration);
            for (record, rule) in self.out.imports.iter_mut().zip(&self.elision) {
                record.elided = *rule == Elision::IfUnused
                    && !record.bindings.iter().any(|b| used.contains(b.as_str()));
            }
        }
        for (record, rule) in self.out.imports.iter_mut().zip(&self.elision) {
            if *rule == Elision::Always {
                record.elided = true;
            }
        }
        self.out
    }

    // --- token helpers (all out-of-range indices are simply "no match") ---

    fn kind(&self, i: usize) -> Option<TokKind> {
        self.toks.get(i).map(|t| t.kind)
    }

    fn is_punct(&self, i: usize, p: &str) -> bool {
        self.toks.get(i).is_some_and(|t| t.is_punct(self.src, p))
    }

    fn is_word(&self, i: usize, w: &str) -> bool {
        self.toks.get(i).is_some_and(|t| t.is_word(self.src, w))
    }

    fn prev_is_punct(&self, i: usize, p: &str) -> bool {
        i.checked_sub(1).is_some_and(|p_i| self.is_punct(p_i, p))
    }

    fn prev_is_word(&self, i: usize, w: &str) -> bool {
        i.checked_sub(1).is_some_and(|p_i| self.is_word(p_i, w))
    }

    /// A complete `'...'` / `"..."` string.
    fn is_string(&self, i: usize) -> bool {
        self.toks
            .get(i)
            .is_some_and(|t| t.kind == TokKind::Str && t.terminated)
    }

    /// A complete string or substitution-free template literal.
    fn is_literal(&self, i: usize) -> bool {
        self.toks
            .get(i)
            .is_some_and(|t| matches!(t.kind, TokKind::Str | TokKind::Template) && t.terminated)
    }

    fn closer(&self, open: usize) -> Option<usize> {
        self.closers.get(open).copied().flatten()
    }

    // --- recognition ---

    fn recognize(&mut self, i: usize) {
        let Some(tok) = self.toks.get(i) else { return };
        if tok.kind != TokKind::Ident || is_member_name(self.src, self.toks, i) {
            return;
        }
        match tok.text(self.src) {
            "import" => self.import_keyword(i),
            "export" => self.export_keyword(i),
            "require" => self.require_keyword(i),
            _ => {}
        }
    }

    fn import_keyword(&mut self, i: usize) {
        if self.is_punct(i + 1, "(") {
            if !self.in_type_position(i) {
                self.call(i, i + 1, ImportKind::DynamicImport);
            }
        } else if self.kind(i + 1) == Some(TokKind::Str) {
            // `import 'x'`
            self.record_declaration(i, i + 1, ImportKind::Import, false, DeclBindings::none());
        } else if !self.is_punct(i + 1, ".") {
            // (`import.meta` is not an import.)
            self.static_import(i);
        }
    }

    /// `import <clause> from 'x'` and `import x = require('x')`, with an
    /// optional `type` modifier making it type-only.
    fn static_import(&mut self, i: usize) {
        let mut j = i + 1;
        let type_only = self.is_word(j, "type") && self.type_is_modifier(j);
        if type_only {
            j += 1;
        }
        if self.kind(j) == Some(TokKind::Ident) && self.is_punct(j + 1, "=") {
            self.import_equals(i, j, type_only);
            return;
        }
        let Some(from) = self.import_clause_end(j) else {
            return;
        };
        if self.is_word(from, "from") && self.kind(from + 1) == Some(TokKind::Str) {
            let bindings = if type_only {
                DeclBindings::none()
            } else {
                self.clause_bindings(j, from)
            };
            self.record_declaration(i, from + 1, ImportKind::Import, type_only, bindings);
        }
    }

    /// The local names of the (already validated) import clause running
    /// from `j` up to the `from` at index `from`.
    fn clause_bindings(&self, mut j: usize, from: usize) -> DeclBindings {
        let mut names = Vec::new();
        if self.kind(j) == Some(TokKind::Ident) {
            // Default import.
            names.push(self.ident_name(j));
            j += 2;
        }
        let mut type_only_specifiers = 0;
        if self.is_punct(j, "*") {
            names.push(self.ident_name(j + 2));
        } else if self.is_punct(j, "{") {
            type_only_specifiers = self.named_bindings(j, from, &mut names);
        }
        let elision = if !names.is_empty() {
            Elision::IfUnused
        } else if type_only_specifiers > 0 {
            Elision::Always
        } else {
            Elision::Keep
        };
        DeclBindings { names, elision }
    }

    /// Adds the local names of `{ a, b as c, "s" as d, type e }` (opened at
    /// `open`, closed before `end`) to `names`, skipping specifiers marked
    /// `type`; returns how many were skipped. A specifier of an even number
    /// of tokens starting with `type` carries the modifier: `{ type }` and
    /// `{ type as as }` import `type`/`as` as values, while `{ type as }` and
    /// `{ type a as b }` are type-only (TypeScript's parsing rules).
    fn named_bindings(&self, open: usize, end: usize, names: &mut Vec<String>) -> usize {
        let mut type_only = 0;
        let mut start = open + 1;
        for k in open + 1..end {
            let Some(tok) = self.toks.get(k) else { break };
            if tok.kind != TokKind::Punct {
                continue;
            }
            let len = k - start;
            if len > 0 {
                if len.is_multiple_of(2) && self.is_word(start, "type") {
                    type_only += 1;
                } else if self.kind(k - 1) == Some(TokKind::Ident) {
                    names.push(self.ident_name(k - 1));
                }
            }
            start = k + 1;
        }
        type_only
    }

    /// The name of identifier token `i`, with `\u` escapes decoded.
    fn ident_name(&self, i: usize) -> String {
        let text = self.toks.get(i).map_or("", |t| t.text(self.src));
        identifier_name(text).into_owned()
    }

    /// Marks tokens `start..end` as part of a declaration.
    fn mark_declaration(&mut self, start: usize, end: usize) {
        let end = end.min(self.in_declaration.len());
        if let Some(marks) = self.in_declaration.get_mut(start..end) {
            marks.fill(true);
        }
    }

    /// Whether the `type` at `j` (right after `import`) is the type-only
    /// modifier rather than a default import binding named `type`.
    fn type_is_modifier(&self, j: usize) -> bool {
        match self.kind(j + 1) {
            // `import type {A}` / `import type * as T`, but not
            // `import type, {a}` or `import type = require(...)`.
            Some(TokKind::Punct) => self.is_punct(j + 1, "{") || self.is_punct(j + 1, "*"),
            // `import type X from`, but `import type from 'x'` imports a
            // default binding called `type` (`import type from from 'x'`
            // is type-only again).
            Some(TokKind::Ident) => {
                !(self.is_word(j + 1, "from") && self.kind(j + 2) == Some(TokKind::Str))
            }
            _ => false,
        }
    }

    /// Parses an import clause (`X`, `* as ns`, `{...}`, `X, * as ns`,
    /// `X, {...}`) starting at `j`; returns the index where `from` must be.
    fn import_clause_end(&self, mut j: usize) -> Option<usize> {
        if self.kind(j) == Some(TokKind::Ident) {
            if !self.is_punct(j + 1, ",") {
                return Some(j + 1);
            }
            j += 2;
        }
        if self.is_punct(j, "*") {
            let ok = self.is_word(j + 1, "as") && self.kind(j + 2) == Some(TokKind::Ident);
            return ok.then_some(j + 3);
        }
        if self.is_punct(j, "{") {
            return self.named_list_end(j);
        }
        None
    }

    /// Skips `{ a, b as c, "x" as d, type e }` starting at the `{`; returns the
    /// index after the `}`. Only identifiers, strings and commas are accepted,
    /// so two such scans never walk over the same tokens (linear time).
    fn named_list_end(&self, open: usize) -> Option<usize> {
        let mut k = open + 1;
        loop {
            match self.kind(k)? {
                TokKind::Ident | TokKind::Str => k += 1,
                TokKind::Punct if self.is_punct(k, ",") => k += 1,
                TokKind::Punct if self.is_punct(k, "}") => return Some(k + 1),
                _ => return None,
            }
        }
    }

    /// `import x = require(...)` with `import` at `i` and `x` at `name`:
    /// records `require('x')`; a non-literal `require` is left for
    /// [`Self::require_keyword`] to report.
    fn import_equals(&mut self, i: usize, name: usize, type_only: bool) {
        let k = name + 2;
        if !self.is_word(k, "require") {
            // `import x = A.B` is a namespace alias, not a module reference.
            return;
        }
        if type_only {
            // Hide the `require` of `import type x = require('x')`.
            self.skip_until = k + 1;
            self.mark_declaration(i, k + 1);
            return;
        }
        if self.is_punct(k + 1, "(") && self.is_literal(k + 2) && self.is_punct(k + 3, ")") {
            // `export import x = require('x')` is always kept.
            let exported = i.checked_sub(1).is_some_and(|e| {
                self.is_word(e, "export") && !is_member_name(self.src, self.toks, e)
            });
            let bindings = DeclBindings {
                names: vec![self.ident_name(name)],
                elision: if exported {
                    Elision::Keep
                } else {
                    Elision::IfUnused
                },
            };
            self.push_record(k + 2, ImportKind::ImportEquals, bindings);
            self.skip_until = k + 4;
            self.mark_declaration(i, k + 4);
        }
    }

    /// `export * from`, `export * as ns from`, `export {...} from`, optionally
    /// with the type-only `type` modifier.
    fn export_keyword(&mut self, i: usize) {
        let mut j = i + 1;
        let type_only =
            self.is_word(j, "type") && (self.is_punct(j + 1, "{") || self.is_punct(j + 1, "*"));
        if type_only {
            j += 1;
        }
        let from = if self.is_punct(j, "*") {
            if !self.is_word(j + 1, "as") {
                j + 1
            } else if matches!(self.kind(j + 2), Some(TokKind::Ident | TokKind::Str)) {
                j + 3
            } else {
                return;
            }
        } else if self.is_punct(j, "{") {
            match self.named_list_end(j) {
                Some(end) => end,
                None => return,
            }
        } else {
            return;
        };
        if self.is_word(from, "from") && self.kind(from + 1) == Some(TokKind::Str) {
            self.record_declaration(
                i,
                from + 1,
                ImportKind::ExportFrom,
                type_only,
                DeclBindings::none(),
            );
        }
    }

    fn require_keyword(&mut self, i: usize) {
        // `function require(` / `function* require(` declare, not call.
        let declared = self.prev_is_word(i, "function")
            || (self.prev_is_punct(i, "*") && i >= 2 && self.is_word(i - 2, "function"));
        if declared {
            return;
        }
        if self.is_punct(i + 1, "(") {
            self.call(i, i + 1, ImportKind::Require);
        } else if self.is_punct(i + 1, "?.") && self.is_punct(i + 2, "(") {
            // `require?.('x')` still calls the global require.
            self.call(i, i + 2, ImportKind::Require);
        }
    }

    /// A call of `import`/`require` at `i` whose `(` is at `open`.
    fn call(&mut self, i: usize, open: usize, kind: ImportKind) {
        let arg = open + 1;
        // A single literal, optionally followed by an options argument.
        if self.is_literal(arg) && (self.is_punct(arg + 1, ")") || self.is_punct(arg + 1, ",")) {
            self.push_record(arg, kind, DeclBindings::none());
            return;
        }
        if self.is_method_definition(i, open) {
            return;
        }
        let span = self.argument_span(i, open);
        self.out.non_literal.push(DynamicProblem { span, kind });
    }

    /// `import(x) {` / `require(id: string): any` in a class, object literal
    /// or interface define a member named `import`/`require`; no call.
    /// Only consulted for non-literal arguments: a parameter list can never
    /// be a string literal, so literal calls are always reported.
    fn is_method_definition(&self, i: usize, open: usize) -> bool {
        let Some(close) = self.closer(open) else {
            return false;
        };
        let body_follows = self.is_punct(close + 1, "{");
        if !body_follows && !self.is_punct(close + 1, ":") {
            return false;
        }
        let Some(prev) = i.checked_sub(1).and_then(|p| self.toks.get(p)) else {
            return true;
        };
        let member_position = match prev.kind {
            TokKind::Punct => matches!(prev.text(self.src), "{" | "}" | ";" | "," | "*"),
            TokKind::Ident => MEMBER_MODIFIERS.contains(&prev.text(self.src)),
            _ => false,
        };
        let starts_line = self.toks.get(i).is_some_and(|t| t.newline_before);
        member_position || (body_follows && starts_line)
    }

    /// The text between the parentheses of the call opened at `open`, or the
    /// keyword at `i` if there is none.
    fn argument_span(&self, i: usize, open: usize) -> Range<usize> {
        let first = open + 1;
        let end = self.closer(open).unwrap_or(self.toks.len());
        if first < end {
            if let (Some(a), Some(b)) = (self.toks.get(first), self.toks.get(end - 1)) {
                return a.start..b.end;
            }
        }
        self.toks.get(i).map_or(0..0, Token::span)
    }

    /// Type-only `import(...)`: after `typeof`, after a type-annotation `:`,
    /// or inside a `type X = ...` alias.
    fn in_type_position(&self, i: usize) -> bool {
        if i < self.alias_until {
            return true;
        }
        let after_typeof = i
            .checked_sub(1)
            .is_some_and(|p| self.is_word(p, "typeof") && !is_member_name(self.src, self.toks, p));
        after_typeof || (self.prev_is_punct(i, ":") && self.ctx.last_colon_is_type)
    }

    /// `type Name =` / `type Name<` at the start of a statement.
    fn is_type_alias_head(&self, t: usize) -> bool {
        if !self.is_word(t, "type") || is_member_name(self.src, self.toks, t) {
            return false;
        }
        let name_on_same_line = self
            .toks
            .get(t + 1)
            .is_some_and(|n| n.kind == TokKind::Ident && !n.newline_before);
        if !name_on_same_line || !(self.is_punct(t + 2, "=") || self.is_punct(t + 2, "<")) {
            return false;
        }
        let Some(prev) = t.checked_sub(1).and_then(|p| self.toks.get(p)) else {
            return true;
        };
        self.toks.get(t).is_some_and(|tok| tok.newline_before)
            || (prev.kind == TokKind::Punct && matches!(prev.text(self.src), ";" | "{" | "}"))
            || (prev.kind == TokKind::Ident && matches!(prev.text(self.src), "export" | "declare"))
    }

    /// End (exclusive token index) of the alias statement starting at `t`:
    /// the first `;`, unmatched closer, or line break that cannot continue the
    /// type, outside brackets. Bracketed groups are jumped over.
    fn type_alias_end(&self, t: usize) -> usize {
        let n = self.toks.len();
        let mut j = t + 2;
        while let Some(tok) = self.toks.get(j) {
            if j > t + 2 && tok.newline_before && self.ends_type(j - 1) && !self.continues_type(j) {
                return j;
            }
            match tok.kind {
                TokKind::Punct => match tok.text(self.src) {
                    ";" | ")" | "]" | "}" => return j,
                    "(" | "[" | "{" => match self.closer(j) {
                        Some(close) => {
                            j = close + 1;
                            continue;
                        }
                        None => return n,
                    },
                    _ => {}
                },
                TokKind::TemplateHead => match self.closer(j) {
                    Some(close) => {
                        j = close + 1;
                        continue;
                    }
                    None => return n,
                },
                TokKind::TemplateMiddle | TokKind::TemplateTail => return j,
                _ => {}
            }
            j += 1;
        }
        n
    }

    /// Token `k` can be the last token of a type.
    fn ends_type(&self, k: usize) -> bool {
        let Some(tok) = self.toks.get(k) else {
            return false;
        };
        match tok.kind {
            TokKind::Ident => !matches!(
                tok.text(self.src),
                "extends" | "keyof" | "typeof" | "infer" | "readonly" | "unique" | "is" | "asserts"
            ),
            TokKind::Punct => matches!(tok.text(self.src), ")" | "]" | "}" | ">" | ">>" | ">>>"),
            _ => true,
        }
    }

    /// Token `k`, at the start of a line, continues the type before it.
    fn continues_type(&self, k: usize) -> bool {
        let Some(tok) = self.toks.get(k) else {
            return false;
        };
        match tok.kind {
            TokKind::Ident => tok.text(self.src) == "extends",
            TokKind::Punct => matches!(
                tok.text(self.src),
                "|" | "&" | "?" | ":" | "." | "?." | ">" | ">>" | ">>>" | "=" | "=>" | ","
            ),
            _ => false,
        }
    }

    // --- output ---

    /// Records the specifier of a declaration (`from 'x'` / `import 'x'`)
    /// starting at token `start` unless it is type-only or unterminated, and
    /// consumes it.
    fn record_declaration(
        &mut self,
        start: usize,
        lit: usize,
        kind: ImportKind,
        type_only: bool,
        bindings: DeclBindings,
    ) {
        if self.is_string(lit) && !type_only {
            self.push_record(lit, kind, bindings);
        }
        self.skip_until = lit + 1;
        self.mark_declaration(start, lit + 1);
    }

    fn push_record(&mut self, lit: usize, kind: ImportKind, bindings: DeclBindings) {
        let Some(tok) = self.toks.get(lit) else {
            return;
        };
        let inner = self
            .src
            .get(tok.start + 1..tok.end.saturating_sub(1))
            .unwrap_or("");
        let specifier = decode_literal(inner, tok.kind == TokKind::Template)
            .unwrap_or_else(|| inner.to_owned());
        self.out.imports.push(ImportRecord {
            specifier,
            span: tok.span(),
            kind,
            bindings: bindings.names,
            elided: false,
        });
        self.elision.push(bindings.elision);
    }
}

// ---------------------------------------------------------------------------
// References (for import elision)
// ---------------------------------------------------------------------------

/// An identifier's name with `\u` escapes decoded (raw text if undecodable).
fn identifier_name(text: &str) -> Cow<'_, str> {
    if text.contains('\\') {
        if let Some(decoded) = decode_literal(text, false) {
            return Cow::Owned(decoded);
        }
    }
    Cow::Borrowed(text)
}

/// Names of all identifier tokens that may refer to an imported binding: not
/// inside a declaration (`skip`), not a member name, not a property key. One
/// pass over the tokens.
fn referenced_names<'s>(src: &'s str, toks: &[Token], skip: &[bool]) -> HashSet<Cow<'s, str>> {
    let mut used = HashSet::new();
    for (i, tok) in toks.iter().enumerate() {
        if tok.kind != TokKind::Ident
            || skip.get(i).copied().unwrap_or(false)
            || is_member_name(src, toks, i)
            || is_property_key(src, toks, i)
        {
            continue;
        }
        used.insert(identifier_name(tok.text(src)));
    }
    used
}

/// `key:` / `key?:` directly after `{` or `,`: an object-literal, pattern or
/// type-literal key (or a parameter name before its annotation), never a
/// reference. Shorthand `{ key }` is not matched.
fn is_property_key(src: &str, toks: &[Token], i: usize) -> bool {
    let after_open_or_comma = i
        .checked_sub(1)
        .and_then(|p| toks.get(p))
        .is_some_and(|t| t.is_punct(src, "{") || t.is_punct(src, ","));
    let is = |k: usize, p: &str| toks.get(k).is_some_and(|t| t.is_punct(src, p));
    after_open_or_comma && (is(i + 1, ":") || (is(i + 1, "?") && is(i + 2, ":")))
}

// ---------------------------------------------------------------------------
// Literal decoding
// ---------------------------------------------------------------------------

/// Cooked value of a string / template literal body; `None` where JS would
/// reject the escape (legacy octal, lone surrogate, malformed hex...).
fn decode_literal(inner: &str, template: bool) -> Option<String> {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => decode_escape(&mut chars, &mut out)?,
            '\r' if template => {
                // Templates normalise raw CR and CRLF to LF.
                let mut look = chars.clone();
                if look.next() == Some('\n') {
                    chars = look;
                }
                out.push('\n');
            }
            _ => out.push(c),
        }
    }
    Some(out)
}

/// Decodes the escape after a backslash into `out`.
fn decode_escape(chars: &mut Chars<'_>, out: &mut String) -> Option<()> {
    let c = chars.next()?;
    let decoded = match c {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        'b' => '\u{8}',
        'f' => '\u{c}',
        'v' => '\u{b}',
        '0' if !chars.clone().next().is_some_and(|d| d.is_ascii_digit()) => '\0',
        // Legacy octal and `\8`/`\9`: errors in strict code and templates.
        '0'..='9' => return None,
        'x' => {
            let hi = chars.next()?.to_digit(16)?;
            let lo = chars.next()?.to_digit(16)?;
            char::from_u32(hi * 16 + lo)?
        }
        'u' => decode_unicode_escape(chars)?,
        // Line continuations contribute nothing.
        '\r' => {
            let mut look = chars.clone();
            if look.next() == Some('\n') {
                *chars = look;
            }
            return Some(());
        }
        '\n' | '\u{2028}' | '\u{2029}' => return Some(()),
        other => other,
    };
    out.push(decoded);
    Some(())
}

/// Decodes `XXXX` / `{X...}` after `\u`, joining an escaped surrogate pair.
fn decode_unicode_escape(chars: &mut Chars<'_>) -> Option<char> {
    let first = read_code_point(chars)?;
    if (0xD800..0xDC00).contains(&first) {
        let mut look = chars.clone();
        if look.next() == Some('\\') && look.next() == Some('u') {
            let low = read_code_point(&mut look)?;
            if (0xDC00..0xE000).contains(&low) {
                *chars = look;
                return char::from_u32(0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00));
            }
        }
        return None;
    }
    // `None` for a lone low surrogate.
    char::from_u32(first)
}

fn read_code_point(chars: &mut Chars<'_>) -> Option<u32> {
    let mut look = chars.clone();
    if look.next() == Some('{') {
        *chars = look;
        let mut value: u32 = 0;
        let mut digits = 0;
        loop {
            let c = chars.next()?;
            if c == '}' {
                return (digits > 0).then_some(value);
            }
            value = value * 16 + c.to_digit(16)?;
            if value > 0x10FFFF {
                return None;
            }
            digits += 1;
        }
    }
    let mut value = 0;
    for _ in 0..4 {
        value = value * 16 + chars.next()?.to_digit(16)?;
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    #[test]
    fn non_null_assertion_then_division_is_not_a_regex() {
        let src = "import { uniq } from './u';\nconst r = n! / d; const s = `${uniq(r)}/x`;\nimport 'after';";
        let result = scan_imports(src);
        let specifiers: Vec<&str> = result
            .imports
            .iter()
            .map(|i| i.specifier.as_str())
            .collect();
        assert_eq!(specifiers, ["./u", "after"]);
        assert!(!result.imports[0].elided, "uniq is used");
        // The prefix operator still starts a regex.
        let prefix = scan_imports("if (!/['\"]/.test(s)) {}\nimport 'x';");
        assert_eq!(prefix.imports.len(), 1);
    }

    use super::ImportKind::{DynamicImport, ExportFrom, Import, ImportEquals, Require};
    use super::*;

    /// `(specifier, kind)` pairs of the literal imports.
    fn found(src: &str) -> Vec<(String, ImportKind)> {
        scan_imports(src)
            .imports
            .into_iter()
            .map(|r| (r.specifier, r.kind))
            .collect()
    }

    fn expect(pairs: &[(&str, ImportKind)]) -> Vec<(String, ImportKind)> {
        pairs.iter().map(|(s, k)| (s.to_string(), *k)).collect()
    }

    /// Source text of each non-literal problem, with its kind.
    fn problems(src: &str) -> Vec<(&str, ImportKind)> {
        scan_imports(src)
            .non_literal
            .into_iter()
            .map(|p| (&src[p.span], p.kind))
            .collect()
    }

    /// Scans `src` and checks every reported span is a valid slice.
    fn scan_checked(src: &str) -> ScanResult {
        let result = scan_imports(src);
        for r in &result.imports {
            assert!(src.get(r.span.clone()).is_some(), "bad span {:?}", r.span);
        }
        for p in &result.non_literal {
            assert!(src.get(p.span.clone()).is_some(), "bad span {:?}", p.span);
        }
        result
    }

    // --- static imports ---

    #[test]
    fn side_effect_import() {
        assert_eq!(found("import 'x';"), expect(&[("x", Import)]));
        assert_eq!(found("import \"y\""), expect(&[("y", Import)]));
    }

    #[test]
    fn default_named_and_namespace_imports() {
        let src = "import X from 'a';\n\
                   import {a, b as c} from 'b';\n\
                   import * as ns from 'c';\n\
                   import X2, {d} from \"d\";\n\
                   import X3, * as ns2 from 'e';\n\
                   import {} from 'f';";
        assert_eq!(
            found(src),
            expect(&[
                ("a", Import),
                ("b", Import),
                ("c", Import),
                ("d", Import),
                ("e", Import),
                ("f", Import),
            ])
        );
    }

    #[test]
    fn multi_line_import() {
        let src = "import {\n  a,\n  b as c, // trailing\n  /* d */ e,\n} from\n  './mod.ts';";
        assert_eq!(found(src), expect(&[("./mod.ts", Import)]));
    }

    #[test]
    fn span_includes_quotes() {
        let src = "import x from './m.js'; require(`t`);";
        let result = scan_imports(src);
        assert_eq!(&src[result.imports[0].span.clone()], "'./m.js'");
        assert_eq!(&src[result.imports[1].span.clone()], "`t`");
    }

    #[test]
    fn inline_type_specifier_still_imports() {
        assert_eq!(
            found("import { type A, B } from 'x';"),
            expect(&[("x", Import)])
        );
        assert_eq!(
            found("export { type A, B } from 'y';"),
            expect(&[("y", ExportFrom)])
        );
    }

    #[test]
    fn import_attributes() {
        let src = "import j from './a.json' with { type: 'json' };\n\
                   import k from './b.json' assert { type: 'json' };\n\
                   export { default as l } from './c.json' with { type: 'json' };";
        assert_eq!(
            found(src),
            expect(&[
                ("./a.json", Import),
                ("./b.json", Import),
                ("./c.json", ExportFrom)
            ])
        );
    }

    #[test]
    fn type_only_imports_excluded() {
        let src = "import type X from 'a';\n\
                   import type {A} from 'b';\n\
                   import type * as T from 'c';\n\
                   import type from from 'd';\n\
                   import real from 'e';";
        assert_eq!(found(src), expect(&[("e", Import)]));
    }

    #[test]
    fn default_binding_named_type_is_real() {
        let src = "import type from 'a'; import type, {b} from 'b'; import type, * as c from 'c';";
        assert_eq!(
            found(src),
            expect(&[("a", Import), ("b", Import), ("c", Import)])
        );
    }

    #[test]
    fn string_named_import_and_default_named_from() {
        let src = "import { \"a-b\" as ab } from 'a'; import from from 'b';";
        assert_eq!(found(src), expect(&[("a", Import), ("b", Import)]));
    }

    // --- exports ---

    #[test]
    fn export_from_forms() {
        let src = "export * from 'a';\n\
                   export * as ns from 'b';\n\
                   export {a, b as c} from 'c';\n\
                   export * as \"str name\" from 'd';";
        assert_eq!(
            found(src),
            expect(&[
                ("a", ExportFrom),
                ("b", ExportFrom),
                ("c", ExportFrom),
                ("d", ExportFrom)
            ])
        );
    }

    #[test]
    fn type_only_exports_excluded() {
        let src = "export type {A} from 'a';\n\
                   export type * from 'b';\n\
                   export type * as T from 'c';\n\
                   export * from 'd';";
        assert_eq!(found(src), expect(&[("d", ExportFrom)]));
    }

    #[test]
    fn exports_without_from_produce_nothing() {
        let src = "const a = 1; export { a };\nexport const x = 'y';\n\
                   export default 'z';\nexport type T = 'u';\nexport { a as b };";
        let result = scan_imports(src);
        assert!(result.imports.is_empty());
        assert!(result.non_literal.is_empty());
    }

    // --- import equals ---

    #[test]
    fn import_equals_require() {
        let src = "import x = require('a');\n\
                   export import y = require(\"b\");\n\
                   import type z = require('c');\n\
                   import type = require('d');\n\
                   import ns = Foo.Bar;";
        assert_eq!(
            found(src),
            expect(&[
                ("a", ImportEquals),
                ("b", ImportEquals),
                ("d", ImportEquals)
            ])
        );
        assert!(scan_imports(src).non_literal.is_empty());
    }

    // --- dynamic imports ---

    #[test]
    fn dynamic_import_literals() {
        let src = "import('a'); await import(\"b\"); const m = import(`c`);\n\
                   x = import('d', { with: { type: 'json' } });";
        assert_eq!(
            found(src),
            expect(&[
                ("a", DynamicImport),
                ("b", DynamicImport),
                ("c", DynamicImport),
                ("d", DynamicImport)
            ])
        );
        assert!(scan_imports(src).non_literal.is_empty());
    }

    #[test]
    fn dynamic_import_non_literal() {
        let src = "import(x); import(`a${b}`); import('a' + b); import(); import(\n  f()  \n);";
        assert!(found(src).is_empty());
        assert_eq!(
            problems(src),
            vec![
                ("x", DynamicImport),
                ("`a${b}`", DynamicImport),
                ("'a' + b", DynamicImport),
                ("import", DynamicImport),
                ("f()", DynamicImport),
            ]
        );
    }

    #[test]
    fn import_meta_is_not_an_import() {
        let src = "const u = import.meta.url; const r = import.meta.resolve('x');";
        let result = scan_imports(src);
        assert!(result.imports.is_empty());
        assert!(result.non_literal.is_empty());
    }

    #[test]
    fn typeof_import_excluded() {
        let src = "let a: typeof import('a'); type B = Promise<typeof import('b')>; import('c');";
        assert_eq!(found(src), expect(&[("c", DynamicImport)]));
    }

    #[test]
    fn type_annotation_import_excluded() {
        let src = "let a: import('a').T = x;\n\
                   function f(p: import('b').P): import('c').R { return p; }\n\
                   interface I { m: import('d').M; opt?: import('e').E }\n\
                   class K { f: import('f').F; }\n\
                   const v = import('g');";
        assert_eq!(found(src), expect(&[("g", DynamicImport)]));
        assert!(scan_imports(src).non_literal.is_empty());
    }

    #[test]
    fn type_alias_import_excluded() {
        let src = "type A = import('a').T;\n\
                   export type B<T> = T extends string\n  ? import('b').X\n  : import('c').Y;\n\
                   type C =\n  | import('d').D\n  | import('e').E\n\
                   const real = import('f');\n\
                   type D = { k: import('g').G }\n\
                   import('h');";
        assert_eq!(
            found(src),
            expect(&[("f", DynamicImport), ("h", DynamicImport)])
        );
    }

    #[test]
    fn value_colons_keep_dynamic_imports() {
        let src = "const m = cond ? import('a') : import('b');\n\
                   const o = { k: import('c'), [key]: import('d') };\n\
                   switch (x) { case 1: import('e'); break; default: import('f'); }\n\
                   f({ a: b ? import('g') : import('h') });";
        let names: Vec<String> = found(src).into_iter().map(|(s, _)| s).collect();
        assert_eq!(names, ["a", "b", "c", "d", "e", "f", "g", "h"]);
    }

    // --- require ---

    #[test]
    fn require_literals() {
        let src =
            "const a = require('a'); require(\"b\"); const c = require(`c`).x; require?.('d');";
        assert_eq!(
            found(src),
            expect(&[
                ("a", Require),
                ("b", Require),
                ("c", Require),
                ("d", Require)
            ])
        );
    }

    #[test]
    fn require_non_literal() {
        let src = "require(x); require('a' + b); require(`${b}`); require();";
        assert!(found(src).is_empty());
        assert_eq!(
            problems(src),
            vec![
                ("x", Require),
                ("'a' + b", Require),
                ("`${b}`", Require),
                ("require", Require),
            ]
        );
    }

    #[test]
    fn member_require_is_not_global() {
        let src = "module.require('a'); foo.require(x); a?.require('b'); this.#require('c');";
        let result = scan_imports(src);
        assert!(result.imports.is_empty());
        assert!(result.non_literal.is_empty());
    }

    #[test]
    fn require_identifier_boundaries_and_declarations() {
        let src = "myrequire('a'); require_('b'); $require('c');\n\
                   function require(id) { return id; }\n\
                   declare function require(id: string): any;\n\
                   function* require(x) {}";
        let result = scan_imports(src);
        assert!(result.imports.is_empty(), "{:?}", result.imports);
        assert!(result.non_literal.is_empty(), "{:?}", result.non_literal);
    }

    #[test]
    fn keywords_must_be_whole_identifiers() {
        let src = "reimport('a'); importX('b'); exports.x = 1; $import('c'); _import 'd';\n\
                   import_('e'); exports * from 'f'; module.exports = require2('g');";
        let result = scan_imports(src);
        assert!(result.imports.is_empty(), "{:?}", result.imports);
        assert!(result.non_literal.is_empty(), "{:?}", result.non_literal);
    }

    #[test]
    fn members_and_keys_are_not_imports() {
        let src = "obj.import('a'); const o = { import: 1, export: 2, require: 3 };\n\
                   x.export; y?.import(z); o.export * from; a.import.meta;";
        let result = scan_imports(src);
        assert!(result.imports.is_empty(), "{:?}", result.imports);
        assert!(result.non_literal.is_empty(), "{:?}", result.non_literal);
    }

    #[test]
    fn methods_named_import_or_require_are_not_calls() {
        let src = "class A {\n  import(x) { return x; }\n  static require(id: string): void {}\n}\n\
                   const o = { import(spec) {}, async require(s) {} };\n\
                   interface L { require(id: string): unknown }";
        let result = scan_imports(src);
        assert!(result.non_literal.is_empty(), "{:?}", result.non_literal);
    }

    #[test]
    fn order_of_appearance() {
        let src = "const r = require('1');\nimport '2';\nexport * from '3';\n\
                   import x = require('4');\nawait import('5');\nimport y from '6';";
        assert_eq!(
            found(src),
            expect(&[
                ("1", Require),
                ("2", Import),
                ("3", ExportFrom),
                ("4", ImportEquals),
                ("5", DynamicImport),
                ("6", Import)
            ])
        );
    }

    // --- lexing ---

    #[test]
    fn regex_with_quotes_and_slashes() {
        let src = r#"const r = /['"]\/\//g; import 'a';"#;
        assert_eq!(found(src), expect(&[("a", Import)]));
    }

    #[test]
    fn regex_character_class_containing_slash() {
        let src = "const r = /[/'\"]+/; const s = x.match(/[\\]/']/); import 'a';";
        assert_eq!(found(src), expect(&[("a", Import)]));
    }

    #[test]
    fn regex_after_keywords() {
        let src = "function f() { return /'/.test(s); }\nif (typeof /\"/ === 'x') {}\n\
                   const t = a in /'/; import 'a';";
        assert_eq!(found(src), expect(&[("a", Import)]));
    }

    #[test]
    fn regex_after_control_statement_head() {
        let src = "if (x) /'/.test(s); import 'a';\nwhile (f(y)) /\"[/]/g.exec(s); require('b');\n\
                   const q = (a) / 2 / 3; import 'c';";
        assert_eq!(
            found(src),
            expect(&[("a", Import), ("b", Require), ("c", Import)])
        );
    }

    #[test]
    fn division_followed_by_import_on_later_line() {
        let src = "const half = total / 2;\nconst q = (a + b) / c / d;\nconst r = arr[0] / 3;\n\
                   let i = j++ / 2;\nimport 'later';\nconst s = obj.return / 2; require('x');";
        assert_eq!(found(src), expect(&[("later", Import), ("x", Require)]));
    }

    #[test]
    fn string_containing_import_is_ignored() {
        let src = "const s = \"import 'x'\"; const t = 'require(\"y\")'; const u = `import('z')`;";
        let result = scan_imports(src);
        assert!(result.imports.is_empty());
        assert!(result.non_literal.is_empty());
    }

    #[test]
    fn comments_are_ignored() {
        let src =
            "// require('a')\n/* import 'b'; import(c) */\n/** export * from 'd' */ import 'e';";
        assert_eq!(found(src), expect(&[("e", Import)]));
        assert!(scan_imports(src).non_literal.is_empty());
    }

    #[test]
    fn nested_templates_then_import() {
        let src = "const t = `a${`b${\"}\"}`}`; import 'x';";
        assert_eq!(found(src), expect(&[("x", Import)]));
        let src2 = "const t = `${ { a: `${'}'}` } }` + `${/}`/}`; import 'y';";
        assert_eq!(found(src2), expect(&[("y", Import)]));
    }

    #[test]
    fn code_inside_template_substitution_is_scanned() {
        let src = "const s = `text import 'no' ${await import('yes')} ${require(x)} more`;";
        assert_eq!(found(src), expect(&[("yes", DynamicImport)]));
        assert_eq!(problems(src), vec![("x", Require)]);
    }

    #[test]
    fn hashbang_is_skipped() {
        let src = "#!/usr/bin/env node import 'no'\nimport 'yes';";
        assert_eq!(found(src), expect(&[("yes", Import)]));
        let with_bom = "\u{FEFF}#!/usr/bin/env -S deno run\nrequire('r');";
        assert_eq!(found(with_bom), expect(&[("r", Require)]));
    }

    #[test]
    fn unterminated_constructs_at_end() {
        let cases = [
            "import 'a';\nconst s = 'unterminated",
            "import 'a';\nconst s = \"unterminated",
            "import 'a';\n/* unterminated comment import 'b'",
            "import 'a';\nconst t = `unterminated import 'b'",
            "import 'a';\nconst r = /unterminated",
            "import 'a';\nimport 'b",
            "import 'a';\nimport x from",
            "import 'a';\nexport {",
            "import 'a';\nrequire(",
        ];
        for src in cases {
            let result = scan_checked(src);
            assert_eq!(result.imports[0].specifier, "a", "{src}");
            assert!(
                result.imports.iter().all(|r| r.specifier != "b"),
                "{src}: {:?}",
                result.imports
            );
        }
    }

    #[test]
    fn unterminated_template_substitution_is_still_code() {
        let src = "import 'a';\nconst t = `unterminated ${ import('b') ";
        assert_eq!(found(src), expect(&[("a", Import), ("b", DynamicImport)]));
    }

    #[test]
    fn unterminated_string_ends_at_newline() {
        let src = "const s = 'oops\nimport 'a';\nconst t = \"x\\\ny\"; import 'b';";
        assert_eq!(found(src), expect(&[("a", Import), ("b", Import)]));
    }

    #[test]
    fn lone_quotes_do_not_panic() {
        for src in [
            "'",
            "\"",
            "`",
            "/",
            "\\",
            "import '",
            "require(\"",
            "${",
            "}",
            "`${",
        ] {
            scan_checked(src);
        }
        let src = "const x = a ' b;\nimport 'c';";
        assert_eq!(found(src), expect(&[("c", Import)]));
    }

    #[test]
    fn non_ascii_identifiers_and_strings() {
        let src = "const café = \"naïve ✓\"; const 日本 = require('日本/語');\n\
                   import ünï from './ünïcødé.ts'; const ok = café / 日本; import 'ß';";
        let result = scan_checked(src);
        let names: Vec<&str> = result
            .imports
            .iter()
            .map(|r| r.specifier.as_str())
            .collect();
        assert_eq!(names, ["日本/語", "./ünïcødé.ts", "ß"]);
        assert_eq!(&src[result.imports[0].span.clone()], "'日本/語'");
        // Identifiers that merely contain the keyword are not keywords.
        assert!(found("éimport('x'); importé('y');").is_empty());
    }

    #[test]
    fn unicode_whitespace_and_line_separators() {
        // U+2028 ends a line comment in JS; code after it is live.
        let src = "// comment\u{2028}import 'a';\u{00A0}import\u{3000}'b';\u{2029}require('c')";
        assert_eq!(
            found(src),
            expect(&[("a", Import), ("b", Import), ("c", Require)])
        );
    }

    #[test]
    fn crlf_line_endings() {
        let src = "import a from 'a';\r\n// c\r\nconst x = y\r\n/ 2;\r\nimport {\r\n  b\r\n} from 'b';\r\n\
                   type T =\r\n  import('t').T\r\nconst r = require('r');\r\n";
        assert_eq!(
            found(src),
            expect(&[("a", Import), ("b", Import), ("r", Require)])
        );
    }

    #[test]
    fn escapes_are_decoded() {
        let src =
            r#"import '\x41\u0042\u{43}'; require("a\/b\\c\u{1F600}"); import('\uD83D\uDE00');"#;
        let names: Vec<String> = found(src).into_iter().map(|(s, _)| s).collect();
        assert_eq!(names, ["ABC", "a/b\\c😀", "😀"]);
    }

    #[test]
    fn undecodable_escapes_keep_raw_text() {
        let src = r#"import '\u{110000}'; import '\uD800x'; import '\1'; import '\xZZ';"#;
        let names: Vec<String> = found(src).into_iter().map(|(s, _)| s).collect();
        assert_eq!(names, [r"\u{110000}", r"\uD800x", r"\1", r"\xZZ"]);
    }

    #[test]
    fn private_names_and_optional_chaining() {
        let src = "class A { #import = 1; m() { return this.#import; } }\n\
                   const v = a?.b ?? c; const w = x?.5:1; import 'ok';";
        assert_eq!(found(src), expect(&[("ok", Import)]));
    }

    #[test]
    fn every_prefix_is_handled() {
        let sources = [
            "#!/bin/x\nimport a, {b as c} from './é.js' with { type: 'json' };\r\nconst r = /['\"]\\/[/]/g / 2;",
            "const t = `a${`b${\"}\"}`}` + `x${ import('y') }`; import type T from 't'; export * from 'z';",
            "type Q = import('q').Q; const m = c ? import(`m`) : require(x); /* ü */ // 日本\nimport x = require('r');",
            "const s = '\\u{1F600}\\x41\\\n'; import('\\uD83D\\uDE00'); require?.('a' + b); obj.import(c);",
        ];
        for src in sources {
            let mut cuts: Vec<usize> = src.char_indices().map(|(i, _)| i).collect();
            cuts.push(src.len());
            for cut in cuts {
                scan_checked(&src[..cut]);
            }
        }
    }

    #[test]
    fn one_megabyte_source() {
        let chunk = "import a from './a.js';\nconst r = /['\"]/g; // import 'no'\n\
                     const t = `x${require('b')}y`; /* require('no') */ await import(dyn);\n";
        let reps = 1_000_000 / chunk.len() + 1;
        let src = chunk.repeat(reps);
        assert!(src.len() >= 1_000_000);
        let result = scan_checked(&src);
        assert_eq!(result.imports.len(), 2 * reps);
        assert_eq!(result.non_literal.len(), reps);
    }

    // --- import elision ---

    /// `(specifier, bindings, elided)` of every record.
    fn elision(src: &str) -> Vec<(String, Vec<String>, bool)> {
        scan_checked(src)
            .imports
            .into_iter()
            .map(|r| (r.specifier, r.bindings, r.elided))
            .collect()
    }

    /// `elided` of the only record of `src`.
    fn elided(src: &str) -> bool {
        let result = scan_checked(src);
        assert_eq!(result.imports.len(), 1, "{src}: {:?}", result.imports);
        result.imports[0].elided
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn unused_default_import_elided() {
        let src = "import X from 'x';\nconst y = 1;";
        assert_eq!(elision(src), vec![("x".into(), names(&["X"]), true)]);
    }

    #[test]
    fn used_default_import_kept() {
        let src = "import X from 'x';\nX();";
        assert_eq!(elision(src), vec![("x".into(), names(&["X"]), false)]);
        assert!(!elided("import X from 'x'; const v = [1, X];"));
        assert!(!elided("import X from 'x'; new X;"));
    }

    #[test]
    fn namespace_import_used_via_member_kept() {
        let src = "import * as ns from 'x';\nconsole.log(ns.x);";
        assert_eq!(elision(src), vec![("x".into(), names(&["ns"]), false)]);
        assert!(elided("import * as ns from 'x'; other.ns;"));
    }

    #[test]
    fn renamed_import_with_only_property_use_elided() {
        let src = "import { a as b } from 'x';\nobj.a(); o?.a; a.c;";
        assert_eq!(elision(src), vec![("x".into(), names(&["b"]), true)]);
        // Member names with the binding's own name are not uses either.
        assert!(elided("import { b } from 'x'; obj.b; obj?.b(); this.#b;"));
    }

    #[test]
    fn use_inside_template_substitution_kept() {
        assert!(!elided("import { b } from 'x'; const s = `v: ${b}`;"));
        assert!(!elided(
            "import { b } from 'x'; const s = `a${1}c${ f(`${b}`) }`;"
        ));
    }

    #[test]
    fn mentions_in_comments_strings_regex_and_template_text_elided() {
        let src = "import { b } from 'x';\n// b()\n/* b */ const s = 'b' + \"b\";\n\
                   const t = `b ${1} b`; const r = /b/g;";
        assert!(elided(src));
    }

    #[test]
    fn shorthand_property_is_a_use() {
        assert!(!elided("import { b } from 'x'; const o = { b };"));
        assert!(!elided("import { b } from 'x'; const o = { b, other };"));
        assert!(!elided("import { b } from 'x'; const o = { other, b };"));
        assert!(!elided("import { b } from 'x'; const o = { ...b };"));
    }

    #[test]
    fn property_key_is_not_a_use() {
        assert!(elided("import { b } from 'x'; const o = { b: 1 };"));
        assert!(elided("import { b } from 'x'; const o = { a: 1, b: 2 };"));
        assert!(elided("import { b } from 'x'; const { b: local } = o;"));
        assert!(elided("import { b } from 'x'; interface I { b?: string }"));
        // ...but the value of a property is.
        assert!(!elided("import { b } from 'x'; const o = { k: b };"));
        assert!(!elided("import { b } from 'x'; const o = { [b]: 1 };"));
    }

    #[test]
    fn inline_type_only_specifiers_elided() {
        let src = "import { type A } from 'x';\nconst a: A = 1;";
        assert_eq!(elision(src), vec![("x".into(), vec![], true)]);
        assert!(elided("import { type A, type B } from 'x'; f(A, B);"));
    }

    #[test]
    fn mixed_type_and_value_specifiers() {
        let src = "import { type A, B } from 'x';\nB();";
        assert_eq!(elision(src), vec![("x".into(), names(&["B"]), false)]);
        // A use of the type-only name does not keep the declaration.
        let src = "import { type A, B } from 'x';\nlet v: A;";
        assert_eq!(elision(src), vec![("x".into(), names(&["B"]), true)]);
    }

    #[test]
    fn empty_braces_kept() {
        assert_eq!(
            elision("import {} from 'x';"),
            vec![("x".into(), vec![], false)]
        );
        // With a default binding the default decides.
        assert!(elided("import X, {} from 'x';"));
    }

    #[test]
    fn side_effect_import_kept() {
        assert_eq!(
            elision("import 'x';\nimport \"y\";"),
            vec![("x".into(), vec![], false), ("y".into(), vec![], false)]
        );
    }

    #[test]
    fn unused_import_equals_elided() {
        let src = "import x = require('y');\nconst z = 1;";
        assert_eq!(elision(src), vec![("y".into(), names(&["x"]), true)]);
        assert!(!elided("import x = require('y'); x.run();"));
    }

    #[test]
    fn exported_import_equals_kept() {
        let src = "export import x = require('y');";
        assert_eq!(elision(src), vec![("y".into(), names(&["x"]), false)]);
    }

    #[test]
    fn export_of_binding_is_a_use() {
        assert!(!elided("import { b } from 'x'; export { b };"));
        assert!(!elided("import { b } from 'x'; export { b as c };"));
        assert!(!elided(
            "import { a, b } from 'x'; export { a, b as default };"
        ));
        assert!(!elided("import b from 'x'; export default b;"));
        assert!(!elided("import b = require('x'); export = b;"));
    }

    #[test]
    fn export_from_is_not_a_use() {
        let src = "import { b } from 'x';\nexport { b } from 'y';\nexport * as b from 'z';";
        assert_eq!(
            elision(src),
            vec![
                ("x".into(), names(&["b"]), true),
                ("y".into(), vec![], false),
                ("z".into(), vec![], false)
            ]
        );
    }

    #[test]
    fn type_annotation_use_kept_known_limitation() {
        // TypeScript would elide these (type-only uses); without a type
        // checker they count as references.
        assert!(!elided("import { Foo } from 'x'; let v: Foo;"));
        assert!(!elided("import Foo from 'x'; function f(p: Foo): void {}"));
        assert!(!elided("import { Foo } from 'x'; const v = y as Foo;"));
        // No scope analysis either: a shadowing parameter counts.
        assert!(!elided(
            "import { b } from 'x'; function f(b) { return b; }"
        ));
    }

    #[test]
    fn multiple_declarations_only_one_used() {
        let src = "import A from 'a';\nimport { B, C as D } from 'b';\nimport * as E from 'e';\n\
                   import F = require('f');\nimport 'g';\nD(1);";
        assert_eq!(
            elision(src),
            vec![
                ("a".into(), names(&["A"]), true),
                ("b".into(), names(&["B", "D"]), false),
                ("e".into(), names(&["E"]), true),
                ("f".into(), names(&["F"]), true),
                ("g".into(), vec![], false)
            ]
        );
    }

    #[test]
    fn bindings_of_all_clause_forms() {
        let src = "import X, * as ns from 'a';\n\
                   import Y, { a, b as c, type d, default as e, } from 'b';\n\
                   import { \"a-b\" as ab } from 'c';\n\
                   import type, { t } from 'd';\n\
                   import from from 'e';";
        let result = scan_checked(src);
        let bindings: Vec<Vec<String>> = result.imports.into_iter().map(|r| r.bindings).collect();
        assert_eq!(
            bindings,
            vec![
                names(&["X", "ns"]),
                names(&["Y", "a", "c", "e"]),
                names(&["ab"]),
                names(&["type", "t"]),
                names(&["from"])
            ]
        );
    }

    #[test]
    fn type_modifier_parsing_follows_typescript() {
        // { type } / { type as as } import values; { type as } and
        // { type as as as } / { type a as b } are type-only.
        let cases: [(&str, &[&str], bool); 5] = [
            ("import { type } from 'x'; type;", &["type"], false),
            ("import { type as } from 'x'; as;", &[], true),
            ("import { type as as } from 'x'; as;", &["as"], false),
            ("import { type as as as } from 'x'; as;", &[], true),
            ("import { type a as b } from 'x'; b;", &[], true),
        ];
        for (src, expected, is_elided) in cases {
            assert_eq!(
                elision(src),
                vec![("x".into(), names(expected), is_elided)],
                "{src}"
            );
        }
    }

    #[test]
    fn one_used_binding_keeps_the_whole_declaration() {
        assert!(!elided("import X, { a, b } from 'x'; b;"));
        assert!(!elided("import X, * as ns from 'x'; X;"));
        assert!(elided("import X, { a, b } from 'x'; o.X; o.a; o.b;"));
        assert!(elided("import X, { type T } from 'x'; let v: T;"));
    }

    #[test]
    fn other_kinds_have_no_bindings_and_are_never_elided() {
        let src = "export * from 'a'; export { q } from 'b'; import('c'); require('d');\n\
                   const m = require('e');";
        for r in scan_checked(src).imports {
            assert!(r.bindings.is_empty(), "{r:?}");
            assert!(!r.elided, "{r:?}");
        }
    }

    #[test]
    fn declaration_names_are_not_uses() {
        // The binding names in other declarations (including type-only
        // ones) do not keep an import alive.
        let src = "import { b } from 'x';\nimport { b as z } from 'y';\nimport type { b as t } from 't';\n\
                   import type w = require('w');\nz(); w;";
        assert_eq!(
            elision(src),
            vec![
                ("x".into(), names(&["b"]), true),
                ("y".into(), names(&["z"]), false)
            ]
        );
    }

    #[test]
    fn uses_in_expressions_and_jsx() {
        assert!(!elided("import b from 'x'; const v = c ? b : d;"));
        assert!(!elided("import b from 'x'; switch (v) { case b: break; }"));
        assert!(!elided(
            "import Comp from 'x'; const el = <Comp prop={1} />;"
        ));
        assert!(!elided("import b from 'x'; if (b) {}"));
        assert!(!elided("import b from 'x'; class K extends b {}"));
    }

    #[test]
    fn import_attributes_do_not_count_as_uses() {
        assert!(elided(
            "import type_ from './a.json' with { type: 'json' };"
        ));
        assert!(elided(
            "import d from './a.json' with { type: 'json' }; o.d;"
        ));
        assert!(!elided(
            "import d from './a.json' with { type: 'json' }; use(d);"
        ));
    }

    #[test]
    fn escaped_identifiers_are_compared_by_name() {
        let src = "import { \\u0062 } from 'x';\nb();";
        assert_eq!(elision(src), vec![("x".into(), names(&["b"]), false)]);
        assert!(!elided("import { b } from 'x'; \\u{62}();"));
    }

    #[test]
    fn elision_on_every_prefix_is_consistent() {
        let src = "import X, { type A, b as c } from 'x';\nimport y = require('y');\n\
                   export import z = require('z');\nimport {} from 'e';\n\
                   const o = { c, k: `${X}` }; export { y };";
        let mut cuts: Vec<usize> = src.char_indices().map(|(i, _)| i).collect();
        cuts.push(src.len());
        for cut in cuts {
            for r in scan_checked(&src[..cut]).imports {
                let may_bind = matches!(r.kind, Import | ImportEquals);
                assert!(may_bind || (r.bindings.is_empty() && !r.elided), "{r:?}");
            }
        }
        assert_eq!(
            elision(src),
            vec![
                ("x".into(), names(&["X", "c"]), false),
                ("y".into(), names(&["y"]), false),
                ("z".into(), names(&["z"]), false),
                ("e".into(), vec![], false)
            ]
        );
    }

    #[test]
    fn many_imports_and_uses_stay_linear() {
        let n = 50_000;
        let mut src = String::new();
        for i in 0..n {
            src.push_str(&format!("import {{ a{i} as b{i} }} from 'm{i}';\n"));
        }
        for i in (0..n).step_by(2) {
            src.push_str(&format!("b{i}(); o.b{};\n", i + 1));
        }
        let result = scan_checked(&src);
        assert_eq!(result.imports.len(), n);
        for (i, r) in result.imports.iter().enumerate() {
            assert_eq!(r.elided, i % 2 == 1, "{r:?}");
        }
    }

    #[test]
    fn pathological_inputs_stay_linear_and_shallow() {
        // Deep nesting is handled with explicit stacks (no stack overflow).
        let deep_templates = "`${".repeat(100_000);
        scan_checked(&deep_templates);
        let deep_calls = "require(".repeat(100_000);
        assert_eq!(scan_checked(&deep_calls).non_literal.len(), 100_000);
        // Many would-be regex starts on one line fall back to division.
        let slashes = format!("x = (/{}\nimport 'a';", "(/".repeat(200_000));
        assert_eq!(found(&slashes), expect(&[("a", Import)]));
        let braces = "{".repeat(200_000) + &"}".repeat(200_000);
        scan_checked(&braces);
        let list = format!("import {{{}", "a,".repeat(200_000));
        scan_checked(&list);
    }
}
