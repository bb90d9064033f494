//! The TypeScript / JavaScript front-end of the tool checks (TLP-1): one tracked code file parsed
//! with oxc, its scopes resolved with oxc's semantic analysis, and from the syntax tree what the
//! tool rules need — syntax errors, module references, import elision and the default export.
//!
//! The reference bundles each tool with Bun, so the file is read the way Bun's loaders read it:
//! TypeScript for `.ts`, `.mts`, `.cts` and `.tsx`, JavaScript otherwise, JSX in `.tsx`, `.js` and
//! `.jsx`, always as an ES module.
//!
//! - **Syntax errors** are the parser's, plus the ECMAScript early errors the semantic analysis
//!   finds (a redeclared `let`, a `break` outside a loop…), which Bun or the runtime's engine
//!   refuse too. The errors oxc borrows from TypeScript's type checker (a required parameter
//!   after an optional one, an overload without an implementation…) are left out
//!   (`from_type_checker`): Bun strips types without checking them.
//! - **Module references** come from the tree: `import … from`, `export … from`,
//!   `import x = require()`, `import()` and calls of the global `require` (not a local or
//!   declared function of that name). `import type`, `export type` and `import type x =
//!   require()` are left out; `import('x')` in a type (`typeof import('x')`, `let a:
//!   import('x').T`) is a type node, not an import. A dynamic reference whose argument is not a
//!   string literal (or a template without substitutions) is reported apart.
//! - **Import elision**: TypeScript, and Bun compiling TypeScript, drop an import declaration
//!   none of whose bindings is used as a value. A binding is used when some reference resolved
//!   to it by scope analysis reads or writes it as a value: `export { x }` and `export default x`
//!   count, a use in a type (`let v: X`, `typeof X` in a type, `implements X`) does not, nor does
//!   a local of the same name that shadows it. `import 'x'` and `import {} from 'x'` are never
//!   elided, a declaration whose specifiers are all `type` ones always is, and
//!   `export import x = require()` never is. JavaScript keeps every import.
//! - **Default export**: whether it is a call of `tool` imported from `@opencorvus-ai/plugin`,
//!   directly or through a `const`.
//! - **Reach**: the runtime's globals the file uses, what it does with `node:` modules, code it
//!   makes at run time and encoded literals ([`tool_reach`](super::tool_reach)), for the audit
//!   and the capability report.
//!
//! Parsing recurses once per nesting level of the source, so it runs on a thread whose stack is
//! sized for the file (`stack_for`); no input can overflow it or make the front-end panic.
//! One known limit: where `<` may open type arguments in TypeScript, oxc tries them and backs
//! off, so a long run of nested tries (`a<a<a<…` thousands deep) parses in quadratic time and
//! memory. Ordinary code closes its `<` at once.

use std::collections::HashSet;
use std::ops::Range;

use oxc_allocator::Allocator;
use oxc_ast::AstKind;
use oxc_ast::ast::{
    Argument, BindingPatternKind, Declaration, ExportDefaultDeclarationKind,
    ExportNamedDeclaration, Expression, ImportDeclaration, ImportDeclarationSpecifier,
    ImportExpression, ModuleExportName, Program, Statement, StringLiteral,
    TSImportEqualsDeclaration, TSModuleReference, VariableDeclarationKind,
};
use oxc_ast_visit::{Visit, walk};
use oxc_diagnostics::{OxcDiagnostic, Severity as OxcSeverity};
use oxc_parser::{ParseOptions, Parser};
use oxc_semantic::{Semantic, SemanticBuilder, SymbolFlags, SymbolId};
use oxc_span::{GetSpan, SourceType, Span};

use super::tool_reach::Reach;

/// The module the default export of a tool must come from.
pub const PLUGIN_MODULE: &str = "@opencorvus-ai/plugin";

/// How Bun's loaders read a file, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Language {
    pub typescript: bool,
    pub jsx: bool,
}

impl Language {
    pub const TYPESCRIPT: Language = Language {
        typescript: true,
        jsx: false,
    };
    pub const TSX: Language = Language {
        typescript: true,
        jsx: true,
    };
    pub const JAVASCRIPT: Language = Language {
        typescript: false,
        jsx: false,
    };
    pub const JSX: Language = Language {
        typescript: false,
        jsx: true,
    };

    /// The language of a tracked code file (`\.(?:[cm]?[jt]sx?)$`), `None` for any other file.
    pub fn of(path: &str) -> Option<Language> {
        let (_, extension) = path.rsplit_once('.')?;
        Some(match extension {
            "ts" | "mts" | "cts" => Language::TYPESCRIPT,
            "tsx" => Language::TSX,
            "js" | "jsx" => Language::JSX,
            "mjs" | "cjs" => Language::JAVASCRIPT,
            _ => return None,
        })
    }

    fn source_type(self) -> SourceType {
        SourceType::mjs()
            .with_typescript(self.typescript)
            .with_jsx(self.jsx)
    }
}

/// A module reference whose specifier is a literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportRecord {
    /// The specifier's value, escapes decoded.
    pub specifier: String,
    /// Byte range of the string or template literal, quotes included.
    pub span: Range<usize>,
    pub kind: ImportKind,
    /// The value bindings an `import` declaration or `import x = require()` introduces, in
    /// source order (`type` specifiers left out); empty for the other kinds.
    pub bindings: Vec<String>,
    /// TypeScript drops this declaration (import elision); always `false` in JavaScript.
    pub elided: bool,
}

/// The syntactic form of a module reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportKind {
    /// `import … from 'x'` and `import 'x'`.
    Import,
    /// `export … from 'x'`.
    ExportFrom,
    /// TypeScript `import x = require('x')`.
    ImportEquals,
    /// `import('x')`.
    DynamicImport,
    /// `require('x')`.
    Require,
}

/// A dynamic `import()` or `require()` whose argument is not a literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynamicProblem {
    /// The arguments' text, or the callee when there is no argument.
    pub span: Range<usize>,
    /// [`ImportKind::DynamicImport`] or [`ImportKind::Require`].
    pub kind: ImportKind,
}

/// A syntax error, as the parser or the semantic analysis words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub message: String,
    pub span: Range<usize>,
    /// The parser's text for the span, when it has one.
    pub label: Option<String>,
    /// Other places the error concerns (the first declaration of a redeclared name…).
    pub related: Vec<(Range<usize>, String)>,
    pub help: Option<String>,
}

/// What a module exports as its default, judged for the tool ABI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefaultExport {
    /// A call of `tool` imported from `@opencorvus-ai/plugin` (possibly through a `const`).
    ToolCall,
    /// The module has no default export.
    Missing,
    /// Something else, described for a message (`an object literal`, `a call of \`make\``…).
    Other { span: Range<usize>, what: String },
}

/// Everything the tool checks need from one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleInfo {
    /// In source order; empty when the file parses.
    pub syntax_errors: Vec<SyntaxError>,
    /// The parser gave up: nothing below reflects the file's content.
    pub unparsed: bool,
    /// Literal module references in order of appearance.
    pub imports: Vec<ImportRecord>,
    pub non_literal: Vec<DynamicProblem>,
    pub default_export: DefaultExport,
    /// What the file reaches besides its imports: globals, module members, code made at run
    /// time, encoded literals.
    pub reach: Reach,
}

/// Why a file was not parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotChecked {
    pub reason: String,
}

/// The largest file parsed. Parsing needs a stack that grows with the nesting of the source
/// (`stack_for`); past this size that stack would be too large to ask for.
pub const MAX_PARSED_BYTES: usize = 1 << 20;

