//! Reading a form: one JSON value ([`Val`]) at a path, its members when it is an object
//! ([`Obj`]), and the scalar rules the serde forms have (integers whole and in range, `null`
//! an absent option, strings decoded). Every refusal is a [`FormError`] naming the argument
//! and the field path.

use std::borrow::Cow;
use std::fmt;

use super::FormError;
use crate::json::{self, Reader};

/// The deepest nesting serde_json reads (its recursion limit: the 128th open bracket is
/// refused), so a form nests no deeper either way.
pub(super) const MAX_DEPTH: usize = 127;

/// Characters of a refused value quoted in an error message; a longer value is cut there.
const SHOWN_CHARS: usize = 48;

/// Where a value sits in the argument: the argument itself, a member of an object or an
/// element of an array. Linked through the stack of the readers, so no path is built until an
/// error names it.
#[derive(Clone, Copy)]
pub enum Path<'a> {
    /// The argument (`config`, `event`, …).
    Root(&'static str),
    /// Member `name` of the object at the parent path.
    Field(&'a Path<'a>, &'a str),
    /// Element `index` of the array at the parent path.
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    /// How many arrays and objects hold the value at this path.
    fn depth(&self) -> usize {
        match self {
            Path::Root(_) => 0,
            Path::Field(parent, _) | Path::Index(parent, _) => 1 + parent.depth(),
        }
    }

    /// The argument's name.
    fn argument(&self) -> &'static str {
        match self {
            Path::Root(name) => name,
            Path::Field(parent, _) | Path::Index(parent, _) => parent.argument(),
        }
    }
}

impl fmt::Display for Path<'_> {
    /// The path inside the argument: `ws.maxMessageBytes`, `diagnostics[0].range`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root(_) => Ok(()),
            Path::Field(Path::Root(_), name) => f.write_str(name),
            Path::Field(parent, name) => write!(f, "{parent}.{name}"),
            Path::Index(parent, index) => write!(f, "{parent}[{index}]"),
        }
    }
}

/// One JSON value of the argument (its raw text, already checked by the scanner) and where
/// it is.
#[derive(Clone, Copy)]
pub struct Val<'a> {
    raw: &'a str,
    path: Path<'a>,
}

