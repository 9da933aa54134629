import Foundation
import MarkerKit

/// The page's files (plain HTML, CSS and JavaScript from `Web/`, shipped as resources), read once at
/// start: a request names one of these by a fixed path, never a file.
struct WebPage: Sendable {
    struct File: Sendable {
        let data: Data
        let type: String
    }

    let files: [String: File]

    /// Where the page's HTML takes the run's secret (`<meta name="markerkit-token" content="...">`).
    static let tokenPlaceholder = "{{MARKERKIT_TOKEN}}"

    /// Where the page's form lists the dictionaries: every OpenCV dictionary MarkerKit knows, in its order.
    static let dictionariesPlaceholder = "{{MARKERKIT_DICTIONARIES}}"
    static let dictionaryOptions = MarkerDictionary.Name.allCases.map { "<option value=\"\($0.shortName)\">\($0.shortName)</option>" }.joined()

    /// The script and the style: they hold no secret, and the page loads them without one.
    var openPaths: Set<String> { Set(files.keys.filter { $0 != "/" }) }

    /// The files as served in a run: the HTML with the run's secret in it (a 32-digit hex token, nothing to escape).
    func serving(token: String) -> [String: File] {
        files.mapValues { file in
            guard file.type.hasPrefix("text/html") else { return file }
            let html = String(decoding: file.data, as: UTF8.self).replacingOccurrences(of: Self.tokenPlaceholder, with: token)
            return File(data: Data(html.utf8), type: file.type)
        }
    }

    static let names: [(path: String, resource: String, type: String)] = [
        ("/", "index.html", "text/html; charset=utf-8"),
        ("/app.js", "app.js", "text/javascript; charset=utf-8"),
        ("/style.css", "style.css", "text/css; charset=utf-8"),
    ]

    init() throws {
        var files: [String: File] = [:]
        for (path, resource, type) in Self.names {
            let parts = resource.split(separator: ".")
            guard let url = Bundle.module.url(forResource: String(parts[0]), withExtension: String(parts[1]), subdirectory: "Web") else {
                throw ServerRefusal.notFound("the page's file \(resource) is missing from the installation")
            }
            let data = try Data(contentsOf: url)
            let page = type.hasPrefix("text/html")
                ? Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: Self.dictionariesPlaceholder, with: Self.dictionaryOptions).utf8) : data
            files[path] = File(data: page, type: type)
        }
        self.files = files
    }
}
