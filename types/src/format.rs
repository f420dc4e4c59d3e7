//! Lays out one ts-rs declaration (`type X = { a: T, ... } | ...;`, all on one line with its
//! doc comments inline) the way the rest of the packages' declarations read: one field per
//! line, `;` after each field, one union member per line when the union does not fit.

use crate::docs::DocRewriter;

/// Longest line an object or a union is kept on.
const WIDTH: usize = 100;

/// A TypeScript type as ts-rs writes it, parsed just enough to lay it out.
#[derive(Debug, PartialEq)]
enum Type {
    /// `A | B | ...`
    Union(Vec<Type>),
    /// `A & B & ...`
    Intersection(Vec<Type>),
    /// `{ key: T, ... }`
    Object(Vec<Field>),
    /// A name, a literal or a generic such as `Array<string>`, kept as written.
    Atom(String),
}

#[derive(Debug, PartialEq)]
struct Field {
    /// The doc comment's text (see [`doc_text`]), empty when there is none.
    docs: String,
    key: String,
    optional: bool,
    ty: Type,
}

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
        let mut parser = Parser { text: body, pos: 0 };
        let ty = parser.union()?;
        parser.skip_space();
        if parser.pos != body.len() {
            return Err(format!("unexpected `{}` in {decl}", &body[parser.pos..]));
        }
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

/// The text of a `/** ... */` block: without the delimiters and the leading `*` of its lines.
fn doc_text(block: &str) -> String {
    let inner = block
        .trim()
        .trim_start_matches("/**")
        .trim_end_matches("*/");
    let lines: Vec<&str> = inner
        .lines()
        .map(|line| {
            let line = line.trim();
            let line = line.strip_prefix('*').unwrap_or(line);
            line.strip_prefix(' ').unwrap_or(line).trim_end()
        })
        .collect();
    lines.join("\n").trim().to_owned()
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

/// A cursor over ts-rs's one-line output.
struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn skip_space(&mut self) {
        let trimmed = self.rest().trim_start();
        self.pos = self.text.len() - trimmed.len();
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_space();
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn union(&mut self) -> Result<Type, String> {
        let mut parts = vec![self.intersection()?];
        while self.eat("|") {
            parts.push(self.intersection()?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            Type::Union(parts)
        })
    }

    fn intersection(&mut self) -> Result<Type, String> {
        let mut parts = vec![self.atom()?];
        while self.eat("&") {
            parts.push(self.atom()?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            Type::Intersection(parts)
        })
    }

    fn atom(&mut self) -> Result<Type, String> {
        if self.eat("{") {
            return self.object();
        }
        if self.eat("(") {
            let inner = self.union()?;
            if !self.eat(")") {
                return Err(format!("unclosed `(` before `{}`", self.rest()));
            }
            return Ok(inner);
        }
        self.skip_space();
        let start = self.pos;
        if self.rest().starts_with('"') {
            let end = self.string_end()?;
            self.pos = end;
            return Ok(Type::Atom(self.text[start..end].to_owned()));
        }
        let mut angle = 0usize;
        for (i, c) in self.rest().char_indices() {
            match c {
                '<' => angle += 1,
                '>' => angle = angle.saturating_sub(1),
                ' ' | ',' | ';' | '|' | '&' | '{' | '}' | ')' if angle == 0 => {
                    self.pos = start + i;
                    return self.atom_text(start);
                }
                _ => {}
            }
        }
        self.pos = self.text.len();
        self.atom_text(start)
    }

    fn atom_text(&self, start: usize) -> Result<Type, String> {
        let text = &self.text[start..self.pos];
        if text.is_empty() {
            return Err(format!("expected a type at `{}`", self.rest()));
        }
        Ok(Type::Atom(text.to_owned()))
    }

    /// The end (after the closing quote) of the string literal at the cursor.
    fn string_end(&self) -> Result<usize, String> {
        let mut escaped = false;
        for (i, c) in self.rest().char_indices().skip(1) {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => return Ok(self.pos + i + 1),
                _ => escaped = false,
            }
        }
        Err(format!("unterminated string at `{}`", self.rest()))
    }

    /// The fields after `{`, through the closing `}`.
    fn object(&mut self) -> Result<Type, String> {
        let mut fields = Vec::new();
        loop {
            if self.eat("}") {
                return Ok(Type::Object(fields));
            }
            let docs = if self.eat("/**") {
                let end = self
                    .rest()
                    .find("*/")
                    .ok_or_else(|| "unterminated doc comment".to_owned())?;
                let block = format!("/**{}*/", &self.rest()[..end]);
                self.pos += end + 2;
                doc_text(&block)
            } else {
                String::new()
            };
            self.skip_space();
            let key = if self.rest().starts_with('"') {
                let start = self.pos;
                self.pos = self.string_end()?;
                unquote_key(&self.text[start..self.pos])
            } else {
                let len = self
                    .rest()
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                    .unwrap_or(self.rest().len());
                let key = self.rest()[..len].to_owned();
                self.pos += len;
                key
            };
            if key.is_empty() {
                return Err(format!("expected a field at `{}`", self.rest()));
            }
            let optional = self.eat("?");
            if !self.eat(":") {
                return Err(format!("expected `:` after {key} at `{}`", self.rest()));
            }
            let ty = self.union()?;
            if !self.eat(",") && !self.eat(";") {
                self.skip_space();
                if !self.rest().starts_with('}') {
                    return Err(format!("expected `,` after {key} at `{}`", self.rest()));
                }
            }
            fields.push(Field {
                docs,
                key,
                optional,
                ty,
            });
        }
    }
}

/// `"kind"` → `kind`: a quoted key that is a plain identifier loses its quotes.
fn unquote_key(quoted: &str) -> String {
    let inner = &quoted[1..quoted.len() - 1];
    let plain = inner
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && inner.chars().all(|c| c.is_alphanumeric() || c == '_');
    if plain {
        inner.to_owned()
    } else {
        quoted.to_owned()
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
