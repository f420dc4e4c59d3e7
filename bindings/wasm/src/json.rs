//! Structured values cross as JSON text, read and written by core's codec
//! ([`idelink_core::forms`]): a JS object in is `JSON.stringify`'d and read by its form, a
//! value out is written by its form and `JSON.parse`'d, so the JS API takes and returns plain
//! objects. The binding has no JSON rule of its own: the messages are core's
//! (`config: ws.maxMessageBytes must be ...`), the same the Node binding throws.

use idelink_core::forms::{self, FormError, InputForm, OutputForm};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `JSON.stringify`: `undefined` for a value with no JSON form; throws on a BigInt or a
    /// cycle.
    #[wasm_bindgen(js_namespace = JSON, js_name = stringify, catch)]
    fn stringify(value: &JsValue) -> Result<JsValue, JsValue>;

    /// `JSON.parse` of text core wrote.
    #[wasm_bindgen(js_namespace = JSON, js_name = parse)]
    fn parse(text: &str) -> JsValue;

    /// `String(value)`: how an error message shows a number it refuses.
    #[wasm_bindgen(js_name = String)]
    pub(crate) fn describe(value: &JsValue) -> String;
}

/// `value` read as form `T` (never inlined: one copy per form, whatever calls it).
#[inline(never)]
pub(crate) fn read<T: InputForm>(value: &JsValue) -> Result<T, JsError> {
    let read = match json_text(value) {
        Some(text) => forms::read(&text),
        None => Err(FormError::no_json::<T>()),
    };
    read.map_err(form_error)
}

/// `value`'s JSON text, `None` where it has none (one copy for every form).
fn json_text(value: &JsValue) -> Option<String> {
    stringify(value).ok().and_then(|text| text.as_string())
}

/// A form's refusal as the JS `Error` thrown (one copy for every form).
fn form_error(error: FormError) -> JsError {
    JsError::new(&error.to_string())
}

/// `value` as the plain object of its form.
#[inline(never)]
pub(crate) fn write<T: OutputForm>(value: &T) -> JsValue {
    parse(&forms::write(value))
}
