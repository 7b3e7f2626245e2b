//! Every shared chart rendered by real Helm (the oracle) and by operator-rs, case by case:
//! default values, each `ci/*.yaml` of the chart, and values files of ours that switch optional
//! features on (`tests/conformance_values/<chart>--<feature>.yaml`). For each case the test
//! compares the parsed objects and the text of every template, the hooks, the NOTES and, when
//! rendering fails, Helm's error message. It prints a report and fails on any difference that
//! is not in [`KNOWN_DIFFERENCES`].

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use operator_rs::render::capabilities::Capabilities;
use operator_rs::render::manifests::{self, split_documents};
use operator_rs::render::release::{self, Options};
use operator_rs::render::tree::ChartNode;
use operator_rs::render::values;
use support::helm_oracle::{HelmOracle, RenderRequest};
use support::project::copy_dir;

const RELEASE: &str = "conformance";
const NAMESPACE: &str = "conformance-ns";

/// Differences that are understood and accepted: (chart, case, template, why). A case or
/// template of "*" matches any. Keep this list short and every entry explained.
const KNOWN_DIFFERENCES: &[(&str, &str, &str, &str)] = &[
    // redis's default password is `randAlphaNum 10`, drawn anew by each engine.
    (
        "redis",
        "*",
        "redis/templates/secret.yaml",
        "random password (randAlphaNum) on both sides",
    ),
    // ...and the master and replica pods carry `checksum/secret`, the hash of that Secret.
    // Only the default case: with sentinel values (a password given) they are identical.
    (
        "redis",
        "default",
        "/application.yaml",
        "checksum/secret hashes the random password",
    ),
];

/// A template's text with each certificate or key replaced by the types of its PEM blocks.
///
/// Sprig's `genCA`/`genSignedCert`/`genPrivateKey` make new keys and serials on every render,
/// on Helm's side as on ours, so their output can never be byte-identical (redis's TLS secret
/// is made this way). Only what is PEM is replaced: a base64 token that decodes to PEM text
/// (a Secret's `data`) or PEM text itself, and only when every block in it is well-formed
/// DER; everything around it must still be identical. The certificates' contents are checked
/// against openssl in the engine's own tests.
fn without_pem(text: &str) -> String {
    use base64::Engine as _;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(start) = rest.find("-----BEGIN ") {
            // PEM text as it is.
            if let Some((types, len)) = pem_blocks(&rest[start..]) {
                out.push_str(&rest[..start]);
                out.push_str(&format!("<pem {types}>"));
                rest = &rest[start + len..];
                continue;
            }
            out.push_str(&rest[..start + 1]);
            rest = &rest[start + 1..];
            continue;
        }
        break;
    }
    out.push_str(rest);
    // Base64 of PEM text: one token of base64 characters.
    let mut result = String::with_capacity(out.len());
    let mut token = String::new();
    let flush = |token: &mut String, result: &mut String| {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(token.as_bytes())
            .ok()
            .and_then(|b| String::from_utf8(b).ok());
        match decoded.as_deref().and_then(pem_blocks) {
            Some((types, len)) if len == decoded.as_deref().map_or(0, str::len) => {
                result.push_str(&format!("<base64 pem {types}>"))
            }
            _ => result.push_str(token),
        }
        token.clear();
    };
    for c in out.chars() {
        if c.is_ascii_alphanumeric() || c == '+' || c == '/' || c == '=' {
            token.push(c);
        } else {
            flush(&mut token, &mut result);
            result.push(c);
        }
    }
    flush(&mut token, &mut result);
    result
}

