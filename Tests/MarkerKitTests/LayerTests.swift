import Foundation
import Testing

/// The folder layers drawn in docs/ARCHITECTURE.md, checked against the code. MarkerKit is one module,
/// so the ties between folders are the type names a file uses: a type declared at the top level of a
/// file in folder A and named in a file of folder B is an arrow B -> A.
@Suite struct LayerTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let library = root.appendingPathComponent("Sources/MarkerKit")

    /// Swift source split into its code (comments and string literals blanked) and the contents of its
    /// string literals. An interpolation is taken as part of its string.
    static func scan(_ text: String) -> (code: String, strings: [String]) {
        let c = Array(text.unicodeScalars)
        var code = String.UnicodeScalarView(), strings: [String] = []
        var i = 0
        func at(_ k: Int) -> Character { k < c.count ? Character(c[k]) : "\0" }
        func isTriple(_ k: Int) -> Bool { at(k) == "\"" && at(k + 1) == "\"" && at(k + 2) == "\"" }
        /// Blanks c[i..<end] (a newline stays a newline), keeping c[from..<to] as a string literal.
        func blank(to end: Int, literal: Range<Int>? = nil) {
            let end = min(end, c.count)
            if let literal { strings.append(String(String.UnicodeScalarView(c[min(literal.lowerBound, end)..<min(literal.upperBound, end)]))) }
            for k in i..<end { code.append(c[k] == "\n" ? "\n" : " ") }
            i = end
        }
        while i < c.count {
            var j = i
            if at(i) == "/" && at(i + 1) == "/" {
                while j < c.count && at(j) != "\n" { j += 1 }
                blank(to: j)
            } else if at(i) == "/" && at(i + 1) == "*" {
                j += 2
                while j < c.count && !(at(j) == "*" && at(j + 1) == "/") { j += 1 }
                blank(to: j + 2)
            } else if isTriple(i) {
                j += 3
                while j < c.count && !isTriple(j) { j += at(j) == "\\" ? 2 : 1 }
                blank(to: j + 3, literal: i + 3..<j)
            } else if at(i) == "\"" {
                j += 1
                while j < c.count && at(j) != "\"" && at(j) != "\n" { j += at(j) == "\\" ? 2 : 1 }
                blank(to: j + 1, literal: i + 1..<j)
            } else {
                code.append(c[i])
                i += 1
            }
        }
        return (String(code), strings)
    }

    /// The identifiers in code (as `scan` leaves it).
    static func words(inCode code: String) -> [Substring] {
        code.split { !($0.isLetter || $0.isNumber || $0 == "_") }
    }

    /// The capitalised identifiers in Swift source, outside comments and string literals.
    static func typeNames(inCode text: String) -> Set<String> {
        Set(words(inCode: scan(text).code).filter { $0.first!.isUppercase }.map(String.init))
    }

    struct Layer: Equatable {
        var level: Int
        var uses: Set<String>
    }

    /// The table between `<!-- layers` and `<!-- /layers -->`: `| Folder | Layer | Uses |`.
    static func documentedLayers() throws -> [String: Layer] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let start = try #require(text.range(of: "<!-- layers"), "docs/ARCHITECTURE.md has no layers table")
        let end = try #require(text.range(of: "<!-- /layers -->"))
        var layers: [String: Layer] = [:]
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") where line.hasPrefix("|") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 3, let level = Int(cells[1]) else { continue }
            let uses = cells[2].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            layers[cells[0]] = Layer(level: level, uses: Set(uses))
        }
        return layers
    }

    /// Every Swift file of the library with its top folder.
    static func sources() throws -> [(folder: String, path: String, text: String)] {
        let enumerator = try #require(FileManager.default.enumerator(atPath: library.path))
        var files: [(String, String, String)] = []
        for case let path as String in enumerator where path.hasSuffix(".swift") {
            let parts = path.split(separator: "/")
            let folder = parts.count > 1 ? String(parts[0]) : "."
            files.append((folder, path, try String(contentsOf: library.appendingPathComponent(path), encoding: .utf8)))
        }
        return files.sorted { $0.1 < $1.1 }
    }

    /// The identifiers a file's code (as `scan` leaves it) calls as functions (`name(`, not `x.name(`)
    /// and those it names as members (`.name`).
    static func uses(inCode code: String) -> (calls: Set<String>, members: Set<String>) {
        let c = Array(code.unicodeScalars)
        var calls = Set<String>(), members = Set<String>()
        var i = 0
        func isWord(_ k: Int) -> Bool { k < c.count && (CharacterSet.alphanumerics.contains(c[k]) || c[k] == "_") }
        while i < c.count {
            guard isWord(i) else { i += 1; continue }
            let start = i
            while isWord(i) { i += 1 }
            let word = String(String.UnicodeScalarView(c[start..<i]))
            if start > 0 && c[start - 1] == "." { members.insert(word) } else if i < c.count && c[i] == "(" { calls.insert(word) }
        }
        return (calls, members)
    }

    /// What a folder owns besides its types: its top-level functions (called as `name(`) and the members
    /// its extensions add to any type (named as `.name`), each when no other declaration in the library
    /// has its name (a name declared twice could be either).
    static func functionOwners(_ files: [(folder: String, path: String, text: String)]) throws -> (free: [String: String], members: [String: String]) {
        let modifiers = #"(?:(?:public|internal|static|mutating|nonisolated|@\w+(?:\([^)]*\))?)\s+)*"#
        let freeFunction = try Regex("(?m)^" + modifiers + #"func\s+(\w+)"#)
        let extensionBody = try Regex(#"(?ms)^(?:public\s+)?extension\s+[^{\n]*\{\n(.*?)^\}"#)
        let member = try Regex("(?m)^    " + modifiers + #"(?:func|var|let)\s+(\w+)"#)
        let anyDeclaration = try Regex(#"\b(?:func|var|let|case)\s+(\w+)"#)
        var declared: [String: Int] = [:]
        var free: [String: String] = [:], members: [String: String] = [:]
        for file in files {
            let code = scan(file.text).code
            for match in code.matches(of: anyDeclaration) { declared[String(match.output[1].substring!), default: 0] += 1 }
            for match in code.matches(of: freeFunction) { free[String(match.output[1].substring!)] = file.folder }
            for body in code.matches(of: extensionBody) {
                for match in String(body.output[1].substring!).matches(of: member) { members[String(match.output[1].substring!)] = file.folder }
            }
        }
        return (free.filter { declared[$0.key] == 1 }, members.filter { declared[$0.key] == 1 })
    }

    /// The arrows in the code: folder -> folders whose types, top-level functions or extension members it
    /// uses, with one example each.
    static func arrowsInCode(_ files: [(folder: String, path: String, text: String)]) throws -> [String: [String: String]] {
        let declaration = try Regex(#"(?m)^(?:(?:public|internal|private|fileprivate|final|indirect|nonisolated|@\w+(?:\([^)]*\))?)\s+)*(?:struct|enum|class|protocol|typealias|actor)\s+([A-Z]\w*)"#)
        var owner: [String: String] = [:]
        for file in files {
            for match in file.text.matches(of: declaration) {
                if let name = match.output[1].substring { owner[String(name)] = file.folder }
            }
        }
        let (free, members) = try functionOwners(files)
        var arrows: [String: [String: String]] = [:]
        for file in files {
            func arrow(to other: String?, _ what: String) {
                guard let other, other != file.folder else { return }
                arrows[file.folder, default: [:]][other] = arrows[file.folder]?[other] ?? "\(what) in \(file.path)"
            }
            let code = scan(file.text).code
            for name in typeNames(inCode: file.text) { arrow(to: owner[name], name) }
            let (calls, used) = uses(inCode: code)
            for name in calls { arrow(to: free[name], name + "()") }
            for name in used { arrow(to: members[name], "." + name) }
        }
        return arrows
    }

    static func arrowsInCode() throws -> [String: [String: String]] { try arrowsInCode(try sources()) }

    @Test func everyFolderIsInTheTable() throws {
        let layers = try Self.documentedLayers()
        let folders = Set(try Self.sources().map(\.folder))
        #expect(!folders.contains("."), "Sources/MarkerKit holds files outside any folder")
        #expect(folders.subtracting(["."]) == Set(layers.keys), "folders in the code vs the table")
    }

    @Test func theTableIsLayered() throws {
        let layers = try Self.documentedLayers()
        for (folder, layer) in layers {
            for used in layer.uses {
                let usedLayer = try #require(layers[used], "\(folder) uses \(used), which the table does not list")
                #expect(usedLayer.level < layer.level, "\(folder) (layer \(layer.level)) uses \(used) (layer \(usedLayer.level))")
            }
        }
    }

    @Test func theCodeHasExactlyTheArrowsOfTheTable() throws {
        let layers = try Self.documentedLayers()
        let arrows = try Self.arrowsInCode()
        for (folder, uses) in arrows {
            for (used, example) in uses.sorted(by: { $0.key < $1.key }) {
                #expect(layers[folder]?.uses.contains(used) == true, "\(folder) -> \(used) is not in docs/ARCHITECTURE.md (\(example))")
            }
        }
        for (folder, layer) in layers {
            for used in layer.uses.sorted() {
                #expect(arrows[folder]?[used] != nil, "docs/ARCHITECTURE.md lists \(folder) -> \(used), which the code no longer has")
            }
        }
    }

    /// The scanner itself: a type named only in a comment or a string is no arrow; one in code is.
    @Test func theScannerSeesCodeNotCommentsOrStrings() {
        let code = "let a = Calibrator() // MarkerDetector\nlet b = \"Quad \\(x)\" + Length.mm\n/* Frame */ let s = \"\"\"\nGrayImage\n\"\"\"\n"
        #expect(Self.typeNames(inCode: code) == ["Calibrator", "Length"])
        #expect(Self.scan(code).strings == ["Quad \\(x)", "\nGrayImage\n"])
    }

    /// Top-level functions and the members extensions add are arrows too (before, only type names were:
    /// a folder could call another's free function or extension and no test saw it).
    @Test func freeFunctionsAndExtensionMembersAreArrows() throws {
        let files: [(folder: String, path: String, text: String)] = [
            ("Core", "Core/a.swift", "func roundedUp(_ x: Double) -> Int { 0 }\nextension Double {\n    public var halved: Double { self / 2 }\n    private var hidden: Int { 1 }\n}\n"),
            ("Print", "Print/b.swift", "let n = roundedUp(2) // halved\n"),
            ("Camera", "Camera/c.swift", "let h = 4.0.halved + 1.hidden\nlet s = \"roundedUp(1)\"\n"),
            ("Boards", "Boards/d.swift", "func roundedUp(_ x: Int) -> Int { x }\n"), // the name is declared twice: no arrow
        ]
        let (free, members) = try Self.functionOwners(files)
        #expect(free.isEmpty && members == ["halved": "Core"], "\(free) \(members)")
        let arrows = try Self.arrowsInCode(Array(files.prefix(3)))
        #expect(arrows == ["Print": ["Core": "roundedUp() in Print/b.swift"], "Camera": ["Core": ".halved in Camera/c.swift"]], "\(arrows)")
        // The library's own: its free functions and extension members are seen.
        let library = try Self.functionOwners(try Self.sources())
        print("LayerTests: \(library.free.count) free functions and \(library.members.count) extension members owned by one folder")
        #expect(library.free.count >= 4 && library.members.count >= 10, "\(library)")
    }

    /// The library's messages name no command-line flag (other packages use it; the tool words the flags,
    /// `Remedy`): no string literal in Sources/MarkerKit or Sources/MarkerKitServer holds `--name`.
    @Test func noLibraryStringNamesAFlag() throws {
        let flag = try Regex(#"(?:^|[^\w-])--[a-zA-Z]"#)
        var seen = 0
        for folder in ["Sources/MarkerKit", "Sources/MarkerKitServer"] {
            let base = Self.root.appendingPathComponent(folder)
            let enumerator = try #require(FileManager.default.enumerator(atPath: base.path))
            for case let path as String in enumerator where path.hasSuffix(".swift") {
                for literal in Self.scan(try String(contentsOf: base.appendingPathComponent(path), encoding: .utf8)).strings {
                    seen += 1
                    if literal.contains(flag) { Issue.record("\(folder)/\(path): \"\(literal.prefix(120))\" names a flag") }
                }
            }
        }
        #expect(seen > 1000, "string literals read: \(seen)")
        #expect("see --size".contains(flag) && !"a -- b, x--y".contains(flag))
    }

    /// The command-line layer stays thin: no file over 120 lines, and no command type (a
    /// `struct X: ParsableCommand`) named outside its own file, the files that extend it, and its parent's
    /// `subcommands:` list.
    @Test func commandFilesAreShortAndUseNoOtherCommand() throws {
        let cli = Self.root.appendingPathComponent("Sources/markerkit")
        let enumerator = try #require(FileManager.default.enumerator(atPath: cli.path))
        var files: [String: String] = [:]
        for case let path as String in enumerator where path.hasSuffix(".swift") {
            files[path] = try String(contentsOf: cli.appendingPathComponent(path), encoding: .utf8)
        }
        #expect(files.count > 10)
        let command = try Regex(#"(?m)^struct (\w+): (?:Async)?ParsableCommand"#)
        let extensionOf = try Regex(#"(?m)^extension (\w+)\b"#)
        var homes: [String: Set<String>] = [:]
        for (path, text) in files {
            for match in text.matches(of: command) { homes[String(match.output[1].substring!), default: []].insert(path) }
        }
        for (path, text) in files {
            for match in text.matches(of: extensionOf) where homes[String(match.output[1].substring!)] != nil {
                homes[String(match.output[1].substring!)]!.insert(path)
            }
        }
        #expect(homes.count >= 10, "commands found: \(homes.keys.sorted())")
        for (path, text) in files.sorted(by: { $0.key < $1.key }) {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
            #expect(lines <= 120, "Sources/markerkit/\(path) has \(lines) lines")
            var code = text
            while let start = code.range(of: "subcommands: ["), let end = code[start.upperBound...].firstIndex(of: "]") {
                code.removeSubrange(start.lowerBound...end)
            }
            for name in Self.typeNames(inCode: code) where homes[name] != nil && !homes[name]!.contains(path) {
                Issue.record("Sources/markerkit/\(path) uses the command type \(name) of \(homes[name]!.sorted())")
            }
        }
    }
}
