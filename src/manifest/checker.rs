//! Typed reading of a JSONC tree with diagnostics: the building blocks every closed-object
//! schema in the package (manifest, MCP declarations) is checked with.
//!
//! Each helper either returns the typed value or pushes one diagnostic at the offending span and
//! returns `None`, so callers go on checking siblings and every problem is reported.

use std::collections::HashMap;
use std::ops::Range;

use crate::diag::{Code, Diagnostic, Diagnostics, Edit, Suggestion};
use crate::jsonc::{JsonString, Kind, Member, Node};
use crate::text::js_trim;

/// A string value with where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub value: String,
    /// The literal in the source, quotes included.
    pub span: Range<usize>,
    /// Whether escapes make offsets inside `value` differ from offsets inside the literal.
    pub escaped: bool,
    pub pointer: String,
}

/// The edit that removes the element at `index` from an array (given its elements' spans)
/// with one of the commas around it; `None` when a comment lies in what would go.
pub fn remove_element(text: &str, spans: &[Range<usize>], index: usize) -> Option<Edit> {
    let element = spans.get(index)?;
    let range = if let Some(next) = spans.get(index + 1) {
        element.start..next.start
    } else if index > 0 {
        spans[index - 1].end..element.end
    } else {
        element.clone()
    };
    let gaps = [
        &text[range.start..element.start],
        &text[element.end..range.end],
    ];
    if gaps
        .iter()
        .any(|gap| gap.contains("//") || gap.contains("/*"))
    {
        return None;
    }
    Some(Edit {
        span: range,
        replacement: String::new(),
    })
}

/// The edits that put string elements (given their spans and values) into `sorted` order, one
/// literal at a time, so the separators and comments between them stay where they are.
pub fn reorder_elements(spans: &[Range<usize>], values: &[&str], sorted: &[&str]) -> Vec<Edit> {
    spans
        .iter()
        .zip(values)
        .zip(sorted)
        .filter(|((_, value), wanted)| value != wanted)
        .map(|((span, _), wanted)| Edit {
            span: span.clone(),
            replacement: json_string(wanted),
        })
        .collect()
}

/// The one edit that turns `old` into `new`: what lies between their common prefix and suffix.
pub fn edit_between(old: &str, new: &str) -> Edit {
    let mut prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let mut suffix = old[prefix..]
        .bytes()
        .rev()
        .zip(new[prefix..].bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    Edit {
        span: prefix..old.len() - suffix,
        replacement: new[prefix..new.len() - suffix].to_owned(),
    }
}

/// `value` as a JSON string literal.
pub fn json_string(value: &str) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| format!("\"{value}\""))
}

/// Appends one reference token to a JSON pointer.
pub fn child_pointer(base: &str, token: &str) -> String {
    let escaped = token.replace('~', "~0").replace('/', "~1");
    format!("{base}/{escaped}")
}

/// An object whose keys were checked: last occurrence wins, as in the reference.
pub struct Object<'a> {
    pub node: &'a Node,
    pub pointer: String,
    fields: HashMap<&'a str, &'a Member>,
    pub members: Vec<&'a Member>,
}

impl<'a> Object<'a> {
    pub fn get(&self, key: &str) -> Option<&'a Node> {
        self.fields.get(key).map(|member| &member.value)
    }

    pub fn pointer_of(&self, key: &str) -> String {
        child_pointer(&self.pointer, key)
    }

    /// The span of the opening brace, where "missing key" diagnostics point.
    pub fn open_span(&self) -> Range<usize> {
        self.node.span.start..self.node.span.start + 1
    }
}

/// Reads values of one file and reports into `diagnostics`.
pub struct Checker<'d> {
    pub file: String,
    /// The file's text, for fixes that must look at what lies between two values.
    pub text: &'d str,
    pub diagnostics: &'d mut Diagnostics,
}

