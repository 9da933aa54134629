/// Small dense linear systems (the normal equations of least-squares fits).
public enum LinearSystem {
    /// Solves `a x = b` for a `size` x `size` row-major `a` by Gaussian elimination with partial
    /// pivoting; nil when `a` is singular or the result is not finite.
    public static func solve(_ a: [Double], _ b: [Double], size n: Int) -> [Double]? {
        var m = a, x = b
        for column in 0..<n {
            var pivot = column
            for row in (column + 1)..<max(n, column + 1) where abs(m[row * n + column]) > abs(m[pivot * n + column]) { pivot = row }
            guard abs(m[pivot * n + column]) > 1e-300 else { return nil }
            if pivot != column {
                for k in 0..<n { m.swapAt(pivot * n + k, column * n + k) }
                x.swapAt(pivot, column)
            }
            let diagonal = m[column * n + column]
            for row in (column + 1)..<max(n, column + 1) {
                let f = m[row * n + column] / diagonal
                guard f != 0 else { continue }
                for k in column..<n { m[row * n + k] -= f * m[column * n + k] }
                x[row] -= f * x[column]
            }
        }
        for row in stride(from: n - 1, through: 0, by: -1) {
            var sum = x[row]
            for k in (row + 1)..<max(n, row + 1) { sum -= m[row * n + k] * x[k] }
            x[row] = sum / m[row * n + row]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}