/// The types of the consecutive PEM blocks at the start of `text` (newlines between them
/// included) and the length they take, when each holds one well-formed DER SEQUENCE.
fn pem_blocks(text: &str) -> Option<(String, usize)> {
    use base64::Engine as _;
    let mut types = Vec::new();
    let mut at = 0;
    while let Some(block) = text[at..].strip_prefix("-----BEGIN ") {
        let kind = &block[..block.find("-----")?];
        let end = format!("-----END {kind}-----");
        let body_end = block.find(&end)?;
        let body: String = block[kind.len() + 5..body_end]
            .chars()
            .filter(|c| !c.is_ascii_whitespace())
            .collect();
        let der = base64::engine::general_purpose::STANDARD
            .decode(body.as_bytes())
            .ok()?;
        if !is_one_der_sequence(&der) {
            return None;
        }
        types.push(kind.to_string());
        at += "-----BEGIN ".len() + body_end + end.len();
        at += text[at..].len() - text[at..].trim_start_matches('\n').len();
    }
    (!types.is_empty()).then(|| (types.join(","), at))
}

/// Whether `der` is exactly one SEQUENCE whose length covers the rest.
fn is_one_der_sequence(der: &[u8]) -> bool {
    let [0x30, first, rest @ ..] = der else {
        return false;
    };
    let (len, content) = if *first < 0x80 {
        (*first as usize, rest)
    } else {
        let n = (*first & 0x7f) as usize;
        if n == 0 || n > 4 || rest.len() < n {
            return false;
        }
        let len = rest[..n].iter().fold(0usize, |l, b| (l << 8) | *b as usize);
        (len, &rest[n..])
    };
    len == content.len()
}

struct Case {
    chart: String,
    name: String,
    dir: PathBuf,
    values_yaml: Option<String>,
}

fn shared_charts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/charts")
}

