import AprilTagBridge
import Foundation
import MarkerKit

/// The AprilTag 3 C library (Debian's libapriltag-dev 3.3) as a peer detector: what AprilTag users compare
/// against. Its defaults as the library ships them (`apriltag_detector_add_family`: 2 bits corrected,
/// decimation 2, edge refinement), on one thread; IDs and corners in OpenCV's conventions, so they compare
/// with OpenCV's DICT_APRILTAG_* and MarkerKit's directly. Its decode tables are large (34 MB for 36h11),
/// so detectors are made once and kept, one per call running at once.
public final class AprilTag3Detector: @unchecked Sendable {
    public let dictionary: MarkerDictionary
    private let family: String
    private let lock = NSLock()
    private var idle: [OpaquePointer] = []

    /// The AprilTag family of an OpenCV AprilTag dictionary, or nil for any other dictionary.
    public static func family(of dictionary: MarkerDictionary) -> String? {
        switch dictionary.id {
        case .aprilTag16h5: "tag16h5"
        case .aprilTag25h9: "tag25h9"
        case .aprilTag36h10: "tag36h10"
        case .aprilTag36h11: "tag36h11"
        default: nil
        }
    }

    public init(dictionary: MarkerDictionary) throws {
        guard let family = Self.family(of: dictionary) else {
            throw MarkerKitError.invalidArgument("AprilTag 3 reads AprilTag families only, not \(dictionary.name)")
        }
        self.dictionary = dictionary
        self.family = family
    }

    deinit {
        for detector in idle { mkat_detector_destroy(detector) }
    }

    /// The tags in `image`, as `MarkerDetection`s (corners top-left, top-right, bottom-right, bottom-left
    /// as OpenCV gives them, pixel centres at integers).
    public func detect(in image: GrayImage) throws -> [MarkerDetection] {
        let detector = try take()
        defer { give(detector) }
        var capacity = 64
        while true {
            var ids = [Int32](repeating: 0, count: capacity), corners = [Double](repeating: 0, count: 8 * capacity)
            let count = image.pixels.withUnsafeBufferPointer {
                mkat_detect(detector, $0.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), Int32(capacity), &ids, &corners)
            }
            guard count >= 0 else { throw MarkerKitError.badInput("AprilTag 3 could not read a \(image.width)x\(image.height) image") }
            guard Int(count) <= capacity else {
                capacity = Int(count)
                continue
            }
            return (0..<Int(count)).map { k in
                MarkerDetection(id: Int(ids[k]), corners: (0..<4).map { Point2(x: corners[8 * k + 2 * $0], y: corners[8 * k + 2 * $0 + 1]) })
            }
        }
    }

    private func take() throws -> OpaquePointer {
        lock.lock()
        let kept = idle.popLast()
        lock.unlock()
        if let kept { return kept }
        guard let made = mkat_detector_create(family, 1) else {
            throw MarkerKitError.badInput("AprilTag 3 could not make a \(family) detector (out of memory?)")
        }
        return made
    }

    private func give(_ detector: OpaquePointer) {
        lock.lock()
        idle.append(detector)
        lock.unlock()
    }
}

extension MarkerVerification.Contender {
    /// AprilTag 3 reading `dictionary`, or nil when it is no AprilTag family.
    public static func aprilTag3(dictionary: MarkerDictionary) -> MarkerVerification.Contender? {
        guard let detector = try? AprilTag3Detector(dictionary: dictionary) else { return nil }
        return MarkerVerification.Contender(name: "apriltag3") { try detector.detect(in: $0) }
    }
}
