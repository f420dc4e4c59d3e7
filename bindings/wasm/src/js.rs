//! Plain JS objects read field by field and built key by key, through the JS engine's own
//! `Reflect` and `Object`. The binding crosses every structured value this way instead of
//! through serde: serde's derived visitors for the JSON forms were most of the module's size,
//! and a field read here is one small call.
//!
//! The rules are those of the JSON forms (`protocol.d.ts`): an `undefined` field is absent,
//! `null` is an absent option, numbers that stand for integers must be whole and in range.
//! Every error names the argument and the field (`config: ws.maxMessageBytes must be ...`).

use crate::convert::{MAX_SAFE_INTEGER, host_error};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `Reflect.get`; throws only for a getter or proxy that throws.
    #[wasm_bindgen(js_namespace = Reflect, js_name = get, catch)]
    fn reflect_get(target: &JsValue, key: &str) -> Result<JsValue, JsValue>;

    /// `Reflect.set` on an object this binding made.
    #[wasm_bindgen(js_namespace = Reflect, js_name = set)]
    fn reflect_set(target: &JsValue, key: &str, value: &JsValue) -> bool;

    /// `Object.keys`: the own enumerable string keys.
    #[wasm_bindgen(js_namespace = Object, js_name = keys, catch)]
    fn object_keys(target: &JsValue) -> Result<Vec<String>, JsValue>;

    /// `Array.from` of an array.
    #[wasm_bindgen(js_namespace = Array, js_name = from, catch)]
    fn array_items(array: &JsValue) -> Result<Vec<JsValue>, JsValue>;

    /// `Object()`: a new empty plain object.
    #[wasm_bindgen(js_name = Object)]
    fn new_object() -> JsValue;

    /// `String(value)`: how an error message shows a value it refuses.
    #[wasm_bindgen(js_name = String)]
    pub(crate) fn describe(value: &JsValue) -> String;
}

/// A JS object being read: `root` names the argument, `path` the field it was reached by.
pub(crate) struct Obj {
    value: JsValue,
    root: &'static str,
    path: String,
}

impl Obj {
    /// The argument `root`, which must be a plain object (not null, not an array).
    pub(crate) fn root(root: &'static str, value: JsValue) -> Result<Obj, JsError> {
        if !value.is_object() || value.is_array() {
            return Err(host_error(format_args!(
                "{root} must be a plain object, got {}",
                describe(&value)
            )));
        }
        Ok(Obj {
            value,
            root,
            path: String::new(),
        })
    }

    /// An error about this object (`what` completes "config: ...").
    pub(crate) fn error(&self, what: impl std::fmt::Display) -> JsError {
        host_error(format_args!("{}: {what}", self.root))
    }

    /// The path of field `name` in error messages.
    fn field_path(&self, name: &str) -> String {
        if self.path.is_empty() {
            name.to_owned()
        } else {
            format!("{}.{name}", self.path)
        }
    }

    /// Field `name`, or None when it is undefined.
    pub(crate) fn get(&self, name: &str) -> Result<Option<JsValue>, JsError> {
        let value = reflect_get(&self.value, name)
            .map_err(|_| self.error(format_args!("reading {} threw", self.field_path(name))))?;
        Ok((!value.is_undefined()).then_some(value))
    }

    /// Refuses any own key outside `known` (the forms that deny unknown fields).
    pub(crate) fn deny_unknown(&self, known: &[&str]) -> Result<(), JsError> {
        let keys = object_keys(&self.value).map_err(|_| self.error("cannot list its keys"))?;
        match keys.iter().find(|key| !known.contains(&key.as_str())) {
            Some(key) => Err(self.error(format_args!(
                "unknown field `{}`, expected one of {}",
                self.field_path(key),
                OneOf(known)
            ))),
            None => Ok(()),
        }
    }

    /// Field `name` as a nested object, or None when undefined.
    pub(crate) fn object(&self, name: &str) -> Result<Option<Obj>, JsError> {
        let Some(value) = self.get(name)? else {
            return Ok(None);
        };
        let path = self.field_path(name);
        if !value.is_object() || value.is_array() {
            return Err(self.error(format_args!(
                "{path} must be a plain object, got {}",
                describe(&value)
            )));
        }
        Ok(Some(Obj {
            value,
            root: self.root,
            path,
        }))
    }

