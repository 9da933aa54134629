// The Templates folder is a resource-only target: this accessor is its only code.
import Foundation

public enum TemplateFiles {
    /// The bundled data file `name` (for example "pages.json"), or nil if the bundle lacks it.
    public static func url(_ name: String) -> URL? {
        let base = (name as NSString).deletingPathExtension
        let ext = (name as NSString).pathExtension
        return Bundle.module.url(forResource: base, withExtension: ext.isEmpty ? nil : ext)
    }
}
