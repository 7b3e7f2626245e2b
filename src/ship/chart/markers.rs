//! Go template text inside YAML that a serializer wrote: each place that varies is first a
//! marker word in the object (a scalar, a map key or a list item), the object is serialised
//! as plain YAML, and each marker is then replaced by its template text at the indentation
//! the serialiser gave it. Literal text is escaped so that a `{{` in a description can never
//! start a Go template action.

use serde_json::Value;

/// A piece of a scalar: literal text, or a Go template pipeline printed in its place.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    Action(String),
}

const PREFIX: &str = "oprschartmarker";

#[derive(Debug, Default)]
pub struct Markers {
    /// marker -> the scalar's template text
    scalars: Vec<(String, String)>,
    /// marker -> lines that replace the marker's whole line (a map entry or a list item);
    /// `%I%` in a line stands for the marker's indentation, `%I2%` for two more.
    blocks: Vec<(String, Vec<String>)>,
}

impl Markers {
    fn next(&self) -> String {
        format!("{PREFIX}{:05}", self.scalars.len() + self.blocks.len())
    }

    /// A scalar made of `parts`: one action alone is printed bare (a number stays a number),
    /// anything else as a double-quoted YAML string.
    pub fn scalar(&mut self, parts: &[Part]) -> Value {
        let text = match parts {
            [Part::Action(action)] => format!("{{{{ {action} }}}}"),
            _ => {
                let mut text = String::from("\"");
                for part in parts {
                    match part {
                        Part::Text(t) => {
                            let quoted = serde_json::to_string(t).unwrap_or_default();
                            text.push_str(&escape_go(&quoted[1..quoted.len() - 1]));
                        }
                        Part::Action(action) => text.push_str(&format!("{{{{ {action} }}}}")),
                    }
                }
                text.push('"');
                text
            }
        };
        let marker = self.next();
        self.scalars.push((marker.clone(), text));
        Value::String(marker)
    }

    /// A marker word that is replaced by `lines`: use it as a map key (with a null value) or
    /// as a list item.
    pub fn block(&mut self, lines: Vec<String>) -> String {
        let marker = self.next();
        self.blocks.push((marker.clone(), lines));
        marker
    }

    /// Replaces every marker in `yaml` (the serialised object, not yet escaped).
    pub fn finish(&self, yaml: &str) -> String {
        let escaped = escape_go(yaml);
        let mut out = String::with_capacity(escaped.len() * 2);
        for line in escaped.lines() {
            let trimmed = line.trim_start();
            let indent = line.len() - trimmed.len();
            // A list item's block stands where the item's `-` stood.
            let word = trimmed.strip_prefix("- ").unwrap_or(trimmed);
            let key = word.split(':').next().unwrap_or(word).trim();
            if let Some((_, lines)) = self.blocks.iter().find(|(m, _)| m == key) {
                for l in lines {
                    let l = l
                        .replace("%I2%", &(indent + 2).to_string())
                        .replace("%I%", &indent.to_string());
                    out.push_str(&" ".repeat(indent));
                    out.push_str(&l);
                    out.push('\n');
                }
                continue;
            }
            let mut line = line.to_string();
            if line.contains(PREFIX) {
                for (marker, text) in &self.scalars {
                    if line.contains(marker.as_str()) {
                        line = line.replace(marker.as_str(), text);
                    }
                }
            }
            out.push_str(&line);
            out.push('\n');
        }
        out
    }
}

/// Literal text as Go template text that prints it: every `{{` becomes an action printing it.
pub fn escape_go(text: &str) -> String {
    if text.contains("{{") {
        text.replace("{{", "{{ \"{{\" }}")
    } else {
        text.to_string()
    }
}

/// `parts` as template text, printed in place (no quoting).
pub fn parts_text(parts: &[Part]) -> String {
    parts
        .iter()
        .map(|part| match part {
            Part::Text(t) => escape_go(t),
            Part::Action(action) => format!("{{{{ {action} }}}}"),
        })
        .collect()
}

/// `value` as block YAML lines, for a block that restates part of an object.
pub fn yaml_lines(value: &Value) -> Vec<String> {
    escape_go(&crate::yaml::to_string(value))
        .lines()
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn markers_become_template_text_at_their_indentation() {
        let mut markers = Markers::default();
        let name = markers.scalar(&[Part::Action("include \"x.fullname\" $".into())]);
        let id = markers.scalar(&[
            Part::Text("--id=".into()),
            Part::Action("include \"x.fullname\" $".into()),
            Part::Text("-leader \"{{q}}\"".into()),
        ]);
        let labels = markers.block(vec!["{{- include \"x.labels\" $ | nindent %I% }}".into()]);
        let item = markers.block(vec![
            "{{- if $.Values.on }}".into(),
            "- --on".into(),
            "{{- end }}".into(),
        ]);
        let object = json!({
            "metadata": {"name": name, "labels": {labels: null, "a": "{{b}}"}},
            "args": [item, id],
        });
        let text = markers.finish(&crate::yaml::to_string(&object));
        assert!(
            text.contains("  name: {{ include \"x.fullname\" $ }}\n"),
            "{text}"
        );
        assert!(
            text.contains("    {{- include \"x.labels\" $ | nindent 4 }}\n"),
            "{text}"
        );
        assert!(text.contains("a: \"{{ \"{{\" }}b}}\""), "{text}");
        assert!(
            text.contains("{{- if $.Values.on }}\n- --on\n{{- end }}\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "- \"--id={{ include \"x.fullname\" $ }}-leader \\\"{{ \"{{\" }}q}}\\\"\""
            ),
            "{text}"
        );
    }
}
