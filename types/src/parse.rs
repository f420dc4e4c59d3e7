//! ts-rs's one-line TypeScript (`{ \n/** doc */\nkey?: T, } | "lit" & Name`), parsed into the
//! few shapes the declarations use, so that [`crate::format`] can lay them out.

/// A TypeScript type as ts-rs writes it, parsed just enough to lay it out.
#[derive(Debug, PartialEq)]
pub enum Type {
    /// `A | B | ...`
    Union(Vec<Type>),
    /// `A & B & ...`
    Intersection(Vec<Type>),
    /// `{ key: T, ... }`
    Object(Vec<Field>),
    /// A name, a literal or a generic such as `Array<string>`, kept as written.
    Atom(String),
}

/// One `key?: type` of an object, with its doc comment.
#[derive(Debug, PartialEq)]
pub struct Field {
    /// The doc comment's text (see [`doc_text`]), empty when there is none.
    pub docs: String,
    /// The key as JSON writes it (quoted only when it is not a plain identifier).
    pub key: String,
    /// Marked `?`: the key may be left out.
    pub optional: bool,
    /// The value's type.
    pub ty: Type,
}

/// Parses the right-hand side of a ts-rs `type X = ...;`; anything left over is an error.
pub fn parse_type(body: &str) -> Result<Type, String> {
    let mut parser = Parser { text: body, pos: 0 };
    let ty = parser.union()?;
    parser.skip_space();
    if parser.pos != body.len() {
        return Err(format!("unexpected `{}`", &body[parser.pos..]));
    }
    Ok(ty)
}

/// The text of a `/** ... */` block: without the delimiters and the leading `*` of its lines.
pub fn doc_text(block: &str) -> String {
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

    #[test]
    fn objects_unions_and_docs_parse() {
        let ty = parse_type("{ \"kind\": \"a\", \n/**\n * Doc.\n */\nx?: number | null, } & Other")
            .unwrap();
        let Type::Intersection(parts) = ty else {
            panic!("not an intersection: {ty:?}");
        };
        assert_eq!(parts[1], Type::Atom("Other".to_owned()));
        let Type::Object(fields) = &parts[0] else {
            panic!("not an object: {:?}", parts[0]);
        };
        assert_eq!(fields[0].key, "kind");
        assert_eq!(fields[1].docs, "Doc.");
        assert!(fields[1].optional);
        assert_eq!(
            fields[1].ty,
            Type::Union(vec![
                Type::Atom("number".to_owned()),
                Type::Atom("null".to_owned())
            ])
        );
    }

    #[test]
    fn malformed_input_is_an_error_not_a_guess() {
        for body in ["{ a string }", "{ a: \"open }", "{ a: number", "A B"] {
            assert!(parse_type(body).is_err(), "{body}");
        }
    }
}
