//! Diff texts the tests share: the diff model's own and those of the code
//! built on it (`handlers/diff_position`), so that diff text is written
//! only under `diff/`.

/// The fake GitLab's README.md change: one hunk with each kind of line.
pub const README: &str =
    "@@ -1,3 +1,4 @@\n line one\n-line two\n+line two, changed\n+line added\n line three\n";

/// `src/orders.rs` changed in two hunks: new lines 8-16 and 32-35, old
/// lines 8-14 and 30-34 (as in tests/it/e2e_review.rs).
pub const ORDERS: &str = "@@ -8,7 +8,9 @@ fn refund() {\n a\n b\n c\n-old eleven\n+new eleven\n+new twelve\n+new thirteen\n d\n e\n f\n@@ -30,5 +32,4 @@\n g\n h\n-old thirty-two\n i\n j\n";