/// A copy of a chart in `into`, with rancher's unreleased `%VERSION%` stamped as `new
/// --set-chart-version` would.
fn prepared_chart(name: &str, into: &Path) -> PathBuf {
    let source = shared_charts().join(name);
    let dest = into.join(name);
    copy_dir(&source, &dest);
    if name == "rancher" {
        let chart_yaml = dest.join("Chart.yaml");
        let text = std::fs::read_to_string(&chart_yaml).unwrap();
        let text: String = text
            .lines()
            .map(|l| {
                if l.starts_with("version:") {
                    "version: 2.13.0".to_string()
                } else if l.starts_with("appVersion:") {
                    "appVersion: 2.13.0".to_string()
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        std::fs::write(&chart_yaml, text + "\n").unwrap();
    }
    dest
}

fn cases(work: &Path) -> Vec<Case> {
    let mut names: Vec<String> = std::fs::read_dir(shared_charts())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("Chart.yaml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let ours = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance_values");
    let mut cases = Vec::new();
    for chart in names {
        let dir = prepared_chart(&chart, work);
        cases.push(Case {
            chart: chart.clone(),
            name: "default".into(),
            dir: dir.clone(),
            values_yaml: None,
        });
        let mut files: Vec<(String, PathBuf)> = Vec::new();
        if let Ok(ci) = std::fs::read_dir(dir.join("ci")) {
            for e in ci.filter_map(|e| e.ok()) {
                files.push((format!("ci/{}", e.file_name().to_string_lossy()), e.path()));
            }
        }
        for e in std::fs::read_dir(&ours).unwrap().filter_map(|e| e.ok()) {
            let file = e.file_name().to_string_lossy().into_owned();
            if let Some(feature) = file.strip_prefix(&format!("{chart}--")) {
                files.push((format!("ours/{feature}"), e.path()));
            }
        }
        files.sort();
        for (name, path) in files {
            cases.push(Case {
                chart: chart.clone(),
                name,
                dir: dir.clone(),
                values_yaml: Some(std::fs::read_to_string(path).unwrap()),
            });
        }
    }
    cases
}

fn known(chart: &str, case: &str, template: &str) -> Option<&'static str> {
    KNOWN_DIFFERENCES
        .iter()
        .find(|(c, k, t, _)| {
            *c == chart && (*k == "*" || *k == case) && (*t == "*" || template.ends_with(t))
        })
        .map(|(_, _, _, why)| *why)
}

/// The YAML documents of a template's output, parsed (unparsable text kept as text).
fn objects(text: &str) -> Vec<serde_json::Value> {
    split_documents(text)
        .into_iter()
        .map(|doc| {
            operator_rs::yaml::from_str::<serde_json::Value>(&doc)
                .unwrap_or(serde_json::Value::String(doc))
        })
        .filter(|v| !v.is_null())
        .collect()
}

fn hooks(rendered: &BTreeMap<String, String>) -> Vec<String> {
    let without_notes: BTreeMap<String, String> = rendered
        .iter()
        .filter(|(k, _)| !k.ends_with("NOTES.txt"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    match manifests::sort(&without_notes) {
        Ok(sorted) => sorted
            .hooks
            .iter()
            .map(|h| {
                format!(
                    "{} {}/{} {:?} weight {} delete {:?}",
                    h.template, h.kind, h.name, h.events, h.weight, h.delete_policies
                )
            })
            .collect(),
        Err(e) => vec![format!("manifests do not parse: {e}")],
    }
}

/// Our render of a case: every template's output, or the error message.
fn ours(case: &Case) -> Result<BTreeMap<String, String>, String> {
    let chart = operator_rs::chart::load_local(&case.dir).map_err(|e| e.to_string())?;
    let node = ChartNode::load(&chart, true).map_err(|e| e.to_string())?;
    let user = match &case.values_yaml {
        Some(text) => values::from_yaml_stream(text)?,
        None => values::Values::new(),
    };
    let options = Options::new(RELEASE, NAMESPACE, Capabilities::new(None, &[]));
    release::render(&node, &user, &options)
        .map(|r| r.templates)
        .map_err(|e| e.to_string())
}

/// The differences of one case, each as "template: what".
fn compare(
    helm: &Result<BTreeMap<String, String>, String>,
    ours: &Result<BTreeMap<String, String>, String>,
) -> Vec<(String, String)> {
    let mut diffs = Vec::new();
    match (helm, ours) {
        (Err(h), Err(o)) => {
            if !h.contains(o.as_str()) {
                diffs.push((
                    "(error)".into(),
                    format!("Helm fails with {h:?}, operator-rs with {o:?}"),
                ));
            }
        }
        (Err(h), Ok(_)) => diffs.push((
            "(error)".into(),
            format!("Helm fails with {h:?}, operator-rs renders"),
        )),
        (Ok(_), Err(o)) => diffs.push((
            "(error)".into(),
            format!("operator-rs fails with {o:?}, Helm renders"),
        )),
        (Ok(h), Ok(o)) => {
            let names: std::collections::BTreeSet<&String> = h.keys().chain(o.keys()).collect();
            for name in names {
                match (h.get(name), o.get(name)) {
                    (Some(a), Some(b)) if a == b => {}
                    (Some(a), Some(b)) if without_pem(a) == without_pem(b) => {}
                    (Some(a), Some(b)) => {
                        let what = if objects(a) == objects(b) {
                            "same objects, different text"
                        } else {
                            "different objects"
                        };
                        diffs.push((name.clone(), format!("{what}:\n{}", first_difference(a, b))));
                    }
                    (Some(_), None) => diffs.push((name.clone(), "only Helm renders it".into())),
                    (None, Some(_)) => {
                        diffs.push((name.clone(), "only operator-rs renders it".into()))
                    }
                    (None, None) => {}
                }
            }
            let (hh, oh) = (hooks(h), hooks(o));
            if hh != oh {
                diffs.push(("(hooks)".into(), format!("Helm {hh:?}\noperator-rs {oh:?}")));
            }
        }
    }
    diffs
}

fn first_difference(a: &str, b: &str) -> String {
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("    line {}:\n    helm: {x:?}\n    ours: {y:?}", i + 1);
        }
    }
    format!(
        "    helm has {} lines, ours {}",
        a.lines().count(),
        b.lines().count()
    )
}

#[test]
fn pem_is_compared_by_block_types_only() {
    let cert = |byte: u8| {
        use base64::Engine as _;
        let body = base64::engine::general_purpose::STANDARD.encode([0x30, 2, 1, byte]);
        format!("-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----\n")
    };
    let b64 = |text: &str| {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(text)
    };
    let (a, b) = (cert(1), cert(2));
    assert_eq!(
        without_pem(&format!("tls.crt: {}\n", b64(&a))),
        without_pem(&format!("tls.crt: {}\n", b64(&b)))
    );
    assert_eq!(
        without_pem(&format!("k: |\n{a}")),
        without_pem(&format!("k: |\n{b}"))
    );
    // Not PEM, or not DER inside: compared as text.
    assert_ne!(without_pem("a: YWJj\n"), without_pem("a: YWJk\n"));
    let broken = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    assert_eq!(without_pem(broken), broken);
    assert_ne!(without_pem(&a), without_pem(&format!("{a}{b}")));
}

#[test]
fn every_shared_chart_renders_as_helm_renders_it() {
    let Some(mut helm) = HelmOracle::start() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let cases = cases(work.path());
    let requests: Vec<RenderRequest> = cases
        .iter()
        .map(|c| {
            let r = RenderRequest::new(&c.dir).release(RELEASE, NAMESPACE);
            match &c.values_yaml {
                Some(v) => r.values_yaml(v.clone()),
                None => r,
            }
        })
        .collect();
    let answers = helm.render_all(&requests);
    let mut report = String::new();
    let mut unexplained = 0;
    let mut identical = 0;
    for (case, helm) in cases.iter().zip(&answers) {
        let ours = ours(case);
        let diffs = compare(helm, &ours);
        if diffs.is_empty() {
            identical += 1;
            report.push_str(&format!("{}/{}: identical\n", case.chart, case.name));
            continue;
        }
        report.push_str(&format!(
            "{}/{}: {} difference(s)\n",
            case.chart,
            case.name,
            diffs.len()
        ));
        for (template, what) in diffs {
            match known(&case.chart, &case.name, &template) {
                Some(why) => report.push_str(&format!("  {template}: known ({why})\n")),
                None => {
                    unexplained += 1;
                    report.push_str(&format!("  {template}: {what}\n"));
                }
            }
        }
    }
    println!(
        "{report}\n{identical} of {} cases identical; {unexplained} unexplained difference(s)",
        cases.len()
    );
    assert_eq!(
        unexplained, 0,
        "operator-rs renders differently from Helm:\n{report}"
    );
}

/// `--set` expressions, parsed by Helm's strvals (through the oracle's library) and by ours.
#[test]
fn set_values_parse_as_helm_parses_them() {
    let venv = std::env::var_os("OPERATOR_RS_TEST_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv"));
    let python = venv.join("bin/python");
    if HelmOracle::start().is_none() {
        return;
    }
    let expressions = [
        "a=b",
        "a.b.c=d,e=f",
        "n=10,z=0,o=007,neg=-3,big=99999999999999999999,f=1.5",
        "t=true,T=TRUE,fa=False,nul=null,NuLL=NULL",
        "list[0]=a,list[2]=c",
        "list[0].name=x,list[0].value=y,list[1].name=z",
        "m[0][1]=x",
        "l={a,b,c}",
        "l={}",
        r"a\.b=c\,d",
        r"path=C:\\dir",
        "name=",
        "a=b,c",
        "a",
        "a.b=1,a.c=2,a.b=3",
        "ann.example\\.com/x=y",
        "list[0]=a,list[0]=b",
        "x[-1]=a",
        "x[z]=a",
        "a={b,c},d=e",
        "emoji=héllo wörld",
        "spaces=a b c",
        "eq=a=b",
    ];
    let script = "import json,sys\nimport helm_python as h\nout=[]\nfor e in json.load(sys.stdin):\n    try:\n        out.append({'ok': h.parse_set_string(e)})\n    except Exception as x:\n        out.append({'err': str(x)})\nprint(json.dumps(out))\n";
    let mut child = std::process::Command::new(python)
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&expressions).unwrap().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let answers: Vec<serde_json::Value> = serde_json::from_slice(&output.stdout).unwrap();
    let mut report = String::new();
    let mut different = 0;
    for (expression, helm) in expressions.iter().zip(answers) {
        let mut ours = values::Values::new();
        let ours = operator_rs::render::strvals::parse_into(expression, &mut ours)
            .map(|()| serde_json::Value::Object(ours));
        let same = match (&helm.get("ok"), &ours) {
            (Some(h), Ok(o)) => *h == o,
            (None, Err(_)) => true,
            _ => false,
        };
        if !same {
            different += 1;
        }
        report.push_str(&format!(
            "{expression:?}: {}\n  helm: {helm}\n  ours: {ours:?}\n",
            if same { "same" } else { "DIFFERENT" }
        ));
    }
    println!("{report}");
    assert_eq!(
        different, 0,
        "--set parses differently from Helm:\n{report}"
    );
}