    /// A required nested object.
    pub(crate) fn required_object(&self, name: &str) -> Result<Obj, JsError> {
        self.object(name)?.ok_or_else(|| self.missing(name))
    }

    /// The elements of array field `name` read as objects, or None when undefined.
    pub(crate) fn objects(&self, name: &str) -> Result<Option<Vec<Obj>>, JsError> {
        let Some(items) = self.array(name)? else {
            return Ok(None);
        };
        let path = self.field_path(name);
        let mut objects = Vec::with_capacity(items.len());
        for (i, value) in items.into_iter().enumerate() {
            if !value.is_object() || value.is_array() {
                return Err(self.error(format_args!("{path}[{i}] must be a plain object")));
            }
            objects.push(Obj {
                value,
                root: self.root,
                path: format!("{path}[{i}]"),
            });
        }
        Ok(Some(objects))
    }

    /// Array field `name` of plain objects, each read by `read` (a plain loop: one small
    /// function per element type, where collecting an iterator of results made two big ones);
    /// None when undefined.
    pub(crate) fn list<T>(
        &self,
        name: &str,
        read: fn(&Obj) -> Result<T, JsError>,
    ) -> Result<Option<Vec<T>>, JsError> {
        let Some(objects) = self.objects(name)? else {
            return Ok(None);
        };
        let mut items = Vec::with_capacity(objects.len());
        for object in &objects {
            items.push(read(object)?);
        }
        Ok(Some(items))
    }

    /// A required [`Obj::list`]; its absence is named as `name` alone, wherever this object is.
    pub(crate) fn required_list<T>(
        &self,
        name: &str,
        read: fn(&Obj) -> Result<T, JsError>,
    ) -> Result<Vec<T>, JsError> {
        self.list(name, read)?
            .ok_or_else(|| self.error(format_args!("missing field `{name}`")))
    }

    fn array(&self, name: &str) -> Result<Option<Vec<JsValue>>, JsError> {
        let Some(value) = self.get(name)? else {
            return Ok(None);
        };
        if !value.is_array() {
            return Err(self.mistyped(name, "an array", &value));
        }
        array_items(&value)
            .map(Some)
            .map_err(|_| self.error(format_args!("reading {} threw", self.field_path(name))))
    }

    /// Array field `name` of strings, or None when undefined.
    pub(crate) fn strings(&self, name: &str) -> Result<Option<Vec<String>>, JsError> {
        let Some(items) = self.array(name)? else {
            return Ok(None);
        };
        let mut strings = Vec::with_capacity(items.len());
        for item in items {
            let text = item
                .as_string()
                .ok_or_else(|| self.mistyped(name, "an array of strings", &item))?;
            strings.push(text);
        }
        Ok(Some(strings))
    }

    /// String field `name`; None when undefined or null.
    pub(crate) fn opt_string(&self, name: &str) -> Result<Option<String>, JsError> {
        match self.get(name)? {
            None => Ok(None),
            Some(value) if value.is_null() => Ok(None),
            Some(value) => value
                .as_string()
                .map(Some)
                .ok_or_else(|| self.mistyped(name, "a string", &value)),
        }
    }

    /// A required string field.
    pub(crate) fn string(&self, name: &str) -> Result<String, JsError> {
        self.opt_string(name)?.ok_or_else(|| self.missing(name))
    }

    /// Boolean field `name`, or None when undefined.
    pub(crate) fn opt_bool(&self, name: &str) -> Result<Option<bool>, JsError> {
        match self.get(name)? {
            None => Ok(None),
            Some(value) => value
                .as_bool()
                .map(Some)
                .ok_or_else(|| self.mistyped(name, "true or false", &value)),
        }
    }

