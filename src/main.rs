//! The `tessel` command-line tool.

fn main() {
    println!("tessel");
}
