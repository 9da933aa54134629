import Foundation
import Testing

/// The folder layers drawn in docs/ARCHITECTURE.md, checked against the code. MarkerKit is one module,
/// so the ties between folders are the type names a file uses: a type declared at the top level of a
/// file in folder A and named in a file of folder B is an arrow B -> A.
@Suite struct LayerTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let library = root.appendingPathComponent("Sources/MarkerKit")

    /// The capitalised identifiers in Swift source, outside comments and string literals.
    static func typeNames(inCode text: String) -> Set<String> {
        let c = Array(text.unicodeScalars)
        var names = Set<String>()
        var i = 0
        func at(_ k: Int) -> Character { k < c.count ? Character(c[k]) : "\0" }
        func isWord(_ k: Int) -> Bool { k < c.count && (CharacterSet.alphanumerics.contains(c[k]) || c[k] == "_") }
        while i < c.count {
            if at(i) == "/" && at(i + 1) == "/" {
                while i < c.count && at(i) != "\n" { i += 1 }
            } else if at(i) == "/" && at(i + 1) == "*" {
                i += 2
                while i < c.count && !(at(i) == "*" && at(i + 1) == "/") { i += 1 }
                i += 2
            } else if at(i) == "\"" && at(i + 1) == "\"" && at(i + 2) == "\"" {
                i += 3
                while i < c.count && !(at(i) == "\"" && at(i + 1) == "\"" && at(i + 2) == "\"") { i += at(i) == "\\" ? 2 : 1 }
                i += 3
            } else if at(i) == "\"" {
                i += 1
                while i < c.count && at(i) != "\"" && at(i) != "\n" { i += at(i) == "\\" ? 2 : 1 }
                i += 1
            } else if isWord(i) {
                let start = i
                while isWord(i) { i += 1 }
                let word = String(String.UnicodeScalarView(c[start..<i]))
                if let first = word.unicodeScalars.first, CharacterSet.uppercaseLetters.contains(first) { names.insert(word) }
            } else {
                i += 1
            }
        }
        return names
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

    /// The arrows in the code: folder -> folders whose types it names, with one example each.
    static func arrowsInCode() throws -> [String: [String: String]] {
        let files = try sources()
        let declaration = try Regex(#"(?m)^(?:(?:public|internal|private|fileprivate|final|indirect|nonisolated|@\w+(?:\([^)]*\))?)\s+)*(?:struct|enum|class|protocol|typealias|actor)\s+([A-Z]\w*)"#)
        var owner: [String: String] = [:]
        for file in files {
            for match in file.text.matches(of: declaration) {
                if let name = match.output[1].substring { owner[String(name)] = file.folder }
            }
        }
        var arrows: [String: [String: String]] = [:]
        for file in files {
            for name in typeNames(inCode: file.text) {
                guard let other = owner[name], other != file.folder else { continue }
                arrows[file.folder, default: [:]][other] = arrows[file.folder]?[other] ?? "\(name) in \(file.path)"
            }
        }
        return arrows
    }

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