    /// Integer field `name` from 0 to `max`; None when undefined, or null if `nullable`.
    pub(crate) fn opt_integer(
        &self,
        name: &str,
        max: u64,
        nullable: bool,
    ) -> Result<Option<u64>, JsError> {
        let Some(value) = self.get(name)? else {
            return Ok(None);
        };
        if nullable && value.is_null() {
            return Ok(None);
        }
        match value.as_f64() {
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= (max as f64).min(MAX_SAFE_INTEGER) => {
                Ok(Some(n as u64))
            }
            _ => Err(self.error(format_args!(
                "{} must be an integer from 0 to {max}, got {}",
                self.field_path(name),
                describe(&value)
            ))),
        }
    }

    /// A required integer field from 0 to `max`.
    pub(crate) fn integer(&self, name: &str, max: u64) -> Result<u64, JsError> {
        self.opt_integer(name, max, false)?
            .ok_or_else(|| self.missing(name))
    }

    /// Field `name` as a whole JS number or a string: a diagnostic's `code`.
    pub(crate) fn opt_code(&self, name: &str) -> Result<Option<serde_json::Value>, JsError> {
        let Some(value) = self.get(name)? else {
            return Ok(None);
        };
        if value.is_null() {
            return Ok(None);
        }
        if let Some(text) = value.as_string() {
            return Ok(Some(serde_json::Value::String(text)));
        }
        match value.as_f64() {
            Some(n) if n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER => {
                Ok(Some(serde_json::Value::from(n as i64)))
            }
            _ => Err(self.mistyped(name, "a string or an integer", &value)),
        }
    }

    /// The variant name in tag field `tag`, for the enums tagged by a field.
    pub(crate) fn tag(&self, tag: &str) -> Result<String, JsError> {
        self.string(tag)
    }

    /// An unknown variant name in the tag.
    pub(crate) fn unknown_variant(&self, found: &str, expected: &[&str]) -> JsError {
        self.error(format_args!(
            "unknown variant `{found}`, expected one of {}",
            OneOf(expected)
        ))
    }

    fn missing(&self, name: &str) -> JsError {
        self.error(format_args!("missing field `{}`", self.field_path(name)))
    }

    fn mistyped(&self, name: &str, expected: &str, got: &JsValue) -> JsError {
        self.error(format_args!(
            "{} must be {expected}, got {}",
            self.field_path(name),
            describe(got)
        ))
    }
}

/// Names listed in an error message, `a, b, c` (written as they are formatted, not joined into
/// a string first).
struct OneOf<'a>(&'a [&'a str]);

impl std::fmt::Display for OneOf<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (at, name) in self.0.iter().enumerate() {
            if at > 0 {
                f.write_str(", ")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

/// A plain JS object being built, key by key in the order set.
pub(crate) struct Built(JsValue);

impl Built {
    /// An empty object.
    pub(crate) fn new() -> Built {
        Built(new_object())
    }

    /// Sets `key` to `value` (any JS value).
    pub(crate) fn value(self, key: &str, value: &JsValue) -> Built {
        reflect_set(&self.0, key, value);
        self
    }

    /// Sets `key` to a string.
    pub(crate) fn str(self, key: &str, value: &str) -> Built {
        self.value(key, &JsValue::from_str(value))
    }

    /// Sets `key` to a number (ids, counts and codes, all far below 2^53).
    pub(crate) fn num(self, key: &str, value: impl Into<f64>) -> Built {
        self.value(key, &JsValue::from_f64(value.into()))
    }

    /// Sets `key` to a boolean.
    pub(crate) fn bool(self, key: &str, value: bool) -> Built {
        self.value(key, &JsValue::from_bool(value))
    }

    /// Sets `key` to a string, or null for None.
    pub(crate) fn opt_str(self, key: &str, value: Option<&str>) -> Built {
        self.value(key, &value.map_or(JsValue::NULL, JsValue::from_str))
    }

    /// Sets `key` to a string when Some; leaves it out for None.
    pub(crate) fn some_str(self, key: &str, value: Option<&str>) -> Built {
        match value {
            Some(value) => self.str(key, value),
            None => self,
        }
    }

    /// The object.
    pub(crate) fn done(self) -> JsValue {
        self.0
    }
}