/// The thread stack that parsing `source_len` bytes can need. oxc recurses once per nesting
/// level and a level takes at least one byte of source, so the need grows with the file;
/// measured, no construct takes more than 1.2 KiB of stack per byte in a release build (a run of
/// `[`) nor 2.1 KiB in a debug build. Only the pages touched are ever committed.
fn stack_for(source_len: usize) -> usize {
    const BASE: usize = 8 << 20;
    const PER_BYTE: usize = if cfg!(debug_assertions) {
        4 << 10
    } else {
        2 << 10
    };
    BASE.saturating_add(source_len.saturating_mul(PER_BYTE))
}

/// Parses `source` as `language` and extracts what the tool checks need, on a thread of its own
/// whose stack is sized for the file. Never panics; refuses files over [`MAX_PARSED_BYTES`].
pub fn parse(source: &str, language: Language) -> Result<ModuleInfo, NotChecked> {
    if source.len() > MAX_PARSED_BYTES {
        return Err(NotChecked {
            reason: format!(
                "it is {} KiB, more than the {} KiB squad parses",
                source.len() >> 10,
                MAX_PARSED_BYTES >> 10
            ),
        });
    }
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("tool-parse".to_owned())
            .stack_size(stack_for(source.len()))
            .spawn_scoped(scope, || parse_here(source, language));
        match spawned {
            Ok(handle) => handle.join().map_err(|_| NotChecked {
                reason: "the parser failed".to_owned(),
            }),
            Err(error) => Err(NotChecked {
                reason: format!("no thread could be started for the parser: {error}"),
            }),
        }
    })
}

/// [`parse`] on the current thread.
fn parse_here(source: &str, language: Language) -> ModuleInfo {
    // Bun drops a byte order mark before parsing, so a hashbang may follow it; oxc would read the
    // mark as whitespace and the hashbang as an error.
    match source.strip_prefix('\u{FEFF}') {
        Some(rest) => parse_text(rest, language).shifted('\u{FEFF}'.len_utf8()),
        None => parse_text(source, language),
    }
}

impl ModuleInfo {
    /// The same, with every span moved `by` bytes on.
    fn shifted(mut self, by: usize) -> ModuleInfo {
        let shift = |span: &mut Range<usize>| *span = span.start + by..span.end + by;
        self.syntax_errors
            .iter_mut()
            .for_each(|error| shift(&mut error.span));
        self.imports
            .iter_mut()
            .for_each(|record| shift(&mut record.span));
        self.non_literal
            .iter_mut()
            .for_each(|problem| shift(&mut problem.span));
        if let DefaultExport::Other { span, .. } = &mut self.default_export {
            shift(span);
        }
        self.reach = self.reach.shifted(by);
        self
    }
}

fn parse_text(source: &str, language: Language) -> ModuleInfo {
    let allocator = Allocator::default();
    let options = ParseOptions {
        preserve_parens: false,
        ..ParseOptions::default()
    };
    let parsed = Parser::new(&allocator, source, language.source_type())
        .with_options(options)
        .parse();
    let mut errors: Vec<OxcDiagnostic> = parsed.errors;
    if parsed.panicked {
        return ModuleInfo {
            syntax_errors: syntax_errors(source, errors),
            unparsed: true,
            imports: Vec::new(),
            non_literal: Vec::new(),
            default_export: DefaultExport::Missing,
            reach: Reach::default(),
        };
    }
    let program = parsed.program;
    let built = SemanticBuilder::new()
        .with_check_syntax_error(true)
        .build(&program);
    errors.extend(
        built
            .errors
            .into_iter()
            .filter(|error| !from_type_checker(error)),
    );
    let semantic = built.semantic;
    let mut collector = Collector {
        source,
        semantic: &semantic,
        typescript: language.typescript,
        imports: Vec::new(),
        non_literal: Vec::new(),
        missed: Vec::new(),
    };
    collector.visit_program(&program);
    let Collector {
        mut imports,
        mut non_literal,
        missed,
        ..
    } = collector;
    imports.sort_by_key(|record| record.span.start);
    non_literal.sort_by_key(|problem| problem.span.start);
    let mut syntax_errors = syntax_errors(source, errors);
    syntax_errors.extend(missed);
    syntax_errors.sort_by_key(|error| error.span.start);
    ModuleInfo {
        syntax_errors,
        unparsed: false,
        imports,
        non_literal,
        default_export: default_export(&program, &semantic),
        reach: super::tool_reach::of(&program, &semantic),
    }
}

/// Whether a semantic error is one of those oxc takes from TypeScript's type checker rather than
/// from the language's grammar or early errors: Bun strips types without checking them, so the
/// reference compiles such a file. (The list is that of oxc_semantic 0.91's TypeScript checks; a
/// test holds each one.)
fn from_type_checker(error: &OxcDiagnostic) -> bool {
    const CODES: [&str; 11] = [
        "1242", "1244", "1245", "1253", "1267", "1318", "1392", "2369", "2414", "2483", "18007",
    ];
    const MESSAGES: [&str; 5] = [
        "A required parameter cannot follow an optional parameter.",
        "Enum member must have initializer.",
        "Constructor implementation is missing.",
        "Function implementation is missing or not immediately following the declaration.",
        "Getters and setters must have an implementation.",
    ];
    let coded = error.code.scope.as_deref() == Some("TS")
        && error
            .code
            .number
            .as_deref()
            .is_some_and(|number| CODES.contains(&number));
    coded || MESSAGES.contains(&error.message.as_ref())
}

/// The errors among `diagnostics`, in source order, each once.
fn syntax_errors(source: &str, diagnostics: Vec<OxcDiagnostic>) -> Vec<SyntaxError> {
    let mut seen = HashSet::new();
    let mut errors: Vec<SyntaxError> = diagnostics
        .into_iter()
        .filter(|diagnostic| diagnostic.severity == OxcSeverity::Error)
        .map(|diagnostic| {
            let labels = diagnostic.labels.as_deref().unwrap_or_default();
            let clamp = |label: &oxc_diagnostics::LabeledSpan| {
                let start = label.offset().min(source.len());
                start
                    ..label
                        .offset()
                        .saturating_add(label.len())
                        .clamp(start, source.len())
            };
            let text = |label: &oxc_diagnostics::LabeledSpan| {
                label
                    .label()
                    .map(str::to_owned)
                    .filter(|text| !text.is_empty())
            };
            // oxc lists the place of the error last (a redeclaration after the declaration).
            let (primary, others) = match labels.split_last() {
                Some((last, others)) => (Some(last), others),
                None => (None, labels),
            };
            SyntaxError {
                message: diagnostic.message.to_string(),
                span: primary.map_or(0..0, clamp),
                label: primary.and_then(text),
                related: others
                    .iter()
                    .map(|label| {
                        (
                            clamp(label),
                            text(label).unwrap_or_else(|| "and here".to_owned()),
                        )
                    })
                    .collect(),
                help: diagnostic.help.as_ref().map(|help| help.to_string()),
            }
        })
        .filter(|error| seen.insert((error.span.clone(), error.message.clone())))
        .collect();
    errors.sort_by_key(|error| error.span.start);
    errors
}