/// How a value of type `T` is read. A plain function, not a closure type: each reader below
/// is compiled once per `T`, not once per call site (the wasm module's size).
pub(super) type ReadFn<T> = fn(Val<'_>) -> Result<T, FormError>;

/// The argument `text` as a value at `root`, once the whole text is checked as serde_json
/// checks it: one JSON value (RFC 8259). With `tagged`, it nests no deeper than
/// [`MAX_DEPTH`] anywhere (serde reads a tagged form into a buffer of values first, which
/// counts every level); otherwise only the values read count ([`Val::nests_at_most`]), as
/// serde_json skips an unknown field without counting.
pub(super) fn root<'a>(text: &'a str, root: &Path<'a>, tagged: bool) -> Result<Val<'a>, FormError> {
    let mut reader = Reader::new(text);
    let start = reader.value().ok().filter(|_| reader.at_end());
    let Some(start) = start.and_then(|start| text.get(start..reader.at())) else {
        return Err(FormError(format!("{} is not JSON", root.argument())));
    };
    let value = Val {
        raw: start,
        path: *root,
    };
    if tagged {
        value.nests_at_most(MAX_DEPTH)?;
    }
    Ok(value)
}

/// Refuses a text where any string, member names included, escapes half of a UTF-16
/// surrogate pair: serde reads a tagged form into a buffer of decoded strings first, so one
/// such string anywhere refuses it. `text` was checked by [`root`].
pub(super) fn every_string_decodes(text: &str, root: &Path<'_>) -> Result<(), FormError> {
    let bytes = text.as_bytes();
    let unit = |at: usize| {
        let digits = bytes.get(at..at + 4)?;
        let digits = std::str::from_utf8(digits).ok()?;
        u32::from_str_radix(digits, 16).ok()
    };
    let mut at = 0;
    while let Some(found) = bytes.get(at..).and_then(|rest| memchr::memchr(b'\\', rest)) {
        let escape = at + found;
        at = escape + 2;
        if bytes.get(escape + 1) != Some(&b'u') {
            continue;
        }
        at = escape + 6;
        let lone = match unit(escape + 2) {
            Some(0xD800..=0xDBFF) => {
                at = escape + 12;
                bytes.get(escape + 6..escape + 8) != Some(b"\\u")
                    || !matches!(unit(escape + 8), Some(0xDC00..=0xDFFF))
            }
            Some(0xDC00..=0xDFFF) => true,
            _ => false,
        };
        if lone {
            return Err(FormError(format!(
                "{}: a string escapes a lone UTF-16 surrogate",
                root.argument()
            )));
        }
    }
    Ok(())
}

impl<'a> Val<'a> {
    /// The raw JSON text.
    pub(super) fn raw(&self) -> &'a str {
        self.raw
    }

    /// Refuses the value when it nests deeper than `levels` below its place in the argument.
    pub(super) fn nests_at_most(&self, levels: usize) -> Result<(), FormError> {
        let mut reader = Reader::trusted(self.raw);
        let _ = reader.value();
        if self.path.depth() + reader.deepest() > levels {
            return Err(self.error(format_args!("nests deeper than {levels} levels")));
        }
        Ok(())
    }

    /// Whether the value is `null`.
    pub(super) fn is_null(&self) -> bool {
        self.raw == "null"
    }

    /// The error "`path` must be `expected`, got `raw`".
    #[inline(never)]
    pub(super) fn mistyped(&self, expected: &str) -> FormError {
        let mut shown: String = self.raw.chars().take(SHOWN_CHARS).collect();
        if shown.len() < self.raw.len() {
            shown.push('…');
        }
        let argument = self.path.argument();
        FormError(match self.path {
            Path::Root(_) => format!("{argument} must be {expected}, got {shown}"),
            path => format!("{argument}: {path} must be {expected}, got {shown}"),
        })
    }

    /// An error about this value: "`argument`: `what`".
    pub(super) fn error(&self, what: fmt::Arguments<'_>) -> FormError {
        FormError(format!("{}: {what}", self.path.argument()))
    }

    /// The value as an object.
    #[inline(never)]
    pub(super) fn object(&self) -> Result<Obj<'a>, FormError> {
        if !self.raw.starts_with('{') {
            return Err(self.mistyped("a plain object"));
        }
        let mut members = Vec::new();
        for member in json::members(self.raw) {
            let name = member.name.text().map_err(|_| self.lone_surrogate())?;
            members.push((name, member.value));
        }
        Ok(Obj { members, at: *self })
    }

    /// The raw elements of the value as an array.
    fn elements(&self) -> Result<json::Elements<'a>, FormError> {
        if !self.raw.starts_with('[') {
            return Err(self.mistyped("an array"));
        }
        Ok(json::elements(self.raw))
    }

    /// The elements of the value as an array, each read by `read` at its index.
    pub(super) fn list<T>(&self, read: ReadFn<T>) -> Result<Vec<T>, FormError> {
        let mut items = Vec::new();
        self.each(&mut |item| {
            items.push(read(item)?);
            Ok(())
        })?;
        Ok(items)
    }

    /// Calls `f` with each element of the value as an array: the one loop of every
    /// [`Val::list`], whatever its element type.
    fn each(&self, f: &mut dyn FnMut(Val<'_>) -> Result<(), FormError>) -> Result<(), FormError> {
        for (index, raw) in self.elements()?.enumerate() {
            f(Val {
                raw,
                path: Path::Index(&self.path, index),
            })?;
        }
        Ok(())
    }

    /// The value as a string (decoded).
    #[inline(never)]
    pub(super) fn string(&self) -> Result<String, FormError> {
        if !self.raw.starts_with('"') {
            return Err(self.mistyped("a string"));
        }
        json::decode(self.raw)
            .map(Cow::into_owned)
            .map_err(|_| self.lone_surrogate())
    }

    /// The value as `true` or `false`.
    pub(super) fn boolean(&self) -> Result<bool, FormError> {
        match self.raw {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(self.mistyped("true or false")),
        }
    }

    /// The value as an integer from 0 to `max`: digits only, as serde reads an unsigned
    /// integer (a fraction, an exponent or a sign is a float or a negative number to it, and
    /// refused, `1.0` and `-0` too).
    #[inline(never)]
    pub(super) fn integer(&self, max: u64) -> Result<u64, FormError> {
        let bytes = self.raw.as_bytes();
        let digits = !bytes.is_empty() && bytes.iter().all(u8::is_ascii_digit);
        let value = bytes.iter().try_fold(0u64, |n, &digit| {
            n.checked_mul(10)?
                .checked_add(u64::from(digit.wrapping_sub(b'0')))
        });
        match value {
            Some(n) if digits && n <= max => Ok(n),
            _ => Err(self.mistyped(&format!("an integer from 0 to {max}"))),
        }
    }

    /// The value as a `u32`.
    pub(super) fn u32(&self) -> Result<u32, FormError> {
        self.integer(u32::MAX.into()).map(|n| n as u32)
    }

    /// The value as a `u64`.
    pub(super) fn u64(&self) -> Result<u64, FormError> {
        self.integer(u64::MAX)
    }

    /// The value as a `usize`.
    pub(super) fn usize(&self) -> Result<usize, FormError> {
        self.integer(usize::MAX as u64).map(|n| n as usize)
    }

    /// `None` for `null`, else the value read by `read` (serde's `Option`).
    pub(super) fn nullable<T>(self, read: ReadFn<T>) -> Result<Option<T>, FormError> {
        if self.is_null() {
            Ok(None)
        } else {
            read(self).map(Some)
        }
    }

    /// The value as one of `names` (a unit enum's variants), by index.
    pub(super) fn one_of(&self, names: &[&str]) -> Result<usize, FormError> {
        let name = self.string()?;
        names
            .iter()
            .position(|known| *known == name)
            .ok_or_else(|| unknown_variant(self, &name, names))
    }

    fn lone_surrogate(&self) -> FormError {
        self.mistyped("free of lone UTF-16 surrogate escapes")
    }
}

