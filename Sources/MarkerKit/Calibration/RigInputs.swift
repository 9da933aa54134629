import Foundation

/// The synchronized images of a rig: one folder per camera, the images matched across folders by name.
/// A name matches with the folder's shared leading text taken off (`left01.jpg` and `right01.jpg` are
/// view `01`; `cam0/frame_0012.png` and `cam1/frame_0012.png` view `0012`), so OpenCV's left/right
/// samples and per-camera capture folders both pair up. Every image must have its partner in every other
/// folder; one that has not is refused by name, so that no view is paired with the wrong one.
public struct RigInputs: Sendable {
    /// The cameras' names (their folders' last components) and folders.
    public let cameras: [(name: String, folder: String)]
    /// The views' keys, sorted, and each camera's image for each view: `images[camera][view]`.
    public let views: [String]
    public let images: [[URL]]

    /// `option` names what the folders came with, put before messages ("" for nothing).
    public init(folders: [String], option: String = "") throws {
        let option = option.isEmpty ? "" : option + ": "
        guard folders.count >= 2 else {
            throw MarkerKitError.invalidArgument("\(option)one folder per camera, 2 or more (given \(folders.count))")
        }
        var keyed: [[String: URL]] = []
        var cameras: [(String, String)] = []
        for folder in folders {
            guard PathKind.of(folder) == .folder else {
                throw MarkerKitError.missingInput("\(option)'\(folder)' is not a folder (one folder of images per camera)")
            }
            let catalog = InputCatalog(paths: [folder])
            if let problem = catalog.problems.first { throw problem }
            let urls = catalog.items.compactMap { item -> URL? in if case .image(let url) = item { return url } else { return nil } }
            guard !urls.isEmpty else { throw MarkerKitError.missingInput("\(option)no images in '\(folder)'") }
            let keys = Self.keys(for: urls.map { $0.deletingPathExtension().lastPathComponent })
            var byKey: [String: URL] = [:]
            for (key, url) in zip(keys, urls) {
                if let other = byKey[key] {
                    throw MarkerKitError.badInput("\(option)'\(other.lastPathComponent)' and '\(url.lastPathComponent)' in '\(folder)' are both view '\(key)'")
                }
                byKey[key] = url
            }
            keyed.append(byKey)
            let name = (try? CalibrationStore.normalized(name: URL(fileURLWithPath: folder).standardizedFileURL.lastPathComponent)) ?? "camera\(cameras.count)"
            cameras.append((name, folder))
        }
        let all = Set(keyed.flatMap(\.keys)).sorted()
        for (index, byKey) in keyed.enumerated() {
            let missing = all.filter { byKey[$0] == nil }
            guard missing.isEmpty else {
                let owner = keyed.firstIndex { $0[missing[0]] != nil }!
                let example = keyed[owner][missing[0]]!.lastPathComponent
                throw MarkerKitError.badInput("\(option)\(counted(missing.count, "image")) of the other folders have no partner in '\(folders[index])' (first: '\(example)' of '\(folders[owner])', view '\(missing[0])'): each view needs an image from every camera, named alike")
            }
        }
        var names = Set<String>()
        for (index, camera) in cameras.enumerated() where !names.insert(camera.0).inserted {
            cameras[index].0 = "\(camera.0)-\(index)"
        }
        self.cameras = cameras
        views = all
        images = keyed.map { byKey in all.map { byKey[$0]! } }
    }

    /// Each name with the text all of them share at the start taken off, but not into a run of digits
    /// (`left01`...`left09` share `left0`, and lose only `left`).
    static func keys(for names: [String]) -> [String] {
        guard names.count > 1 else { return names.map { String($0.drop { !$0.isNumber }) }.map { $0.isEmpty ? names[0] : $0 } }
        var prefix = names[0]
        for name in names.dropFirst() {
            prefix = String(zip(prefix, name).prefix { $0 == $1 }.map(\.0))
        }
        while let last = prefix.last, last.isNumber { prefix.removeLast() }
        return names.map { String($0.dropFirst(prefix.count)) }
    }
}
