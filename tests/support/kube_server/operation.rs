//! One request's operation on the store, read from the HTTP request: what
//! [`super::http`] runs at once under the store's lock, and what [`super::intercept`] runs
//! first as a dry run when webhooks or a conversion stand between the request and the store.

use serde_json::Value;

use super::lifecycle::DeleteOptions;
use super::resources::ResourceType;
use super::store::{ApiError, PatchKind, Reply, State, Writer};

#[derive(Debug, Clone)]
pub enum Operation {
    Get,
    List {
        labels: Option<String>,
        fields: Option<String>,
    },
    Create(Value),
    Update(Value),
    Patch(Value, PatchKind),
    Delete(DeleteOptions),
    DeleteCollection {
        options: DeleteOptions,
        labels: Option<String>,
        fields: Option<String>,
    },
}

impl Operation {
    /// Reads the operation of `verb` (every verb but watch) from the body and the query.
    pub fn parse(
        verb: &str,
        body: &[u8],
        param: &dyn Fn(&str) -> Option<String>,
        content_type: &str,
    ) -> Result<Operation, ApiError> {
        Ok(match verb {
            "get" => Operation::Get,
            "list" => Operation::List {
                labels: param("labelSelector"),
                fields: param("fieldSelector"),
            },
            "create" => Operation::Create(parse_body(body)?),
            "update" => Operation::Update(parse_body(body)?),
            "patch" => {
                let kind = if content_type.starts_with("application/apply-patch") {
                    if param("fieldManager").is_none() {
                        return Err(ApiError::new(
                            400,
                            "BadRequest",
                            "PATCH, application/apply-patch+yaml requests must include fieldManager",
                        ));
                    }
                    PatchKind::Apply {
                        force: param("force").is_some_and(|v| v == "true"),
                    }
                } else if content_type.starts_with("application/json-patch+json") {
                    PatchKind::Json
                } else if content_type.starts_with("application/merge-patch+json")
                    // Strategic merge patches are read as merge patches: close enough for the
                    // kubectl commands tests use (annotate, label, edit of scalars).
                    || content_type.starts_with("application/strategic-merge-patch+json")
                {
                    PatchKind::Merge
                } else {
                    return Err(ApiError::new(
                        415,
                        "UnsupportedMediaType",
                        format!("the test server does not accept patches of type {content_type}"),
                    ));
                };
                Operation::Patch(parse_body(body)?, kind)
            }
            "delete" => Operation::Delete(DeleteOptions::parse(body, param)?),
            "deletecollection" => Operation::DeleteCollection {
                options: DeleteOptions::parse(body, param)?,
                labels: param("labelSelector"),
                fields: param("fieldSelector"),
            },
            other => {
                return Err(ApiError::new(
                    405,
                    "MethodNotAllowed",
                    format!("{other} is not an operation on the store"),
                ));
            }
        })
    }

    pub fn verb(&self) -> &'static str {
        match self {
            Operation::Get => "get",
            Operation::List { .. } => "list",
            Operation::Create(_) => "create",
            Operation::Update(_) => "update",
            Operation::Patch(..) => "patch",
            Operation::Delete(_) => "delete",
            Operation::DeleteCollection { .. } => "deletecollection",
        }
    }

    /// Runs it on the store.
    pub fn execute(
        &self,
        state: &mut State,
        t: &ResourceType,
        namespace: Option<&str>,
        name: &str,
        writer: Writer<'_>,
    ) -> Reply {
        match self {
            Operation::Get => state.get(t, namespace, name),
            Operation::List { labels, fields } => {
                state.list(t, namespace, labels.as_deref(), fields.as_deref())
            }
            Operation::Create(body) => state.create(t, namespace, body.clone(), writer),
            Operation::Update(body) => state.update(t, namespace, name, body.clone(), writer),
            Operation::Patch(patch, kind) => {
                state.patch(t, namespace, name, patch.clone(), *kind, writer)
            }
            Operation::Delete(options) => state.delete(t, namespace, name, options),
            Operation::DeleteCollection {
                options,
                labels,
                fields,
            } => {
                state.delete_collection(t, namespace, labels.as_deref(), fields.as_deref(), options)
            }
        }
    }
}

/// JSON, YAML (apply bodies may be either) or protobuf (client-go's typed clients).
pub fn parse_body(body: &[u8]) -> Result<Value, ApiError> {
    if super::protobuf::is_protobuf(body) {
        return super::protobuf::to_json(body)
            .map_err(|e| ApiError::new(415, "UnsupportedMediaType", e));
    }
    if let Ok(value) = serde_json::from_slice(body) {
        return Ok(value);
    }
    let text = std::str::from_utf8(body)
        .map_err(|_| ApiError::new(400, "BadRequest", "the body is not UTF-8"))?;
    serde_saphyr::from_str(text).map_err(|e| {
        ApiError::new(
            400,
            "BadRequest",
            format!("the body is neither JSON nor YAML: {e}"),
        )
    })
}
