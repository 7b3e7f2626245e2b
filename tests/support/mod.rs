pub mod openapi;
