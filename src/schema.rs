//! CRD schemas from a chart's values.
