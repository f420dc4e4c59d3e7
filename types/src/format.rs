//! Lays out one ts-rs declaration (`type X = { a: T, ... } | ...;`, all on one line with its
//! doc comments inline) the way the rest of the packages' declarations read: one field per
//! line, `;` after each field, one union member per line when the union does not fit.

use crate::docs::DocRewriter;
use crate::parse::{Type, doc_text, parse_type};

/// Longest line an object or a union is kept on.
const WIDTH: usize = 100;

/// One parsed ts-rs declaration, `type <name> = <body>;`.
#[derive(Debug)]
pub struct Declaration {
    name: String,
    ty: Type,
}

impl Declaration {
    /// Parses ts-rs's `type <name> = <body>;`.
    pub fn parse(decl: &str) -> Result<Declaration, String> {
        let rest = decl
            .strip_prefix("type ")
            .and_then(|rest| rest.strip_suffix(';'))
            .ok_or_else(|| format!("not a type alias: {decl}"))?;
        let (name, body) = rest
            .split_once(" = ")
            .ok_or_else(|| format!("not a type alias: {decl}"))?;
        let ty = parse_type(body).map_err(|e| format!("{e} in {decl}"))?;
        Ok(Declaration {
            name: name.to_owned(),
            ty,
        })
    }

    /// Every object key in the declaration, as written in JSON.
    pub fn keys(&self) -> Vec<String> {
        let mut keys = Vec::new();
        collect_keys(&self.ty, &mut keys);
        keys
    }

