//! Rust doc comments retold for TypeScript readers: rustdoc links become code or `{@link}`,
//! Rust's `None` becomes `null`, and a field named in snake_case gets its JSON (camelCase)
//! name.

use std::collections::BTreeSet;

/// Rewrites doc text given the names the declarations define.
#[derive(Debug, Default)]
pub struct DocRewriter {
    /// The declared type names (`{@link}` targets).
    pub types: BTreeSet<String>,
    /// Every field key of the declarations, as written in JSON.
    pub keys: BTreeSet<String>,
}

impl DocRewriter {
    /// `text` with every rule applied.
    pub fn rewrite(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find('`') {
            let Some(len) = rest[start + 1..].find('`') else {
                break;
            };
            let code = &rest[start + 1..start + 1 + len];
            let mut after = &rest[start + len + 2..];
            let (before, link) = match rest[..start].strip_suffix('[') {
                Some(before) if after.starts_with(']') => (before, true),
                _ => (&rest[..start], false),
            };
            out.push_str(before);
            if link {
                after = skip_link_target(&after[1..]);
                out.push_str(&self.link(code));
            } else {
                out.push('`');
                out.push_str(&self.code(code));
                out.push('`');
            }
            rest = after;
        }
        out.push_str(rest);
        out
    }

    /// A rustdoc link to `path`: `{@link Name}` for a declared type, else the code span of
    /// the item (a module path such as `super::normalize_path` shortened to its last name).
    fn link(&self, path: &str) -> String {
        let segments: Vec<&str> = path.split("::").collect();
        let last = segments.last().copied().unwrap_or(path);
        if segments.iter().all(|s| is_identifier(s)) && self.types.contains(last) {
            return format!("{{@link {last}}}");
        }
        let module_path = segments.len() > 1
            && segments[0].chars().all(|c| c.is_lowercase())
            && segments.iter().all(|s| is_identifier(s));
        format!("`{}`", self.code(if module_path { last } else { path }))
    }

    /// One code span's text for TypeScript readers.
    fn code(&self, code: &str) -> String {
        if code == "None" {
            return "null".to_owned();
        }
        if let Some(method) = code.strip_prefix("Engine::")
            && method.contains('_')
            && is_identifier(method)
        {
            return format!("Engine.{}", camel_case(method));
        }
        if code.contains('_') && is_identifier(code) && self.keys.contains(&camel_case(code)) {
            return camel_case(code);
        }
        code.to_owned()
    }
}

/// What follows a rustdoc link's `]`: its `(target)` is dropped.
fn skip_link_target(after: &str) -> &str {
    match after
        .strip_prefix('(')
        .and_then(|inner| inner.find(')').map(|end| &inner[end + 1..]))
    {
        Some(rest) => rest,
        None => after,
    }
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// `select_to_end_of_line` → `selectToEndOfLine`.
fn camel_case(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewriter() -> DocRewriter {
        DocRewriter {
            types: ["ToolOutcome", "PathStyle"].map(str::to_owned).into(),
            keys: ["startText", "isDirty"].map(str::to_owned).into(),
        }
    }

    #[test]
    fn links_become_code_or_link_tags() {
        let r = rewriter();
        assert_eq!(
            r.rewrite("report a [`ToolOutcome`] for"),
            "report a {@link ToolOutcome} for"
        );
        assert_eq!(
            r.rewrite("the state's [`super::PathStyle`]."),
            "the state's {@link PathStyle}."
        );
        assert_eq!(
            r.rewrite("see [`super::normalize_path`])"),
            "see `normalize_path`)"
        );
        assert_eq!(
            r.rewrite("with [`Engine::handle_sent`](crate::Engine::handle_sent). Then"),
            "with `Engine.handleSent`. Then"
        );
        assert_eq!(
            r.rewrite("as [`Finished::CloseTimeout`](super::Finished::CloseTimeout)"),
            "as `Finished::CloseTimeout`"
        );
    }

    #[test]
    fn rust_names_become_json_names() {
        let r = rewriter();
        assert_eq!(r.rewrite("left out when `None`"), "left out when `null`");
        assert_eq!(r.rewrite("after `start_text`."), "after `startText`.");
        assert_eq!(
            r.rewrite("`close_tab` and `at_mentioned`"),
            "`close_tab` and `at_mentioned`"
        );
        assert_eq!(
            r.rewrite("`Engine::new` and `a` `b"),
            "`Engine::new` and `a` `b"
        );
    }
}
