//! Which kinds a chart's templates create. (Filled in by the RBAC work.)
