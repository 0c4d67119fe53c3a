//! Every ```console block of README.md, run against the built `tessel` (filled in below).