/// Whether `text` holds only white space and comments.
fn is_trivia(mut text: &str) -> bool {
    loop {
        text = text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{FEFF}');
        if let Some(rest) = text.strip_prefix("//") {
            text = rest
                .find(['\n', '\r', '\u{2028}', '\u{2029}'])
                .map_or("", |end| &rest[end..]);
        } else if let Some(rest) = text.strip_prefix("/*") {
            match rest.find("*/") {
                Some(end) => text = &rest[end + 2..],
                None => return false,
            }
        } else {
            return text.is_empty();
        }
    }
}

fn range(span: Span) -> Range<usize> {
    span.start as usize..span.end as usize
}

/// The value of a specifier literal. A string with lone surrogates (which no module name has)
/// keeps its source text.
fn literal_value(literal: &StringLiteral) -> String {
    if literal.lone_surrogates {
        let raw = literal.raw.as_ref().map_or("", |raw| raw.as_str());
        return raw
            .get(1..raw.len().saturating_sub(1))
            .unwrap_or_default()
            .to_owned();
    }
    literal.value.to_string()
}

/// The value of an argument that is a string literal or a template without substitutions.
fn argument_literal(expression: &Expression) -> Option<(String, Range<usize>)> {
    match expression {
        Expression::StringLiteral(literal) => Some((literal_value(literal), range(literal.span))),
        Expression::TemplateLiteral(template) if template.expressions.is_empty() => {
            let quasi = template.quasis.first()?;
            let value = quasi
                .value
                .cooked
                .as_ref()
                .unwrap_or(&quasi.value.raw)
                .to_string();
            Some((value, range(template.span)))
        }
        _ => None,
    }
}

struct Collector<'s, 'a> {
    source: &'s str,
    semantic: &'s Semantic<'a>,
    typescript: bool,
    imports: Vec<ImportRecord>,
    non_literal: Vec<DynamicProblem>,
    /// Errors the parser should have reported.
    missed: Vec<SyntaxError>,
}

impl<'a> Collector<'_, 'a> {
    /// oxc 0.91 reads `import name 'x'` (no `from`) as the side-effect import `import 'x'`
    /// without an error; Bun refuses it. Between `import` and the string of a side-effect import
    /// there may be only comments and white space.
    fn check_side_effect_import(&mut self, declaration: &ImportDeclaration<'a>) {
        let between = self
            .source
            .get(
                declaration.span.start as usize + "import".len()
                    ..declaration.source.span.start as usize,
            )
            .unwrap_or_default();
        if !is_trivia(between) {
            self.missed.push(SyntaxError {
                message: "Expected `from` before the module name".to_owned(),
                span: range(declaration.source.span),
                label: Some("`from` expected".to_owned()),
                related: Vec::new(),
                help: None,
            });
        }
    }

    /// Whether some reference resolved to the symbol bound by `id` uses it as a value.
    fn used_as_value(&self, symbol: Option<SymbolId>) -> bool {
        symbol.is_some_and(|symbol| {
            self.semantic
                .scoping()
                .get_resolved_references(symbol)
                .any(|reference| reference.flags().is_value())
        })
    }

    fn record_import_equals(
        &mut self,
        declaration: &TSImportEqualsDeclaration<'a>,
        exported: bool,
    ) {
        if declaration.import_kind.is_type() {
            return;
        }
        let TSModuleReference::ExternalModuleReference(reference) = &declaration.module_reference
        else {
            return;
        };
        let elided =
            self.typescript && !exported && !self.used_as_value(declaration.id.symbol_id.get());
        self.imports.push(ImportRecord {
            specifier: literal_value(&reference.expression),
            span: range(reference.expression.span),
            kind: ImportKind::ImportEquals,
            bindings: vec![declaration.id.name.to_string()],
            elided,
        });
    }

    fn record_dynamic(&mut self, argument: Option<&Expression>, whole: Span, kind: ImportKind) {
        match argument.and_then(argument_literal) {
            Some((specifier, span)) => self.imports.push(ImportRecord {
                specifier,
                span,
                kind,
                bindings: Vec::new(),
                elided: false,
            }),
            None => self.non_literal.push(DynamicProblem {
                span: argument.map_or(range(whole), |argument| range(argument.span())),
                kind,
            }),
        }
    }

    /// Whether `require` here is the global one: not resolved to a binding of the file, or only
    /// to a `declare`d one (which TypeScript erases).
    fn is_global(&self, reference: &oxc_ast::ast::IdentifierReference) -> bool {
        let Some(reference) = reference.reference_id.get() else {
            return true;
        };
        let scoping = self.semantic.scoping();
        match scoping.get_reference(reference).symbol_id() {
            None => true,
            Some(symbol) => scoping.symbol_flags(symbol).contains(SymbolFlags::Ambient),
        }
    }
}

impl<'a> Visit<'a> for Collector<'_, 'a> {
    fn visit_import_declaration(&mut self, declaration: &ImportDeclaration<'a>) {
        if declaration.specifiers.is_none() {
            self.check_side_effect_import(declaration);
        }
        if declaration.import_kind.is_type() {
            return;
        }
        let mut bindings = Vec::new();
        let mut used = false;
        let mut any_specifier = false;
        for specifier in declaration.specifiers.iter().flatten() {
            any_specifier = true;
            let local = match specifier {
                ImportDeclarationSpecifier::ImportSpecifier(named) => {
                    if named.import_kind.is_type() {
                        continue;
                    }
                    &named.local
                }
                ImportDeclarationSpecifier::ImportDefaultSpecifier(default) => &default.local,
                ImportDeclarationSpecifier::ImportNamespaceSpecifier(namespace) => &namespace.local,
            };
            bindings.push(local.name.to_string());
            used |= self.used_as_value(local.symbol_id.get());
        }
        self.imports.push(ImportRecord {
            specifier: literal_value(&declaration.source),
            span: range(declaration.source.span),
            kind: ImportKind::Import,
            bindings,
            elided: self.typescript && any_specifier && !used,
        });
    }

    fn visit_export_named_declaration(&mut self, declaration: &ExportNamedDeclaration<'a>) {
        if let Some(Declaration::TSImportEqualsDeclaration(import)) = &declaration.declaration {
            self.record_import_equals(import, true);
            return;
        }
        if let Some(source) = &declaration.source {
            if !declaration.export_kind.is_type() {
                self.imports.push(ImportRecord {
                    specifier: literal_value(source),
                    span: range(source.span),
                    kind: ImportKind::ExportFrom,
                    bindings: Vec::new(),
                    elided: false,
                });
            }
        }
        walk::walk_export_named_declaration(self, declaration);
    }

    fn visit_export_all_declaration(
        &mut self,
        declaration: &oxc_ast::ast::ExportAllDeclaration<'a>,
    ) {
        if !declaration.export_kind.is_type() {
            self.imports.push(ImportRecord {
                specifier: literal_value(&declaration.source),
                span: range(declaration.source.span),
                kind: ImportKind::ExportFrom,
                bindings: Vec::new(),
                elided: false,
            });
        }
    }

    fn visit_ts_import_equals_declaration(&mut self, declaration: &TSImportEqualsDeclaration<'a>) {
        self.record_import_equals(declaration, false);
    }

    fn visit_import_expression(&mut self, expression: &ImportExpression<'a>) {
        self.record_dynamic(
            Some(&expression.source),
            expression.span,
            ImportKind::DynamicImport,
        );
        walk::walk_import_expression(self, expression);
    }

