/// "1 marker", "2 markers", "0 markers": a count with its noun, plural unless the count is one.
public func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
