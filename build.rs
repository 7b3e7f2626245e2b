// The templates are embedded with include_dir!, which cannot tell cargo about the files it
// reads on stable Rust: without this, editing only a template would not rebuild the binary.
fn main() {
    println!("cargo:rerun-if-changed=templates");
}