/// Helm's own functions and objects on values no shared chart uses, each line of one template
/// compared with real Helm: TOML date-times (Go `time.Time`s in the TOML reader's zones),
/// Sprig's dates in zones of the system's zone database, and the Go types of Helm's objects
/// (`.Values` and the top-level data are `common.Values`, also in a subchart).
#[test]
fn times_zones_and_helm_object_types_render_as_helm_renders_them() {
    let Some(mut helm) = HelmOracle::start() else {
        panic!("real Helm (helm-python-sdk) is needed: run scripts/setup-test-tools.sh");
    };
    let dir = tempfile::tempdir().unwrap();
    let chart = dir.path().join("times");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: times\nversion: 1.0.0\n",
    )
    .unwrap();
    let lines = [
        r#"{{ $t := fromToml "a = 1979-05-27T07:32:00-07:00\nb = 1979-05-27T07:32:00\nc = 07:32:00.5\nd = 1979-05-27\ne = 1979-05-27T07:32:00Z\n" }}{{ $t.a }} | {{ $t.b }} | {{ $t.c }} | {{ $t.d }} | {{ $t.e }} | {{ typeOf $t.a }} | {{ $t.a.Unix }}"#,
        r#"{{ $t := fromToml "a = 2024-02-29T23:59:59.123+05:45" }}{{ $t.a }} {{ dateInZone "2006-01-02 15:04 MST" $t.a "UTC" }}"#,
        r#"{{ dateInZone "2006-01-02 15:04:05 MST -07:00" 1711846800 "Europe/Berlin" }} {{ dateInZone "2006-01-02 15:04:05 MST -07:00" 1711850400 "Europe/Berlin" }}"#,
        r#"{{ dateInZone "Mon Jan _2 15:04 MST" 1700000000 "Australia/Lord_Howe" }} {{ htmlDateInZone 0 "Pacific/Kiritimati" }}"#,
    ];
    let types = [
        r#"{{ typeOf .Values }} {{ kindOf .Values }} {{ printf "%T %v" .Values .Values }} {{ typeOf . }}"#,
        r#"{{ typeOf .Values.a }} {{ typeOf .Values.sub }} {{ typeOf (merge (dict) .Values) }} {{ typeOf (.Values | deepCopy) }}"#,
    ];
    let template: String = lines
        .iter()
        .chain(&types)
        .map(|l| format!("# {l}\n"))
        .collect();
    std::fs::write(chart.join("templates/times.yaml"), template).unwrap();
    std::fs::write(chart.join("values.yaml"), "a:\n  b: 1\nsub:\n  c: 2\n").unwrap();
    let sub = chart.join("charts/sub");
    std::fs::create_dir_all(sub.join("templates")).unwrap();
    std::fs::write(
        sub.join("Chart.yaml"),
        "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
    )
    .unwrap();
    std::fs::write(
        sub.join("templates/types.yaml"),
        "# {{ typeOf .Values }} {{ typeOf . }} {{ .Values.c }} {{ typeOf .Values.global }}\n",
    )
    .unwrap();
    let helm = helm.render(&RenderRequest::new(&chart).release(RELEASE, NAMESPACE));
    let ours = ours(&Case {
        chart: "times".to_string(),
        name: "default".to_string(),
        dir: chart.clone(),
        values_yaml: None,
    });
    for key in [
        "times/templates/times.yaml",
        "times/charts/sub/templates/types.yaml",
    ] {
        let helm_text = helm.as_ref().map(|t| t[key].clone());
        let ours_text = ours.as_ref().map(|t| t[key].clone());
        assert_eq!(ours_text, helm_text, "{key}");
    }
}