    fn visit_call_expression(&mut self, call: &oxc_ast::ast::CallExpression<'a>) {
        if let Expression::Identifier(callee) = &call.callee {
            if callee.name == "require" && self.is_global(callee) {
                match call.arguments.as_slice() {
                    [] => self.record_dynamic(None, callee.span, ImportKind::Require),
                    [Argument::SpreadElement(_)] | [_, _, ..] => {
                        let first = call.arguments.first().map_or(callee.span, GetSpan::span);
                        let last = call.arguments.last().map_or(callee.span, GetSpan::span);
                        self.non_literal.push(DynamicProblem {
                            span: first.start as usize..last.end as usize,
                            kind: ImportKind::Require,
                        });
                    }
                    [argument] => {
                        let argument = argument.as_expression();
                        self.record_dynamic(argument, callee.span, ImportKind::Require);
                    }
                }
            }
        }
        walk::walk_call_expression(self, call);
    }
}

/// Judges the module's default export for the tool ABI.
fn default_export(program: &Program, semantic: &Semantic) -> DefaultExport {
    let plugin = PluginBindings::of(program);
    for statement in &program.body {
        match statement {
            Statement::ExportDefaultDeclaration(export) => {
                return match &export.declaration {
                    ExportDefaultDeclarationKind::FunctionDeclaration(function) => {
                        DefaultExport::Other {
                            span: range(function.span),
                            what: "a function".to_owned(),
                        }
                    }
                    ExportDefaultDeclarationKind::ClassDeclaration(class) => DefaultExport::Other {
                        span: range(class.span),
                        what: "a class".to_owned(),
                    },
                    ExportDefaultDeclarationKind::TSInterfaceDeclaration(interface) => {
                        DefaultExport::Other {
                            span: range(interface.span),
                            what: "an interface (a type, erased at run time)".to_owned(),
                        }
                    }
                    other => match other.as_expression() {
                        Some(expression) => judge(expression, semantic, &plugin, 0),
                        None => DefaultExport::Missing,
                    },
                };
            }
            Statement::ExportNamedDeclaration(export) if !export.export_kind.is_type() => {
                let Some(specifier) = export.specifiers.iter().find(|specifier| {
                    !specifier.export_kind.is_type() && specifier.exported.name() == "default"
                }) else {
                    continue;
                };
                let span = range(specifier.span);
                if export.source.is_some() {
                    return DefaultExport::Other {
                        span,
                        what: "re-exported from another module".to_owned(),
                    };
                }
                return match &specifier.local {
                    ModuleExportName::IdentifierReference(reference) => {
                        judge_reference(reference, span, semantic, &plugin, 0)
                    }
                    _ => DefaultExport::Other {
                        span,
                        what: "not a `tool(...)` call".to_owned(),
                    },
                };
            }
            Statement::TSExportAssignment(assignment) => {
                return DefaultExport::Other {
                    span: range(assignment.span),
                    what: "an `export =` assignment".to_owned(),
                };
            }
            _ => {}
        }
    }
    DefaultExport::Missing
}

/// How the module refers to `tool` of `@opencorvus-ai/plugin`: the symbols of value imports of
/// `tool` (any local name) and of namespace imports of the module.
#[derive(Default)]
struct PluginBindings {
    tool: HashSet<SymbolId>,
    namespace: HashSet<SymbolId>,
}

impl PluginBindings {
    fn of(program: &Program) -> PluginBindings {
        let mut bindings = PluginBindings::default();
        for statement in &program.body {
            let Statement::ImportDeclaration(import) = statement else {
                continue;
            };
            if import.import_kind.is_type() || import.source.value != PLUGIN_MODULE {
                continue;
            }
            for specifier in import.specifiers.iter().flatten() {
                match specifier {
                    ImportDeclarationSpecifier::ImportSpecifier(named)
                        if !named.import_kind.is_type() && named.imported.name() == "tool" =>
                    {
                        bindings.tool.extend(named.local.symbol_id.get());
                    }
                    ImportDeclarationSpecifier::ImportNamespaceSpecifier(namespace) => {
                        bindings.namespace.extend(namespace.local.symbol_id.get());
                    }
                    _ => {}
                }
            }
        }
        bindings
    }
}

/// How many `const` hops `export default x` may take to its `tool(...)` call.
const MAX_HOPS: usize = 8;

fn symbol_of(
    reference: &oxc_ast::ast::IdentifierReference,
    semantic: &Semantic,
) -> Option<SymbolId> {
    semantic
        .scoping()
        .get_reference(reference.reference_id.get()?)
        .symbol_id()
}

fn judge(
    expression: &Expression,
    semantic: &Semantic,
    plugin: &PluginBindings,
    hops: usize,
) -> DefaultExport {
    let expression = expression.get_inner_expression();
    let span = range(expression.span());
    let other = |what: &str| DefaultExport::Other {
        span: span.clone(),
        what: what.to_owned(),
    };
    match expression {
        Expression::CallExpression(call) => match call.callee.get_inner_expression() {
            Expression::Identifier(callee) => {
                let symbol = symbol_of(callee, semantic);
                if symbol.is_some_and(|symbol| plugin.tool.contains(&symbol)) {
                    DefaultExport::ToolCall
                } else if callee.name == "tool" {
                    other(&format!(
                        "a call of a `tool` that is not the one imported from `{PLUGIN_MODULE}`"
                    ))
                } else {
                    other(&format!("a call of `{}`, not of `tool`", callee.name))
                }
            }
            Expression::StaticMemberExpression(member) => {
                let namespace = match member.object.get_inner_expression() {
                    Expression::Identifier(object) => symbol_of(object, semantic)
                        .is_some_and(|symbol| plugin.namespace.contains(&symbol)),
                    _ => false,
                };
                if namespace && member.property.name == "tool" {
                    DefaultExport::ToolCall
                } else {
                    other(&format!(
                        "a call of `.{}`, not of `tool` from `{PLUGIN_MODULE}`",
                        member.property.name
                    ))
                }
            }
            _ => other("a call of something other than `tool`"),
        },
        Expression::Identifier(reference) => {
            judge_reference(reference, span.clone(), semantic, plugin, hops)
        }
        Expression::ObjectExpression(_) => other("an object literal"),
        Expression::ArrowFunctionExpression(_) | Expression::FunctionExpression(_) => {
            other("a function")
        }
        Expression::ClassExpression(_) => other("a class"),
        Expression::NewExpression(_) => other("a `new` expression"),
        Expression::AwaitExpression(_) => other("an `await` expression"),
        _ if expression.is_literal() => other("a literal"),
        _ => other("not a `tool(...)` call"),
    }
}

/// Follows `export default x` / `export { x as default }` to the `const` that `x` names.
fn judge_reference(
    reference: &oxc_ast::ast::IdentifierReference,
    span: Range<usize>,
    semantic: &Semantic,
    plugin: &PluginBindings,
    hops: usize,
) -> DefaultExport {
    let unknown = |what: String| DefaultExport::Other {
        span: span.clone(),
        what,
    };
    let Some(symbol) = symbol_of(reference, semantic) else {
        return unknown(format!(
            "`{}`, which the file does not declare",
            reference.name
        ));
    };
    if hops >= MAX_HOPS {
        return unknown(format!(
            "`{}`, too far from a `tool(...)` call",
            reference.name
        ));
    }
    let nodes = semantic.nodes();
    let declaration = semantic.scoping().symbol_declaration(symbol);
    if let AstKind::VariableDeclarator(declarator) = nodes.kind(declaration) {
        let is_const = declarator.kind == VariableDeclarationKind::Const;
        let simple = matches!(declarator.id.kind, BindingPatternKind::BindingIdentifier(_));
        if let (true, true, Some(init)) = (is_const, simple, &declarator.init) {
            return match judge(init, semantic, plugin, hops + 1) {
                DefaultExport::ToolCall => DefaultExport::ToolCall,
                DefaultExport::Other { what, .. } => {
                    unknown(format!("`{}`, which holds {what}", reference.name))
                }
                DefaultExport::Missing => unknown(format!("`{}`", reference.name)),
            };
        }
    }
    if semantic.scoping().symbol_flags(symbol).is_import() {
        return unknown(format!(
            "`{}`, imported from another module",
            reference.name
        ));
    }
    unknown(format!(
        "`{}`, which is not a `const` holding a `tool(...)` call",
        reference.name
    ))
}

