/// The version every generated file records.
public enum MarkerKitVersion {
    public static let string = "0.1.0"
    public static var generator: String { "markerkit \(string)" }
}
