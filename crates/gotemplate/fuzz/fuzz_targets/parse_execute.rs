//! Parses and executes arbitrary text with every Sprig function: nothing may panic, and the
//! limits keep every run bounded. `cargo fuzz run parse_execute` (nightly).
#![no_main]

use gotemplate::{Function, Functions, Limits, MissingKey, Templates, Type, Value};
use libfuzzer_sys::fuzz_target;

fn data() -> Value {
    let json = serde_json::json!({
        "Values": {"name": "x", "n": 3, "f": 1.5, "l": [1, "a", null, {"k": "v"}], "m": {"a": {"b": 1}}, "nil": null},
        "Release": {"Name": "r", "Namespace": "ns"}
    });
    Value::from_json(&json)
}

fuzz_target!(|text: &str| {
    let mut funcs = Functions::sprig();
    funcs.insert(
        "include",
        Function::new(&[Type::String, Type::Any], |cx, a| {
            let name = a[0].as_str().unwrap_or_default().to_string();
            cx.execute_template(&name, &a[1]).map(Value::from)
        }),
    );
    funcs.insert(
        "tpl",
        Function::new(&[Type::String, Type::Any], |cx, a| {
            let name = cx.template_name().to_string();
            cx.execute_text(&name, a[0].as_str().unwrap_or_default(), &a[1])
                .map(Value::from)
        }),
    );
    // Random helpers would make runs irreproducible; network lookups would be slow.
    funcs.remove("getHostByName");
    // Key generation and password hashing cost up to seconds a call (RSA 4096, DSA parameters,
    // scrypt, bcrypt): they would stall the fuzzer. Their parsers (the `WithKey` forms,
    // `buildCustomCert`, `decryptAES`) stay, as they read untrusted text.
    for slow in [
        "genPrivateKey",
        "genCA",
        "genSelfSignedCert",
        "genSignedCert",
        "derivePassword",
        "bcrypt",
        "htpasswd",
    ] {
        funcs.remove(slow);
    }
    let mut set = Templates::new(funcs);
    set.set_missing_key(MissingKey::Zero).set_limits(Limits {
        max_depth: 200,
        max_output: 1 << 20,
        max_input: 1 << 16,
    });
    if set.parse("fuzz", text).is_ok() {
        let _ = set.execute("fuzz", &data());
    }
});