/// A string (decoded): [`Val::string`] as a [`ReadFn`]. The readers passed to [`Obj::req`]
/// and the others are these plain functions, not closures: a closure is one more function
/// per call site in the wasm module.
pub(super) fn string(v: Val<'_>) -> Result<String, FormError> {
    v.string()
}

/// `true` or `false`.
pub(super) fn boolean(v: Val<'_>) -> Result<bool, FormError> {
    v.boolean()
}

/// A `u32`.
pub(super) fn u32(v: Val<'_>) -> Result<u32, FormError> {
    v.u32()
}

/// A `u64`.
pub(super) fn u64(v: Val<'_>) -> Result<u64, FormError> {
    v.u64()
}

/// A `usize`.
pub(super) fn usize(v: Val<'_>) -> Result<usize, FormError> {
    v.usize()
}

/// An array of strings.
pub(super) fn strings(v: Val<'_>) -> Result<Vec<String>, FormError> {
    v.list(string)
}

/// "unknown variant `name`, expected one of …", at `at`.
pub(super) fn unknown_variant(at: &Val<'_>, name: &str, names: &[&str]) -> FormError {
    let place = match at.path {
        Path::Root(_) => String::new(),
        path => format!(" for {path}"),
    };
    at.error(format_args!(
        "unknown variant `{name}`{place}, expected one of {}",
        OneOf(names)
    ))
}

