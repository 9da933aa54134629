import ArgumentParser

/// The command line looked at before it is parsed, for two mistakes swift-argument-parser words in a way that
/// does not tell a user what to do.
enum ArgumentsPreflight {
    /// "--size -5mm": the parser takes "-5mm" for an option and reports a missing value. A word that reads as
    /// a negative number (a minus, then a digit or a point) after a long option without "=" is joined to it
    /// ("--size=-5mm"), so that the option's own range check words the refusal.
    static func joiningNegativeValues(_ arguments: [String]) -> [String] {
        var joined: [String] = []
        for word in arguments {
            if let last = joined.last, last.hasPrefix("--"), last.count > 2, !last.contains("="), isNegativeNumber(word) {
                joined[joined.count - 1] = last + "=" + word
            } else {
                joined.append(word)
            }
        }
        return joined
    }

    static func isNegativeNumber(_ word: String) -> Bool {
        guard word.hasPrefix("-"), let next = word.dropFirst().first else { return false }
        return next.isNumber || next == "."
    }

    /// A word where a subcommand belongs that names none: "unknown command 'calibrte'; did you mean
    /// 'calibrate'?", or the list of commands when none is close (at most two letters apart, or a prefix).
    static func unknownSubcommand(_ arguments: [String], root: any ParsableCommand.Type) -> String? {
        var command = root
        var path = [root._commandName]
        var words = arguments[...]
        if words.first == "help" { words = words.dropFirst() }
        for word in words {
            let subcommands = command.configuration.subcommands
            guard !subcommands.isEmpty, !word.hasPrefix("-") else { return nil }
            let names = subcommands.map { $0._commandName }
            if let index = names.firstIndex(of: word) {
                command = subcommands[index]
                path.append(word)
                continue
            }
            let close = names.filter { $0.hasPrefix(word) || editDistance(word, $0) <= 2 }
            // A word is echoed as typed up to 40 characters (a pasted megabyte stays one short line).
            let shown = word.count > 40 ? word.prefix(40) + "..." : word
            let what = "unknown command '\(shown)' for \(path.joined(separator: " "))"
            if close.count == 1 { return "\(what); did you mean '\(close[0])'?" }
            return "\(what) (commands: \(names.joined(separator: ", ")))"
        }
        return nil
    }

    /// Levenshtein distance: insertions, deletions and substitutions of one character each.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
