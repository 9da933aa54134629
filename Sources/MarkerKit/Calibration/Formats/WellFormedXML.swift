/// Whether a text is plain, well-formed XML of the kind OpenCV's FileStorage writes: an optional
/// `<?xml ...?>` declaration, comments, elements with quoted attributes, text with the five named and
/// numeric entities, one root element. Anything else (DOCTYPE, CDATA, other processing instructions,
/// unbalanced tags) is refused. OpenCV 4.6's own XML reader dereferences null on some malformed
/// documents (`<?xml version=` alone crashes it; found by `make fuzz`), so XML is checked here before
/// OpenCV reads it. (Foundation's XMLParser was tried first; libxml2 used freed memory under it.)
enum WellFormedXML {
    static func check<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool where Bytes.Index == Int {
        var checker = Checker(bytes: Array(bytes))
        return checker.document()
    }

    private struct Checker {
        let bytes: [UInt8]
        var at = 0
        var open: [ArraySlice<UInt8>] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { at >= bytes.count }
        func peek(_ text: String) -> Bool {
            let t = Array(text.utf8)
            return at + t.count <= bytes.count && bytes[at..<(at + t.count)].elementsEqual(t)
        }
        mutating func skipSpace() { while !atEnd, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 } }
        static func isNameStart(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F }
        static func isName(_ b: UInt8) -> Bool { isNameStart(b) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x2E || b == 0x3A }

        mutating func name() -> ArraySlice<UInt8>? {
            guard !atEnd, Self.isNameStart(bytes[at]) else { return nil }
            let start = at
            while !atEnd, Self.isName(bytes[at]) { at += 1 }
            return bytes[start..<at]
        }

        /// `name="value"` pairs up to (not including) the closing `>`, `/>` or `?>`.
        mutating func attributes() -> Bool {
            while true {
                let before = at
                skipSpace()
                guard !atEnd else { return false }
                if bytes[at] == 0x3E || bytes[at] == 0x2F || bytes[at] == 0x3F { return true }
                guard at > before, name() != nil else { return false }
                skipSpace()
                guard !atEnd, bytes[at] == 0x3D else { return false }
                at += 1
                skipSpace()
                guard !atEnd, bytes[at] == 0x22 || bytes[at] == 0x27 else { return false }
                let quote = bytes[at]
                at += 1
                while !atEnd, bytes[at] != quote {
                    guard bytes[at] != 0x3C, bytes[at] != 0x26 || entity() else { return false }
                    at += 1
                }
                guard !atEnd else { return false }
                at += 1
            }
        }

        /// At `&`: one of the five named entities or a numeric one, consumed up to its `;` (left on it).
        mutating func entity() -> Bool {
            for named in ["&lt;", "&gt;", "&amp;", "&quot;", "&apos;"] where peek(named) {
                at += named.utf8.count - 1
                return true
            }
            guard peek("&#") else { return false }
            var end = at + 2
            if end < bytes.count, bytes[end] == 0x78 { end += 1 }
            let digitsStart = end
            while end < bytes.count, end - digitsStart < 8, (bytes[end] >= 0x30 && bytes[end] <= 0x39) || (bytes[end] | 0x20 >= 0x61 && bytes[end] | 0x20 <= 0x66) { end += 1 }
            guard end > digitsStart, end < bytes.count, bytes[end] == 0x3B else { return false }
            at = end
            return true
        }

        mutating func comment() -> Bool {
            at += 4 // <!--
            while !atEnd {
                if peek("--") { guard peek("-->") else { return false }; at += 3; return true }
                at += 1
            }
            return false
        }

        mutating func document() -> Bool {
            if peek("\u{FEFF}") { at += 3 }
            if peek("<?xml") {
                at += 5
                guard attributes(), peek("?>") else { return false }
                at += 2
            }
            var roots = 0
            while true {
                // Text between tags.
                while !atEnd, bytes[at] != 0x3C {
                    if bytes[at] == 0x26 { guard entity() else { return false } }
                    if open.isEmpty, ![0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { return false }
                    at += 1
                }
                if atEnd { return open.isEmpty && roots == 1 }
                if peek("<!--") {
                    guard comment() else { return false }
                } else if peek("</") {
                    at += 2
                    guard let closing = name(), let last = open.popLast(), closing.elementsEqual(last) else { return false }
                    skipSpace()
                    guard !atEnd, bytes[at] == 0x3E else { return false }
                    at += 1
                } else {
                    at += 1
                    guard open.count < 64, let opening = name(), attributes() else { return false }
                    if open.isEmpty { roots += 1; guard roots == 1 else { return false } }
                    if peek("/>") {
                        at += 2
                    } else if !atEnd, bytes[at] == 0x3E {
                        at += 1
                        open.append(opening)
                    } else {
                        return false
                    }
                }
            }
        }
    }
}