#[cfg(test)]
mod tests {
    use super::ImportKind::{DynamicImport, ExportFrom, Import, ImportEquals, Require};
    use super::*;

    /// Parses `src` as TypeScript, checks every span is a slice of it, and returns the result.
    fn parse_as(src: &str, language: Language) -> ModuleInfo {
        let info = parse(src, language).expect("parsed");
        for record in &info.imports {
            assert!(src.get(record.span.clone()).is_some(), "{record:?}");
        }
        for problem in &info.non_literal {
            assert!(src.get(problem.span.clone()).is_some(), "{problem:?}");
        }
        for error in &info.syntax_errors {
            assert!(error.span.end <= src.len(), "{error:?}");
            assert!(error.span.start <= error.span.end, "{error:?}");
        }
        info
    }

    /// Parses valid TypeScript: a syntax error fails the test.
    fn valid(src: &str) -> ModuleInfo {
        let info = parse_as(src, Language::TYPESCRIPT);
        assert!(
            info.syntax_errors.is_empty(),
            "{src}: {:?}",
            info.syntax_errors
        );
        info
    }

    /// `(specifier, kind)` of the literal imports of valid TypeScript.
    fn found(src: &str) -> Vec<(String, ImportKind)> {
        valid(src)
            .imports
            .into_iter()
            .map(|record| (record.specifier, record.kind))
            .collect()
    }

    fn expect(pairs: &[(&str, ImportKind)]) -> Vec<(String, ImportKind)> {
        pairs.iter().map(|(s, k)| (s.to_string(), *k)).collect()
    }

    /// Source text of each non-literal problem, with its kind.
    fn problems(src: &str) -> Vec<(&str, ImportKind)> {
        valid(src)
            .non_literal
            .into_iter()
            .map(|problem| (&src[problem.span], problem.kind))
            .collect()
    }

    /// The messages of the syntax errors of `src` as TypeScript, with the text they point at.
    fn errors(src: &str, language: Language) -> Vec<(String, &str)> {
        parse_as(src, language)
            .syntax_errors
            .into_iter()
            .map(|error| (error.message, &src[error.span]))
            .collect()
    }

    // --- syntax errors ---

    #[test]
    fn a_stray_semicolon_is_a_syntax_error_with_its_position() {
        let src = "import { tool } from '@opencorvus-ai/plugin';\nexport default tool({ description: 'x';, args: {} });\n";
        let info = parse_as(src, Language::TYPESCRIPT);
        assert_eq!(info.syntax_errors.len(), 1, "{:?}", info.syntax_errors);
        let error = &info.syntax_errors[0];
        assert_eq!(error.span.start, src.find("';,").unwrap() + 1);
        assert!(error.message.contains("Expected"), "{error:?}");
    }

    #[test]
    fn every_error_of_a_recovering_parse_is_reported() {
        // Early errors leave the tree whole, so each one is found.
        let src = "let a = 1;\nlet a = 2;\nfunction f() { break; }\nlet b; let b;\n";
        let found = errors(src, Language::TYPESCRIPT);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(
            found[0].0.contains("`a` has already been declared"),
            "{found:?}"
        );
    }

    #[test]
    fn a_parse_that_gives_up_reports_why() {
        for src in [
            "import 'a';\nconst s = 'unterminated",
            "import 'a';\nconst t = `unterminated import 'b'",
            "import 'a';\nconst r = /unterminated",
            "import 'a';\nimport 'b",
            "import 'a';\nimport x from",
            "import 'a';\nexport {",
            "import 'a';\nrequire(",
            "import 'a';\nconst t = `unterminated ${ import('b') ",
            "const s = 'oops\nimport 'a';",
            "const x = a ' b;\nimport 'c';",
            "import(x); import();",
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
            let info = parse_as(src, Language::TYPESCRIPT);
            assert!(!info.syntax_errors.is_empty(), "{src:?}");
        }
    }

    #[test]
    fn a_default_binding_without_from_is_an_error() {
        // oxc 0.91 takes `import om 'b'` for `import 'b'`; squad reports it.
        for src in ["import om 'b';", "import om\n'b'", "import /* c */ om 'b';"] {
            let found = errors(src, Language::TYPESCRIPT);
            assert_eq!(found.len(), 1, "{src}: {found:?}");
            assert_eq!(found[0].1, "'b'");
        }
        for src in ["import 'b';", "import /* c */ 'b';", "import // c\n'b';"] {
            assert!(errors(src, Language::JAVASCRIPT).is_empty(), "{src}");
        }
    }

    #[test]
    fn an_unterminated_comment_still_yields_the_imports_before_it() {
        let info = parse_as(
            "import 'a';\n/* unterminated comment import 'b'",
            Language::TYPESCRIPT,
        );
        assert_eq!(info.syntax_errors.len(), 1);
        assert!(!info.unparsed);
        let names: Vec<&str> = info.imports.iter().map(|r| r.specifier.as_str()).collect();
        assert_eq!(names, ["a"]);
    }

    #[test]
    fn types_are_errors_in_javascript_and_jsx_only_where_bun_reads_it() {
        assert!(!errors("let a: number = 1;", Language::JAVASCRIPT).is_empty());
        assert!(errors("let a: number = 1;", Language::TYPESCRIPT).is_empty());
        let jsx = "const el = <div a={1}>x</div>;";
        assert!(errors(jsx, Language::JSX).is_empty());
        assert!(errors(jsx, Language::TSX).is_empty());
        assert!(!errors(jsx, Language::JAVASCRIPT).is_empty());
        assert!(!errors(jsx, Language::TYPESCRIPT).is_empty());
        // An angle-bracket cast is TypeScript, not JSX, in a .ts file.
        assert!(errors("const n = <number>x;", Language::TYPESCRIPT).is_empty());
        assert!(!errors("const n = <number>x;", Language::TSX).is_empty());
    }

    #[test]
    fn languages_follow_bun_loaders() {
        assert_eq!(Language::of("tools/a.ts"), Some(Language::TYPESCRIPT));
        assert_eq!(Language::of("lib/a.mts"), Some(Language::TYPESCRIPT));
        assert_eq!(Language::of("lib/a.cts"), Some(Language::TYPESCRIPT));
        assert_eq!(Language::of("lib/a.tsx"), Some(Language::TSX));
        assert_eq!(Language::of("tools/a.js"), Some(Language::JSX));
        assert_eq!(Language::of("lib/a.jsx"), Some(Language::JSX));
        assert_eq!(Language::of("lib/a.mjs"), Some(Language::JAVASCRIPT));
        assert_eq!(Language::of("lib/a.cjs"), Some(Language::JAVASCRIPT));
        for none in ["lib/a.json", "a", "lib/a.TS", "lib/a.mts.txt"] {
            assert_eq!(Language::of(none), None, "{none}");
        }
    }

