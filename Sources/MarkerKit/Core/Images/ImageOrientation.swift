/// An image file's orientation tag (EXIF in a JPEG, PNG or WebP, or a TIFF's own) and whether the
/// picture was turned and mirrored to it: phones store pictures as the sensor saw them and say in this
/// tag how to show them. Detection runs on the picture as a viewer shows it, so corners, width and
/// height are in those displayed coordinates. JSON: `{"exif": 6, "applied": true}`.
public struct ImageOrientation: Codable, Sendable, Equatable {
    /// The tag's value: 1 as stored, 2 mirrored, 3 turned 180°, 4 mirrored top-bottom, 5 transposed,
    /// 6 turned 90° clockwise to show, 7 transverse, 8 turned 90° anticlockwise.
    public let exif: Int
    /// Whether the picture was read as the tag says (values 1-8; others are not orientations).
    public let applied: Bool

    public init(exif: Int, applied: Bool) {
        self.exif = exif
        self.applied = applied
    }

    /// What the bridge reports: the tag's value, 0 when the file has none.
    init?(tag: Int32) {
        guard tag != 0 else { return nil }
        self.init(exif: Int(tag), applied: (1...8).contains(tag))
    }
}
