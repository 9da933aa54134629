// swift-tools-version:6.0
import Foundation
import PackageDescription

// MarkerKit by version, as another package depends on it. MARKERKIT_PACKAGE_URL names the git repository
// (`scripts/example-package-check` points it at a fresh clone tagged 0.1.0); without it, the repository
// this example sits in.
let markerKit = ProcessInfo.processInfo.environment["MARKERKIT_PACKAGE_URL"]
    ?? URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().deletingLastPathComponent().absoluteString

let package = Package(
    name: "DetectMarkers",
    dependencies: [
        .package(url: markerKit, from: "0.1.0"),
    ],
    targets: [
        .executableTarget(name: "detect-markers", dependencies: [.product(name: "MarkerKit", package: "MarkerKit")]),
    ]
)
