//! RBAC rules from the kinds a chart or controller uses.