impl Checker<'_> {
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// A diagnostic in this file at `span`, for `pointer`.
    pub fn at(
        &self,
        code: Code,
        span: Range<usize>,
        pointer: &str,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::new(code, self.file.clone(), message)
            .span(span)
            .pointer(pointer)
    }

    pub fn wrong_type(&mut self, node: &Node, pointer: &str, expected: &str) {
        let found = node.kind.type_name();
        let diagnostic = self
            .at(
                Code::WrongType,
                node.span.clone(),
                pointer,
                format!("expected {expected}, found {found}"),
            )
            .span_label(format!("expected {expected}"));
        let diagnostic = if matches!(node.kind, Kind::Null) {
            diagnostic.help("optional fields must be left out, not set to null")
        } else {
            diagnostic
        };
        self.push(diagnostic);
    }

    /// Checks that `node` is an object with only `allowed` keys; warns about duplicate keys.
    /// The reference validates closed objects, so every other key is an error.
    pub fn object<'a>(
        &mut self,
        node: &'a Node,
        pointer: &str,
        allowed: &[&str],
    ) -> Option<Object<'a>> {
        let Kind::Object(members) = &node.kind else {
            self.wrong_type(node, pointer, "object");
            return None;
        };
        let fields = self.keyed_members(members, pointer);
        for member in members {
            if !allowed.contains(&member.key.as_str()) {
                let diagnostic = self
                    .at(
                        Code::UnknownField,
                        member.key_span.clone(),
                        &child_pointer(pointer, &member.key),
                        format!("unknown field `{}`", member.key),
                    )
                    .span_label("not allowed here");
                let close = crate::text::closest(&member.key, allowed.iter().copied());
                let diagnostic = match close {
                    Some(close) if !fields.contains_key(close) => {
                        diagnostic.suggest(Suggestion::replace(
                            format!("did you mean `{close}`?"),
                            member.key_span.clone(),
                            json_string(close),
                        ))
                    }
                    Some(close) => diagnostic.help(format!(
                        "did you mean `{close}`? This object already sets `{close}`"
                    )),
                    None => diagnostic.help(format!(
                        "allowed fields: {}",
                        allowed
                            .iter()
                            .map(|key| format!("`{key}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                };
                self.push(diagnostic);
            }
        }
        Some(Object {
            node,
            pointer: pointer.to_owned(),
            fields,
            members: members.iter().collect(),
        })
    }

    /// Checks that `node` is an object used as a record (any keys); warns about duplicates.
    pub fn record<'a>(&mut self, node: &'a Node, pointer: &str) -> Option<Object<'a>> {
        let Kind::Object(members) = &node.kind else {
            self.wrong_type(node, pointer, "object");
            return None;
        };
        let fields = self.keyed_members(members, pointer);
        // Later duplicates replace earlier ones; keep only the winners, in source order.
        let winners: Vec<&Member> = members
            .iter()
            .filter(|member| std::ptr::eq(fields[member.key.as_str()], *member))
            .collect();
        Some(Object {
            node,
            pointer: pointer.to_owned(),
            fields,
            members: winners,
        })
    }

    fn keyed_members<'a>(
        &mut self,
        members: &'a [Member],
        pointer: &str,
    ) -> HashMap<&'a str, &'a Member> {
        let mut fields: HashMap<&'a str, &'a Member> = HashMap::with_capacity(members.len());
        for member in members {
            if let Some(previous) = fields.insert(member.key.as_str(), member) {
                let diagnostic = self
                    .at(
                        Code::DuplicateKey,
                        member.key_span.clone(),
                        &child_pointer(pointer, &member.key),
                        format!("duplicate key `{}`", member.key),
                    )
                    .span_label("duplicate found here; this value wins")
                    .label(previous.key_span.clone(), "first defined here")
                    .help("remove one of them: only the last value is used");
                self.push(diagnostic);
            }
        }
        fields
    }

    /// A required member: pushes `missing-field` when absent.
    pub fn required<'a>(&mut self, object: &Object<'a>, key: &str) -> Option<&'a Node> {
        let value = object.get(key);
        if value.is_none() {
            let diagnostic = self
                .at(
                    Code::MissingField,
                    object.open_span(),
                    &object.pointer,
                    format!("missing required field `{key}`"),
                )
                .span_label(format!("this object needs `{key}`"));
            self.push(diagnostic);
        }
        value
    }

    pub fn string<'a>(&mut self, node: &'a Node, pointer: &str) -> Option<&'a JsonString> {
        match &node.kind {
            Kind::String(string) => Some(string),
            _ => {
                self.wrong_type(node, pointer, "string");
                None
            }
        }
    }

    pub fn item(&mut self, node: &Node, pointer: &str) -> Option<Item> {
        let string = self.string(node, pointer)?;
        Some(Item {
            value: string.value.clone(),
            span: node.span.clone(),
            escaped: string.has_escapes,
            pointer: pointer.to_owned(),
        })
    }

    /// A string of at least one character (not trimmed).
    pub fn non_empty(&mut self, node: &Node, pointer: &str) -> Option<Item> {
        let item = self.item(node, pointer)?;
        if item.value.is_empty() {
            let diagnostic = self
                .at(
                    Code::BlankString,
                    node.span.clone(),
                    pointer,
                    "must not be empty",
                )
                .span_label("empty string");
            self.push(diagnostic);
            return None;
        }
        Some(item)
    }

    /// A string with at least one character after trimming, as written.
    pub fn non_blank(&mut self, node: &Node, pointer: &str) -> Option<Item> {
        let item = self.item(node, pointer)?;
        let trimmed = js_trim(&item.value);
        if trimmed.is_empty() {
            let diagnostic = self
                .at(
                    Code::BlankString,
                    node.span.clone(),
                    pointer,
                    "must not be blank",
                )
                .span_label("empty or only whitespace");
            self.push(diagnostic);
            return None;
        }
        Some(item)
    }

    pub fn boolean(&mut self, node: &Node, pointer: &str) -> Option<bool> {
        match node.kind {
            Kind::Bool(value) => Some(value),
            _ => {
                self.wrong_type(node, pointer, "boolean");
                None
            }
        }
    }

    /// A string that must be one of `options`.
    pub fn literal(&mut self, node: &Node, pointer: &str, options: &[&str]) -> Option<Item> {
        let item = self.item(node, pointer)?;
        if options.contains(&item.value.as_str()) {
            return Some(item);
        }
        let expected = options
            .iter()
            .map(|option| format!("`{option}`"))
            .collect::<Vec<_>>()
            .join(" or ");
        let mut diagnostic = self
            .at(
                Code::InvalidLiteral,
                node.span.clone(),
                pointer,
                format!("`{}` is not allowed here; expected {expected}", item.value),
            )
            .span_label(format!("expected {expected}"));
        let replacement = match options {
            [only] => Some(*only),
            _ => crate::text::closest(&item.value, options.iter().copied()),
        };
        if let Some(replacement) = replacement {
            diagnostic = diagnostic.suggest(Suggestion::replace(
                if options.len() == 1 {
                    format!("write `{replacement}`")
                } else {
                    format!("did you mean `{replacement}`?")
                },
                node.span.clone(),
                json_string(replacement),
            ));
        }
        self.push(diagnostic);
        None
    }

    pub fn array<'a>(&mut self, node: &'a Node, pointer: &str) -> Option<&'a [Node]> {
        match &node.kind {
            Kind::Array(items) => Some(items),
            _ => {
                self.wrong_type(node, pointer, "array");
                None
            }
        }
    }

    /// An array of non-empty strings without repeats (the reference's `uniqueRefList`).
    /// Returns the valid elements, first occurrences only.
    pub fn unique_strings(&mut self, node: &Node, pointer: &str, field: &str) -> Option<Vec<Item>> {
        let elements = self.array(node, pointer)?;
        let mut items: Vec<Item> = Vec::with_capacity(elements.len());
        let mut seen: HashMap<String, Range<usize>> = HashMap::new();
        for (index, element) in elements.iter().enumerate() {
            let element_pointer = child_pointer(pointer, &index.to_string());
            let Some(item) = self.non_empty(element, &element_pointer) else {
                continue;
            };
            if let Some(first) = seen.get(&item.value) {
                let mut diagnostic = self
                    .at(
                        Code::DuplicateEntry,
                        element.span.clone(),
                        &element_pointer,
                        format!("{field} repeats `{}`", item.value),
                    )
                    .span_label("repeated here")
                    .label(first.clone(), "first listed here");
                let spans: Vec<Range<usize>> = elements
                    .iter()
                    .map(|element| element.span.clone())
                    .collect();
                if let Some(edit) = remove_element(self.text, &spans, index) {
                    diagnostic = diagnostic.suggest(Suggestion {
                        message: format!("remove the repeated `{}`", item.value),
                        edits: vec![edit],
                        applicability: crate::diag::Applicability::MachineApplicable,
                    });
                }
                self.push(diagnostic);
                continue;
            }
            seen.insert(item.value.clone(), element.span.clone());
            items.push(item);
        }
        Some(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_escape_tokens() {
        assert_eq!(child_pointer("/a", "b/c~d"), "/a/b~1c~0d");
    }
}