    #[test]
    fn module_code_is_strict() {
        assert!(!errors("with (a) {}", Language::JAVASCRIPT).is_empty());
        assert!(!errors("const n = 010;", Language::JAVASCRIPT).is_empty());
        assert!(errors("const n = await f();", Language::JAVASCRIPT).is_empty());
    }

    #[test]
    fn type_checker_errors_are_not_syntax_errors() {
        // tsc refuses these; Bun strips the types without checking them.
        for src in [
            "function f(a?: number, b: number) { return b; }",
            "class A { abstract m(): void; }",
            "class A { abstract p: number; }",
            "abstract class A { abstract m() {} }",
            "abstract class A { abstract p = 1; }",
            "abstract class A { abstract get g() { return 1; } }",
            "import type A = B.C;",
            "type string = number;",
            "interface number {}",
            "function f<number>() {}",
            "for (let k: string in o) {}",
            "enum E { A = f(), B }",
            "class A { constructor(); }",
            "function f(): void;\nconst x = 1;",
            "class A { get g(); }",
        ] {
            assert!(errors(src, Language::TYPESCRIPT).is_empty(), "{src}");
        }
    }

    #[test]
    fn grammar_errors_of_typescript_stay_errors() {
        for src in [
            "let x: ?string;",
            "function f() { namespace N {} }",
            "let a = 1; let a = 2;",
            "for (;;) { function f() { break; } }",
        ] {
            assert!(!errors(src, Language::TYPESCRIPT).is_empty(), "{src}");
        }
        assert!(!errors("const el = <a b={} />;", Language::TSX).is_empty());
        assert!(errors("const el = <a>{(1, 2)}</a>;", Language::TSX).is_empty());
    }

    #[test]
    fn a_byte_order_mark_may_precede_a_hashbang() {
        let src = "\u{FEFF}#!/usr/bin/env -S bun run\nrequire('r');";
        assert_eq!(found(src), expect(&[("r", Require)]));
        assert_eq!(&src[valid(src).imports[0].span.clone()], "'r'");
        let src = "#!/usr/bin/env node import 'no'\nimport 'yes';";
        assert_eq!(found(src), expect(&[("yes", Import)]));
    }

