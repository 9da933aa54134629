import Foundation

/// The page's files (plain HTML, CSS and JavaScript from `Web/`, shipped as resources), read once at
/// start: a request names one of these by a fixed path, never a file.
struct WebPage: Sendable {
    struct File: Sendable {
        let data: Data
        let type: String
    }

    let files: [String: File]

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
            files[path] = File(data: try Data(contentsOf: url), type: type)
        }
        self.files = files
    }
}