    /// The keys of a plain object declaration that are not marked optional (`?`).
    pub fn required_keys(&self) -> Vec<&str> {
        match &self.ty {
            Type::Object(fields) => fields
                .iter()
                .filter(|f| !f.optional)
                .map(|f| f.key.as_str())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// `export type <name> = <body>;` laid out, after `docs` (ts-rs's `/** ... */` block).
    pub fn print(&self, docs: Option<&str>, rewriter: &DocRewriter) -> String {
        let mut out = String::new();
        if let Some(docs) = docs {
            push_docs(&mut out, &doc_text(docs), 0, rewriter);
        }
        out.push_str("export type ");
        out.push_str(&self.name);
        out.push_str(" =");
        match &self.ty {
            Type::Union(members)
                if !fits(&self.ty, WIDTH - "export type  = ;".len() - self.name.len()) =>
            {
                for member in members {
                    out.push_str("\n  | ");
                    print(&mut out, member, 4, rewriter);
                }
            }
            ty => {
                out.push(' ');
                print(&mut out, ty, 0, rewriter);
            }
        }
        out.push_str(";\n");
        out
    }
}

fn collect_keys(ty: &Type, keys: &mut Vec<String>) {
    match ty {
        Type::Union(parts) | Type::Intersection(parts) => {
            parts.iter().for_each(|part| collect_keys(part, keys));
        }
        Type::Object(fields) => {
            for field in fields {
                keys.push(field.key.clone());
                collect_keys(&field.ty, keys);
            }
        }
        Type::Atom(_) => {}
    }
}
/// A doc comment at `indent`: one line when it fits, a block otherwise.
fn push_docs(out: &mut String, text: &str, indent: usize, rewriter: &DocRewriter) {
    let text = rewriter.rewrite(text);
    let lines = reflow(&text, WIDTH - indent - 3);
    let pad = " ".repeat(indent);
    match lines.as_slice() {
        [] => {}
        [line] if indent + line.len() + 7 <= WIDTH => {
            out.push_str(&format!("{pad}/** {line} */\n"));
        }
        lines => {
            out.push_str(&format!("{pad}/**\n"));
            for line in lines {
                if line.is_empty() {
                    out.push_str(&format!("{pad} *\n"));
                } else {
                    out.push_str(&format!("{pad} * {line}\n"));
                }
            }
            out.push_str(&format!("{pad} */\n"));
        }
    }
}

/// `text` wrapped to `width`: paragraphs (separated by an empty line) are refilled word by
/// word, since rewriting changed the lengths of their lines; a list item starts a new line.
fn reflow(text: &str, width: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut line = String::new();
    for source_line in text.lines() {
        let source_line = source_line.trim();
        if source_line.is_empty() || source_line.starts_with("- ") {
            if !line.is_empty() {
                out.push(std::mem::take(&mut line));
            }
            if source_line.is_empty() {
                out.push(String::new());
                continue;
            }
        }
        for word in source_line.split(' ') {
            if !line.is_empty() && line.len() + 1 + word.len() > width {
                out.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    if !line.is_empty() {
        out.push(line);
    }
    out
}

/// Whether `ty` has no doc comments and its one-line form is at most `width` long.
fn fits(ty: &Type, width: usize) -> bool {
    !has_docs(ty) && one_line(ty).len() <= width
}

fn has_docs(ty: &Type) -> bool {
    match ty {
        Type::Union(parts) | Type::Intersection(parts) => parts.iter().any(has_docs),
        Type::Object(fields) => fields.iter().any(|f| !f.docs.is_empty() || has_docs(&f.ty)),
        Type::Atom(_) => false,
    }
}

fn one_line(ty: &Type) -> String {
    match ty {
        Type::Union(parts) => parts.iter().map(one_line).collect::<Vec<_>>().join(" | "),
        Type::Intersection(parts) => parts.iter().map(one_line).collect::<Vec<_>>().join(" & "),
        Type::Object(fields) if fields.is_empty() => "{}".to_owned(),
        Type::Object(fields) => {
            let fields: Vec<String> = fields
                .iter()
                .map(|f| {
                    format!(
                        "{}{}: {}",
                        f.key,
                        if f.optional { "?" } else { "" },
                        one_line(&f.ty)
                    )
                })
                .collect();
            format!("{{ {} }}", fields.join("; "))
        }
        Type::Atom(text) => text.clone(),
    }
}

/// `ty` starting at the current column; an object's fields go at `indent + 2`, its closing
/// brace at `indent`.
fn print(out: &mut String, ty: &Type, indent: usize, rewriter: &DocRewriter) {
    match ty {
        Type::Object(fields) if !fits(ty, WIDTH - indent - 4) => {
            out.push_str("{\n");
            let pad = " ".repeat(indent + 2);
            for field in fields {
                push_docs(out, &field.docs, indent + 2, rewriter);
                out.push_str(&format!(
                    "{pad}{}{}: ",
                    field.key,
                    if field.optional { "?" } else { "" }
                ));
                print(out, &field.ty, indent + 2, rewriter);
                out.push_str(";\n");
            }
            out.push_str(&" ".repeat(indent));
            out.push('}');
        }
        Type::Union(parts) | Type::Intersection(parts) if has_docs(ty) => {
            let sep = if matches!(ty, Type::Union(_)) {
                " | "
            } else {
                " & "
            };
            for (i, part) in parts.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                print(out, part, indent, rewriter);
            }
        }
        _ => out.push_str(&one_line(ty)),
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn layout(decl: &str) -> String {
        Declaration::parse(decl)
            .unwrap()
            .print(None, &DocRewriter::default())
    }

    #[test]
    fn short_unions_and_objects_stay_on_one_line() {
        assert_eq!(
            layout(r#"type Style = "posix" | "windows";"#),
            "export type Style = \"posix\" | \"windows\";\n"
        );
        assert_eq!(
            layout("type Range = { start: Position, end: Position, };"),
            "export type Range = { start: Position; end: Position };\n"
        );
    }

    #[test]
    fn documented_fields_go_one_per_line_and_union_members_too() {
        let decl = "type Out = { \"kind\": \"transmit\", \n/**\n * The connection.\n */\nconn: number, } | { \"kind\": \"event\" } & Event;";
        assert_eq!(
            layout(decl),
            "export type Out =\n  | {\n      kind: \"transmit\";\n      /** The connection. */\n      conn: number;\n    }\n  | { kind: \"event\" } & Event;\n"
        );
    }

    #[test]
    fn a_documented_object_inside_an_intersection_is_laid_out_too() {
        let decl = "type X = { \"kind\": \"a\", \n/**\n * Doc.\n */\nx: number, } & Other;";
        assert_eq!(
            layout(decl),
            "export type X = {\n  kind: \"a\";\n  /** Doc. */\n  x: number;\n} & Other;\n"
        );
    }

    #[test]
    fn optional_nullable_and_generic_fields_keep_their_types() {
        assert_eq!(
            layout("type T = { a?: string | null, b: Array<string>, \"odd-key\": number, };"),
            "export type T = { a?: string | null; b: Array<string>; \"odd-key\": number };\n"
        );
    }

    #[test]
    fn doc_paragraphs_are_refilled() {
        assert_eq!(
            reflow("one two\nthree\n\nfour\n- five\n- six", 9),
            ["one two", "three", "", "four", "- five", "- six"]
        );
        assert_eq!(reflow("a long-word b", 6), ["a", "long-word", "b"]);
    }

    #[test]
    fn malformed_input_is_an_error_not_a_guess() {
        for decl in [
            "interface X {}",
            "type X = { a string };",
            "type X = { a: \"open };",
        ] {
            assert!(Declaration::parse(decl).is_err(), "{decl}");
        }
    }
}