/// Names listed in a message, `a, b, c` (written as formatted, not joined into a string
/// first: the join's code is bigger than this in the wasm module).
struct OneOf<'a>(&'a [&'a str]);

impl fmt::Display for OneOf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (at, name) in self.0.iter().enumerate() {
            if at > 0 {
                f.write_str(", ")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

/// An object's members (names decoded), and where it is.
pub struct Obj<'a> {
    members: Vec<(Cow<'a, str>, &'a str)>,
    at: Val<'a>,
}

/// One variant of a tagged form: its tag and how it is read from the object.
pub(super) type Variant<T> = (&'static str, fn(&Obj<'_>) -> Result<T, FormError>);

/// `*slot = value`, for a [`Field`]'s setter.
pub(super) fn set<T>(slot: &mut T, value: Result<T, FormError>) -> Result<(), FormError> {
    *slot = value?;
    Ok(())
}

impl Obj<'_> {
    /// Member `name`, or None when it is absent. Given twice it is refused, as serde refuses
    /// a known field given twice.
    #[inline(never)]
    fn member<'s>(&'s self, name: &'s str) -> Result<Option<Val<'s>>, FormError> {
        let mut found = self.members.iter().filter(|(known, _)| known == name);
        let Some((_, raw)) = found.next() else {
            return Ok(None);
        };
        let path = Path::Field(&self.at.path, name);
        if found.next().is_some() {
            return Err(self.at.error(format_args!("duplicate field `{path}`")));
        }
        Ok(Some(Val { raw, path }))
    }

    /// The error for a required member that is absent.
    #[inline(never)]
    fn missing(&self, name: &str) -> FormError {
        let path = Path::Field(&self.at.path, name);
        self.at.error(format_args!("missing field `{path}`"))
    }

    /// A required member.
    fn field<'s>(&'s self, name: &'s str) -> Result<Val<'s>, FormError> {
        self.member(name)?.ok_or_else(|| self.missing(name))
    }

    /// A required string member. This and the readers below are plain methods, not
    /// [`Obj::req`] with a reader: the fields of the forms are mostly these, and each generic
    /// copy would cost the wasm module its own code.
    pub(super) fn string(&self, name: &str) -> Result<String, FormError> {
        self.field(name)?.string()
    }

    /// A string member that is an option: absent or `null` is None.
    pub(super) fn opt_string(&self, name: &str) -> Result<Option<String>, FormError> {
        match self.member(name)? {
            Some(value) if !value.is_null() => value.string().map(Some),
            _ => Ok(None),
        }
    }

    /// A required boolean member.
    pub(super) fn bool(&self, name: &str) -> Result<bool, FormError> {
        self.field(name)?.boolean()
    }

    /// A boolean member that defaults to false.
    pub(super) fn flag(&self, name: &str) -> Result<bool, FormError> {
        match self.member(name)? {
            Some(value) => value.boolean(),
            None => Ok(false),
        }
    }

    /// A `u32` member that is an option: absent or `null` is None.
    pub(super) fn opt_u32(&self, name: &str) -> Result<Option<u32>, FormError> {
        match self.member(name)? {
            Some(value) if !value.is_null() => value.u32().map(Some),
            _ => Ok(None),
        }
    }

    /// A required member that is an array of strings.
    pub(super) fn strings(&self, name: &str) -> Result<Vec<String>, FormError> {
        strings(self.field(name)?)
    }

    /// A required member read by `read`.
    pub(super) fn req<T>(&self, name: &str, read: ReadFn<T>) -> Result<T, FormError> {
        read(self.field(name)?)
    }

    /// A member that is an option (`Option<T>` with `#[serde(default)]`): absent or `null`
    /// is None.
    pub(super) fn opt<T>(&self, name: &str, read: ReadFn<T>) -> Result<Option<T>, FormError> {
        match self.member(name)? {
            Some(value) => value.nullable(read),
            None => Ok(None),
        }
    }

    /// A member with a default (`#[serde(default)]`): `default` when absent.
    pub(super) fn or<T>(&self, name: &str, default: T, read: ReadFn<T>) -> Result<T, FormError> {
        match self.member(name)? {
            Some(value) => read(value),
            None => Ok(default),
        }
    }

    /// The members in text order, for a form that refuses unknown fields and sets each
    /// field it knows: `set` answers whether it knew the name. A field given twice is
    /// refused, an unknown one named with the list `known`.
    pub(super) fn each_known(
        &self,
        known: &[&str],
        set: &mut dyn FnMut(&str, Val<'_>) -> Result<bool, FormError>,
    ) -> Result<(), FormError> {
        for (at, (name, raw)) in self.members.iter().enumerate() {
            let path = Path::Field(&self.at.path, name);
            if self.members[..at].iter().any(|(seen, _)| seen == name) {
                return Err(self.at.error(format_args!("duplicate field `{path}`")));
            }
            if !set(name, Val { raw, path })? {
                return Err(self.at.error(format_args!(
                    "unknown field `{path}`, expected one of {}",
                    OneOf(known)
                )));
            }
        }
        Ok(())
    }

    /// The variant of a tagged form (`type`, `outcome`) named by member `tag`, read by its
    /// entry in `variants`.
    pub(super) fn variant<T>(&self, tag: &str, variants: &[Variant<T>]) -> Result<T, FormError> {
        let name = self.string(tag)?;
        match variants.iter().find(|(known, _)| *known == name) {
            Some((_, read)) => read(self),
            None => {
                let names: Vec<&str> = variants.iter().map(|(name, _)| *name).collect();
                Err(unknown_variant(&self.at, &name, &names))
            }
        }
    }
}
