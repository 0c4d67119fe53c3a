//! [`Order`]: how a matrix is stored, the one spelling of row- and column-major that the GEMM
//! library, its checks and the cuBLAS baseline ([`crate::measure::cublas`]) share.

/// How a matrix is stored: rows contiguous (row-major) or columns contiguous (column-major);
/// the leading dimension is the distance between consecutive rows (row-major) or columns.
///
/// ```
/// use tessel_kernels::blas::Order;
/// assert_eq!(Order::RowMajor.transposed(), Order::ColMajor);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// Rows contiguous: element `(i, j)` at `i * ld + j`.
    RowMajor,
    /// Columns contiguous: element `(i, j)` at `i + j * ld`.
    ColMajor,
}

impl Order {
    /// The order of the transposed matrix stored in the same memory.
    pub fn transposed(self) -> Order {
        match self {
            Order::RowMajor => Order::ColMajor,
            Order::ColMajor => Order::RowMajor,
        }
    }
}