    #[test]
    fn error_positions_count_bytes_after_a_byte_order_mark() {
        let src = "\u{FEFF}let a = ;";
        let found = errors(src, Language::TYPESCRIPT);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].1, ";");
    }

    #[test]
    fn oversized_files_are_not_parsed() {
        let src = " ".repeat(MAX_PARSED_BYTES + 1);
        let refused = parse(&src, Language::TYPESCRIPT).unwrap_err();
        assert!(refused.reason.contains("KiB"), "{refused:?}");
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
        let info = valid(src);
        assert_eq!(&src[info.imports[0].span.clone()], "'./m.js'");
        assert_eq!(&src[info.imports[1].span.clone()], "`t`");
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
                   export { default as l } from './c.json' with { type: 'json' };";
        assert_eq!(
            found(src),
            expect(&[("./a.json", Import), ("./c.json", ExportFrom)])
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
        for (src, name) in [
            ("import type from 'a';", "a"),
            ("import type, {b} from 'b';", "b"),
            ("import type, * as c from 'c';", "c"),
        ] {
            assert_eq!(found(src), expect(&[(name, Import)]), "{src}");
        }
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
        let info = valid(src);
        assert!(info.imports.is_empty());
        assert!(info.non_literal.is_empty());
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
        assert!(valid(src).non_literal.is_empty());
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
        assert!(valid(src).non_literal.is_empty());
    }

    #[test]
    fn dynamic_import_non_literal() {
        let src = "import(x); import(`a${b}`); import('a' + b); import(\n  f()  \n);";
        assert!(found(src).is_empty());
        assert_eq!(
            problems(src),
            vec![
                ("x", DynamicImport),
                ("`a${b}`", DynamicImport),
                ("'a' + b", DynamicImport),
                ("f()", DynamicImport),
            ]
        );
    }

    #[test]
    fn import_meta_is_not_an_import() {
        let src = "const u = import.meta.url; const r = import.meta.resolve('x');";
        let info = valid(src);
        assert!(info.imports.is_empty());
        assert!(info.non_literal.is_empty());
    }

    #[test]
    fn typeof_import_excluded() {
        let src = "let a: typeof import('a'); type B = Promise<typeof import('b')>; import('c');";
        assert_eq!(found(src), expect(&[("c", DynamicImport)]));
    }

    #[test]
    fn typeof_of_a_dynamic_import_in_a_value_is_an_import() {
        // The scanner took every `typeof import(` for a type query.
        let src = "const kind = typeof import('v');";
        assert_eq!(found(src), expect(&[("v", DynamicImport)]));
    }

    #[test]
    fn type_annotation_import_excluded() {
        let src = "let a: import('a').T = x;\n\
                   function f(p: import('b').P): import('c').R { return p; }\n\
                   interface I { m: import('d').M; opt?: import('e').E }\n\
                   class K { f: import('f').F; }\n\
                   const v = import('g');\n\
                   const w = x as import('h').H;\n\
                   const y = g<import('i').I>(1);";
        assert_eq!(found(src), expect(&[("g", DynamicImport)]));
        assert!(valid(src).non_literal.is_empty());
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
                   f({ a: b ? import('g') : import('h') });\n\
                   l: import('i');";
        let names: Vec<String> = found(src).into_iter().map(|(s, _)| s).collect();
        assert_eq!(names, ["a", "b", "c", "d", "e", "f", "g", "h", "i"]);
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
        let src = "require(x); require('a' + b); require(`${b}`); require(); require('a', 'b');";
        assert!(found(src).is_empty());
        assert_eq!(
            problems(src),
            vec![
                ("x", Require),
                ("'a' + b", Require),
                ("`${b}`", Require),
                ("require", Require),
                ("'a', 'b'", Require),
            ]
        );
    }

    #[test]
    fn member_require_is_not_global() {
        let src = "module.require('a'); foo.require(x); a?.require('b');\n\
                   class K { #require(s: string) {} m() { this.#require('c'); } }";
        let info = valid(src);
        assert!(info.imports.is_empty());
        assert!(info.non_literal.is_empty());
    }

    #[test]
    fn require_identifier_boundaries() {
        let src = "myrequire('a'); require_('b'); $require('c');";
        let info = valid(src);
        assert!(info.imports.is_empty(), "{:?}", info.imports);
        assert!(info.non_literal.is_empty(), "{:?}", info.non_literal);
    }

    #[test]
    fn a_local_require_is_not_the_global_one() {
        // Scope analysis: these calls go to the file's own function, as Bun sees them.
        for src in [
            "function require(id) { return id; }\nrequire('a');",
            "function* require(x) {}\nrequire('a');",
            "const require = (id: string) => id;\nrequire(x);",
            "function f(require: (id: string) => void) { require('a'); }",
        ] {
            let info = valid(src);
            assert!(info.imports.is_empty(), "{src}: {:?}", info.imports);
            assert!(info.non_literal.is_empty(), "{src}: {:?}", info.non_literal);
        }
        // A declaration is erased with the types: the call goes to the global require.
        let src = "declare function require(id: string): any;\nrequire('a');";
        assert_eq!(found(src), expect(&[("a", Require)]));
    }

    #[test]
    fn keywords_must_be_whole_identifiers() {
        let src = "reimport('a'); importX('b'); exports.x = 1; $import('c');\n\
                   import_('e'); module.exports = require2('g');";
        let info = valid(src);
        assert!(info.imports.is_empty(), "{:?}", info.imports);
        assert!(info.non_literal.is_empty(), "{:?}", info.non_literal);
    }

    #[test]
    fn members_and_keys_are_not_imports() {
        let src = "obj.import('a'); const o = { import: 1, export: 2, require: 3 };\n\
                   x.export; y?.import(z); o.export * from; a.import.meta;";
        let info = valid(src);
        assert!(info.imports.is_empty(), "{:?}", info.imports);
        assert!(info.non_literal.is_empty(), "{:?}", info.non_literal);
    }

    #[test]
    fn methods_named_import_or_require_are_not_calls() {
        let src = "class A {\n  import(x) { return x; }\n  static require(id: string): void {}\n}\n\
                   const o = { import(spec) {}, async require(s) {} };\n\
                   interface L { require(id: string): unknown }";
        assert!(valid(src).non_literal.is_empty());
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
    fn non_null_assertion_then_division_is_not_a_regex() {
        let src = "import { uniq } from './u';\nconst r = n! / d; const s = `${uniq(r)}/x`;\nimport 'after';";
        let info = valid(src);
        let specifiers: Vec<&str> = info.imports.iter().map(|i| i.specifier.as_str()).collect();
        assert_eq!(specifiers, ["./u", "after"]);
        assert!(!info.imports[0].elided, "uniq is used");
        assert_eq!(found("if (!/['\"]/.test(s)) {}\nimport 'x';").len(), 1);
    }

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
    fn a_regex_after_a_closing_brace_of_a_block() {
        // The scanner guessed regex-or-division from the previous token; the parser knows.
        let src = "function f() {}\n/'/.test(s); import 'a';\nconst o = {} / 2; import 'b';";
        assert_eq!(found(src), expect(&[("a", Import), ("b", Import)]));
    }

    #[test]
    fn string_containing_import_is_ignored() {
        let src = "const s = \"import 'x'\"; const t = 'require(\"y\")'; const u = `import('z')`;";
        let info = valid(src);
        assert!(info.imports.is_empty());
        assert!(info.non_literal.is_empty());
    }

    #[test]
    fn comments_are_ignored() {
        let src =
            "// require('a')\n/* import 'b'; import(c) */\n/** export * from 'd' */ import 'e';";
        assert_eq!(found(src), expect(&[("e", Import)]));
        assert!(valid(src).non_literal.is_empty());
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
    fn non_ascii_identifiers_and_strings() {
        let src = "const café = \"naïve ✓\"; const 日本 = require('日本/語');\n\
                   import ünï from './ünïcødé.ts'; const ok = café / 日本; import 'ß';";
        let info = valid(src);
        let names: Vec<&str> = info.imports.iter().map(|r| r.specifier.as_str()).collect();
        assert_eq!(names, ["日本/語", "./ünïcødé.ts", "ß"]);
        assert_eq!(&src[info.imports[0].span.clone()], "'日本/語'");
        assert!(found("éimport('x'); importé('y');").is_empty());
    }

    #[test]
    fn unicode_whitespace_and_line_separators() {
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
    fn a_lone_surrogate_keeps_its_source_text() {
        let names: Vec<String> = found(r#"import '\uD800x';"#)
            .into_iter()
            .map(|(s, _)| s)
            .collect();
        assert_eq!(names, [r"\uD800x"]);
    }

    #[test]
    fn invalid_escapes_are_syntax_errors() {
        for src in [r"import '\u{110000}';", r"import '\1';", r"import '\xZZ';"] {
            assert!(!errors(src, Language::TYPESCRIPT).is_empty(), "{src}");
        }
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
            "\u{FEFF}import X, { type A, b as c } from 'x';\nexport default tool({ a: <T,>(v: T) => v });",
        ];
        let mut parsed = 0;
        for src in sources {
            assert!(valid(src).syntax_errors.is_empty());
            let mut cuts: Vec<usize> = src.char_indices().map(|(i, _)| i).collect();
            cuts.push(src.len());
            for cut in cuts {
                for language in [Language::TYPESCRIPT, Language::JSX] {
                    parse_as(&src[..cut], language);
                    parsed += 1;
                }
            }
        }
        assert!(parsed > 700, "{parsed}");
    }

    #[test]
    fn a_large_source_is_parsed_whole() {
        let chunk = "{ import('./a.js'); const r = /['\"]/g; // import 'no'\n\
                     const t = `x${require('b')}y`; /* require('no') */ await import(dyn); }\n";
        let reps = 250_000 / chunk.len() + 1;
        let src = format!("import './a.js';\n{}", chunk.repeat(reps));
        let info = valid(&src);
        assert_eq!(info.imports.len(), 1 + 2 * reps);
        assert_eq!(info.non_literal.len(), reps);
    }

    // --- import elision ---

    /// `(specifier, bindings, elided)` of every record of valid TypeScript.
    fn elision(src: &str) -> Vec<(String, Vec<String>, bool)> {
        valid(src)
            .imports
            .into_iter()
            .map(|r| (r.specifier, r.bindings, r.elided))
            .collect()
    }

    /// `elided` of the only record of `src`.
    fn elided(src: &str) -> bool {
        let info = valid(src);
        assert_eq!(info.imports.len(), 1, "{src}: {:?}", info.imports);
        info.imports[0].elided
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
        assert!(elided(
            "import { b } from 'x'; obj.b; obj?.b(); class K { #b = 1; m() { return this.#b; } }"
        ));
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
        assert!(!elided("import { b } from 'x'; const o = { k: b };"));
        assert!(!elided("import { b } from 'x'; const o = { [b]: 1 };"));
    }

    #[test]
    fn inline_type_only_specifiers_elided() {
        let src = "import { type A } from 'x';\nconst a: A = 1;";
        assert_eq!(elision(src), vec![("x".into(), vec![], true)]);
        assert!(elided("import { type A, type B } from 'x'; let v: [A, B];"));
    }

    #[test]
    fn mixed_type_and_value_specifiers() {
        let src = "import { type A, B } from 'x';\nB();";
        assert_eq!(elision(src), vec![("x".into(), names(&["B"]), false)]);
        let src = "import { type A, B } from 'x';\nlet v: A;";
        assert_eq!(elision(src), vec![("x".into(), names(&["B"]), true)]);
    }

    #[test]
    fn empty_braces_kept() {
        assert_eq!(
            elision("import {} from 'x';"),
            vec![("x".into(), vec![], false)]
        );
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
        // An explicitly type-only export is not.
        assert!(elided("import { b } from 'x'; export type { b };"));
    }

    #[test]
    fn export_from_is_not_a_use() {
        let src = "import { b } from 'x';\nexport { b as c } from 'y';\nexport * as d from 'z';";
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
    fn type_position_uses_do_not_keep_an_import() {
        // The scanner counted these as uses; TypeScript and Bun elide the import.
        assert!(elided("import { Foo } from 'x'; let v: Foo;"));
        assert!(elided("import Foo from 'x'; function f(p: Foo): void {}"));
        assert!(elided("import { Foo } from 'x'; const v = y as Foo;"));
        assert!(elided("import { Foo } from 'x'; type T = typeof Foo;"));
        assert!(elided("import { Foo } from 'x'; class K implements Foo {}"));
        assert!(elided("import { Foo } from 'x'; let v = f<Foo>(1);"));
        // ...but `typeof` in a value is a use.
        assert!(!elided("import { Foo } from 'x'; const t = typeof Foo;"));
    }

    #[test]
    fn a_shadowing_local_is_not_a_use() {
        assert!(elided("import { b } from 'x'; function f(b) { return b; }"));
        assert!(elided("import { b } from 'x'; { const b = 1; b; }"));
        assert!(!elided(
            "import { b } from 'x'; function f(a) { return b; }"
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
        let bindings: Vec<Vec<String>> =
            valid(src).imports.into_iter().map(|r| r.bindings).collect();
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
        let cases: [(&str, &[&str], bool); 5] = [
            ("import { type } from 'x'; type;", &["type"], false),
            ("import { type as } from 'x'; let v: as;", &[], true),
            ("import { type as as } from 'x'; as;", &["as"], false),
            ("import { type as as as } from 'x'; let v: as;", &[], true),
            ("import { type a as b } from 'x'; let v: b;", &[], true),
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
        for r in valid(src).imports {
            assert!(r.bindings.is_empty(), "{r:?}");
            assert!(!r.elided, "{r:?}");
        }
    }

    #[test]
    fn declaration_names_are_not_uses() {
        let src = "import { b } from 'x';\nimport { b as z } from 'y';\nimport type { b as t } from 't';\n\
                   import type w = require('w');\nz(); let v: w;";
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
        assert!(!elided("import b from 'x'; if (b) {}"));
        assert!(!elided("import b from 'x'; class K extends b {}"));
        let jsx = parse_as(
            "import Comp from 'x'; const el = <Comp prop={1} />;",
            Language::TSX,
        );
        assert!(jsx.syntax_errors.is_empty(), "{:?}", jsx.syntax_errors);
        assert!(!jsx.imports[0].elided);
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
    fn javascript_keeps_every_import() {
        let info = parse_as("import X from 'x'; import { y } from 'y';", Language::JSX);
        assert!(info.syntax_errors.is_empty());
        assert!(info.imports.iter().all(|r| !r.elided), "{:?}", info.imports);
    }

    #[test]
    fn elision_on_every_prefix_is_consistent() {
        let src = "import X, { type A, b as c } from 'x';\nimport y = require('y');\n\
                   export import z = require('z');\nimport {} from 'e';\n\
                   const o = { c, k: `${X}` }; export { y };";
        let mut cuts: Vec<usize> = src.char_indices().map(|(i, _)| i).collect();
        cuts.push(src.len());
        for cut in cuts {
            for r in parse_as(&src[..cut], Language::TYPESCRIPT).imports {
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
        let n = 5_000;
        let mut src = String::new();
        for i in 0..n {
            src.push_str(&format!("import {{ a{i} as b{i} }} from 'm{i}';\n"));
        }
        for i in (0..n).step_by(2) {
            src.push_str(&format!("b{i}(); o.b{};\n", i + 1));
        }
        let info = valid(&src);
        assert_eq!(info.imports.len(), n);
        for (i, r) in info.imports.iter().enumerate() {
            assert_eq!(r.elided, i % 2 == 1, "{r:?}");
        }
    }

    #[test]
    fn deep_nesting_does_not_overflow_the_stack() {
        let depth = 20_000;
        for src in [
            "`${".repeat(depth),
            "require(".repeat(depth),
            format!("x = {}1{};", "(".repeat(depth), ")".repeat(depth)),
            format!("x = {}1;", "[".repeat(depth)),
            "{".repeat(depth) + &"}".repeat(depth),
            format!("x = 1{};", " + 1".repeat(depth)),
            format!("x = a{};", ".b".repeat(depth)),
            format!("let x: {}number{};", "A<".repeat(depth), ">".repeat(depth)),
            format!("x = (/{}\nimport 'a';", "(/".repeat(depth)),
        ] {
            parse_as(&src, Language::TYPESCRIPT);
        }
    }

    // --- default export ---

    fn default_of(src: &str, language: Language) -> DefaultExport {
        let info = parse_as(src, language);
        assert!(
            info.syntax_errors.is_empty(),
            "{src}: {:?}",
            info.syntax_errors
        );
        info.default_export
    }

    fn what(src: &str) -> String {
        match default_of(src, Language::TYPESCRIPT) {
            DefaultExport::Other { span, what } => {
                assert!(src.get(span).is_some());
                what
            }
            other => panic!("{src}: {other:?}"),
        }
    }

    const TOOL_IMPORT: &str = "import { tool } from '@opencorvus-ai/plugin';\n";

    #[test]
    fn a_tool_call_is_the_expected_default_export() {
        for body in [
            "export default tool({ description: 'd', args: {}, async execute() { return 'x'; } });",
            "export default (tool({}) as unknown);",
            "export default tool({}) satisfies object;",
            "const t = tool({});\nexport default t;",
            "const t = tool({});\nconst u = t;\nexport { u as default };",
        ] {
            let src = format!("{TOOL_IMPORT}{body}");
            assert_eq!(
                default_of(&src, Language::TYPESCRIPT),
                DefaultExport::ToolCall,
                "{body}"
            );
        }
        let renamed =
            "import { tool as make } from '@opencorvus-ai/plugin';\nexport default make({});";
        assert_eq!(
            default_of(renamed, Language::TYPESCRIPT),
            DefaultExport::ToolCall
        );
        let namespace =
            "import * as plugin from '@opencorvus-ai/plugin';\nexport default plugin.tool({});";
        assert_eq!(
            default_of(namespace, Language::TYPESCRIPT),
            DefaultExport::ToolCall
        );
        let javascript = format!("{TOOL_IMPORT}export default tool({{}});");
        assert_eq!(
            default_of(&javascript, Language::JSX),
            DefaultExport::ToolCall
        );
    }

    #[test]
    fn anything_else_is_described() {
        assert_eq!(
            default_of("export const x = 1;", Language::TYPESCRIPT),
            DefaultExport::Missing
        );
        assert_eq!(what("export default 1;"), "a literal");
        assert_eq!(
            what("export default { execute() {} };"),
            "an object literal"
        );
        assert_eq!(what("export default function () {}"), "a function");
        assert_eq!(what("export default () => 1;"), "a function");
        assert_eq!(what("export default class {}"), "a class");
        assert_eq!(
            what("import make from './make';\nexport default make({});"),
            "a call of `make`, not of `tool`"
        );
        assert_eq!(
            what("function tool(x: object) { return x; }\nexport default tool({});"),
            "a call of a `tool` that is not the one imported from `@opencorvus-ai/plugin`"
        );
        assert_eq!(
            what("import { tool } from './tool';\nexport default tool({});"),
            "a call of a `tool` that is not the one imported from `@opencorvus-ai/plugin`"
        );
        assert_eq!(
            what("import type { tool } from '@opencorvus-ai/plugin';\nexport default tool({});"),
            "a call of a `tool` that is not the one imported from `@opencorvus-ai/plugin`"
        );
        assert_eq!(
            what("export { default } from './other';"),
            "re-exported from another module"
        );
        assert_eq!(
            what("import impl from './impl';\nexport default impl;"),
            "`impl`, imported from another module"
        );
        assert_eq!(
            what("let t = 1;\nexport default t;"),
            "`t`, which is not a `const` holding a `tool(...)` call"
        );
        assert_eq!(
            what("const t = { a: 1 };\nexport default t;"),
            "`t`, which holds an object literal"
        );
        assert_eq!(what("export = 1;"), "an `export =` assignment");
    }
}
