//! Parses untrusted chart values (`values.yaml`, one document or a stream) as Helm reads them,
//! then coalesces and merges them as rendering does: nothing may panic or overflow the stack
//! (YAML nesting is bounded by the parser's budget), and every number comes out a float.
#![no_main]

use libfuzzer_sys::fuzz_target;
use operator_rs::render::values::{
    Values, Warnings, coalesce_tables_into, from_yaml, from_yaml_stream, merge_tables_into,
};
use serde_json::Value;

fn all_floats(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_f64(),
        Value::Array(items) => items.iter().all(all_floats),
        Value::Object(map) => map.values().all(all_floats),
        _ => true,
    }
}

fuzz_target!(|text: &str| {
    let one = from_yaml(text);
    let stream = from_yaml_stream(text);
    for values in [&one, &stream].into_iter().flatten() {
        assert!(values.values().all(all_floats), "a number is not a float64");
    }
    if let (Ok(one), Ok(stream)) = (one, stream) {
        let mut warnings = Warnings::default();
        let mut coalesced: Values = stream.clone();
        coalesce_tables_into(&mut coalesced, one.clone(), &mut warnings);
        let mut merged: Values = one;
        merge_tables_into(&mut merged, stream, &mut warnings);
    }
});
